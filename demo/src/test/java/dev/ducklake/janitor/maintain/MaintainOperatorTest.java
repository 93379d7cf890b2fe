package dev.ducklake.janitor.maintain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code maintain} as an operator runs it (issue 24): a catalog whose password file is missing fails alone, JSON error
 * documents, --only-catalog / --only-step / --skip-step, the command-line overrides of run_budget and the Pushgateway
 * URL, per-catalog step options, and the cadence ({@code every}) from the run ledger in PostgreSQL.
 */
class MaintainOperatorTest {

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

    Path file(String text) throws Exception {
        return Files.writeString(tmp.resolve("maintain-" + System.nanoTime() + ".yaml"), text);
    }

    static String catalog(String name, String schema) {
        return MaintainCommandTest.catalog(name, TestPostgres.get().url(), schema);
    }

    static JsonNode steps(JsonNode doc, int catalog) {
        return doc.get("catalogs").get(catalog).get("steps");
    }

    @Test
    void aMissingPasswordFileFailsThatCatalogAloneWithExit3AndTheOtherIsMaintained() throws Exception {
        String good = MaintainCommandTest.leakedCatalog("maint_iso", 4);
        Path missing = tmp.resolve("no-such-password");
        Path cfg = file("catalogs:\n  - name: nopw\n    connection: " + TestPostgres.get().url() + "\n    password_file: " + missing
                + "\n    metadata_schema: public\n" + catalog("good", good)
                + "maintain:\n  - drop-orphan-inline-tables: {}\n  - check: {}\n");

        CliRun run = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");

        assertThat(run.exitCode()).as("the catalog's own failure (connection), not a configuration error: " + run.all()).isEqualTo(3);
        JsonNode doc = JSON.readTree(run.out());
        JsonNode nopw = doc.get("catalogs").get(0);
        assertThat(nopw.get("name").asText()).isEqualTo("nopw");
        assertThat(nopw.get("status").asText()).isEqualTo("error");
        assertThat(nopw.get("exit_code").asInt()).isEqualTo(3);
        assertThat(nopw.get("reason").asText()).isEqualTo("connection");
        assertThat(nopw.get("message").asText()).contains(missing.toString()).contains("cannot be read (it does not exist)");
        assertThat(steps(doc, 0)).hasSize(2).allSatisfy(s -> {
            assertThat(s.get("status").asText()).isEqualTo("error");
            assertThat(s.get("reason").asText()).isEqualTo("connection");
        });
        assertThat(run.err()).as("said on stderr too, for the scheduler's mail").contains("error: ")
                .contains("cannot be read (it does not exist)");
        JsonNode g = doc.get("catalogs").get(1);
        assertThat(g.get("status").asText()).isEqualTo("ok");
        assertThat(steps(doc, 1).get(0).get("result").get("dropped").asLong()).isEqualTo(5);
        assertThat(Catalogs.run(good, o -> o.dryRun(true)).wouldDrop()).as("the good catalog really was maintained").isZero();

        // text mode says the same
        CliRun text = CliRun.run(Map.of(), "maintain", "--config", cfg.toString());
        assertThat(text.exitCode()).isEqualTo(3);
        assertThat(text.out()).contains("== catalog nopw").contains("FAILED (exit 3, connection)").contains("does not exist");
    }

    @Test
    void aMalformedConfigurationIsExit11WithAJsonErrorDocument() throws Exception {
        Path cfg = file("catalogs:\n" + catalog("lake", "public") + "maintain:\n  - drop-orphan-inline-tables: {colour: blue}\n");
        CliRun run = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");
        assertThat(run.exitCode()).isEqualTo(11);
        JsonNode doc = JSON.readTree(run.out());
        assertThat(doc.get("operation").asText()).isEqualTo("maintain");
        assertThat(doc.get("status").asText()).isEqualTo("error");
        assertThat(doc.get("exit_code").asInt()).isEqualTo(11);
        assertThat(doc.get("reason").asText()).isEqualTo("config");
        assertThat(doc.get("message").asText()).contains("key maintain[0].drop-orphan-inline-tables.colour");
        assertThat(doc.get("config").asText()).isEqualTo(cfg.toString());

        CliRun missing = CliRun.run(Map.of(), "maintain", "--config", tmp.resolve("nope.yaml").toString(), "--output", "json");
        assertThat(missing.exitCode()).isEqualTo(11);
        assertThat(JSON.readTree(missing.out()).get("exit_code").asInt()).isEqualTo(11);
    }

