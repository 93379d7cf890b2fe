package dev.ducklake.janitor.badinput;

import dev.ducklake.janitor.testsupport.CatalogInvariants;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Metadata schemas with names an operator may really have (DuckLake quotes METADATA_SCHEMA): '%' (found by trying
 * it: an execute run on schema {@code a/b c%} ended with exit 1, UnknownFormatConversionException, because the quoted
 * name went into a String.format pattern), quotes, spaces, upper case and non-ASCII letters. Dry run and execute run
 * work, drop exactly the droppable orphans and converge.
 */
class HostileSchemaNameTest {

    private final TestPostgres pg = TestPostgres.get();

    @ParameterizedTest
    @ValueSource(strings = {"a/b c%", "pct%s%n%1$s", "My \"Tenant\"", "it's;drop", "Ünïcode_ß", "UPPER"})
    void dryRunAndExecuteWorkOnTheSchema(String base) throws Exception {
        String schema = base + " " + ProcessHandle.current().pid() + "_" + System.nanoTime() % 100_000;
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, schema, 8);
        }
        CliRun dry = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", schema, "--dry-run",
                "--output", "json");
        assertThat(dry.exitCode()).as(dry.toString()).isZero();
        assertThat(dry.json().get("schema").asText()).isEqualTo(schema);
        CliRun run = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", schema, "--yes",
                "--batch-size", "3", "--output", "json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.json().get("dropped").asLong()).isEqualTo(cat.orphans.size());
        try (Connection c = pg.connect()) {
            assertThat(cat.check(c)).as("exactly the droppable orphans went").hasSize(cat.orphans.size());
            CatalogInvariants.assertNoDroppableOrphans(c, schema);
        }
    }
}
