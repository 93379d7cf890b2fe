package dev.ducklake.janitor.ops.check;

import dev.ducklake.janitor.catalog.health.CheckRule;
import dev.ducklake.janitor.catalog.health.CheckRules;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.metrics.CatalogHealthCollector;
import dev.ducklake.janitor.metrics.CollectResult;
import dev.ducklake.janitor.metrics.Exposition;
import dev.ducklake.janitor.metrics.MetricFamily;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 13: the gauge ducklake_check_findings{kind} comes from the same rules as check and agrees with it. */
class CheckFindingsMetricTest {

    @Test
    void theGaugeEqualsCheckForEveryKindItExports() throws Exception {
        TestPostgres pg = TestPostgres.get();
        String schema = pg.freshSchema("check_metric");
        try (Connection c = pg.connect()) {
            new DamagedCatalog(schema, FormatVersion.V1_0).build(c);
        }
        CheckResult check = new CatalogCheck(pg.spec(), CheckOptions.defaults().withMetadataSchema(schema)).execute();
        CollectResult r;
        try (Connection c = pg.connect()) {
            r = new CatalogHealthCollector(c, schema, "lake", Duration.ofSeconds(30), List.of()).collect();
        }
        assertThat(r.errors()).isEmpty();
        MetricFamily f = r.families().stream().filter(m -> m.name().equals("ducklake_check_findings")).findFirst().orElseThrow();
        assertThat(f.samples()).hasSize(CheckRules.all().size());
        for (CheckRule rule : CheckRules.all()) {
            assertThat(f.valueFor("lake", rule.kind(), CheckRules.severityOf(rule.kind()))).as(rule.kind()).isEqualTo((double) check.counts().get(rule.kind()));
        }
        assertThat(f.valueFor("lake", "orphaned_stats_rows", "debris")).isEqualTo(6);
        assertThat(Exposition.text(r.families()))
                .contains("ducklake_check_findings{catalog=\"lake\",kind=\"dead_inlined_rows\",severity=\"debris\"} 1")
                .contains("ducklake_check_findings{catalog=\"lake\",kind=\"rows_beyond_last_snapshot\",severity=\"damage\"} 1");
    }
}
