package dev.ducklake.janitor.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.testsupport.SilentPeer;
import dev.ducklake.janitor.testsupport.JanitorProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 25 follow-up: SIGTERM/SIGINT while the janitor is still logging in to PostgreSQL (a server that accepts TCP and
 * never answers, a slow login) ends the run as stopped (exit 143/130, status {@code stopped}, {@code stopped_by_signal})
 * and not as a connection failure. Found by trying it against a silent TCP peer: in text output nothing at all was
 * printed; with --all-metadata-schemas the process exited without its document (the survey's login ran before the stop
 * hook); a multi-schema run reported the schema as failed with exit 3 (connection); maintain hung for the 30 s grace
 * (its stop hook did not end the login) and printed nothing; and a library caller's requestStop() did not end the
 * login at all (it waited for connect_timeout).
 */
class StopDuringLoginTest {

    private SilentPeer peer;

    @BeforeEach
    void silentServer() throws IOException {
        peer = SilentPeer.start();
    }

    @AfterEach
    void close() throws IOException {
        peer.close();
    }

    /** A catalog on the silent peer with a login timeout only a stop can cut short. */
    private String url() {
        return "postgresql://janitor@127.0.0.1:" + peer.port() + "/lake?connect_timeout=60";
    }

    private String hostPort() {
        return "127.0.0.1:" + peer.port();
    }

