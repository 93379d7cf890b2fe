package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.testsupport.FakePushgateway;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** drop-orphan-inline-tables pushing to a fake Pushgateway: a real local HTTP server that records the requests. */
class PushgatewayTest {

    FakePushgateway server;
    /** The gateway's requests, oldest first. */
    List<FakePushgateway.Request> requests;
    String url;

    @BeforeEach
    void startFakePushgateway() {
        server = FakePushgateway.recording();
        requests = server.requests();
        url = server.url();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    static int run(Map<String, String> env, String... args) {
        StringWriter err = new StringWriter();
        int code = Main.execute(args, new PrintWriter(new StringWriter()), new PrintWriter(err), env);
        assertThat(err.toString()).doesNotContain("push of");
        return code;
    }

    static String catalog(int leaked) throws Exception {
        String schema = TestPostgres.get().freshSchema("metrics_push");
        try (Connection c = TestPostgres.get().connect()) {
            DemoScenario.build(c, schema, leaked);
        }
        return schema;
    }

    @Test
    void expireSnapshotsPushesItsLastRunGaugesOnSuccessOnlyAndNothingOnADryRun() throws Exception {
        String schema = TestPostgres.get().freshSchema("expire_push");
        try (Connection c = TestPostgres.get().connect()) {
            dev.ducklake.janitor.demo.CatalogBuilder b = new dev.ducklake.janitor.demo.CatalogBuilder(c, schema,
                    dev.ducklake.janitor.catalog.FormatVersion.V1_0).create();
            b.dropTable(b.createTable("t", 1));
            b.createTable("u", 1);
        }
        String[] base = {"expire-snapshots", "--catalog", TestPostgres.get().url(), "--metadata-schema", schema, "--retain-last", "1",
            "--min-age", "0s", "--pushgateway-url", url, "--catalog-label", "prod"};
        String[] dry = java.util.stream.Stream.concat(java.util.Arrays.stream(base), java.util.stream.Stream.of("--dry-run"))
                .toArray(String[]::new);
        assertThat(run(Map.of(), dry)).isZero();
        assertThat(requests).as("a dry run pushes nothing").isEmpty();
        String[] exec = java.util.stream.Stream.concat(java.util.Arrays.stream(base), java.util.stream.Stream.of("--yes"))
                .toArray(String[]::new);
        assertThat(run(Map.of(), exec)).isZero();
        assertThat(requests).hasSize(2);
        assertThat(requests.get(1).path()).isEqualTo("/metrics/job/ducklake_janitor/catalog/prod/operation/expire-snapshots/schema/" + schema);
        String end = requests.get(1).body();
        assertThat(end).contains("ducklake_maintenance_duration_seconds{status=\"success\"}")
                .contains("ducklake_maintenance_snapshots_expired_last_run 3")
                .contains("ducklake_maintenance_tables_removed_last_run 1")
                .contains("ducklake_maintenance_inlined_tables_dropped_last_run 1")
                .contains("ducklake_maintenance_data_files_scheduled_last_run 0")
                .contains("ducklake_maintenance_delete_files_scheduled_last_run 0");
        requests.clear();
        try (Connection c = TestPostgres.get().connect(); java.sql.Statement st = c.createStatement()) {
            st.execute("UPDATE " + dev.ducklake.janitor.pg.Sql.qualified(schema, "ducklake_metadata") + " SET value = '9.9' WHERE key = 'version'");
        }
        assertThat(run(Map.of(), exec)).isEqualTo(5);
        assertThat(requests.get(requests.size() - 1).body()).contains("status=\"error\"").doesNotContain("_last_run");
    }

    @Test
    void aSuccessfulRunPushesStartThenDurationAndPerRunGauges() throws Exception {
        String schema = catalog(12);
        int code = run(Map.of(), "drop-orphan-inline-tables", "--catalog", TestPostgres.get().url(), "--metadata-schema", schema,
                "--yes", "--pushgateway-url", url, "--catalog-label", "prod");
        assertThat(code).isZero();
        assertThat(requests).hasSize(2);
        String path = "/metrics/job/ducklake_janitor/catalog/prod/operation/drop-orphan-inline-tables/schema/" + schema;
        assertThat(requests).allSatisfy(r -> {
            assertThat(r.method()).as("POST replaces only the pushed names").isEqualTo("POST");
            assertThat(r.path()).isEqualTo(path);
            assertThat(r.contentType()).as("Prometheus text format").startsWith("text/plain").contains("version=0.0.4");
        });
        assertThat(requests.get(0).body()).contains("ducklake_maintenance_start_time_seconds ").doesNotContain("duration");
        String end = requests.get(1).body();
        assertThat(end).contains("ducklake_maintenance_duration_seconds{status=\"success\"}")
                .contains("ducklake_maintenance_inline_orphans_dropped_last_run 13")
                .contains("ducklake_maintenance_inline_orphans_skipped_nonempty_last_run 1")
                .contains("ducklake_maintenance_inline_orphans_remaining 1")
                .contains("ducklake_maintenance_inline_orphans_budget_exhausted_last_run 0")
                .contains("ducklake_maintenance_last_success_time_seconds ");
    }

    @Test
    void aRunOverSeveralSchemasPushesOncePerSchema() throws Exception {
        String first = catalog(2);
        String second = catalog(3);
        int code = run(Map.of(), "drop-orphan-inline-tables", "--catalog", TestPostgres.get().url(), "--metadata-schema", first,
                "--metadata-schema", second, "--yes", "--pushgateway-url", url, "--catalog-label", "prod");
        assertThat(code).isZero();
        assertThat(requests).hasSize(4);
        assertThat(requests.get(1).path()).endsWith("/schema/" + first);
        assertThat(requests.get(1).body()).contains("ducklake_maintenance_inline_orphans_dropped_last_run 3");
        assertThat(requests.get(3).path()).endsWith("/schema/" + second);
        assertThat(requests.get(3).body()).contains("ducklake_maintenance_inline_orphans_dropped_last_run 4");
    }

    @Test
    void aDryRunPushesNothingEvenWithTheEnvironmentVariable() throws Exception {
        String schema = catalog(3);
        int code = run(Map.of("PUSHGATEWAY_URL", url), "drop-orphan-inline-tables", "--catalog", TestPostgres.get().url(),
                "--metadata-schema", schema, "--dry-run");
        assertThat(code).isZero();
        assertThat(requests).isEmpty();
    }

    @Test
    void theEnvironmentVariableIsUsedWhenTheFlagIsAbsent() throws Exception {
        String schema = catalog(2);
        int code = run(Map.of("PUSHGATEWAY_URL", url + "/"), "drop-orphan-inline-tables", "--catalog", TestPostgres.get().url(),
                "--metadata-schema", schema, "--yes");
        assertThat(code).isZero();
        assertThat(requests).hasSize(2);
        assertThat(requests.get(1).path()).startsWith("/metrics/job/ducklake_janitor/catalog/" + TestPostgres.get().spec().database() + "/");
    }

    @Test
    void aFailedRunPushesStatusAndDurationButNeverThePerRunGauges() throws Exception {
        int code = run(Map.of(), "drop-orphan-inline-tables", "--catalog", TestPostgres.get().url(), "--metadata-schema",
                "no_such_schema_push", "--yes", "--pushgateway-url", url);
        assertThat(code).as("not a catalog").isEqualTo(4);
        assertThat(requests).hasSize(2);
        String end = requests.get(1).body();
        assertThat(end).contains("ducklake_maintenance_duration_seconds{status=\"error\"}")
                .contains("ducklake_maintenance_start_time_seconds ")
                .doesNotContain("_last_run").doesNotContain("_remaining").doesNotContain("last_success");
    }

    @Test
    void anUnreachablePushgatewayIsAWarningNotAFailure() throws Exception {
        String schema = catalog(1);
        server.close();
        StringWriter err = new StringWriter();
        int code = Main.execute(new String[] {"drop-orphan-inline-tables", "--catalog", TestPostgres.get().url(), "--metadata-schema",
            schema, "--yes", "--pushgateway-url", "http://user:push-secret@127.0.0.1:1"}, new PrintWriter(new StringWriter()),
                new PrintWriter(err), Map.of());
        assertThat(code).isZero();
        assertThat(err.toString()).contains("WARN: push of drop-orphan-inline-tables metrics").doesNotContain("push-secret");
    }

    @Test
    void aMalformedUrlIsAUsageError() {
        int code = Main.execute(new String[] {"drop-orphan-inline-tables", "--catalog", TestPostgres.get().url(), "--yes",
            "--pushgateway-url", "ftp://x"}, new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()), Map.of());
        assertThat(code).isEqualTo(2);
        assertThat(requests).isEmpty();
    }

