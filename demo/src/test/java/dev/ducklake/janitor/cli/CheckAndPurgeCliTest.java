package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FakePushgateway;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 13: the check and purge-orphan-stats commands: exit codes, text and JSON, several schemas, Pushgateway gauges. */
class CheckAndPurgeCliTest {

    private final TestPostgres pg = TestPostgres.get();
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A healthy catalog plus orphaned stats: 1 table stats row and 3 column stats rows of table_id 900. */
    private String catalogWithOrphanStats() throws Exception {
        String schema = pg.freshSchema("cli_check");
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
            long t = b.createTable("t", 1);
            b.insertRows(t, 2);
            Catalogs.exec(c, "INSERT INTO \"" + schema + "\".ducklake_table_stats VALUES (900, 1, 1, 1), (" + t + ", 2, 2, 0)");
            Catalogs.exec(c, "INSERT INTO \"" + schema + "\".ducklake_table_column_stats (table_id, column_id) VALUES (900, 1), (900, 2),"
                    + " (900, 3), (" + t + ", 1)");
        }
        return schema;
    }

    @Test
    void checkExits12WithFindingsAndZeroWhenClean() throws Exception {
        String schema = catalogWithOrphanStats();
        CliRun text = CliRun.run("check", "--catalog", pg.url(), "--metadata-schema", schema, "--bloat-min-dead-rows", "1000000000");
        assertThat(text.exitCode()).as("stderr: %s", text.err()).isEqualTo(12);
        assertThat(text.out()).contains("orphaned_stats_rows (debris): 4").contains("table_id=900").contains("fix: ducklake-janitor purge-orphan-stats")
                .contains("findings");
        assertThat(text.out().lines().filter(l -> l.startsWith("  ") && l.contains("| fix:")).count()).as("one line per finding kind").isEqualTo(1);

        CliRun json = CliRun.run("check", "--catalog", pg.url(), "--metadata-schema", schema, "--output", "json",
                "--bloat-min-dead-rows", "1000000000");
        assertThat(json.exitCode()).isEqualTo(12);
        JsonNode doc = JSON.readTree(json.out());
        assertThat(doc.path("operation").asText()).isEqualTo("check");
        assertThat(doc.path("status").asText()).isEqualTo("findings");
        assertThat(doc.path("exit_code").asInt()).isEqualTo(12);
        assertThat(doc.path("findings")).hasSize(1);
        JsonNode f = doc.path("findings").get(0);
        assertThat(f.path("kind").asText()).isEqualTo("orphaned_stats_rows");
        assertThat(f.path("count").asLong()).isEqualTo(4);
        assertThat(f.path("examples").get(0).asText()).contains("table_id=900");
        assertThat(f.path("fix").asText()).contains("purge-orphan-stats");

        // purge: dry run counts, execute deletes exactly those rows, then check is clean
        CliRun dry = CliRun.run("purge-orphan-stats", "--catalog", pg.url(), "--metadata-schema", schema, "--dry-run", "--output", "json");
        assertThat(dry.exitCode()).as("stderr: %s", dry.err()).isZero();
        JsonNode d = JSON.readTree(dry.out());
        assertThat(d.path("orphan_rows_total").asLong()).isEqualTo(4);
        // a dry run says what the execute run would delete (not "deleted 0"), under would keys
        assertThat(d.path("rows_would_delete_total").asLong()).isEqualTo(4);
        assertThat(d.path("rows_would_delete").path("ducklake_table_column_stats").asLong()).isEqualTo(3);
        assertThat(d.has("rows_deleted_total") || d.has("rows_deleted") || d.has("table_ids_purged")).as(d.toString()).isFalse();
        CliRun purge = CliRun.run("purge-orphan-stats", "--catalog", pg.url(), "--metadata-schema", schema, "--output", "json",
                "--batch-size", "1", "--yes");
        assertThat(purge.exitCode()).as("stderr: %s", purge.err()).isZero();
        JsonNode p = JSON.readTree(purge.out());
        assertThat(p.path("rows_deleted").path("ducklake_table_stats").asLong()).isEqualTo(1);
        assertThat(p.path("rows_deleted").path("ducklake_table_column_stats").asLong()).isEqualTo(3);
        assertThat(p.path("table_ids_purged").asLong()).isEqualTo(1);
        assertThat(p.path("remaining").asLong()).isZero();
        assertThat(purge.err()).as("purge's own wording, not the drop command's (issue 28 item 18)")
                .contains("batch 1: deleted 4 orphan stats rows, ").doesNotContain("non-empty").doesNotContain("dropped");
        try (Connection c = pg.connect()) {
            assertThat(Catalogs.scalar(c, "SELECT count(*) FROM \"" + schema + "\".ducklake_table_column_stats")).as("the live table's stats stay")
                    .isEqualTo(1);
        }
        CliRun clean = CliRun.run("check", "--catalog", pg.url(), "--metadata-schema", schema, "--bloat-min-dead-rows", "1000000000");
        assertThat(clean.exitCode()).as("clean: %s %s", clean.out(), clean.err()).isZero();
        assertThat(clean.out()).contains(": clean,");
    }

    @Test
    void allMetadataSchemasGivesOneSectionPerSchemaAndTheWorstExitCode() throws Exception {
        String dirty = catalogWithOrphanStats();
        CliRun run = CliRun.run("check", "--catalog", pg.url(), "--all-metadata-schemas", "--output", "json", "--bloat-min-dead-rows",
                "1000000000");
        JsonNode doc = JSON.readTree(run.out());
        assertThat(doc.path("schemas").size()).isGreaterThanOrEqualTo(1);
        boolean found = false;
        int worst = 0;
        for (JsonNode s : doc.path("schemas")) {
            // other tests leave catalogs in this database too (some of them broken on purpose): the worst code wins
            worst = dev.ducklake.janitor.JanitorException.Reason.worseExitCode(s.path("exit_code").asInt(), worst);
            if (s.path("schema").asText().equals(dirty)) {
                found = true;
                assertThat(s.path("status").asText()).isEqualTo("findings");
                assertThat(s.path("exit_code").asInt()).isEqualTo(12);
            }
        }
        assertThat(found).isTrue();
        assertThat(run.exitCode()).as("the worst schema's exit code").isEqualTo(worst).isEqualTo(doc.path("exit_code").asInt());
        assertThat(dev.ducklake.janitor.JanitorException.Reason.worseExitCode(12, run.exitCode())).as("12 or worse")
                .isEqualTo(run.exitCode());
        CliRun both = CliRun.run("check", "--catalog", pg.url(), "--all-metadata-schemas", "--metadata-schema", dirty);
        assertThat(both.exitCode()).isEqualTo(2);
    }

    @Test
    void badFlagsAreUsageErrorsAndAMissingSchemaIsExit4() throws Exception {
        assertThat(CliRun.run("check", "--catalog", pg.url(), "--max-examples", "-1").exitCode()).isEqualTo(2);
        assertThat(CliRun.run("check", "--catalog", pg.url(), "--statement-timeout", "-3").exitCode()).isEqualTo(2);
        assertThat(CliRun.run("purge-orphan-stats", "--catalog", pg.url(), "--batch-size", "0").exitCode()).isEqualTo(2);
        assertThat(CliRun.run("check", "--catalog", pg.url(), "--metadata-schema", "no_such_schema_13").exitCode()).isEqualTo(4);
        CliRun help = CliRun.run("check", "--help");
        assertThat(help.out()).contains("--statement-timeout").contains("Default: 60").contains("--max-examples");
        assertThat(CliRun.run("purge-orphan-stats", "--help").out()).contains("--batch-size").contains("Ids per transaction").contains("Default: 500");
    }

    @Test
    void purgePushesItsLastRunGauges() throws Exception {
        String schema = catalogWithOrphanStats();
        String last;
        try (FakePushgateway server = FakePushgateway.recording()) {
            CliRun run = CliRun.run(Map.of(), "purge-orphan-stats", "--catalog", pg.url(), "--metadata-schema", schema,
                    "--pushgateway-url", server.url(), "--yes");
            assertThat(run.exitCode()).as("stderr: %s", run.err()).isZero();
            FakePushgateway.Request r = server.requests().get(server.requests().size() - 1);
            last = r.path() + "\n" + r.body();
        }
        assertThat(last).contains("/operation/purge-orphan-stats").contains("ducklake_maintenance_orphan_stats_rows_deleted_last_run")
                .contains("ducklake_maintenance_last_success_time_seconds");
        assertThat(last.lines().filter(l -> l.startsWith("ducklake_maintenance_orphan_stats_rows_deleted_last_run")))
                .singleElement().satisfies(l -> assertThat(l).endsWith(" 4.0").as(l));
    }
}
