package dev.ducklake.janitor.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.testsupport.CatalogInvariants;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import dev.ducklake.janitor.testsupport.JanitorProcess;
import dev.ducklake.janitor.testsupport.PartitionProxy;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Faults caused by other sessions on the catalog server (issue 5, scenarios 1, 4, 5, 7, 8): terminated backends,
 * locks held by readers, concurrent writers, statement timeouts and a second janitor. Each run is checked with
 * {@link CatalogInvariants} and a re-run that must converge.
 */
class SessionFaultsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger APPS = new AtomicInteger();

    private final TestPostgres pg = TestPostgres.get();

    private static String appName() {
        return "janitor-fault-" + ProcessHandle.current().pid() + "-" + APPS.incrementAndGet();
    }

    private ConnectionSpec spec(String app) throws JanitorException {
        return ConnectionSpec.parse(pg.url(), Map.of("PGAPPNAME", app), null);
    }

    private static DropOrphanInlineTablesOptions.Builder options(FaultCatalog cat) {
        return DropOrphanInlineTablesOptions.builder().metadataSchema(cat.schema).batchSize(20)
                .lockTimeout(Duration.ofSeconds(20)).reconnectTimeout(Duration.ofSeconds(30));
    }

    /** A session that holds ACCESS SHARE on a table (an open transaction that read it) until closed. */
    /**
     * Polls pg_stat_activity (every 20 ms) until a backend of application {@code app} waits on a lock inside a
     * transaction.
     *
     * @return that backend's pid, or -1 when none did within {@code timeoutNanos}
     */
    private int awaitLockWait(String app, long timeoutNanos) throws Exception {
        try (Connection mon = pg.connect();
             PreparedStatement find = mon.prepareStatement("SELECT pid FROM pg_stat_activity WHERE application_name = ?"
                     + " AND wait_event_type = 'Lock' AND xact_start IS NOT NULL")) {
            find.setString(1, app);
            long deadline = System.nanoTime() + timeoutNanos;
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = find.executeQuery()) {
                    if (rs.next()) {
                        return rs.getInt(1);
                    }
                }
                Thread.sleep(20);
            }
            return -1;
        }
    }

    private Connection holdReadLock(String qualifiedTable) throws Exception {
        Connection blocker = pg.connect();
        blocker.setAutoCommit(false);
        try (Statement st = blocker.createStatement()) {
            st.execute("SELECT 1 FROM " + qualifiedTable + " LIMIT 1");
        }
        return blocker;
    }

    /** Runs a re-run to completion and checks the catalog converged (no droppable orphan left). */
    private void assertConverges(FaultCatalog cat) throws Exception {
        DropOrphanInlineTablesResult again = new DropOrphanInlineTables(pg.spec(), DropOrphanInlineTablesOptions.builder()
                .metadataSchema(cat.schema).build(), ProgressListener.NONE).execute();
        try (Connection c = pg.connect()) {
            cat.check(c);
            long left = CatalogInvariants.assertNoDroppableOrphans(c, cat.schema);
            assertThat(again.remaining()).as("orphans left after the re-run are only the must-keep ones").isEqualTo(left);
        }
        DropOrphanInlineTablesResult third = new DropOrphanInlineTables(pg.spec(), DropOrphanInlineTablesOptions.builder()
                .metadataSchema(cat.schema).build(), ProgressListener.NONE).execute();
        assertThat(third.dropped()).as("a converged catalog has nothing more to drop").isZero();
    }

    // ------------------------------------------------------------------ 1. pg_terminate_backend mid-batch

    @Test
    void backendTerminatedMidBatchSeveralTimesReconnectsRetakesLockAndFinishes() throws Exception {
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, pg.freshSchema("fault_term"), 120);
        }
        String app = appName();
        int kills = 3;
        // a reader keeps one orphan of batch 2 locked, so the janitor's backend waits inside its batch transaction
        Connection blocker = holdReadLock(cat.orphanTable(30));
        AtomicInteger terminated = new AtomicInteger();
        CompletableFuture<Void> killer = CompletableFuture.runAsync(() -> {
            try (Connection mon = pg.connect();
                 PreparedStatement kill = mon.prepareStatement("SELECT pg_terminate_backend(?)")) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (terminated.get() < kills && System.nanoTime() < deadline) {
                    int pid = awaitLockWait(app, deadline - System.nanoTime());
                    if (pid > 0) {
                        kill.setInt(1, pid);
                        kill.execute();
                        terminated.incrementAndGet();
                        Thread.sleep(50);
                    }
                }
                blocker.rollback();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        CliRun run;
        try {
            run = CliRun.run(Map.of("PGAPPNAME", app), "drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema",
                    cat.schema, "--yes", "--batch-size", "20", "--lock-timeout", "20", "--reconnect-timeout", "30", "--output", "json");
            killer.get(60, TimeUnit.SECONDS);
        } finally {
            blocker.close();
        }
        assertThat(terminated.get()).as("the backend was terminated mid-batch %d times", kills).isEqualTo(kills);
        assertThat(run.exitCode()).as("the run recovers and succeeds; stderr: %s", run.err()).isZero();
        JsonNode doc = JSON.readTree(run.out());
        assertThat(doc.get("reconnects").asInt()).as("one reconnect per termination").isEqualTo(kills);
        assertThat(doc.get("dropped").asLong()).as("every empty orphan dropped").isEqualTo(cat.orphans.size());
        assertThat(run.err()).as("each reconnect re-takes the advisory lock").contains("re-took the advisory lock");
        try (Connection c = pg.connect()) {
            cat.check(c);
        }
        assertConverges(cat);
    }

    // ------------------------------------------------------------------ 1b. network cut: the old session lives on

    @Test
    void networkCutLeavesAZombieSessionHoldingTheLockWhichTheReconnectEnds() throws Exception {
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, pg.freshSchema("fault_cut"), 60);
        }
        String app = appName();
        Connection blocker = holdReadLock(cat.orphanTable(30));
        CliRun run;
        try (PartitionProxy proxy = new PartitionProxy(Integer.parseInt(pg.spec().port()))) {
            String url = "jdbc:postgresql://localhost:" + proxy.port() + "/" + pg.spec().database() + "?user=" + pg.spec().user();
            CompletableFuture<Integer> cutter = CompletableFuture.supplyAsync(() -> {
                try {
                    int zombie = awaitLockWait(app, TimeUnit.SECONDS.toNanos(60));
                    if (zombie > 0) {
                        // the janitor loses its connection; its backend keeps waiting, holding the advisory lock
                        proxy.cutClients();
                        Thread.sleep(300);
                        blocker.rollback();
                    }
                    return zombie;
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            run = CliRun.run(Map.of("PGAPPNAME", app), "drop-orphan-inline-tables", "--catalog", url, "--metadata-schema", cat.schema,
                    "--yes", "--batch-size", "20", "--lock-timeout", "20", "--reconnect-timeout", "20", "--output", "json");
            assertThat(cutter.get(60, TimeUnit.SECONDS)).as("the cut happened mid-batch").isPositive();
        } finally {
            blocker.close();
        }
        assertThat(run.exitCode()).as("the reconnect ends the zombie session and re-takes the lock; stderr: %s", run.err()).isZero();
        assertThat(run.err()).contains("ended this run's previous server session");
        JsonNode doc = JSON.readTree(run.out());
        assertThat(doc.get("reconnects").asInt()).isEqualTo(1);
        assertThat(doc.get("dropped").asLong()).isEqualTo(cat.orphans.size());
        try (Connection c = pg.connect()) {
            cat.check(c);
        }
        assertConverges(cat);
    }

    // ------------------------------------------------------------------ deadlock with a writer

    @Test
    void deadlockWithAWriterIsRetriedAndTheRunFinishes() throws Exception {
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, pg.freshSchema("fault_deadlock"), 40);
        }
        String app = appName();
        CatalogInvariants.RegistryRow victim = cat.orphans.get(25);
        // the writer reads the table (ACCESS SHARE), the janitor waits for it under its registry row lock, then the
        // writer wants that registry row: a deadlock; the janitor detects it first (deadlock_timeout 100 ms) and retries
        Connection writer = holdReadLock(cat.orphanTable(25));
        CompletableFuture<Boolean> deadlocker = CompletableFuture.supplyAsync(() -> {
            try {
                if (awaitLockWait(app, TimeUnit.SECONDS.toNanos(60)) < 0) {
                    return false;
                }
                try (PreparedStatement upd = writer.prepareStatement("SELECT 1 FROM "
                        + dev.ducklake.janitor.pg.Sql.qualified(cat.schema, "ducklake_inlined_data_tables")
                        + " WHERE table_id = ? FOR UPDATE")) {
                    upd.setLong(1, victim.tableId());
                    upd.executeQuery().close();
                }
                writer.rollback();
                return true;
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        CliRun run;
        try {
            String url = pg.url() + (pg.url().contains("?") ? "&" : "?") + "options=-c%20deadlock_timeout%3D100ms";
            run = CliRun.run(Map.of("PGAPPNAME", app), "drop-orphan-inline-tables", "--catalog", url, "--metadata-schema", cat.schema,
                    "--yes", "--batch-size", "20", "--lock-timeout", "20", "--output", "json");
            assertThat(deadlocker.get(60, TimeUnit.SECONDS)).as("the writer closed the cycle").isTrue();
        } finally {
            writer.close();
        }
        assertThat(run.exitCode()).as("stderr: %s", run.err()).isZero();
        assertThat(run.err()).as("the deadlock was retried").contains("40P01");
        JsonNode doc = JSON.readTree(run.out());
        assertThat(doc.get("retries").asInt()).isGreaterThanOrEqualTo(1);
        assertThat(doc.get("dropped").asLong()).isEqualTo(cat.orphans.size());
        try (Connection c = pg.connect()) {
            cat.check(c);
        }
        assertConverges(cat);
    }

    // ------------------------------------------------------------------ 4. a table locked by another session

    @Test
    void tableLockedByAReaderIsRetriedThenSkippedAndReportedWhileTheRestCompletes() throws Exception {
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, pg.freshSchema("fault_locked"), 60);
        }
        String locked = cat.orphans.get(25).tableName();
        Connection blocker = holdReadLock(cat.orphanTable(25));
        CliRun run;
        try {
            run = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", cat.schema, "--yes",
                    "--batch-size", "20", "--lock-timeout", "0.3", "--output", "json");
        } finally {
            blocker.close();
        }
        assertThat(run.exitCode()).as("a locked table does not fail the run; stderr: %s", run.err()).isZero();
        JsonNode doc = JSON.readTree(run.out());
        assertThat(doc.get("skipped_locked").asLong()).as("the locked table is skipped after its retry").isEqualTo(1);
        assertThat(doc.get("dropped").asLong()).as("all the others are dropped").isEqualTo(cat.orphans.size() - 1);
        assertThat(run.err()).as("the skipped table is named").contains("skipped " + locked).contains("retrying 1 table(s)");
        try (Connection c = pg.connect()) {
            List<CatalogInvariants.RegistryRow> deleted = cat.check(c);
            assertThat(deleted).extracting(CatalogInvariants.RegistryRow::tableName).doesNotContain(locked);
        }
        assertConverges(cat);
    }

    // ------------------------------------------------------------------ 5. a writer between listing and locking

    @Test
    void rowInsertedBetweenListingAndLockingIsCaughtUnderAccessExclusiveAndTheTableKept() throws Exception {
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, pg.freshSchema("fault_writer"), 40);
        }
        String target = cat.orphans.get(7).tableName();
        String qualified = cat.orphanTable(7);
        AtomicInteger inserted = new AtomicInteger();
        ProgressListener writer = new ProgressListener() {
            @Override
            public void info(String message) {
                // emitted once the survey has listed the candidates and before the first batch locks anything
                if (message.startsWith("registry_rows=") && inserted.get() == 0) {
                    try (Connection w = pg.connect(); Statement st = w.createStatement()) {
                        inserted.set(st.executeUpdate("INSERT INTO " + qualified + " VALUES (1, 1, NULL, 42, 42, 42)"));
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                }
            }
        };
        DropOrphanInlineTablesResult r = new DropOrphanInlineTables(pg.spec(), options(cat).build(), writer).execute();
        assertThat(inserted.get()).as("the writer inserted its row mid-run").isEqualTo(1);
        assertThat(r.skippedNonempty()).as("the demo's non-empty orphan and the written one are skipped").isEqualTo(2);
        assertThat(r.nonEmptyTables()).extracting(DropOrphanInlineTablesResult.NonEmptyTable::tableName).contains(target);
        assertThat(r.dropped()).isEqualTo(cat.orphans.size() - 1);
        try (Connection c = pg.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM " + qualified)) {
            rs.next();
            assertThat(rs.getLong(1)).as("the written row survives").isEqualTo(1);
            cat.before.expectRows(target, List.of("(1,1,,42,42,42)"));
            List<CatalogInvariants.RegistryRow> deleted = cat.check(c);
            assertThat(deleted).extracting(CatalogInvariants.RegistryRow::tableName).doesNotContain(target);
        }
        assertConverges(cat);
    }

    // ------------------------------------------------------------------ 7. statement_timeout

    @Test
    void statementTimeoutIsRetriedThenFailsClearlyAndLosesNothing() throws Exception {
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, pg.freshSchema("fault_stmt"), 50);
        }
        // with lock_timeout off, the LOCK TABLE of batch 2 waits until statement_timeout cancels it (57014)
        Connection blocker = holdReadLock(cat.orphanTable(25));
        CliRun run;
        long t0 = System.nanoTime();
        try {
            run = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", cat.schema, "--yes",
                    "--batch-size", "20", "--lock-timeout", "0", "--statement-timeout", "0.3");
        } finally {
            blocker.close();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertThat(run.exitCode()).as("a timeout that persists is a database error; stderr: %s", run.err()).isEqualTo(9);
        assertThat(run.err()).as("the message names the SQLSTATE and the attempts")
                .contains("57014").contains("failed 5 times").contains("committed so far is kept").doesNotContain("\tat ");
        assertThat(seconds).as("bounded: 5 attempts with backoff").isLessThan(30);
        try (Connection c = pg.connect()) {
            List<CatalogInvariants.RegistryRow> deleted = cat.check(c);
            assertThat(deleted).as("batch 1 committed before the failing batch").hasSize(20);
        }
        assertConverges(cat);
    }

    @Test
    void statementTimeoutThatClearsIsRetriedWithinTheLimitAndTheRunSucceeds() throws Exception {
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, pg.freshSchema("fault_stmt_ok"), 50);
        }
        Connection blocker = holdReadLock(cat.orphanTable(25));
        ProgressListener releaseOnRetry = new ProgressListener() {
            @Override
            public void warn(String message) {
                if (message.contains("57014")) {
                    try {
                        blocker.rollback();
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                }
            }
        };
        DropOrphanInlineTablesResult r;
        try {
            r = new DropOrphanInlineTables(pg.spec(), options(cat).lockTimeout(Duration.ZERO)
                    .statementTimeout(Duration.ofMillis(300)).build(), releaseOnRetry).execute();
        } finally {
            blocker.close();
        }
        assertThat(r.retries()).as("the timed-out batch was retried").isGreaterThanOrEqualTo(1);
        assertThat(r.dropped()).isEqualTo(cat.orphans.size());
        try (Connection c = pg.connect()) {
            cat.check(c);
        }
        assertConverges(cat);
    }

    // ------------------------------------------------------------------ 8. two janitors at once

    @Test
    void twoJanitorsStartedAtOnceExactlyOneRunsTheOtherExitsWithLockHeld() throws Exception {
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, pg.freshSchema("fault_two"), 60);
        }
        // a reader on one orphan keeps the winner busy for a few seconds (lock_timeout, then its retry)
        Connection blocker = holdReadLock(cat.orphanTable(50));
        List<JanitorProcess> procs = new ArrayList<>();
        List<Integer> codes = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                procs.add(JanitorProcess.start(Map.of(), "drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema",
                        cat.schema, "--yes", "--batch-size", "20", "--lock-timeout", "3"));
            }
            for (JanitorProcess p : procs) {
                codes.add(p.waitFor(90));
            }
        } finally {
            blocker.close();
        }
        assertThat(codes).as("exactly one runs (0), the other exits with the lock-held code (7)").containsExactlyInAnyOrder(0, 7);
        JanitorProcess loser = procs.get(codes.indexOf(7));
        assertThat(loser.err()).as("the loser says why, without a stack trace")
                .contains("advisory lock").contains("nothing was changed").doesNotContain("\tat ");
        procs.forEach(JanitorProcess::cleanup);
        try (Connection c = pg.connect()) {
            assertThat(cat.check(c)).hasSize(cat.orphans.size() - 1);
        }
        assertConverges(cat);
    }

    @Test
    void lockHeldByAnotherSessionRefusesBeforeChangingAnything() throws Exception {
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, pg.freshSchema("fault_held"), 5);
        }
        try (Connection holder = pg.connect()) {
            dev.ducklake.janitor.pg.AdvisoryLock.acquire(holder, "ducklake-maintenance", cat.schema);
            assertThatThrownBy(() -> new DropOrphanInlineTables(pg.spec(), options(cat).build(), ProgressListener.NONE).execute())
                    .isInstanceOfSatisfying(JanitorException.class,
                            e -> assertThat(e.reason()).isEqualTo(JanitorException.Reason.LOCK_HELD));
            try (Connection c = pg.connect()) {
                CatalogInvariants.assertUnchanged(c, cat.before);
            }
        }
    }
}