    @Test
    void onlyCatalogOnlyStepAndSkipStepNarrowTheRunAndUnknownNamesAreUsageErrors() throws Exception {
        String a = MaintainCommandTest.leakedCatalog("maint_only_a", 2);
        String b = MaintainCommandTest.leakedCatalog("maint_only_b", 2);
        Path cfg = file("catalogs:\n" + catalog("a", a) + catalog("b", b)
                + "maintain:\n  - purge-orphan-stats: {}\n  - drop-orphan-inline-tables: {}\n  - check: {}\n");

        CliRun run = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json", "--only-catalog", "b",
                "--only-step", "drop-orphan-inline-tables", "--only-step", "check", "--skip-step", "check");
        assertThat(run.exitCode()).as(run.all()).isZero();
        JsonNode doc = JSON.readTree(run.out());
        assertThat(doc.get("catalogs")).hasSize(1);
        assertThat(doc.get("catalogs").get(0).get("name").asText()).isEqualTo("b");
        assertThat(steps(doc, 0)).hasSize(1);
        assertThat(steps(doc, 0).get(0).get("step").asText()).isEqualTo("drop-orphan-inline-tables");
        assertThat(Catalogs.run(b, o -> o.dryRun(true)).wouldDrop()).isZero();
        assertThat(Catalogs.run(a, o -> o.dryRun(true)).wouldDrop()).as("catalog a was left out").isEqualTo(3);

