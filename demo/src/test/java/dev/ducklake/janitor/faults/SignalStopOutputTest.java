package dev.ducklake.janitor.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import dev.ducklake.janitor.testsupport.JanitorProcess;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A run stopped by SIGTERM (Kubernetes, cron's timeout) or SIGINT (^C) still prints its result before the JVM
 * exits (found by trying it: with {@code --output json} stdout stayed empty, because the stop hook let the JVM
 * exit as soon as the engine returned), and the result says why it stopped (it said "run budget spent" although
 * no --run-budget was given).
 */
class SignalStopOutputTest {

    private final TestPostgres pg = TestPostgres.get();

    @Test
    void sigtermMidRunPrintsTheResultAndSaysItWasASignal() throws Exception {
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, pg.freshSchema("signal_out"), 1500);
        }
        // JSON: one parseable document on stdout
        JanitorProcess p = JanitorProcess.start(Map.of(), "drop-orphan-inline-tables", "--catalog", pg.url(),
                "--metadata-schema", cat.schema, "--yes", "--batch-size", "3", "--output", "json");
        try {
            awaitBatch(p, 3);
            int code = p.terminate(40);
            assertThat(code).as("SIGTERM exit status; stderr: %s", p.err()).isEqualTo(143);
            assertThat(p.out()).as("stdout after SIGTERM with --output json; stderr: %s", p.err()).isNotBlank();
            JsonNode doc = new ObjectMapper().readTree(p.out());
            assertThat(doc.get("status").asText()).as("the document agrees with the exit status").isEqualTo("stopped");
            assertThat(doc.get("exit_code").asInt()).isEqualTo(143);
            assertThat(doc.get("stopped_by_signal").asBoolean()).as("JSON says the run was stopped by a signal").isTrue();
            // the trial of 2026-12-06 (stop 39): it also said budget_exhausted: true, as if --run-budget had run out
            assertThat(doc.get("budget_exhausted").asBoolean()).as("a signal is no spent budget").isFalse();
            assertThat(doc.get("dropped").asLong()).as("batches before the signal committed").isPositive();
            assertThat(doc.get("remaining").asLong()).as("work left for the next run").isPositive();
        } finally {
            p.cleanup();
        }
        try (Connection c = pg.connect()) {
            cat.check(c);
        }
        // text: the stop reason is the signal, not a run budget that was never given
        JanitorProcess t = JanitorProcess.start(Map.of(), "drop-orphan-inline-tables", "--catalog", pg.url(),
                "--metadata-schema", cat.schema, "--yes", "--batch-size", "3");
        try {
            awaitBatch(t, 3);
            assertThat(t.terminate(40)).isEqualTo(143);
            assertThat(t.out()).as("text result after SIGTERM; stderr: %s", t.err())
                    .contains("stopped: SIGTERM/SIGINT received")
                    .doesNotContain("run budget spent");
        } finally {
            t.cleanup();
        }
        try (Connection c = pg.connect()) {
            cat.check(c);
        }
    }

    /** Issue 10 item 7: after SIGTERM the multi-schema document carries 143, says stopped, and leaves unknown totals unknown. */
    @Test
    void sigtermInAMultiSchemaRunSaysStoppedWith143AndDoesNotPretendUnrunSchemasAreClean() throws Exception {
        FaultCatalog a;
        FaultCatalog b;
        try (Connection c = pg.connect()) {
            a = FaultCatalog.build(c, pg.freshSchema("signal_multi_a"), 1500);
            b = FaultCatalog.build(c, pg.freshSchema("signal_multi_b"), 5);
        }
        JanitorProcess p = JanitorProcess.start(Map.of(), "drop-orphan-inline-tables", "--catalog", pg.url(),
                "--metadata-schema", a.schema, "--metadata-schema", b.schema, "--yes", "--batch-size", "3", "--output", "json");
        try {
            awaitBatch(p, 3);
            assertThat(p.terminate(40)).isEqualTo(143);
            JsonNode doc = new ObjectMapper().readTree(p.out());
            assertThat(doc.get("exit_code").asInt()).as("JSON exit code = process exit code; stderr: %s", p.err()).isEqualTo(143);
            assertThat(doc.get("status").asText()).isEqualTo("stopped");
            assertThat(doc.get("not_run").get(0).asText()).isEqualTo(b.schema);
            JsonNode total = doc.get("total");
            assertThat(total.get("schemas_not_run").asLong()).isEqualTo(1);
            assertThat(total.get("schemas").asLong()).isEqualTo(2);
            assertThat(total.get("remaining").isNull()).as("nobody looked at the schema that did not run").isTrue();
            assertThat(total.get("remaining_unregistered").isNull()).isTrue();
            assertThat(total.get("dropped").asLong()).isPositive();
        } finally {
            p.cleanup();
        }
        try (Connection c = pg.connect()) {
            a.check(c);
            b.check(c);
        }
    }

    private static void awaitBatch(JanitorProcess p, int n) throws InterruptedException {
        long until = System.nanoTime() + 60_000_000_000L;
        while (p.process().isAlive() && System.nanoTime() < until) {
            if ((p.out() + p.err()).contains("batch " + n + ":")) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("batch " + n + " never started; stderr: " + p.err());
    }
}
