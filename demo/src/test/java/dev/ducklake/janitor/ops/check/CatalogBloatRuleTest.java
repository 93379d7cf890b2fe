package dev.ducklake.janitor.ops.check;

import dev.ducklake.janitor.catalog.health.Finding;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 13: catalog_bloat reads the dead rows of pg_class/pg_attribute/pg_type/pg_depend against both thresholds. */
class CatalogBloatRuleTest {

    @Test
    void droppedTablesLeaveDeadCatalogRowsThatTheThresholdsDecideAbout() throws Exception {
        TestPostgres pg = TestPostgres.get();
        String schema = pg.freshSchema("check_bloat");
        try (Connection c = pg.connect()) {
            new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
            for (int i = 0; i < 200; i++) {
                Catalogs.exec(c, "CREATE TABLE " + Sql.qualified(schema, "scratch_" + i) + " (a int, b int, c int, d int)");
            }
            for (int i = 0; i < 200; i++) {
                Catalogs.exec(c, "DROP TABLE " + Sql.qualified(schema, "scratch_" + i));
            }
        }
        CheckOptions low = CheckOptions.defaults().withMetadataSchema(schema).withBloatThresholds(1000, 0.0);
        Finding found = null;
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (found == null && System.nanoTime() < deadline) {
            // the statistics collector reports dead rows with a delay
            CheckResult r = new CatalogCheck(pg.spec(), low).execute();
            assertThat(r.errors()).isEmpty();
            found = r.finding("catalog_bloat").orElse(null);
            if (found == null) {
                Thread.sleep(500);
            }
        }
        assertThat(found).as("1,000+ dead pg_attribute rows after dropping 200 tables of 4 columns").isNotNull();
        assertThat(found.count()).isBetween(1L, 4L);
        assertThat(found.examples()).anyMatch(e -> e.startsWith("'pg_attribute' dead_rows="));
        assertThat(found.fix()).contains("never VACUUM FULL");
        CheckResult high = new CatalogCheck(pg.spec(), low.withBloatThresholds(1000, 1e9)).execute();
        assertThat(high.counts().get("catalog_bloat")).as("not above the dead-to-live ratio").isZero();
    }
}
