package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Found by trying it: a failed metrics query (exit 9) printed the hint of a maintenance run, "The work committed so
 * far is kept and consistent; rerun to resume", which means nothing for a command that only reads.
 * The hint is now one that fits every command.
 */
class MetricsErrorHintTest {

    @Test
    void failedQueryHintFitsAReadOnlyCommand() throws Exception {
        TestPostgres pg = TestPostgres.get();
        String schema;
        try (Connection c = pg.connect()) {
            schema = FaultCatalog.build(c, pg.freshSchema("metrics_hint"), 2).schema;
        }
        Path yaml = Files.createTempFile("metrics", ".yaml");
        try {
            Files.writeString(yaml, """
                    catalogs:
                      - name: lake
                        connection: ${env:LAKE}
                        metadata_schema: %s
                    queries:
                      - name: broken_gauge
                        help: Divides by zero.
                        sql: SELECT 1/0 AS value
                    """.formatted(schema));
            CliRun r = CliRun.run(Map.of("LAKE", pg.url()), "metrics", "--config", yaml.toString());
            assertThat(r.exitCode()).as(r.toString()).isEqualTo(9);
            assertThat(r.err()).contains("broken_gauge").doesNotContain("rerun to resume").contains("Fix the cause");
        } finally {
            Files.deleteIfExists(yaml);
        }
    }
}
