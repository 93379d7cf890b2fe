package dev.ducklake.janitor.maintain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.testsupport.FakePushgateway;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code maintain} end to end on the embedded PostgreSQL: two catalogs, one good and one broken, a local data path, a
 * fake Pushgateway (a real local HTTP server) recording every push.
 */
class MaintainCommandTest {

    static final ObjectMapper JSON = new ObjectMapper();

    FakePushgateway gateway;
    /** The gateway's requests, oldest first. */
    List<FakePushgateway.Request> pushes;
    String gatewayUrl;

    @TempDir
    Path tmp;

    @BeforeEach
    void startGateway() {
        gateway = FakePushgateway.recording();
        pushes = gateway.requests();
        gatewayUrl = gateway.url();
    }

    @AfterEach
    void stopGateway() {
        gateway.close();
    }

    static String leakedCatalog(String prefix, int leaked) throws Exception {
        String schema = TestPostgres.get().freshSchema(prefix);
        try (Connection c = TestPostgres.get().connect()) {
            DemoScenario.build(c, schema, leaked);
        }
        return schema;
    }

    Path config(String catalogs, String steps) throws Exception {
        Path dataPath = Files.createDirectories(tmp.resolve("lake-data"));
        Path f = tmp.resolve("maintain.yaml");
        Files.writeString(f, "pushgateway_url: " + gatewayUrl + "\n"
                + "catalogs:\n" + catalogs
                + "maintain:\n" + steps.replace("${DATA}", dataPath.toString()));
        return f;
    }

    static String catalog(String name, String connection, String schema) {
        return "  - name: " + name + "\n    connection: " + connection + "\n    metadata_schema: " + schema + "\n";
    }

    static final String CHAIN = """
              - expire-snapshots: {older-than: 7d, retain-last: 10}
              - drop-orphan-inline-tables:
                  include-unregistered: true
                  batch-size: 7
              - cleanup-old-files: {older-than: 2d, data-path: "${DATA}"}
              - check: {}
            """;

