package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Results and logs a scheduler can use (issue 24): dry runs say what would happen and execute runs what did, bytes
 * included; timestamps and one-line JSON; --quiet and --log-level; a JSON document for every exit code; the text
 * output of the storage commands is a summary; the messages that were wrong.
 */
class SchedulerOutputTest {

    private static final Duration OLD = Duration.ofDays(3);
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final TestPostgres pg = TestPostgres.get();

    private static void isoInstant(JsonNode doc, String key) {
        assertThat(doc.hasNonNull(key)).as(key + " in " + doc).isTrue();
        assertThat(Instant.parse(doc.get(key).asText())).as(key).isBefore(Instant.now().plusSeconds(1));
    }

    @Test
    void cleanupOldFilesDryRunSaysWouldAndTheExecuteRunSaysDoneWithTheBytesFreed() throws Exception {
        Path lake = dir.resolve("lake");
        FileCatalog cat = FileCatalog.create("sched_cof", lake + "/");
        Path a = FileCatalog.file(lake.resolve("main/test/a.parquet"), OLD);
        long size = Files.size(a);
        cat.queue("main/test/a.parquet", true, OLD);

        JsonNode dry = CliRun.run("cleanup-old-files", "--catalog", pg.url(), "--metadata-schema", cat.schema, "--dry-run",
                "--output", "json").json();
        assertThat(dry.get("files_would_delete").asLong()).isEqualTo(1);
        assertThat(dry.get("bytes_would_delete").asLong()).isEqualTo(size);
        assertThat(dry.get("queue_rows_would_delete").asLong()).isEqualTo(1);
        assertThat(dry.has("files_deleted")).as("a dry run deletes nothing, so it has no files_deleted").isFalse();
        assertThat(dry.has("bytes_deleted")).isFalse();
        assertThat(dry.get("batch_size_requested").asInt()).as("the queue entries per batch").isEqualTo(500);
        assertThat(dry.get("batch_size_start").asInt()).isEqualTo(500);
        assertThat(dry.get("batch_size_final").asInt()).isEqualTo(500);
        assertThat(dry.get("findings_total").asLong()).isZero();
        assertThat(dry.get("findings_truncated").asBoolean()).isFalse();

        JsonNode run = CliRun.run("cleanup-old-files", "--catalog", pg.url(), "--metadata-schema", cat.schema, "--output", "json").json();
        assertThat(run.get("files_deleted").asLong()).isEqualTo(1);
        assertThat(run.get("bytes_deleted").asLong()).as("the bytes freed, never -1").isEqualTo(size);
        assertThat(run.get("queue_rows_deleted").asLong()).isEqualTo(1);
        assertThat(run.get("files_failed").asLong()).isZero();
        assertThat(run.has("bytes_would_delete")).isFalse();
        assertThat(run.has("files_would_delete")).isFalse();
        assertThat(Files.exists(a)).isFalse();
    }

    @Test
    void deleteOrphanFilesUsesTheSameKeysAndHasNoBatchSize() throws Exception {
        Path lake = dir.resolve("olake");
        FileCatalog cat = FileCatalog.create("sched_dof", lake.toString());
        FileCatalog.file(lake.resolve("main/test/k.parquet"), OLD);
        cat.dataFile(1, "k.parquet", true);
        Path stray = FileCatalog.file(lake.resolve("main/test/stray.parquet"), OLD);
        long size = Files.size(stray);

        CliRun dryText = CliRun.run("delete-orphan-files", "--catalog", pg.url(), "--metadata-schema", cat.schema, "--dry-run");
        assertThat(dryText.exitCode()).as(dryText.toString()).isZero();
        assertThat(dryText.out()).as("a summary by default: no line per file").doesNotContain("would_delete\t")
                .contains("would delete 1 (" + size + " bytes)").contains("--verbose");
        CliRun dryVerbose = CliRun.run("delete-orphan-files", "--catalog", pg.url(), "--metadata-schema", cat.schema, "--dry-run",
                "--verbose");
        assertThat(dryVerbose.out()).contains("would_delete\t" + stray);

        JsonNode dry = CliRun.run("delete-orphan-files", "--catalog", pg.url(), "--metadata-schema", cat.schema, "--dry-run",
                "--output", "json").json();
        assertThat(dry.get("files_would_delete").asLong()).isEqualTo(1);
        assertThat(dry.get("bytes_would_delete").asLong()).isEqualTo(size);
        assertThat(dry.has("files_deleted")).isFalse();
        assertThat(dry.has("deleted")).as("renamed to files_deleted").isFalse();
        assertThat(dry.has("batch_size_requested") || dry.has("batch_size_start") || dry.has("batch_size_final"))
                .as("no batch size: this command has none").isFalse();

        JsonNode run = CliRun.run("delete-orphan-files", "--catalog", pg.url(), "--metadata-schema", cat.schema, "--output", "json").json();
        assertThat(run.get("files_deleted").asLong()).isEqualTo(1);
        assertThat(run.get("bytes_deleted").asLong()).isEqualTo(size);
        assertThat(run.get("files_failed").asLong()).isZero();
        assertThat(run.has("files_would_delete")).isFalse();
        assertThat(Files.exists(stray)).isFalse();
    }

