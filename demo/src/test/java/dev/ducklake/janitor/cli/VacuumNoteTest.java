package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;

import static dev.ducklake.janitor.testsupport.Catalogs.unregister;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The vacuum note after an execute run counts every dropped table (found by trying it: a single-schema run that
 * dropped only unregistered leftovers printed no note, one that dropped both counted only the registered ones).
 */
class VacuumNoteTest {

    private final TestPostgres pg = TestPostgres.get();

    @Test
    void noteCountsUnregisteredLeftoversToo() throws Exception {
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, pg.freshSchema("vac_note"), 5);
            for (var o : cat.orphans) {
                unregister(c, cat.schema, o.tableId());
            }
        }
        CliRun r = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", cat.schema, "--yes",
                "--include-unregistered");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        int n = cat.orphans.size();
        assertThat(r.out()).containsPattern("dropped unregistered +" + n);
        assertThat(r.err()).as("the note names every table dropped").contains("dead rows of the " + n + " dropped tables");
        // found by trying it: the execute run listed the leftovers it had just dropped as "unregistered orphan: <name>"
        assertThat(r.out()).as("dropped leftovers are not listed as if still there")
                .doesNotContain("unregistered orphan: ").contains("unregistered orphan found at start: ");
    }
}
