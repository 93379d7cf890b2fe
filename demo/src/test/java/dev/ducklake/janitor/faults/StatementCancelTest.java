package dev.ducklake.janitor.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.JanitorProcess;
import dev.ducklake.janitor.testsupport.SilentPeer;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The trial of 2026-12-06 (statements in flight): a storage command's catalog statement waiting on a writer's lock
 * (another session holding ACCESS EXCLUSIVE on a consulted catalog's {@code ducklake_data_file}, in another schema or
 * another database of the server) was not cut short by SIGTERM (exit 143 only when the JVM's shutdown wait ran out,
 * no document, the server session left waiting and, in the swept database, holding the advisory lock) nor by
 * {@code --run-budget} with {@code --lock-timeout 0 --statement-timeout 0} (the run lasted as long as the lock); a
 * login to an unanswering {@code --also-catalog} ran to its login timeout past the budget. The run's watchdog now
 * cancels the statement in flight on every connection of the run and interrupts the login: the run stops at once,
 * prints its document, and leaves no session on the server.
 */
class StatementCancelTest {

    private static final AtomicInteger RUNS = new AtomicInteger();

    @TempDir
    Path dir;

    /** A name for the run's connections (application_name), to find its backends in pg_stat_activity. */
    private static String appName() {
        return "janitor-cancel-" + ProcessHandle.current().pid() + "-" + RUNS.incrementAndGet();
    }

    /**
     * The test server's URL with the run's application name: a JDBC URL (the embedded server) takes pgJDBC's
     * {@code ApplicationName}, a libpq URI (an external server, e.g. the JIT one of .ci/run, which prints
     * {@code postgresql://…} without a query) libpq's {@code application_name}.
     */
    private static String url(String app) {
        String u = TestPostgres.get().url();
        return u + (u.contains("?") ? "&" : "?") + (u.startsWith("jdbc:") ? "ApplicationName=" : "application_name=") + app;
    }