    @Test
    void aFlagTheCommandDoesNotUseIsNotOffered() {
        CliRun help = CliRun.run("delete-orphan-files", "--help");
        assertThat(help.out()).doesNotContain("--batch-size").doesNotContain("--max-batches")
                .doesNotContain("Not used by this command");
        assertThat(help.out()).as("the budget bounds the listing and every store call").contains("--run-budget");
        CliRun given = CliRun.run("delete-orphan-files", "--batch-size", "10", "--dry-run");
        assertThat(given.exitCode()).isEqualTo(2);
        assertThat(given.err()).contains("--batch-size");
        assertThat(CliRun.run("cleanup-old-files", "--help").out()).as("cleanup-old-files has batches").contains("--batch-size");
    }

    @Test
    void jsonLogLinesOfASingleCommandCarryCatalogAndSchema() throws Exception {
        String schema = pg.freshSchema("sched_log");
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
            long t = b.createTable("dead", 1);
            b.dropTable(t);
            b.expireBefore(b.snapshot());
        }
        CliRun run = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", schema, "--yes",
                "--log-format", "json", "--output", "json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        List<JsonNode> lines = LogFormatTest.jsonLines(run.err());
        String database = run.json().get("catalog").get("database").asText();
        assertThat(lines).allSatisfy(o -> {
            assertThat(o.get("catalog").asText()).as(o.toString()).isEqualTo(database);
            assertThat(o.get("schema").asText()).as(o.toString()).isEqualTo(schema);
        });
        CliRun labelled = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", schema, "--dry-run",
                "--catalog-label", "tenant-a", "--log-format", "json", "--output", "json");
        assertThat(LogFormatTest.jsonLines(labelled.err())).as("the label of the pushed metrics names the catalog")
                .allSatisfy(o -> assertThat(o.get("catalog").asText()).isEqualTo("tenant-a"));
    }

    @Test
    void everyResultHasStartAndFinishAndJsonlIsOneLine() throws Exception {
        String schema = pg.freshSchema("sched_ts");
        try (Connection c = pg.connect()) {
            new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
        }
        CliRun one = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", schema, "--dry-run",
                "--output", "jsonl");
        assertThat(one.exitCode()).as(one.toString()).isZero();
        assertThat(one.out().strip()).as("one compact line").doesNotContain("\n");
        JsonNode doc = one.json();
        isoInstant(doc, "started_at");
        isoInstant(doc, "finished_at");
        assertThat(Instant.parse(doc.get("started_at").asText())).isBeforeOrEqualTo(Instant.parse(doc.get("finished_at").asText()));

        JsonNode many = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", schema,
                "--metadata-schema", schema + "_missing", "--dry-run", "--output", "json").json();
        isoInstant(many, "started_at");
        isoInstant(many, "finished_at");
        for (JsonNode s : many.get("schemas")) {
            isoInstant(s, "started_at");
            isoInstant(s, "finished_at");
        }
        JsonNode check = CliRun.run("check", "--catalog", pg.url(), "--metadata-schema", schema, "--output", "jsonl").json();
        isoInstant(check, "started_at");
        JsonNode error = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", schema + "_nope", "--dry-run",
                "--retain-last", "2", "--output", "json").json();
        assertThat(error.get("status").asText()).isEqualTo("error");
        isoInstant(error, "started_at");
        isoInstant(error, "finished_at");
    }

    @Test
    void quietKeepsWarningsAndErrorsOnly() throws Exception {
        String schema = pg.freshSchema("sched_quiet");
        try (Connection c = pg.connect()) {
            new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
        }
        CliRun loud = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", schema, "--retain-last", "1",
                "--dry-run");
        assertThat(loud.err()).as("info lines by default").contains("info: ");
        CliRun quiet = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", schema, "--retain-last", "1",
                "--dry-run", "--quiet");
        assertThat(quiet.exitCode()).as(quiet.toString()).isZero();
        assertThat(quiet.err()).as("no info lines with --quiet").doesNotContain("info: ");
        assertThat(quiet.out()).as("the result on stdout is not affected").contains("expire-snapshots");
        CliRun levelWarn = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", schema, "--retain-last", "1",
                "--dry-run", "--log-level", "warn");
        assertThat(levelWarn.err()).doesNotContain("info: ");
        CliRun failing = CliRun.run("expire-snapshots", "--catalog", "postgresql://janitor@127.0.0.1:1/lake?connect_timeout=2",
                "--retain-last", "1", "--dry-run", "--quiet");
        assertThat(failing.exitCode()).isEqualTo(3);
        assertThat(failing.err()).as("errors and hints stay").startsWith("error: ").contains("\nhint: ");
        CliRun onlyErrors = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", schema,
                "--dry-run", "--all-metadata-schemas", "--log-level", "error");
        assertThat(onlyErrors.err()).as("a usage error is an error").contains("error: ");
        assertThat(CliRun.run("check", "--log-level", "loud").exitCode()).isEqualTo(2);
    }

    @Test
    void everyExitCodeHasAJsonDocument() throws Exception {
        CliRun badValue = CliRun.run("drop-orphan-inline-tables", "--batch-size", "many", "--output", "json");
        assertThat(badValue.exitCode()).isEqualTo(2);
        JsonNode doc = badValue.json();
        assertThat(doc.get("status").asText()).isEqualTo("error");
        assertThat(doc.get("exit_code").asInt()).isEqualTo(2);
        assertThat(doc.get("reason").asText()).isEqualTo("usage");
        assertThat(doc.get("operation").asText()).isEqualTo("drop-orphan-inline-tables");
        assertThat(doc.get("message").asText()).contains("--batch-size");

        CliRun unknownFlag = CliRun.run("cleanup-old-files", "--password", "S3cret-x", "--output=jsonl");
        assertThat(unknownFlag.exitCode()).isEqualTo(2);
        assertThat(unknownFlag.out().strip()).doesNotContain("\n");
        assertThat(unknownFlag.json().get("exit_code").asInt()).isEqualTo(2);
        assertThat(unknownFlag.out() + unknownFlag.err()).doesNotContain("S3cret-x");

        CliRun badOlderThan = CliRun.run("cleanup-old-files", "--catalog", pg.url(), "--older-than", "soon", "--output", "json");
        assertThat(badOlderThan.exitCode()).isEqualTo(2);
        assertThat(badOlderThan.json().get("message").asText()).contains("--older-than");

        CliRun unknownCommand = CliRun.run("cleanup-old-file", "--output", "json");
        assertThat(unknownCommand.exitCode()).isEqualTo(2);
        assertThat(unknownCommand.json().get("reason").asText()).isEqualTo("usage");

        CliRun noCommand = CliRun.run("--output", "json");
        assertThat(noCommand.exitCode()).isEqualTo(2);

        CliRun connection = CliRun.run("check", "--catalog", "postgresql://janitor@127.0.0.1:1/lake?connect_timeout=2",
                "--output", "json");
        assertThat(connection.exitCode()).isEqualTo(3);
        assertThat(connection.json().get("exit_code").asInt()).as("one document, not two").isEqualTo(3);

        CliRun text = CliRun.run("drop-orphan-inline-tables", "--batch-size", "many");
        assertThat(text.out()).as("text output: no document").isEmpty();
    }

    @Test
    void theDropDryRunWithIncludeNonemptySaysWhatWouldHappen() throws Exception {
        String schema = pg.freshSchema("sched_drop");
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
            long full = b.createTable("full_dead", 1);
            b.insertRows(full, 2);
            b.dropTable(full);
            b.expireBefore(b.snapshot());
        }
        CliRun dry = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", schema, "--dry-run",
                "--include-nonempty");
        assertThat(dry.exitCode()).as(dry.toString()).isZero();
        assertThat(dry.out()).contains("would be dropped (--include-nonempty)").doesNotContain("kept without --include-nonempty")
                .doesNotContain("remaining orphan rows");
        CliRun without = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", schema, "--dry-run");
        assertThat(without.out()).contains("kept without --include-nonempty");
    }

    @Test
    void theExpireSelectionOfAOneSnapshotCatalogIsReadable() throws Exception {
        String schema = pg.freshSchema("sched_one");
        try (Connection c = pg.connect()) {
            new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
        }
        CliRun dry = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", schema, "--retain-last", "5",
                "--dry-run");
        assertThat(dry.exitCode()).as(dry.toString()).isZero();
        assertThat(dry.err()).contains("selection: ").doesNotContain(String.valueOf(Long.MIN_VALUE));
    }

    @Test
    void expireHelpPointsAtOurCleanupCommand() {
        String help = CliRun.run("expire-snapshots", "--help").out().replaceAll("\\s+", " ");
        assertThat(help).contains("delete them from storage later with cleanup-old-files");
    }
}