    @Test
    void theGoodCatalogIsMaintainedTheBrokenOneReportedAndTheExitCodeIsTheWorst() throws Exception {
        String good = leakedCatalog("maint_good", 30);
        DropOrphanInlineTablesResult before = Catalogs.run(good, o -> o.dryRun(true));
        assertThat(before.wouldDrop()).isEqualTo(31);
        String missing = "maint_missing_" + System.nanoTime();
        Path cfg = config(catalog("good", TestPostgres.get().url(), good) + catalog("broken", TestPostgres.get().url(), missing), CHAIN);

        CliRun run = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");

        assertThat(run.exitCode()).as(run.all()).isEqualTo(4);
        JsonNode doc = JSON.readTree(run.out());
        assertThat(doc.get("exit_code").asInt()).isEqualTo(4);
        JsonNode goodSteps = doc.get("catalogs").get(0).get("steps");
        assertThat(doc.get("catalogs").get(0).get("name").asText()).isEqualTo("good");
        assertThat(goodSteps).hasSize(4);
        assertThat(goodSteps.get(0).get("step").asText()).isEqualTo("expire-snapshots");
        assertThat(goodSteps.get(0).get("status").asText()).as("expire-snapshots through its command").isEqualTo("ok");
        JsonNode expire = goodSteps.get(0).get("result");
        assertThat(expire.get("snapshots_expired").asLong()).as("nothing older than 7d").isZero();
        assertThat(expire.get("batch_size_requested").asLong()).as("expire-snapshots' own default, in snapshots").isEqualTo(5000);
        // like DuckLake's expiry, it removes the tables dropped before the oldest retained snapshot, with their inlined tables
        assertThat(expire.get("inlined_tables_dropped").asLong()).isEqualTo(31);
        JsonNode drop = goodSteps.get(1);
        assertThat(drop.get("status").asText()).isEqualTo("ok");
        assertThat(drop.get("result").get("dropped").asLong()).as("the one orphan expiry leaves").isEqualTo(1);
        assertThat(drop.get("result").get("batch_size_requested").asLong()).as("batch-size 7 from the config").isEqualTo(7);
        JsonNode check = goodSteps.get(3);
        assertThat(check.get("step").asText()).isEqualTo("check");
        assertThat(check.get("result").get("findings").findValuesAsText("kind")).as(check.toString())
                .doesNotContain("unreachable_inlined_tables");
        JsonNode cleanup = goodSteps.get(2);
        assertThat(cleanup.get("status").asText()).as("cleanup-old-files runs through its command: empty queue").isEqualTo("ok");
        assertThat(cleanup.get("result").get("queue_rows_considered").asLong()).isZero();
        // the catalog really was maintained
        assertThat(Catalogs.run(good, o -> o.dryRun(true)).wouldDrop()).isZero();

        JsonNode broken = doc.get("catalogs").get(1);
        assertThat(broken.get("exit_code").asInt()).isEqualTo(4);
        JsonNode bDrop = broken.get("steps").get(0);
        assertThat(bDrop.get("step").asText()).isEqualTo("expire-snapshots");
        assertThat(bDrop.get("status").asText()).isEqualTo("error");
        assertThat(bDrop.get("reason").asText()).isEqualTo("not_a_catalog");
        assertThat(bDrop.get("message").asText()).contains(missing);
        for (int i = 1; i < 4; i++) {
            JsonNode later = broken.get("steps").get(i);
            assertThat(later.get("status").asText()).as("after a catalog-wide failure: an error, not started").isEqualTo("error");
            assertThat(later.get("reason").asText()).isEqualTo("not_a_catalog");
            assertThat(later.get("exit_code").asInt()).isEqualTo(4);
            assertThat(later.get("message").asText()).startsWith("not started: expire-snapshots failed on this catalog");
        }
        assertThat(doc.get("summary").get("steps_ok").asInt()).as("expire, drop, cleanup, and check: debris only, below fail-on damage").isEqualTo(4);

        // pushes: the drop step of each catalog under its own grouping key; nothing for skipped steps
        String goodPath = "/metrics/job/ducklake_janitor/catalog/good/operation/drop-orphan-inline-tables/schema/" + good;
        assertThat(pushes).filteredOn(p -> p.path().equals(goodPath)).hasSize(2);
        assertThat(pushes).filteredOn(p -> p.path().equals(goodPath)).last().satisfies(p -> assertThat(p.body())
                .contains("ducklake_maintenance_duration_seconds{status=\"success\"}")
                .contains("ducklake_maintenance_inline_orphans_dropped_last_run 1"));
        assertThat(pushes).filteredOn(p -> p.path().contains("/catalog/broken/operation/expire-snapshots/")).last().satisfies(p -> assertThat(p.body())
                .contains("status=\"error\"").doesNotContain("last_success"));
        assertThat(pushes).filteredOn(p -> p.path().equals("/metrics/job/ducklake_janitor/catalog/good/operation/cleanup-old-files/schema/"
                + good)).last().satisfies(p -> assertThat(p.body()).contains("ducklake_maintenance_files_deleted_last_run{short_retention=\"false\"} 0"));
    }

