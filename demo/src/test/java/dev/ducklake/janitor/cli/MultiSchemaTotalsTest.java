package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Found by trying it: the text total of a multi-schema execute run printed "would drop 0" and a dry run's
 * "dropped 0", which reads as if nothing happened / nothing would.
 */
class MultiSchemaTotalsTest {

    @Test
    void textTotalShowsWhatTheKindOfRunDid() throws Exception {
        TestPostgres pg = TestPostgres.get();
        String a;
        String b;
        try (Connection c = pg.connect()) {
            a = FaultCatalog.build(c, pg.freshSchema("totals_a"), 3).schema;
            b = FaultCatalog.build(c, pg.freshSchema("totals_b"), 4).schema;
        }
        CliRun dry = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", a, "--metadata-schema", b,
                "--dry-run");
        assertThat(dry.exitCode()).as(dry.toString()).isZero();
        String dryTotal = dry.out().substring(dry.out().indexOf("total over"));
        assertThat(dryTotal).containsPattern("would drop +9").doesNotContainPattern("\\n  dropped +");
        CliRun run = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", a, "--metadata-schema", b,
                "--yes");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        String total = run.out().substring(run.out().indexOf("total over"));
        assertThat(total).containsPattern("\\n  dropped +9").doesNotContain("would drop");
    }
}
