package dev.ducklake.janitor.maintain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.JanitorProcess;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** SIGTERM (Kubernetes stopping the Job) during maintain: the batch in flight commits, later steps are not run, the result is printed. */
class MaintainSignalTest {

    @Test
    void sigtermStopsTheChainAndPrintsTheDocument(@TempDir Path tmp) throws Exception {
        String schema = TestPostgres.get().freshSchema("maint_sig");
        try (Connection c = TestPostgres.get().connect()) {
            DemoScenario.build(c, schema, 1500);
        }
        Path cfg = Files.writeString(tmp.resolve("m.yaml"), "catalogs:\n  - name: lake\n    connection: " + TestPostgres.get().url()
                + "\n    metadata_schema: " + schema + "\nmaintain:\n  - drop-orphan-inline-tables: {batch-size: 2}\n  - check: {}\n");
        JanitorProcess p = JanitorProcess.start(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json", "--log-format", "json");
        try {
            long until = System.nanoTime() + 60_000_000_000L;
            while (p.process().isAlive() && System.nanoTime() < until && !p.err().contains("\"batch\":3,")) {
                Thread.sleep(20);
            }
            assertThat(p.err()).as("batch 3 started").contains("\"batch\":3,");
            assertThat(p.terminate(40)).as("stderr: %s", p.err()).isEqualTo(143);
            JsonNode doc = new ObjectMapper().readTree(p.out());
            assertThat(doc.get("stopped_by_signal").asBoolean()).isTrue();
            // issue 28 item 14: the document agrees with the exit (it said "status": "ok", "exit_code": 0)
            assertThat(doc.get("status").asText()).as("top-level status after SIGTERM").isEqualTo("stopped");
            assertThat(doc.get("exit_code").asInt()).as("top-level exit_code = the process's").isEqualTo(143);
            assertThat(doc.get("catalogs").get(0).get("exit_code").asInt()).as("the catalog's exit_code").isEqualTo(143);
            assertThat(doc.get("summary").get("steps_stopped").asLong()).isEqualTo(1);
            assertThat(doc.get("summary").get("steps_ok").asLong()).isZero();
            JsonNode steps = doc.get("catalogs").get(0).get("steps");
            assertThat(steps.get(0).get("status").asText()).as("the step that was running").isEqualTo("stopped");
            assertThat(steps.get(0).get("exit_code").asInt()).isEqualTo(143);
            assertThat(steps.get(0).get("message").asText()).contains("SIGTERM");
            long dropped = steps.get(0).get("result").get("dropped").asLong();
            assertThat(dropped).isBetween(4L, 1500L);
            assertThat(steps.get(0).get("result").get("budget_exhausted").asBoolean()).as("a signal is no spent budget").isFalse();
            assertThat(steps.get(1).get("status").asText()).isEqualTo("not_run");
            assertThat(steps.get(1).get("message").asText()).as("why it did not run").contains("stopped");
            // what the result says went is what went: the next dry run finds the rest
            assertThat(Catalogs.run(schema, o -> o.dryRun(true)).wouldDrop()).isEqualTo(1501 - dropped);
        } finally {
            p.cleanup();
        }
    }
}