    @Test
    void theStorageStepsDeleteAnOldQueuedFileAndAnS3StepWithoutCredentialsIsSkipped() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("AWS_ACCESS_KEY_ID") == null && System.getenv("AWS_PROFILE") == null
                && System.getenv("AWS_WEB_IDENTITY_TOKEN_FILE") == null, "no AWS credentials in the environment");
        Path lake = tmp.resolve("lake");
        dev.ducklake.janitor.testsupport.FileCatalog cat = dev.ducklake.janitor.testsupport.FileCatalog.create("maint_files", lake + "/");
        java.time.Duration old = java.time.Duration.ofDays(3);
        Path queuedOld = dev.ducklake.janitor.testsupport.FileCatalog.file(lake.resolve("main/t/old.parquet"), old);
        Path queuedYoung = dev.ducklake.janitor.testsupport.FileCatalog.file(lake.resolve("main/t/young.parquet"), old);
        cat.queue("main/t/old.parquet", true, old);
        cat.queue("main/t/young.parquet", true, java.time.Duration.ofHours(5));
        String steps = """
                  - cleanup-old-files: {older-than: 2d}
                  - delete-orphan-files: {data-path: "s3://no-such-bucket/lake/", s3-region: us-east-1, s3-endpoint: "http://127.0.0.1:1"}
                """;
        Path cfg = config(catalog("files", TestPostgres.get().url(), cat.schema), steps);
        String imds = System.getProperty("aws.disableEc2Metadata");
        System.setProperty("aws.disableEc2Metadata", "true");
        try {
            CliRun run = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");
            assertThat(run.exitCode()).as(run.all()).isZero();
            JsonNode s = JSON.readTree(run.out()).get("catalogs").get(0).get("steps");
            assertThat(s.get(0).get("status").asText()).as(run.all()).isEqualTo("ok");
            assertThat(s.get(0).get("result").get("files_deleted").asLong()).isEqualTo(1);
            assertThat(s.get(0).get("result").get("queue_rows_deleted").asLong()).isEqualTo(1);
            assertThat(Files.exists(queuedOld)).as("queued 3 days ago, older than 2d: deleted").isFalse();
            assertThat(Files.exists(queuedYoung)).as("queued 5 hours ago: kept").isTrue();
            assertThat(cat.queueRows()).isEqualTo(1);
            assertThat(s.get(1).get("status").asText()).isEqualTo("skipped");
            assertThat(s.get(1).get("message").asText()).contains("no AWS credentials").contains("s3://no-such-bucket/");
            assertThat(pushes).as("a skipped step pushes nothing (no never-succeeded alert)")
                    .noneMatch(p -> p.path().contains("delete-orphan-files"));

            // the catalog's own data_path on S3 (no data-path option): skipped the same way, before it starts
            dev.ducklake.janitor.testsupport.FileCatalog s3cat = dev.ducklake.janitor.testsupport.FileCatalog.create("maint_s3",
                    "s3://no-such-bucket/tenant/");
            s3cat.queue("main/t/x.parquet", true, old);
            Path s3cfg = config(catalog("s3lake", TestPostgres.get().url(), s3cat.schema),
                    "  - cleanup-old-files: {older-than: 2d, s3-endpoint: \"http://127.0.0.1:1\"}\n"
                    + "  - compact: {s3-endpoint: \"http://127.0.0.1:1\"}\n");
            CliRun s3run = CliRun.run(Map.of(), "maintain", "--config", s3cfg.toString(), "--output", "json");
            assertThat(s3run.exitCode()).as(s3run.all()).isZero();
            JsonNode s3step = JSON.readTree(s3run.out()).get("catalogs").get(0).get("steps").get(0);
            assertThat(s3step.get("status").asText()).isEqualTo("skipped");
            assertThat(s3step.get("message").asText()).contains("no AWS credentials").contains("s3://no-such-bucket/");
            assertThat(s3cat.queueRows()).as("nothing changed").isEqualTo(1);
            // DuckDB's httpfs would need the same credentials: the engine step is skipped the same way (issue 26)
            JsonNode compactStep = JSON.readTree(s3run.out()).get("catalogs").get(0).get("steps").get(1);
            assertThat(compactStep.get("status").asText()).as(s3run.all()).isEqualTo("skipped");
            assertThat(compactStep.get("message").asText()).contains("no AWS credentials").contains("s3://no-such-bucket/");

            // the same step marked required: a failure with the storage exit code
            Path required = config(catalog("files", TestPostgres.get().url(), cat.schema), steps.replace("s3-region: us-east-1",
                    "s3-region: us-east-1, required: true"));
            CliRun req = CliRun.run(Map.of(), "maintain", "--config", required.toString(), "--output", "json");
            assertThat(req.exitCode()).as(req.all()).isEqualTo(13);
            JsonNode r = JSON.readTree(req.out()).get("catalogs").get(0).get("steps").get(1);
            assertThat(r.get("status").asText()).isEqualTo("error");
            assertThat(r.get("reason").asText()).isEqualTo("storage");
        } finally {
            if (imds == null) {
                System.clearProperty("aws.disableEc2Metadata");
            } else {
                System.setProperty("aws.disableEc2Metadata", imds);
            }
        }
    }

    @Test
    void expireSnapshotsTakesItsCriteriaFromTheFileThroughItsCommandsParser() throws Exception {
        String s = TestPostgres.get().freshSchema("maint_expire");
        try (Connection c = TestPostgres.get().connect()) {
            dev.ducklake.janitor.demo.CatalogBuilder b = new dev.ducklake.janitor.demo.CatalogBuilder(c, s,
                    dev.ducklake.janitor.catalog.FormatVersion.V1_0).create();
            long t = b.createTable("t", 1);
            b.dropTable(t);
            b.createTable("u", 1);
        }
        // what the command itself would do with the same options
        CliRun alone = CliRun.run(Map.of(), "expire-snapshots", "--catalog", TestPostgres.get().url(), "--metadata-schema", s,
                "--retain-last", "1", "--min-age", "0s", "--dry-run", "--output", "json");
        assertThat(alone.exitCode()).as(alone.all()).isZero();
        long expected = JSON.readTree(alone.out()).get("snapshots_would_expire").asLong();
        assertThat(expected).isPositive();

        // the command's own parser refuses a combination it refuses on the command line: a configuration error before anything runs
        Path bad = config(catalog("lake", TestPostgres.get().url(), s), "  - expire-snapshots: {versions: [1], older-than: 1d}\n");
        CliRun refused = CliRun.run(Map.of(), "maintain", "--config", bad.toString());
        assertThat(refused.exitCode()).as(refused.all()).isEqualTo(11);
        assertThat(refused.err()).contains("maintain.yaml").contains("expire-snapshots").contains("--versions");

        Path cfg = config(catalog("lake", TestPostgres.get().url(), s), "  - expire-snapshots: {retain-last: 1, min-age: 0s, batch-size: 1}\n");
        CliRun run = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");
        assertThat(run.exitCode()).as(run.all()).isZero();
        JsonNode step = JSON.readTree(run.out()).get("catalogs").get(0).get("steps").get(0);
        assertThat(step.get("status").asText()).isEqualTo("ok");
        assertThat(step.get("result").get("snapshots_expired").asLong()).isEqualTo(expected);
        assertThat(step.get("result").get("batches").asLong()).as("batch-size 1 snapshot from the file").isEqualTo(expected);
        assertThat(pushes).filteredOn(p -> p.path().contains("/operation/expire-snapshots/")).last()
                .satisfies(p -> assertThat(p.body()).contains("ducklake_maintenance_snapshots_expired_last_run " + expected));
        CliRun after = CliRun.run(Map.of(), "expire-snapshots", "--catalog", TestPostgres.get().url(), "--metadata-schema", s,
                "--retain-last", "1", "--min-age", "0s", "--dry-run", "--output", "json");
        assertThat(JSON.readTree(after.out()).get("snapshots_would_expire").asLong()).as("the chain really expired them").isZero();
    }

    @Test
    void purgeRunsThroughItsCommandAndCheckFindingsGiveExit12ForThatStep() throws Exception {
        String leaked = leakedCatalog("maint_check", 3);
        Path cfg = config(catalog("lake", TestPostgres.get().url(), leaked),
                "  - purge-orphan-stats: {statement-timeout: 2m}\n  - check: {max-examples: 2, fail-on: debris}\n");
        CliRun run = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");
        assertThat(run.exitCode()).as(run.all()).isEqualTo(12);
        JsonNode steps = JSON.readTree(run.out()).get("catalogs").get(0).get("steps");
        assertThat(steps.get(0).get("step").asText()).isEqualTo("purge-orphan-stats");
        assertThat(steps.get(0).get("status").asText()).isEqualTo("ok");
        assertThat(steps.get(0).get("result").has("batches")).isTrue();
        JsonNode check = steps.get(1);
        assertThat(check.get("status").asText()).isEqualTo("findings");
        assertThat(check.get("exit_code").asInt()).isEqualTo(12);
        JsonNode unreachable = null;
        for (JsonNode f : check.get("result").get("findings")) {
            if (f.get("kind").asText().equals("unreachable_inlined_tables")) {
                unreachable = f;
            }
        }
        assertThat(unreachable).as(check.toString()).isNotNull();
        CliRun alone = CliRun.run(Map.of(), "check", "--catalog", TestPostgres.get().url(), "--metadata-schema", leaked, "--output", "json");
        assertThat(alone.exitCode()).isEqualTo(12);
        long expected = -1;
        for (JsonNode f : JSON.readTree(alone.out()).get("findings")) {
            if (f.get("kind").asText().equals("unreachable_inlined_tables")) {
                expected = f.get("count").asLong();
            }
        }
        assertThat(unreachable.get("count").asLong()).as("the same count as the check command").isEqualTo(expected).isPositive();
        assertThat(unreachable.get("examples")).as("max-examples 2 from the file").hasSize(2);
        assertThat(pushes).filteredOn(p -> p.path().contains("/operation/purge-orphan-stats/")).last()
                .satisfies(p -> assertThat(p.body()).contains("ducklake_maintenance_orphan_stats_rows_deleted_last_run"));
        assertThat(pushes).filteredOn(p -> p.path().contains("/operation/check/")).last()
                .satisfies(p -> assertThat(p.body()).contains("ducklake_maintenance_duration_seconds{status=\"success\"}"));

        // the text output is check's own section
        CliRun text = CliRun.run(Map.of(), "maintain", "--config", cfg.toString());
        assertThat(text.exitCode()).isEqualTo(12);
        assertThat(text.out()).contains("-- check, schema " + leaked + ": findings").contains("unreachable_inlined_tables (debris): ")
                .contains("fix: ducklake-janitor drop-orphan-inline-tables");
    }

    @Test
    void anUnreachableCatalogGivesExit3AndTheOtherCatalogStillRuns() throws Exception {
        String good = leakedCatalog("maint_good2", 4);
        Path cfg = config(catalog("down", "postgresql://janitor@127.0.0.1:1/lake?connect_timeout=2", "public")
                + catalog("good", TestPostgres.get().url(), good), "  - drop-orphan-inline-tables: {}\n");

        CliRun run = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--catalog-parallelism", "2");

        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        assertThat(run.out()).contains("== catalog down").contains("FAILED (exit 3, connection)")
                .contains("== catalog good").contains("dropped                        5")
                .contains("maintain: 2 catalog(s); steps: 1 error, 1 ok; exit code 3");
    }

    @Test
    void thePasswordFromTheEnvironmentNeverAppears() throws Exception {
        String good = leakedCatalog("maint_pw", 2);
        Path cfg = config("  - name: down\n    connection: postgresql://janitor@127.0.0.1:1/lake?connect_timeout=2\n"
                + "    password_env: LAKE_PW\n" + catalog("good", TestPostgres.get().url(), good), "  - drop-orphan-inline-tables: {}\n");
        for (String format : List.of("text", "json")) {
            CliRun run = CliRun.run(Map.of("LAKE_PW", "Sup3r-s3cret-pw"), "maintain", "--config", cfg.toString(), "--output", format,
                    "--log-format", format, "--verbose");
            assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
            assertThat(run.all()).contains("127.0.0.1").doesNotContain("Sup3r-s3cret-pw");
        }
        assertThat(pushes).noneMatch(p -> p.body().contains("Sup3r-s3cret-pw") || p.path().contains("Sup3r-s3cret-pw"));
    }

    @Test
    void aDryRunChangesNothingAndPushesNothing() throws Exception {
        String good = leakedCatalog("maint_dry", 3);
        Path cfg = config(catalog("good", TestPostgres.get().url(), good), CHAIN);
        CliRun run = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--dry-run", "--output", "json");
        assertThat(run.exitCode()).as("check's default fail-on is damage: what the dry run left is debris: " + run.all()).isZero();
        JsonNode check = JSON.readTree(run.out()).get("catalogs").get(0).get("steps").get(3);
        assertThat(check.get("step").asText()).isEqualTo("check");
        assertThat(check.get("status").asText()).isEqualTo("ok");
        assertThat(check.get("exit_code").asInt()).isZero();
        assertThat(check.get("result").get("findings").findValuesAsText("kind")).contains("unreachable_inlined_tables");
        assertThat(JSON.readTree(run.out()).get("catalogs").get(0).get("steps").get(1).get("result").get("would_drop").asLong()).isEqualTo(4);
        assertThat(Catalogs.run(good, o -> o.dryRun(true)).wouldDrop()).isEqualTo(4);
        assertThat(pushes).isEmpty();
    }

    @Test
    void jsonLogLinesCarryCatalogSchemaOperationAndBatchFields() throws Exception {
        String good = leakedCatalog("maint_log", 6);
        Path cfg = config(catalog("good", TestPostgres.get().url(), good), "  - drop-orphan-inline-tables: {batch-size: 3}\n");
        CliRun run = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--log-format", "json");
        assertThat(run.exitCode()).as(run.all()).isZero();
        List<String> lines = run.err().lines().filter(l -> !l.isBlank()).toList();
        assertThat(lines).isNotEmpty();
        boolean sawBatch = false;
        int maxBatchSize = 0;
        for (String l : lines) {
            JsonNode o = JSON.readTree(l);
            assertThat(o.has("timestamp") && o.has("level") && o.has("message") && o.has("operation")).as(l).isTrue();
            if (o.has("batch")) {
                sawBatch = true;
                assertThat(o.get("catalog").asText()).isEqualTo("good");
                assertThat(o.get("schema").asText()).isEqualTo(good);
                assertThat(o.get("operation").asText()).isEqualTo("drop-orphan-inline-tables");
                maxBatchSize = Math.max(maxBatchSize, o.get("batch_size").asInt());
                assertThat(o.has("dropped") && o.has("tables_left") && o.has("elapsed_seconds")).isTrue();
            }
        }
        assertThat(sawBatch).as("progress lines as JSON with their fields: " + lines).isTrue();
        assertThat(maxBatchSize).as("batch-size 3 from the config").isEqualTo(3);
        // stdout keeps the text result
        assertThat(run.out()).contains("== catalog good");
    }
}