        CliRun unknown = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--only-catalog", "c", "--output", "json");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(JSON.readTree(unknown.out()).get("message").asText()).contains("--only-catalog c").contains("a, b");
        CliRun notInChain = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--skip-step", "delete-orphan-files");
        assertThat(notInChain.exitCode()).isEqualTo(2);
        assertThat(notInChain.err()).contains("--skip-step delete-orphan-files").contains("purge-orphan-stats, drop-orphan-inline-tables, check");
        CliRun nothingLeft = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--only-step", "check", "--skip-step", "check");
        assertThat(nothingLeft.exitCode()).isEqualTo(2);
        assertThat(Catalogs.run(a, o -> o.dryRun(true)).wouldDrop()).as("usage errors change nothing").isEqualTo(3);
    }

    @Test
    void runBudgetAndPushgatewayUrlOverrideTheFile() throws Exception {
        String s = MaintainCommandTest.leakedCatalog("maint_override", 2);
        // the file pushes nowhere reachable and gives a budget of a day
        Path cfg = file("pushgateway_url: http://127.0.0.1:1\nrun_budget: 1d\ncatalogs:\n" + catalog("lake", s)
                + "maintain:\n  - purge-orphan-stats: {}\n  - drop-orphan-inline-tables: {}\n");
        CliRun run = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json", "--run-budget", "1ms");
        assertThat(run.exitCode()).as(run.all()).isZero();
        JsonNode second = steps(JSON.readTree(run.out()), 0).get(1);
        assertThat(second.get("status").asText()).as("1 ms of --run-budget is spent by the first step").isEqualTo("skipped");
        assertThat(second.get("message").asText()).contains("the run's run_budget");
        assertThat(pushes).isEmpty();

        CliRun inf = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json", "--run-budget", "inf",
                "--pushgateway-url", gatewayUrl);
        assertThat(inf.exitCode()).as(inf.all()).isZero();
        assertThat(steps(JSON.readTree(inf.out()), 0).get(1).get("status").asText()).isEqualTo("ok");
        assertThat(pushes).as("pushed to --pushgateway-url, not to the file's").anyMatch(p -> p.path().contains("/operation/purge-orphan-stats/"))
                .anyMatch(p -> p.path().contains("/operation/drop-orphan-inline-tables/"));
        CliRun bad = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--run-budget", "soon");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--run-budget").contains("7d");
    }

    @Test
    void aCatalogsOwnStepOptionsApplyToItAlone() throws Exception {
        String a = MaintainCommandTest.leakedCatalog("maint_own_a", 2);
        String b = MaintainCommandTest.leakedCatalog("maint_own_b", 2);
        Path cfg = file("catalogs:\n" + catalog("a", a) + catalog("b", b)
                + "    maintain:\n      drop-orphan-inline-tables: {batch-size: 3}\n"
                + "maintain:\n  - drop-orphan-inline-tables: {batch-size: 7, include-unregistered: true}\n");
        CliRun run = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");
        assertThat(run.exitCode()).as(run.all()).isZero();
        JsonNode doc = JSON.readTree(run.out());
        assertThat(steps(doc, 0).get(0).get("result").get("batch_size_requested").asLong()).isEqualTo(7);
        assertThat(steps(doc, 1).get(0).get("result").get("batch_size_requested").asLong()).as("b's own batch-size").isEqualTo(3);

        // an S3 endpoint per catalog, checked like the chain's options; a step outside the chain is refused
        MaintainConfig c = MaintainConfig.parse(Path.of("m.yaml"), "catalogs:\n"
                + "  - {name: a, connection: 'postgresql://j@db/a'}\n"
                + "  - name: b\n    connection: postgresql://j@db/b\n    maintain:\n"
                + "      delete-orphan-files: {s3-endpoint: 'http://minio-b:9000', every: 7d}\n"
                + "state_schema: ducklake_janitor\n"
                + "maintain:\n  - delete-orphan-files: {s3-endpoint: 'http://minio-a:9000', s3-path-style: true}\n",
                Map.of(), MaintainConfigTest.registry());
        assertThat(c.catalogs().get(0).steps().get(0).rawText("s3-endpoint")).isEqualTo("http://minio-a:9000");
        assertThat(c.catalogs().get(1).steps().get(0).rawText("s3-endpoint")).isEqualTo("http://minio-b:9000");
        assertThat(c.catalogs().get(1).steps().get(0).options()).containsEntry("s3-path-style", true);
        assertThat(c.catalogs().get(1).steps().get(0).every()).isEqualTo(Duration.ofDays(7));
        assertThat(c.catalogs().get(0).steps().get(0).every()).isNull();
        // serve reads the same file and leaves these keys to maintain
        assertThat(dev.ducklake.janitor.metrics.MetricsConfig.parse(Path.of("m.yaml"), "catalogs:\n"
                + "  - name: b\n    connection: postgresql://j@db/b\n    maintain:\n      delete-orphan-files: {every: 7d}\n"
                + "state_schema: ducklake_janitor\nmaintain:\n  - delete-orphan-files: {}\n", Map.of()).catalogs()).hasSize(1);
        CliRun outside = CliRun.run(Map.of(), "maintain", "--config", file("catalogs:\n" + catalog("a", a)
                + "    maintain:\n      check: {}\nmaintain:\n  - drop-orphan-inline-tables: {}\n").toString());
        assertThat(outside.exitCode()).isEqualTo(11);
        assertThat(outside.err()).contains("key catalogs[0].maintain.check").contains("not a step of the 'maintain:' chain");
        CliRun badValue = CliRun.run(Map.of(), "maintain", "--config", file("catalogs:\n" + catalog("a", a)
                + "    maintain:\n      drop-orphan-inline-tables: {batch-size: 0}\nmaintain:\n  - drop-orphan-inline-tables: {}\n").toString());
        assertThat(badValue.exitCode()).isEqualTo(11);
        assertThat(badValue.err()).contains("catalogs[0].maintain.drop-orphan-inline-tables.batch-size");
    }

    @Test
    void aStepWithEveryRunsWhenDueAndIsSkippedAsNotDueUntilThen() throws Exception {
        String s = MaintainCommandTest.leakedCatalog("maint_every", 2);
        String state = TestPostgres.get().freshSchema("janitor_state");
        Path cfg = file("pushgateway_url: " + gatewayUrl + "\nstate_schema: " + state + "\ncatalogs:\n" + catalog("lake", s)
                + "maintain:\n  - drop-orphan-inline-tables: {every: 24h}\n  - check: {}\n");

        // a dry run reads the ledger but creates nothing
        CliRun dry = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json", "--dry-run");
        assertThat(dry.exitCode()).as(dry.all()).isZero();
        assertThat(steps(JSON.readTree(dry.out()), 0).get(0).get("status").asText()).isEqualTo("ok");
        assertThat(ledgerExists(state)).as("a dry run creates no ledger").isFalse();

        CliRun first = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");
        assertThat(first.exitCode()).as(first.all()).isZero();
        JsonNode drop = steps(JSON.readTree(first.out()), 0).get(0);
        assertThat(drop.get("status").asText()).isEqualTo("ok");
        assertThat(drop.get("result").get("dropped").asLong()).isEqualTo(3);
        Instant next = Instant.parse(drop.get("next_due_at").asText());
        assertThat(ledgerExists(state)).isTrue();
        Instant recorded = lastSuccess(state, "drop-orphan-inline-tables");
        assertThat(next).as("24h minus the 10 minute slack").isEqualTo(recorded.plus(Duration.ofHours(24)).minus(Duration.ofMinutes(10)));
        assertThat(lastSuccess(state, "check")).as("steps without every are recorded too").isNotNull();
        assertThat(pushes).filteredOn(p -> p.path().contains("/operation/drop-orphan-inline-tables/")).last()
                .satisfies(p -> assertThat(p.body()).contains("ducklake_maintenance_every_seconds 86400"));

        // an hour later (the next CronJob): not due; check runs every time
        pushes.clear();
        CliRun second = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");
        assertThat(second.exitCode()).as(second.all()).isZero();
        JsonNode skipped = steps(JSON.readTree(second.out()), 0).get(0);
        assertThat(skipped.get("status").asText()).isEqualTo("skipped");
        assertThat(skipped.get("reason").asText()).isEqualTo("not_due");
        assertThat(Instant.parse(skipped.get("next_due_at").asText())).isEqualTo(next);
        assertThat(Instant.parse(skipped.get("last_success_at").asText())).isEqualTo(recorded);
        assertThat(skipped.has("result")).isFalse();
        assertThat(steps(JSON.readTree(second.out()), 0).get(1).get("status").asText()).isEqualTo("ok");
        assertThat(JSON.readTree(second.out()).get("summary").get("steps_skipped").asInt()).isEqualTo(1);
        // the not-due step pushes its period only: its last success and durations stay as they were
        assertThat(pushes).filteredOn(p -> p.path().contains("/operation/drop-orphan-inline-tables/")).singleElement()
                .satisfies(p -> assertThat(p.body()).contains("ducklake_maintenance_every_seconds 86400")
                        .doesNotContain("ducklake_maintenance_start_time_seconds").doesNotContain("last_success"));
        assertThat(lastSuccess(state, "drop-orphan-inline-tables")).isEqualTo(recorded);
        CliRun quiet = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json", "--quiet");
        assertThat(quiet.exitCode()).as(quiet.all()).isZero();
        assertThat(quiet.err()).as("a step not due is the cadence working: --quiet shows nothing, so cron mails nothing")
                .doesNotContain("skipped");

        // 23h55m later: within the slack, due
        try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
            st.executeUpdate("UPDATE \"" + state + "\".ducklake_janitor_runs SET last_success_started_at = now() - interval '23 hours 55 minutes'"
                    + " WHERE step = 'drop-orphan-inline-tables'");
        }
        CliRun third = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");
        assertThat(third.exitCode()).as(third.all()).isZero();
        assertThat(steps(JSON.readTree(third.out()), 0).get(0).get("status").asText()).isEqualTo("ok");
        assertThat(lastSuccess(state, "drop-orphan-inline-tables")).isAfter(recorded);

        // the text result says when it is due
        CliRun text = CliRun.run(Map.of(), "maintain", "--config", cfg.toString());
        assertThat(text.exitCode()).as(text.all()).isZero();
        assertThat(text.out()).contains("-- drop-orphan-inline-tables, schema " + s + ": skipped: not due: every 1d, last successful run started ")
                .contains("; next due at ").contains("steps: 1 skipped, 1 ok");
    }

    @Test
    void aStepStoppedByMaxBatchesIsNotRecordedAndStaysDue() throws Exception {
        String s = MaintainCommandTest.leakedCatalog("maint_every_partial", 4);
        String state = TestPostgres.get().freshSchema("janitor_state_partial");
        Path cfg = file("state_schema: " + state + "\ncatalogs:\n" + catalog("lake", s)
                + "maintain:\n  - drop-orphan-inline-tables: {every: 7d, batch-size: 2, max-batches: 1}\n");
        for (int run = 0; run < 2; run++) {
            CliRun r = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");
            assertThat(r.exitCode()).as(r.all()).isZero();
            JsonNode step = steps(JSON.readTree(r.out()), 0).get(0);
            assertThat(step.get("status").asText()).as("run %d: a partial run leaves the step due", run).isEqualTo("ok");
            assertThat(step.get("result").get("dropped").asLong()).isEqualTo(2);
            assertThat(step.has("next_due_at")).isFalse();
        }
        assertThat(ledgerExists(state)).as("nothing recorded, nothing created").isFalse();
        assertThat(Catalogs.run(s, o -> o.dryRun(true)).wouldDrop()).isEqualTo(1);
    }

    @Test
    void everyNeedsAStateSchemaAndAPositivePeriod() throws Exception {
        CliRun run = CliRun.run(Map.of(), "maintain", "--config", file("catalogs:\n" + catalog("a", "public")
                + "maintain:\n  - delete-orphan-files: {every: 7d}\n").toString());
        assertThat(run.exitCode()).isEqualTo(11);
        assertThat(run.err()).contains("state_schema").contains("every");
        CliRun zero = CliRun.run(Map.of(), "maintain", "--config", file("state_schema: s\ncatalogs:\n" + catalog("a", "public")
                + "maintain:\n  - delete-orphan-files: {every: 0s}\n").toString());
        assertThat(zero.exitCode()).isEqualTo(11);
        assertThat(zero.err()).contains("key maintain[0].delete-orphan-files.every").contains("positive");
    }

    @Test
    void theSlackIsFivePercentAtMostTenMinutes() {
        assertThat(RunLedger.slack(Duration.ofHours(1))).isEqualTo(Duration.ofMinutes(3));
        assertThat(RunLedger.slack(Duration.ofDays(1))).isEqualTo(Duration.ofMinutes(10));
        assertThat(RunLedger.slack(Duration.ofDays(7))).isEqualTo(Duration.ofMinutes(10));
    }

    static boolean ledgerExists(String state) throws Exception {
        try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT to_regclass('\"" + state + "\".ducklake_janitor_runs') IS NOT NULL")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    static Instant lastSuccess(String state, String step) throws Exception {
        try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT last_success_started_at FROM \"" + state + "\".ducklake_janitor_runs WHERE step = '"
                     + step + "'")) {
            return rs.next() ? rs.getTimestamp(1).toInstant() : null;
        }
    }
}