    /** Starts the CLI, waits until it is logging in, sends the signal; returns the stopped process and the seconds it took. */
    private Stopped stopWhileLoggingIn(String signal, String... args) throws Exception {
        peer.accepted().clear();
        JanitorProcess p = JanitorProcess.start(Map.of(), args);
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (peer.accepted().isEmpty() && p.process().isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(peer.accepted()).as("the run is logging in; stderr: %s", p.err()).isNotEmpty();
        Thread.sleep(500);
        long t0 = System.nanoTime();
        new ProcessBuilder("kill", "-" + signal, Long.toString(p.process().pid())).start().waitFor();
        int code = p.waitFor(40);
        return new Stopped(p, code, (System.nanoTime() - t0) / 1e9);
    }

    private record Stopped(JanitorProcess process, int exitCode, double seconds) {
    }

    @Test
    void sigtermWhileLoggingInEndsAsStoppedInText() throws Exception {
        Stopped s = stopWhileLoggingIn("TERM", "drop-orphan-inline-tables", "--catalog", url(), "--yes");
        try {
            assertThat(s.exitCode()).as("stderr: %s", s.process().err()).isEqualTo(143);
            assertThat(s.seconds()).as("seconds from SIGTERM to exit").isLessThan(8);
            assertThat(s.process().out()).as("the text result says the run was stopped by the signal")
                    .contains("stopped: SIGTERM/SIGINT received while logging in").contains(hostPort())
                    .contains("nothing was done");
            assertThat(s.process().err()).doesNotContain("error:").doesNotContain("Cannot connect");
        } finally {
            s.process().cleanup();
        }
    }

    @Test
    void sigintWhileLoggingInEndsAsStoppedWith130() throws Exception {
        Stopped s = stopWhileLoggingIn("INT", "drop-orphan-inline-tables", "--catalog", url(), "--yes", "--output", "json");
        try {
            assertThat(s.exitCode()).as("stderr: %s", s.process().err()).isEqualTo(130);
            JsonNode doc = new ObjectMapper().readTree(s.process().out());
            assertThat(doc.get("status").asText()).isEqualTo("stopped");
            assertThat(doc.get("exit_code").asInt()).isEqualTo(130);
            assertThat(doc.get("stopped_by_signal").asBoolean()).isTrue();
            assertThat(doc.get("budget_exhausted").asBoolean()).as("a signal is no spent budget").isFalse();
            assertThat(doc.has("reason")).as("not a failure with a reason: %s", doc).isFalse();
            assertThat(doc.get("message").asText()).contains("interrupted by a stop request").contains(hostPort());
        } finally {
            s.process().cleanup();
        }
    }

    @Test
    void sigtermWhileSurveyingAllMetadataSchemasPrintsTheStoppedDocument() throws Exception {
        Stopped s = stopWhileLoggingIn("TERM", "drop-orphan-inline-tables", "--catalog", url(), "--yes",
                "--all-metadata-schemas", "--output", "json");
        try {
            assertThat(s.exitCode()).as("stderr: %s", s.process().err()).isEqualTo(143);
            assertThat(s.process().out()).as("a document, also when the stop came during the survey's login").isNotBlank();
            JsonNode doc = new ObjectMapper().readTree(s.process().out());
            assertThat(doc.get("status").asText()).isEqualTo("stopped");
            assertThat(doc.get("exit_code").asInt()).isEqualTo(143);
            assertThat(doc.get("stopped_by_signal").asBoolean()).isTrue();
        } finally {
            s.process().cleanup();
        }
    }

    @Test
    void sigtermWhileLoggingInToOneOfManySchemasLeavesThemNotRunNotFailed() throws Exception {
        Stopped s = stopWhileLoggingIn("TERM", "drop-orphan-inline-tables", "--catalog", url(), "--yes",
                "--metadata-schema", "a", "--metadata-schema", "b", "--output", "json");
        try {
            assertThat(s.exitCode()).as("stderr: %s", s.process().err()).isEqualTo(143);
            JsonNode doc = new ObjectMapper().readTree(s.process().out());
            assertThat(doc.get("status").asText()).isEqualTo("stopped");
            assertThat(doc.get("exit_code").asInt()).isEqualTo(143);
            assertThat(doc.get("schemas")).as("no schema failed: %s", doc).isEmpty();
            assertThat(doc.get("not_run").toString()).isEqualTo("[\"a\",\"b\"]");
            assertThat(doc.get("total").get("schemas_failed").asLong()).isZero();
            assertThat(s.process().err()).doesNotContain("error:");
        } finally {
            s.process().cleanup();
        }
    }

    /**
     * Trial finding: SIGTERM during a hanging login to an {@code --also-catalog} database said "while logging in to the
     * catalog …/lake1" (the swept catalog, logged in to long before); the message names the database being logged in to.
     */
    @Test
    void sigtermWhileLoggingInToAnAlsoCatalogNamesThatDatabase(@TempDir Path tmp) throws Exception {
        dev.ducklake.janitor.testsupport.FileCatalog cat = dev.ducklake.janitor.testsupport.FileCatalog.create("stop_also",
                tmp.resolve("lake") + "/");
        ConnectionSpec main = dev.ducklake.janitor.testsupport.TestPostgres.get().spec();
        Stopped s = stopWhileLoggingIn("TERM", "delete-orphan-files", "--catalog", dev.ducklake.janitor.testsupport.TestPostgres.get().url(),
                "--metadata-schema", cat.schema, "--no-consult-server", "--also-catalog",
                "postgresql://janitor@127.0.0.1:" + peer.port() + "/other_lake?connect_timeout=60&metadata_schema=m",
                "--dry-run", "--output", "json");
        try {
            assertThat(s.exitCode()).as("stderr: %s", s.process().err()).isEqualTo(143);
            JsonNode doc = new ObjectMapper().readTree(s.process().out());
            assertThat(doc.get("status").asText()).isEqualTo("stopped");
            // the run's watchdog interrupts the login and the run ends as stopped (no error document): its WARN line
            // names the login that was stopped
            assertThat(s.process().err()).as("the login being stopped was the also-catalog's")
                    .contains("janitor@" + hostPort() + "/other_lake")
                    .doesNotContain("while logging in to the catalog " + main.describe());
        } finally {
            s.process().cleanup();
        }
    }

    @Test
    void sigtermWhileMaintainIsLoggingInEndsPromptlyAsStopped(@TempDir Path tmp) throws Exception {
        Path cfg = tmp.resolve("maintain.yaml");
        Files.writeString(cfg, "catalogs:\n  - name: silent\n    connection: " + url() + "\n    metadata_schema: lake\n"
                + "maintain:\n  - drop-orphan-inline-tables: {}\n");
        Stopped s = stopWhileLoggingIn("TERM", "maintain", "--config", cfg.toString(), "--yes", "--output", "json");
        try {
            assertThat(s.exitCode()).as("stderr: %s", s.process().err()).isEqualTo(143);
            assertThat(s.seconds()).as("seconds from SIGTERM to exit (the login ends, not the 30 s grace)").isLessThan(8);
            JsonNode doc = new ObjectMapper().readTree(s.process().out());
            assertThat(doc.get("status").asText()).isEqualTo("stopped");
            assertThat(doc.get("exit_code").asInt()).isEqualTo(143);
            assertThat(doc.get("stopped_by_signal").asBoolean()).isTrue();
            assertThat(doc.get("summary").get("steps_error").asLong()).as("no step failed: %s", doc).isZero();
            assertThat(doc.get("catalogs").get(0).get("steps").get(0).get("status").asText()).isEqualTo("not_run");
        } finally {
            s.process().cleanup();
        }
    }

    /**
     * The engine, as a library caller sees it: requestStop() during the login ends it at once (it waited for the
     * 60 s connect_timeout), with an error {@link ConnectionSpec#loginStopped} recognises; a login of other work in
     * the same JVM, whose stop was not requested, goes on.
     */
    @Test
    void requestStopDuringTheLoginEndsItAndOnlyIt() throws Exception {
        ConnectionSpec spec = ConnectionSpec.parse(url(), Map.of(), null);
        CompletableFuture<Connection> other = CompletableFuture.supplyAsync(() -> {
            try {
                return ConnectionSpec.parse(url().replace("connect_timeout=60", "connect_timeout=4"), Map.of(), null)
                        .openRaw(() -> false);
            } catch (SQLException | JanitorException e) {
                throw new RuntimeException(e);
            }
        });
        DropOrphanInlineTables op = new DropOrphanInlineTables(spec, DropOrphanInlineTablesOptions.builder()
                .metadataSchema("lake").build(), new ProgressListener() { });
        CompletableFuture<Object> run = CompletableFuture.supplyAsync(() -> {
            try {
                return op.execute();
            } catch (JanitorException e) {
                throw new RuntimeException(e);
            }
        });
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (peer.accepted().size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(peer.accepted()).as("both are logging in").hasSizeGreaterThanOrEqualTo(2);
        Thread.sleep(300);
        long t0 = System.nanoTime();
        op.requestStop();
        assertThat(op.awaitFinished(Duration.ofSeconds(10))).as("the login ends soon after the stop request").isTrue();
        assertThat((System.nanoTime() - t0) / 1e9).as("seconds").isLessThan(3);
        assertThatThrownBy(() -> run.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().cause().isInstanceOfSatisfying(JanitorException.class, e -> {
                    assertThat(e.reason()).isEqualTo(JanitorException.Reason.CONNECTION);
                    assertThat(ConnectionSpec.loginStopped(e)).as("a stopped login, told apart: %s", e.getMessage()).isTrue();
                    assertThat(e.getMessage()).contains("interrupted by a stop request");
                });
        assertThat(other.isDone()).as("the other login was not interrupted by this operation's stop").isFalse();
        assertThatThrownBy(() -> other.get(20, TimeUnit.SECONDS)).as("it ends by its own 4 s timeout")
                .isInstanceOf(ExecutionException.class).cause().cause().isInstanceOfSatisfying(SQLException.class,
                        e -> assertThat(ConnectionSpec.loginStopped(e)).as("not a stop: %s", e.getMessage()).isFalse());
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }
}