    private static long count(String sql, String app) throws SQLException {
        try (Connection c = TestPostgres.get().connect(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, app);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Waits until a backend of the run waits on a lock (the statement the stop has to cut short). */
    private static void awaitLockWait(String app, JanitorProcess p) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (count("SELECT count(*) FROM pg_stat_activity WHERE application_name = ? AND wait_event_type = 'Lock'", app) == 0) {
            assertThat(p == null || p.process().isAlive()).as("the run is alive; stderr: %s", p == null ? "" : p.err()).isTrue();
            assertThat(System.nanoTime()).as("a backend of the run waits on the lock").isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    /** No backend of the run is left on the server, and no advisory lock is held (the next execute run may start). */
    private static void assertNoSessionLeft(String app) throws Exception {
        long deadline = System.nanoTime() + 5_000_000_000L;
        long left;
        while ((left = count("SELECT count(*) FROM pg_stat_activity WHERE application_name = ?", app)) > 0
                && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(left).as("backends of the run left on the server").isZero();
        assertThat(count("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND ? IS NOT NULL", app))
                .as("advisory locks held").isZero();
    }

    private static FileCatalog sweptCatalog(Path lake, String prefix) throws Exception {
        FileCatalog cat = FileCatalog.create(prefix, lake + "/");
        Files.createDirectories(lake);
        FileCatalog.file(lake.resolve("main/test/q0.parquet"), Duration.ofDays(3));
        cat.queue("main/test/q0.parquet", true, Duration.ofDays(3));
        return cat;
    }

    private record Stopped(int exitCode, double seconds, JsonNode doc, String err) {
    }

    /** Starts the CLI in its own JVM, waits until it waits on the lock, sends SIGTERM and waits for the exit. */
    private static Stopped sigtermWhileWaiting(String app, String... args) throws Exception {
        JanitorProcess p = JanitorProcess.start(Map.of(), args);
        try {
            awaitLockWait(app, p);
            long t0 = System.nanoTime();
            new ProcessBuilder("kill", "-TERM", Long.toString(p.process().pid())).start().waitFor();
            int code = p.waitFor(60);
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertThat(p.out()).as("the result document; stderr: %s", p.err()).isNotBlank();
            return new Stopped(code, seconds, new ObjectMapper().readTree(p.out()), p.err());
        } finally {
            p.cleanup();
        }
    }

    @Test
    void sigtermCancelsDeleteOrphanFilesWaitingOnACatalogOfAnotherSchema() throws Exception {
        Path lake = dir.resolve("orphans");
        FileCatalog cat = sweptCatalog(lake, "cancel_dof");
        FileCatalog other = FileCatalog.create("cancel_dof_other", dir.resolve("other") + "/");
        String app = appName();
        try (Connection holder = TestPostgres.get().connect()) {
            holder.setAutoCommit(false);
            Catalogs.exec(holder, "LOCK TABLE " + Sql.qualified(other.schema, "ducklake_data_file") + " IN ACCESS EXCLUSIVE MODE");
            Stopped s = sigtermWhileWaiting(app, "delete-orphan-files", "--catalog", url(app), "--metadata-schema", cat.schema,
                    "--yes", "--lock-timeout", "60", "--output", "json");
            assertThat(s.exitCode()).as(s.err()).isEqualTo(143);
            assertThat(s.seconds()).as("seconds from SIGTERM to the exit (was: ~30, the JVM's wait)").isLessThan(5);
            assertThat(s.doc().path("status").asText()).isEqualTo("stopped");
            assertThat(s.doc().path("exit_code").asInt()).isEqualTo(143);
            assertThat(s.doc().path("stopped_by_signal").asBoolean()).isTrue();
            assertThat(s.doc().path("budget_exhausted").asBoolean()).as("a signal, not the budget (stop 39)").isFalse();
            assertThat(s.doc().path("stopped_during").asText()).isEqualTo("catalog_statement");
            assertThat(s.doc().has("reason")).as("a stop, not a database error: %s", s.doc()).isFalse();
            assertNoSessionLeft(app);
            holder.rollback();
        }
    }

    @Test
    void sigtermCancelsCleanupWaitingOnACatalogOfAnotherDatabase() throws Exception {
        Path lake = dir.resolve("cleanup");
        FileCatalog cat = sweptCatalog(lake, "cancel_cof");
        String db = "cancel_db_" + ProcessHandle.current().pid();
        try (Connection c = TestPostgres.get().connect()) {
            Catalogs.exec(c, "DROP DATABASE IF EXISTS " + Sql.ident(db));
            Catalogs.exec(c, "CREATE DATABASE " + Sql.ident(db));
        }
        String app = appName();
        try {
            try (Connection c = TestPostgres.get().spec().withDatabase(db).openRaw()) {
                Catalogs.loadFixture04(c, "cat2");
                Catalogs.exec(c, "UPDATE cat2.ducklake_metadata SET value = '1.0' WHERE key = 'version'");
                Catalogs.exec(c, "UPDATE cat2.ducklake_metadata SET value = '" + dir.resolve("db2") + "/' WHERE key = 'data_path'");
            }
            try (Connection holder = TestPostgres.get().spec().withDatabase(db).openRaw()) {
                holder.setAutoCommit(false);
                Catalogs.exec(holder, "LOCK TABLE cat2.ducklake_data_file IN ACCESS EXCLUSIVE MODE");
                Stopped s = sigtermWhileWaiting(app, "cleanup-old-files", "--catalog", url(app), "--metadata-schema", cat.schema,
                        "--yes", "--lock-timeout", "60", "--output", "json");
                assertThat(s.exitCode()).as(s.err()).isEqualTo(143);
                assertThat(s.seconds()).as("seconds from SIGTERM to the exit").isLessThan(5);
                assertThat(s.doc().path("status").asText()).isEqualTo("stopped");
                assertThat(s.doc().path("stopped_by_signal").asBoolean()).isTrue();
                assertThat(s.doc().path("stopped_during").asText()).isEqualTo("catalog_statement");
                assertThat(s.doc().has("reason")).as("a stop, not a database error: %s", s.doc()).isFalse();
                assertNoSessionLeft(app);
                holder.rollback();
            }
            assertThat(cat.queueRows()).as("nothing deleted").isEqualTo(1);
        } finally {
            try (Connection c = TestPostgres.get().connect()) {
                Catalogs.exec(c, "DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
            }
        }
    }

    /**
     * Runs the command (after {@code --catalog URL --metadata-schema SCHEMA}) while another session holds ACCESS
     * EXCLUSIVE on the swept catalog's {@code ducklake_snapshot}, so that the run's first read waits on it, and sends
     * SIGTERM: the run must end as a clean stop by the signal.
     */
    private Stopped sigtermWhileReadingOwnCatalog(String prefix, String command, String... args) throws Exception {
        FileCatalog cat = sweptCatalog(dir.resolve(prefix), prefix);
        String app = appName();
        try (Connection holder = TestPostgres.get().connect()) {
            holder.setAutoCommit(false);
            Catalogs.exec(holder, "LOCK TABLE " + Sql.qualified(cat.schema, "ducklake_snapshot") + " IN ACCESS EXCLUSIVE MODE");
            java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of(command, "--catalog", url(app),
                    "--metadata-schema", cat.schema, "--yes", "--lock-timeout", "60", "--output", "json"));
            all.addAll(java.util.List.of(args));
            Stopped s = sigtermWhileWaiting(app, all.toArray(String[]::new));
            assertThat(s.exitCode()).as(s.err()).isEqualTo(143);
            assertThat(s.seconds()).as("seconds from SIGTERM to the exit").isLessThan(5);
            assertThat(s.doc().has("reason")).as("a stop, not a database error: %s", s.doc()).isFalse();
            assertThat(s.doc().path("status").asText()).isEqualTo("stopped");
            assertThat(s.doc().path("exit_code").asInt()).isEqualTo(143);
            assertThat(s.doc().path("stopped_by_signal").asBoolean()).isTrue();
            assertNoSessionLeft(app);
            holder.rollback();
            return s;
        }
    }

    /**
     * A read of the run's read-only path ({@code QueryRunner}: the catalog inspection, the data path) waiting on a
     * writer's lock on the swept catalog itself: the watchdog's cancel (SQLSTATE 57014) ended the run as a database
     * error ({@code reason: database_error}) instead of a stop.
     */
    @Test
    void sigtermCancelsAStorageCommandsReadOfItsOwnCatalog() throws Exception {
        Stopped s = sigtermWhileReadingOwnCatalog("cancel_read", "delete-orphan-files");
        assertThat(s.doc().path("stopped_during").asText()).isEqualTo("catalog_statement");
    }

    /** The same through an operation without a stopped result of its own (expire-snapshots' inspection). */
    @Test
    void sigtermCancelsExpireSnapshotsReadAsAStop() throws Exception {
        Stopped s = sigtermWhileReadingOwnCatalog("cancel_expire", "expire-snapshots", "--retain-last", "1");
        assertThat(s.doc().path("message").asText()).contains("57014").contains("stopped");
    }

    /** A statement timeout (57014 with no stop and no spent budget) stays a database error, retried first. */
    @Test
    void aStatementTimeoutOfARunsReadIsADatabaseErrorNotAStop() throws Exception {
        FileCatalog cat = sweptCatalog(dir.resolve("timeout"), "cancel_timeout");
        String app = appName();
        try (Connection holder = TestPostgres.get().connect()) {
            holder.setAutoCommit(false);
            Catalogs.exec(holder, "LOCK TABLE " + Sql.qualified(cat.schema, "ducklake_snapshot") + " IN ACCESS EXCLUSIVE MODE");
            CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(120), () -> CliRun.run("delete-orphan-files", "--catalog",
                    url(app), "--metadata-schema", cat.schema, "--yes", "--output", "json", "--lock-timeout", "0",
                    "--statement-timeout", "1"));
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(9);
            assertThat(run.json().path("reason").asText()).isEqualTo("database_error");
            assertThat(run.json().path("message").asText()).contains("57014");
            assertThat(run.json().path("status").asText()).isNotEqualTo("stopped");
            assertNoSessionLeft(app);
            holder.rollback();
        }
    }

    @Test
    void runBudgetCancelsCleanupsReadWithNoLockOrStatementTimeout() throws Exception {
        Path lake = dir.resolve("budget");
        FileCatalog cat = sweptCatalog(lake, "cancel_budget");
        FileCatalog other = FileCatalog.create("cancel_budget_other", dir.resolve("other2") + "/");
        String app = appName();
        try (Connection holder = TestPostgres.get().connect()) {
            holder.setAutoCommit(false);
            Catalogs.exec(holder, "LOCK TABLE " + Sql.qualified(other.schema, "ducklake_data_file") + " IN ACCESS EXCLUSIVE MODE");
            long t0 = System.nanoTime();
            CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> CliRun.run("cleanup-old-files", "--catalog",
                    url(app), "--metadata-schema", cat.schema, "--yes", "--output", "json", "--lock-timeout", "0",
                    "--statement-timeout", "0", "--run-budget", "3s"));
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertThat(seconds).as("ended by the budget, not the lock's release\n%s", run).isLessThan(8);
            assertThat(run.exitCode()).as(run.toString()).isZero();
            assertThat(run.json().path("budget_exhausted").asBoolean()).isTrue();
            assertThat(run.json().path("status").asText()).isEqualTo("stopped");
            assertThat(run.json().path("stopped_during").asText()).isEqualTo("catalog_statement");
            assertNoSessionLeft(app);
            holder.rollback();
        }
        assertThat(cat.queueRows()).isEqualTo(1);
    }

    @Test
    void runBudgetEndsTheLoginToAnUnansweringAlsoCatalog() throws Exception {
        Path lake = dir.resolve("silent");
        FileCatalog cat = sweptCatalog(lake, "cancel_login");
        String app = appName();
        try (SilentPeer peer = SilentPeer.start()) {
            long t0 = System.nanoTime();
            CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> CliRun.run("cleanup-old-files", "--catalog",
                    url(app), "--metadata-schema", cat.schema, "--yes", "--output", "json", "--run-budget", "3s",
                    "--also-catalog", "host=127.0.0.1 port=" + peer.port() + " dbname=lake user=janitor connect_timeout=30"
                            + " metadata_schema=lake"));
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertThat(peer.accepted()).as("the login was tried").isNotEmpty();
            assertThat(seconds).as("ended by the budget, not the 30 s login timeout\n%s", run).isLessThan(8);
            assertThat(run.exitCode()).as(run.toString()).isZero();
            assertThat(run.json().path("budget_exhausted").asBoolean()).isTrue();
            assertThat(run.json().path("stopped_during").asText()).isEqualTo("catalog_statement");
            assertNoSessionLeft(app);
        }
        assertThat(cat.queueRows()).isEqualTo(1);
    }

    /**
     * The batch loop (drop-orphan-inline-tables; expire-snapshots and purge-orphan-stats share it): a batch waiting on
     * a reader's lock with no lock or statement timeout waited until the reader went, past the budget. After the first
     * committed batch the budget now cancels it: the batch rolls back, the run stops cleanly (exit 0,
     * {@code budget_exhausted}), the batches committed before stay.
     */
    @Test
    void runBudgetCancelsABatchWaitingOnALockWithNoTimeouts() throws Exception {
        FaultCatalog cat;
        try (Connection c = TestPostgres.get().connect()) {
            cat = FaultCatalog.build(c, TestPostgres.get().freshSchema("cancel_batch"), 60);
        }
        String app = appName();
        try (Connection holder = TestPostgres.get().connect()) {
            holder.setAutoCommit(false);
            // a reader keeps one orphan of batch 2 locked: the janitor's DROP waits inside its batch transaction
            Catalogs.exec(holder, "LOCK TABLE " + cat.orphanTable(30) + " IN ACCESS SHARE MODE");
            long t0 = System.nanoTime();
            CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> CliRun.run("drop-orphan-inline-tables",
                    "--catalog", url(app), "--metadata-schema", cat.schema, "--yes", "--batch-size", "20", "--output", "json",
                    "--lock-timeout", "0", "--statement-timeout", "0", "--run-budget", "3s"));
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertThat(seconds).as("ended by the budget, not the reader's release\n%s", run).isLessThan(8);
            assertThat(run.exitCode()).as(run.toString()).isZero();
            assertThat(run.json().path("budget_exhausted").asBoolean()).isTrue();
            assertThat(run.json().path("dropped").asLong()).as("the batches before the cancelled one stay")
                    .isGreaterThanOrEqualTo(20).isLessThan(cat.orphans.size());
            assertThat(run.err()).contains("was cancelled (SQLSTATE 57014) and rolled back");
            assertNoSessionLeft(app);
            holder.rollback();
        }
    }
}