    @Test
    void aSilentPushgatewayCostsOneTimeoutOnceAndOneWarning() throws Exception {
        String first = catalog(1);
        String second = catalog(1);
        try (FakePushgateway silent = FakePushgateway.silent(Duration.ofSeconds(30))) {
            StringWriter err = new StringWriter();
            long t0 = System.nanoTime();
            int code = Main.execute(new String[] {"drop-orphan-inline-tables", "--catalog", TestPostgres.get().url(), "--metadata-schema",
                first, "--metadata-schema", second, "--yes", "--pushgateway-url", silent.url(),
                "--pushgateway-timeout", "1"}, new PrintWriter(new StringWriter()), new PrintWriter(err), Map.of());
            double took = (System.nanoTime() - t0) / 1e9;
            assertThat(code).as("stderr: %s", err).isZero();
            assertThat(err.toString().lines().filter(l -> l.contains("push of")).toList()).as("one warning").hasSize(1)
                    .allMatch(l -> l.contains("no answer within 1 s") && l.contains("no further pushes"));
            assertThat(silent.requests()).as("no push after the first failure (4 were due: start and end of two schemas)").hasSize(1);
            assertThat(took).as("seconds: one push timeout, not four of ten seconds").isLessThan(15);
        }
    }

    @Test
    void groupingValuesThatAreNotUrlSafeAreSentBase64Encoded() throws Exception {
        String schema = catalog(1);
        String label = "my lake \u00fc/x";
        int code = run(Map.of(), "drop-orphan-inline-tables", "--catalog", TestPostgres.get().url(), "--metadata-schema", schema,
                "--yes", "--pushgateway-url", url, "--catalog-label", label);
        assertThat(code).isZero();
        assertThat(requests).hasSize(2);
        String b64 = java.util.Base64.getUrlEncoder().encodeToString(label.getBytes(StandardCharsets.UTF_8));
        assertThat(requests.get(1).path()).isEqualTo("/metrics/job/ducklake_janitor/catalog@base64/" + b64
                + "/operation/drop-orphan-inline-tables/schema/" + schema).doesNotContain("+").doesNotContain(" ");
        assertThat(dev.ducklake.janitor.metrics.PushChannel.groupPath(Map.of("job", "j", "catalog", "", "schema", "s p")))
                .isEqualTo("/metrics/job/j/catalog@base64/=/schema@base64/" + java.util.Base64.getUrlEncoder()
                        .encodeToString("s p".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aBadPushgatewayTimeoutIsAUsageErrorWithTheNumberAsTyped() {
        StringWriter err = new StringWriter();
        int code = Main.execute(new String[] {"drop-orphan-inline-tables", "--catalog", TestPostgres.get().url(), "--yes",
            "--pushgateway-url", url, "--pushgateway-timeout", "0"}, new PrintWriter(new StringWriter()), new PrintWriter(err), Map.of());
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--pushgateway-timeout").contains("got 0.").doesNotContain("0.0");
        assertThat(requests).isEmpty();
    }

    @Test
    void pushTimeIsDeductedFromTheRunBudget() throws Exception {
        try (FakePushgateway silent = FakePushgateway.silent(Duration.ofSeconds(10))) {
            PushOptions push = new PushOptions();
            push.url = silent.url();
            push.job = dev.ducklake.janitor.metrics.MaintenanceRunReporter.DEFAULT_JOB;
            push.timeout = 1;
            StringWriter err = new StringWriter();
            dev.ducklake.janitor.metrics.MaintenanceRunReporter reporter = push.reporter(Map.of(), TestPostgres.get().spec(), "s",
                    "drop-orphan-inline-tables", false, new PrintWriter(err));
            reporter.started();
            assertThat(push.timeSpent()).as("one bounded push").isBetween(java.time.Duration.ofMillis(900), java.time.Duration.ofSeconds(5));
            var options = dev.ducklake.janitor.ops.runtime.RunOptions.builder()
                    .runBudget(java.time.Duration.ofSeconds(60)).build();
            assertThat(push.deductFrom(options).runBudget()).as("the budget left for the run")
                    .isEqualTo(java.time.Duration.ofSeconds(60).minus(push.timeSpent()));
            assertThat(push.deductFrom(options.toBuilder().runBudget(null).build()).runBudget()).as("no budget, nothing to deduct").isNull();
            assertThat(err.toString()).contains("no answer within 1 s");
        }
    }
}
