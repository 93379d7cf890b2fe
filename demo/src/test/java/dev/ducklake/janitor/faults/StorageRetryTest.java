package dev.ducklake.janitor.faults;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.cleanupoldfiles.QueueSweep;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.ops.deleteorphanfiles.OrphanSweep;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesOptions;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesResult;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.ops.files.StorageFailures;
import dev.ducklake.janitor.ops.runtime.RunFigures;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.ForwardingStore;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.storage.StorageLocation;
import dev.ducklake.janitor.storage.StoredObject;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Issue 25: the storage operations ran their catalog transactions after the start with no retry, so a transient
 * PostgreSQL failure (a serialization failure, a deadlock, a lock or statement timeout) ended the run where every
 * other operation retries it. Their per-batch / per-round transactions now go through the one retry loop and
 * policy on the run's session ({@code ops.files.CatalogRetry}); a failure the policy does not retry in the session
 * (a lost connection, any other error) ends the run as before, with the rows of files not confirmed gone kept.
 */
class StorageRetryTest {

    private static final Duration OLD = Duration.ofDays(3);

    @TempDir
    Path dir;

    /**
     * A statement trigger on the deletion queue that fails the first {@code times} DELETE statements with
     * {@code sqlstate}; the count lives in a sequence, which a rollback does not undo.
     */
    private static void failQueueDeletes(FileCatalog cat, int times, String sqlstate) throws SQLException {
        String queue = Sql.qualified(cat.schema, "ducklake_files_scheduled_for_deletion");
        try (Connection c = TestPostgres.get().connect()) {
            Catalogs.exec(c, "CREATE SEQUENCE " + Sql.qualified(cat.schema, "fault_seq"));
            Catalogs.exec(c, "CREATE FUNCTION " + Sql.qualified(cat.schema, "fault") + "() RETURNS trigger LANGUAGE plpgsql AS $f$"
                    + " BEGIN IF nextval(format('%I.fault_seq', TG_TABLE_SCHEMA)::regclass) <= TG_ARGV[0]::int THEN"
                    + " RAISE EXCEPTION USING ERRCODE = TG_ARGV[1], MESSAGE = 'injected fault ' || TG_ARGV[1]; END IF;"
                    + " RETURN NULL; END $f$");
            Catalogs.exec(c, "CREATE TRIGGER fault BEFORE DELETE ON " + queue + " FOR EACH STATEMENT EXECUTE FUNCTION "
                    + Sql.qualified(cat.schema, "fault") + "('" + times + "', '" + sqlstate + "')");
        }
    }

    /** Drops the fault trigger of {@link #failQueueDeletes}. */
    private static void clearFaults(FileCatalog cat) throws SQLException {
        try (Connection c = TestPostgres.get().connect()) {
            Catalogs.exec(c, "DROP TRIGGER fault ON " + Sql.qualified(cat.schema, "ducklake_files_scheduled_for_deletion"));
        }
    }

    /** How many times the trigger fired (the sequence's calls). */
    private static long faultCalls(FileCatalog cat) throws SQLException {
        try (Connection c = TestPostgres.get().connect()) {
            return Catalogs.scalar(c, "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM "
                    + Sql.qualified(cat.schema, "fault_seq"));
        }
    }

    private static List<Path> queuedFiles(FileCatalog cat, Path lake, int n) throws Exception {
        List<Path> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(FileCatalog.file(lake.resolve("main/test/q" + i + ".parquet"), OLD));
            cat.queue("main/test/q" + i + ".parquet", true, OLD);
        }
        return out;
    }

    private static CleanupOldFilesResult cleanup(FileCatalog cat, int batchSize) throws Exception {
        try (Connection c = TestPostgres.get().connect()) {
            return QueueSweep.run(c, new LocalFileStore(), CleanupOldFilesOptions.builder(cat.schema).dryRun(false)
                    .batchSize(batchSize).build(), FileListener.NONE);
        }
    }

    /**
     * The queue rows of a batch whose files are gone fail to delete twice (40001): the transaction is rolled back and
     * run again, the run goes on through the later batches (the queue cursor, held across the batches and read ahead
     * during the failed transaction, is neither rewound nor lost), every row goes exactly once and no file is taken
     * for missing.
     */
    @Test
    void cleanupRetriesTheQueueRowDeleteAfterASerializationFailure() throws Exception {
        Path lake = dir.resolve("ser");
        FileCatalog cat = FileCatalog.create("sretry_ser", lake + "/");
        List<Path> files = queuedFiles(cat, lake, 5);
        Path live = FileCatalog.file(lake.resolve("main/test/live.parquet"), OLD);
        cat.queue("main/test/live.parquet", true, OLD);
        cat.dataFile(1, "live.parquet", true);
        failQueueDeletes(cat, 2, "40001");

        CleanupOldFilesResult r = cleanup(cat, 2);

        assertThat(faultCalls(cat)).as("two failed attempts, then one DELETE per batch").isEqualTo(2 + 3);
        assertThat(r.run().retries()).isEqualTo(2);
        assertThat(r.run().warnings()).anySatisfy(w -> assertThat(w).contains("deleting the queue rows of batch 1: attempt 1"
                + " failed with SQLSTATE 40001"));
        assertThat(r.filesDeleted()).isEqualTo(5);
        assertThat(r.filesNotFound()).as("no file handled twice").isZero();
        assertThat(r.queueRowsDeleted()).isEqualTo(5);
        assertThat(r.keptLive()).isEqualTo(1);
        assertThat(r.run().batches()).isEqualTo(3);
        assertThat(files).allSatisfy(f -> assertThat(Files.exists(f)).isFalse());
        assertThat(Files.exists(live)).isTrue();
        assertThat(cat.queueRows()).as("only the live file's row").isEqualTo(1);
    }

    /** Through the command: the retry is counted in the JSON's {@code retries} and the run exits 0. */
    @Test
    void cleanupCountsTheRetryInTheJson() throws Exception {
        Path lake = dir.resolve("json");
        FileCatalog cat = FileCatalog.create("sretry_json", lake + "/");
        List<Path> files = queuedFiles(cat, lake, 3);
        failQueueDeletes(cat, 1, "40P01");

        CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> CliRun.run("cleanup-old-files", "--catalog",
                TestPostgres.get().url(), "--metadata-schema", cat.schema, "--yes", "--output", "json"));

        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode j = run.json();
        assertThat(j.path("retries").asInt()).isEqualTo(1);
        assertThat(j.path("queue_rows_deleted").asLong()).as(run.out()).isEqualTo(3);
        assertThat(files).allSatisfy(f -> assertThat(Files.exists(f)).isFalse());
        assertThat(cat.queueRows()).isZero();
    }

    /**
     * A failure the policy does not retry ends the run as before (exit 9, the server's message): the files of the
     * batch are gone but their rows are kept (a rerun finds the files missing and removes the rows); nothing is retried.
     */
    @Test
    void cleanupEndsOnAFailureNotRetriedAndKeepsTheRows() throws Exception {
        Path lake = dir.resolve("fatal");
        FileCatalog cat = FileCatalog.create("sretry_fatal", lake + "/");
        List<Path> files = queuedFiles(cat, lake, 3);
        failQueueDeletes(cat, 1, "P0001");

        CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> CliRun.run("cleanup-old-files", "--catalog",
                TestPostgres.get().url(), "--metadata-schema", cat.schema, "--yes", "--output", "json"));

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(Reason.DATABASE_ERROR.exitCode());
        assertThat(run.err()).contains("injected fault P0001").contains("Batches committed before stay committed")
                .doesNotContain("retrying");
        assertThat(faultCalls(cat)).as("one attempt").isEqualTo(1);
        assertThat(files).allSatisfy(f -> assertThat(Files.exists(f)).isFalse());
        assertThat(cat.queueRows()).as("rows of files gone are kept, never a row deleted before its file").isEqualTo(3);

        CleanupOldFilesResult rerun = cleanup(cat, 100);
        assertThat(rerun.queueRowsDeleted()).isEqualTo(3);
        assertThat(rerun.filesNotFound()).isEqualTo(3);
        assertThat(cat.queueRows()).isZero();
    }

    /** A retryable failure that persists ends the run after the policy's attempts, with exit 9 and the rows kept. */
    @Test
    void cleanupStopsWhenTheRetriesRunOut() throws Exception {
        Path lake = dir.resolve("persist");
        FileCatalog cat = FileCatalog.create("sretry_persist", lake + "/");
        List<Path> files = queuedFiles(cat, lake, 2);
        failQueueDeletes(cat, 1000, "55P03");

        CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> CliRun.run("cleanup-old-files", "--catalog",
                TestPostgres.get().url(), "--metadata-schema", cat.schema, "--yes", "--output", "json"));

        assertThat(run.exitCode()).as(run.toString()).isEqualTo(Reason.DATABASE_ERROR.exitCode());
        assertThat(run.err()).contains("injected fault 55P03").contains("failed 5 times");
        assertThat(faultCalls(cat)).as("the policy's 5 attempts").isEqualTo(5);
        assertThat(files).allSatisfy(f -> assertThat(Files.exists(f)).isFalse());
        assertThat(cat.queueRows()).isEqualTo(2);
    }

    /**
     * The backoffs never outlast --run-budget: 5 attempts need 3 s of backoff (200 + 400 + 800 + 1600 ms), more than
     * a 2 s budget, so a backoff is refused before the last attempt, saying why, and the run ends as a clean stop at
     * its budget (exit 0, budget_exhausted), as between batches: the files are gone, their rows stay for the next run,
     * which finds them missing and removes them. (Until issue 25's retry work it ended with exit 9.)
     */
    @Test
    void cleanupBackoffStopsAtTheRunBudget() throws Exception {
        Path lake = dir.resolve("budget");
        FileCatalog cat = FileCatalog.create("sretry_budget", lake + "/");
        queuedFiles(cat, lake, 2);
        failQueueDeletes(cat, 1000, "57014");

        CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> CliRun.run("cleanup-old-files", "--catalog",
                TestPostgres.get().url(), "--metadata-schema", cat.schema, "--yes", "--output", "json", "--run-budget", "2s"));

        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.err()).contains("not retried: the run budget would run out first");
        assertThat(run.json().path("budget_exhausted").asBoolean()).as(run.out()).isTrue();
        assertThat(run.json().path("findings").toString()).contains("stopped before the queue rows of 2 deleted files");
        assertThat(faultCalls(cat)).as("fewer than the policy's 5 attempts").isBetween(1L, 4L);
        assertThat(cat.queueRows()).isEqualTo(2);

        // the next run, the fault gone: the files are missing, their rows go
        clearFaults(cat);
        CliRun next = CliRun.run("cleanup-old-files", "--catalog", TestPostgres.get().url(), "--metadata-schema", cat.schema,
                "--yes", "--output", "json");
        assertThat(next.exitCode()).as(next.toString()).isZero();
        assertThat(next.json().path("files_not_found").asLong()).isEqualTo(2);
        assertThat(cat.queueRows()).isZero();
    }

    /**
     * The trial of 2026-12-06 (stop 38): through the command, --lock-timeout was never set on a storage command's
     * session (the runtime built its control without the run options' timeouts), so the queue-row delete waited for a
     * writer's lock without end, past --run-budget and past SIGTERM. Now the wait ends at --lock-timeout (55P03), is
     * retried within the budget, and the run stops cleanly at the budget: the files are gone, their rows kept.
     */
    @Test
    void cleanupsQueueDeleteBehindALockEndsAtTheLockTimeoutAndTheBudget() throws Exception {
        Path lake = dir.resolve("locked");
        FileCatalog cat = FileCatalog.create("sretry_locked", lake + "/");
        List<Path> files = queuedFiles(cat, lake, 2);
        try (Connection holder = TestPostgres.get().connect()) {
            holder.setAutoCommit(false);
            Catalogs.exec(holder, "LOCK TABLE " + Sql.qualified(cat.schema, "ducklake_files_scheduled_for_deletion")
                    + " IN EXCLUSIVE MODE");
            long t0 = System.nanoTime();
            CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> CliRun.run("cleanup-old-files", "--catalog",
                    TestPostgres.get().url(), "--metadata-schema", cat.schema, "--yes", "--output", "json",
                    "--lock-timeout", "0.5", "--run-budget", "3s"));
            double seconds = (System.nanoTime() - t0) / 1e9;
            holder.rollback();
            assertThat(run.exitCode()).as(run.toString()).isZero();
            assertThat(seconds).as("ended by the lock timeout and the budget, not by the lock's release").isLessThan(20);
            assertThat(run.json().path("budget_exhausted").asBoolean()).isTrue();
            assertThat(run.err()).contains("SQLSTATE 55P03");
            assertThat(files).allSatisfy(f -> assertThat(Files.exists(f)).isFalse());
            assertThat(cat.queueRows()).as("kept for the next run").isEqualTo(2);
        }
    }

    /**
     * The re-trial of 2026-12-06 (stop 38): the catalog inspection at the start (its consistency checks read the file
     * tables) ran without the run's --lock-timeout, so a writer's ACCESS EXCLUSIVE lock held the run until it was
     * released (29.5 s with --run-budget 5s; SIGTERM waited too). It now runs as every read of the run: the wait ends at
     * the lock timeout and the retries stop at the budget, long before the lock goes; nothing is deleted.
     */
    @Test
    void theStartupInspectionBehindALockEndsWithinTheBounds() throws Exception {
        Path lake = dir.resolve("inspect-locked");
        FileCatalog cat = FileCatalog.create("sretry_inspect", lake + "/");
        List<Path> files = queuedFiles(cat, lake, 2);
        try (Connection holder = TestPostgres.get().connect()) {
            holder.setAutoCommit(false);
            Catalogs.exec(holder, "LOCK TABLE " + Sql.qualified(cat.schema, "ducklake_data_file") + " IN ACCESS EXCLUSIVE MODE");
            long t0 = System.nanoTime();
            CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> CliRun.run("cleanup-old-files", "--catalog",
                    TestPostgres.get().url(), "--metadata-schema", cat.schema, "--yes", "--output", "json",
                    "--lock-timeout", "0.5", "--run-budget", "3s"));
            double seconds = (System.nanoTime() - t0) / 1e9;
            holder.rollback();
            assertThat(seconds).as("ended by the lock timeout and the budget, not the lock's release\n%s", run).isLessThan(15);
            assertThat(run.exitCode()).as(run.toString()).isNotZero();
            assertThat(run.err()).contains("55P03");
            assertThat(files).allSatisfy(f -> assertThat(Files.exists(f)).isTrue());
            assertThat(cat.queueRows()).isEqualTo(2);
        }
    }

    /**
     * A store whose listing, once done, has a second session take an ACCESS EXCLUSIVE lock on the catalog's
     * {@code ducklake_data_file} (so the round's re-check, which reads it, hits the swept session's lock_timeout) and
     * hands the lock to {@code whileHeld}, which runs on its own thread and ends the lock's transaction.
     */
    private static FileStore lockingAfterListing(FileCatalog cat, Locked whileHeld, List<CompletableFuture<Void>> done) {
        return new ForwardingStore(new LocalFileStore()) {
            @Override
            public Listing list(StorageLocation prefix) throws StorageException {
                Listing l = inner.list(prefix);
                return new Listing() {
                    boolean locked;

                    @Override
                    public boolean hasNext() {
                        boolean more = l.hasNext();
                        if (!more && !locked) {
                            locked = true;
                            try {
                                Connection other = TestPostgres.get().connect();
                                other.setAutoCommit(false);
                                try (Statement st = other.createStatement()) {
                                    st.execute("SET LOCAL lock_timeout = '10s'");
                                    st.execute("LOCK TABLE " + Sql.qualified(cat.schema, "ducklake_data_file")
                                            + " IN ACCESS EXCLUSIVE MODE");
                                }
                                done.add(CompletableFuture.runAsync(() -> {
                                    try (other) {
                                        whileHeld.run(other);
                                    } catch (Exception e) {
                                        throw new IllegalStateException(e);
                                    }
                                }));
                            } catch (SQLException e) {
                                throw new IllegalStateException(e);
                            }
                        }
                        return more;
                    }

                    @Override
                    public StoredObject next() {
                        return l.next();
                    }

                    @Override
                    public void close() {
                        l.close();
                    }
                };
            }
        };
    }

    interface Locked {
        void run(Connection holder) throws Exception;
    }

    /** Waits until the session {@code pid} waits for a lock, then until it waits no more (its lock_timeout fired). */
    private static void awaitLockWaitEnded(Connection holder, long pid) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        boolean seen = false;
        while (System.nanoTime() < until) {
            long waiting;
            try (var ps = holder.prepareStatement("SELECT count(*) FROM pg_catalog.pg_locks WHERE pid = ? AND NOT granted")) {
                ps.setLong(1, pid);
                try (var rs = ps.executeQuery()) {
                    rs.next();
                    waiting = rs.getLong(1);
                }
            }
            if (waiting > 0) {
                seen = true;
            } else if (seen) {
                return;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("session " + pid + " never waited for the lock and gave up");
    }

    private static long pid(Connection c) throws SQLException {
        return Catalogs.scalar(c, "SELECT pg_backend_pid()");
    }

    private static void knownAndOrphans(FileCatalog cat, Path lake) throws Exception {
        for (int i = 0; i < 10; i++) {
            FileCatalog.file(lake.resolve("main/test/k" + i + ".parquet"), OLD);
            cat.dataFile(1, "k" + i + ".parquet", true);
        }
        for (int i = 0; i < 3; i++) {
            FileCatalog.file(lake.resolve("main/test/o" + i + ".parquet"), OLD);
        }
    }

    /**
     * delete-orphan-files: the round's re-check hits the run's --lock-timeout (55P03; the session's own is none, which
     * before the fix made the re-check wait without end) behind a competing lock; the transaction is
     * rolled back and run again once the backoff passed, reading the catalog again: an orphan registered while the
     * first attempt failed is kept, the others are deleted, and the retry is counted.
     */
    @Test
    void orphanRecheckIsRetriedAndReadsTheCatalogAgain() throws Exception {
        Path lake = dir.resolve("orph");
        FileCatalog cat = FileCatalog.create("sretry_orph", lake + "/");
        knownAndOrphans(cat, lake);
        List<CompletableFuture<Void>> done = new ArrayList<>();
        DeleteOrphanFilesResult r;
        try (Connection c = TestPostgres.get().connect()) {
            // the session's own lock_timeout is none (wait without end): only the run's --lock-timeout ends the wait
            Catalogs.exec(c, "SET lock_timeout = 0");
            long pid = pid(c);
            FileStore store = lockingAfterListing(cat, holder -> {
                awaitLockWaitEnded(holder, pid);
                // registered while the re-check's first attempt failed: the retry must see it
                try (var ps = holder.prepareStatement("INSERT INTO " + Sql.qualified(cat.schema, "ducklake_data_file")
                        + " (data_file_id, table_id, begin_snapshot, path, path_is_relative, file_format)"
                        + " VALUES (9999, 1, 1, 'o1.parquet', true, 'parquet')")) {
                    ps.executeUpdate();
                }
                holder.commit();
            }, done);
            DeleteOrphanFilesOptions o = DeleteOrphanFilesOptions.defaults(cat.schema).withDryRun(false);
            DeleteOrphanFilesOptions withLockTimeout = o.withRun(o.run().toBuilder().lockTimeout(Duration.ofMillis(300)).build());
            r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> OrphanSweep.run(c, store, withLockTimeout,
                    FileListener.NONE));
        }
        done.get(0).get(20, TimeUnit.SECONDS);
        assertThat(r.run().retries()).isGreaterThanOrEqualTo(1);
        assertThat(r.run().warnings()).anySatisfy(w -> assertThat(w).contains("re-checking a round of 3 orphans")
                .contains("SQLSTATE 55P03"));
        assertThat(r.candidates()).isEqualTo(3);
        assertThat(r.deleted()).isEqualTo(2);
        assertThat(r.keptRegisteredDuringRun()).isEqualTo(1);
        assertThat(Files.exists(lake.resolve("main/test/o0.parquet"))).isFalse();
        assertThat(Files.exists(lake.resolve("main/test/o1.parquet"))).as("registered during the run").isTrue();
        assertThat(Files.exists(lake.resolve("main/test/o2.parquet"))).isFalse();
        for (int i = 0; i < 10; i++) {
            assertThat(Files.exists(lake.resolve("main/test/k" + i + ".parquet"))).isTrue();
        }
    }

    /**
     * delete-orphan-files: the round's re-check keeps hitting the run's --lock-timeout behind a lock held longer than
     * the run's --run-budget; once a backoff would pass the budget, the run ends as a clean stop at its budget (not
     * exit 9): nothing of the round is deleted, the candidates stay for the next run.
     */
    @Test
    void orphanRecheckBackoffStopsCleanlyAtTheRunBudget() throws Exception {
        Path lake = dir.resolve("orph-budget");
        FileCatalog cat = FileCatalog.create("sretry_orph_budget", lake + "/");
        knownAndOrphans(cat, lake);
        List<CompletableFuture<Void>> done = new ArrayList<>();
        DeleteOrphanFilesResult r;
        try (Connection c = TestPostgres.get().connect()) {
            FileStore store = lockingAfterListing(cat, holder -> {
                Thread.sleep(15_000); // longer than the budget: every attempt of the re-check times out
                holder.rollback();
            }, done);
            // 1 s lock waits and the policy's backoffs (0.2, 0.4, 0.8, 1.6 s) pass a 5 s budget before the fifth attempt,
            // however long the run took to reach the re-check (under 3.6 s)
            DeleteOrphanFilesOptions o = DeleteOrphanFilesOptions.defaults(cat.schema).withDryRun(false);
            DeleteOrphanFilesOptions bounded = o.withRun(o.run().toBuilder().lockTimeout(Duration.ofSeconds(1))
                    .runBudget(Duration.ofSeconds(5)).build());
            r = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> OrphanSweep.run(c, store, bounded,
                    FileListener.NONE));
        }
        done.get(0).get(30, TimeUnit.SECONDS);
        assertThat(r.run().stopReason()).isEqualTo(RunFigures.StopReason.RUN_BUDGET);
        assertThat(r.run().warnings()).anySatisfy(w -> assertThat(w).contains("re-checking a round of 3 orphans")
                .contains("not retried: the run budget would run out first"));
        assertThat(r.deleted()).isZero();
        for (int i = 0; i < 3; i++) {
            assertThat(Files.exists(lake.resolve("main/test/o" + i + ".parquet"))).as("left for the next run").isTrue();
        }
    }

    /**
     * A lost connection during the re-check is not retried in the session (its known-file table and advisory lock
     * are gone): the run ends as before, with the connection reason (exit 3), and no orphan is deleted.
     */
    @Test
    void orphanRecheckOnALostConnectionEndsTheRunAndDeletesNothing() throws Exception {
        Path lake = dir.resolve("lost");
        FileCatalog cat = FileCatalog.create("sretry_lost", lake + "/");
        knownAndOrphans(cat, lake);
        List<CompletableFuture<Void>> done = new ArrayList<>();
        try (Connection c = TestPostgres.get().connect()) {
            Catalogs.exec(c, "SET lock_timeout = '5s'");
            long pid = pid(c);
            FileStore store = lockingAfterListing(cat, holder -> {
                long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (Catalogs.scalar(holder, "SELECT count(*) FROM pg_catalog.pg_locks WHERE pid = " + pid
                        + " AND NOT granted") == 0) {
                    if (System.nanoTime() > until) {
                        throw new AssertionError("the re-check never waited for the lock");
                    }
                    Thread.sleep(5);
                }
                Catalogs.scalar(holder, "SELECT count(*) FROM (SELECT pg_terminate_backend(" + pid + ")) t");
                holder.rollback();
            }, done);
            assertThatThrownBy(() -> assertTimeoutPreemptively(Duration.ofSeconds(60), () -> OrphanSweep.run(c, store,
                    DeleteOrphanFilesOptions.defaults(cat.schema).withDryRun(false), FileListener.NONE)))
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        JanitorException j = StorageFailures.database(e, null);
                        assertThat(j.reason()).isEqualTo(Reason.CONNECTION);
                        assertThat(j.getMessage()).startsWith("The catalog connection was lost: ")
                                .endsWith(". Batches committed before stay committed; rerun to continue.");
                    });
        }
        done.get(0).get(20, TimeUnit.SECONDS);
        for (int i = 0; i < 3; i++) {
            assertThat(Files.exists(lake.resolve("main/test/o" + i + ".parquet"))).as("nothing deleted").isTrue();
        }
    }
}
