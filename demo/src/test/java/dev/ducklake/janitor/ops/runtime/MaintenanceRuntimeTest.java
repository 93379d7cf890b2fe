package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.retry.RetryPolicy;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.testsupport.PartitionProxy;
import dev.ducklake.janitor.testsupport.TestPostgres;
import dev.ducklake.janitor.testsupport.Watchdogs;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The shared runtime on a real PostgreSQL, with a synthetic batch work (no catalog needed): the batch loop's
 * adaptive size, limits, stop and budget; the session's reconnect (its own stale backend ended, the advisory lock
 * re-taken); the read-only query runner.
 */
class MaintenanceRuntimeTest {

    private final TestPostgres pg = TestPostgres.get();

    /** What one synthetic batch did. */
    record Done(int consumed, int handled, boolean truncated, int acted, int skipped, int missing) implements BatchOutcome {
    }

    /** A batch work that runs one query per attempt and may fail an attempt with a chosen SQLSTATE. */
    static final class Work implements BatchWork<Integer, Done> {
        final List<Integer> committedSizes = new ArrayList<>();
        final AtomicInteger attempts = new AtomicInteger();
        private final BiFunction<Integer, List<Integer>, String> failWith;
        private final Connection[] other;

        /** @param failWith (attempt number from 1, slice) to a SQLSTATE to fail with, or null to succeed */
        Work(BiFunction<Integer, List<Integer>, String> failWith, Connection... other) {
            this.failWith = failWith;
            this.other = other;
        }

        @Override
        public Done attempt(Connection c, List<Integer> slice) throws SQLException {
            int n = attempts.incrementAndGet();
            String state = failWith.apply(n, slice);
            if ("terminate".equals(state)) {
                int pid = pid(c);
                try (Statement st = other[0].createStatement()) {
                    st.execute("SELECT pg_terminate_backend(" + pid + ")");
                }
            } else if (state != null) {
                throw new SQLException("synthetic failure", state);
            }
            try (Statement st = c.createStatement()) {
                st.execute("SELECT 1");
            }
            return new Done(slice.size(), slice.size(), false, slice.size(), 0, 0);
        }

        @Override
        public void committed(Done outcome) {
            committedSizes.add(outcome.consumed());
        }

        @Override
        public String privilegeNeeded() {
            return "to do the synthetic work";
        }

        @Override
        public String units() {
            return "items";
        }
    }

    private static int pid(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static List<Integer> items(int n) {
        return IntStream.range(0, n).boxed().toList();
    }

    private RunOptions options() {
        return RunOptions.builder().batchSize(40).reconnectTimeout(Duration.ofSeconds(20)).build();
    }

    @Test
    void lockTableFullHalvesTheBatchAndTenCleanBatchesGrowItBack() throws Exception {
        List<String> infos = new ArrayList<>();
        ProgressListener l = new ProgressListener() {
            @Override
            public void info(String message) {
                infos.add(message);
            }
        };
        Work work = new Work((n, slice) -> n == 1 ? "53200" : null);
        RunFigures f;
        try (MaintenanceRun run = MaintenanceRun.open(pg.spec(), options(), l, new AtomicBoolean())) {
            BatchSizer sizer = run.batchSizer();
            // the halved batch itself had a retry: the 10 clean batches are the next ten
            assertThat(run.batchLoop(sizer, work).run(items(20 * 11 + 40))).isEqualTo(260);
            f = run.figures();
        }
        List<Integer> expected = new ArrayList<>(java.util.Collections.nCopies(11, 20));
        expected.add(40);
        assertThat(work.committedSizes).as("halved to 20, back to 40 after 10 clean batches").isEqualTo(expected);
        assertThat(f.retries()).isEqualTo(1);
        assertThat(f.batches()).isEqualTo(12);
        assertThat(f.batchSizeRequested()).isEqualTo(40);
        assertThat(f.batchSizeStart()).isEqualTo(40);
        assertThat(f.batchSizeFinal()).isEqualTo(40);
        assertThat(f.stopReason()).isEqualTo(RunFigures.StopReason.COMPLETED);
        assertThat(f.warnings()).anyMatch(w -> w.contains("batch size 40 -> 20"));
        assertThat(infos).contains("10 clean batches: batch size 20 -> 40 (ceiling 40)");
    }

    @Test
    void maxBatchesStopsTheLoopAndSaysSo() throws Exception {
        Work work = new Work((n, slice) -> null);
        RunFigures f;
        try (MaintenanceRun run = MaintenanceRun.open(pg.spec(), options().toBuilder().maxBatches(2).build(), ProgressListener.NONE,
                new AtomicBoolean())) {
            assertThat(run.batchLoop(run.batchSizer(), work).run(items(100))).isEqualTo(80);
            f = run.figures();
        }
        assertThat(f.stopReason()).isEqualTo(RunFigures.StopReason.MAX_BATCHES);
        assertThat(f.maxBatchesReached()).isTrue();
        assertThat(f.budgetExhausted()).isFalse();
    }

    @Test
    void aStopRequestEndsTheLoopAfterTheBatchInFlight() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        List<ProgressListener.Phase> phases = new ArrayList<>();
        ProgressListener l = new ProgressListener() {
            @Override
            public void batch(BatchProgress b) {
                if (b.number() == 2) {
                    stop.set(true);
                }
            }

            @Override
            public void phase(Phase phase, String detail) {
                phases.add(phase);
            }
        };
        Work work = new Work((n, slice) -> null);
        RunFigures f;
        try (MaintenanceRun run = MaintenanceRun.open(pg.spec(), options(), l, stop)) {
            assertThat(run.batchLoop(run.batchSizer(), work).run(items(200))).isEqualTo(80);
            f = run.figures();
        }
        assertThat(f.stopReason()).isEqualTo(RunFigures.StopReason.STOP_REQUESTED);
        assertThat(f.stopRequested()).isTrue();
        assertThat(f.budgetExhausted()).as("a stop request is not a spent budget (stop 39)").isFalse();
        assertThat(phases).containsSubsequence(ProgressListener.Phase.STOPPED, ProgressListener.Phase.FINISHED);
    }

    @Test
    void aSpentBudgetStillLetsOneBatchThroughAndAnAbandonedBackoffCountsAsBudget() throws Exception {
        Work work = new Work((n, slice) -> null);
        RunFigures f;
        try (MaintenanceRun run = MaintenanceRun.open(pg.spec(), options().toBuilder().runBudget(Duration.ofNanos(1)).build(),
                ProgressListener.NONE, new AtomicBoolean())) {
            assertThat(run.batchLoop(run.batchSizer(), work).run(items(200))).isEqualTo(40);
            f = run.figures();
        }
        assertThat(f.batches()).isEqualTo(1);
        assertThat(f.stopReason()).isEqualTo(RunFigures.StopReason.RUN_BUDGET);

        Work failing = new Work((n, slice) -> "40001");
        try (MaintenanceRun run = MaintenanceRun.open(pg.spec(), options().toBuilder().runBudget(Duration.ofMillis(150)).build(),
                ProgressListener.NONE, new AtomicBoolean())) {
            assertThat(run.batchLoop(run.batchSizer(), failing).run(items(200))).isZero();
            f = run.figures();
        }
        assertThat(f.batches()).isZero();
        assertThat(f.stopReason()).isEqualTo(RunFigures.StopReason.RUN_BUDGET);
        assertThat(f.warnings()).anyMatch(w -> w.contains("abandoning this batch"));
    }

    @Test
    void aRetryableErrorThatPersistsFailsAfterFiveAttempts() throws Exception {
        Work failing = new Work((n, slice) -> "40P01");
        try (MaintenanceRun run = MaintenanceRun.open(pg.spec(), options(), ProgressListener.NONE, new AtomicBoolean())) {
            BatchLoop<Integer, Done> loop = run.batchLoop(run.batchSizer(), failing);
            assertThatThrownBy(() -> loop.run(items(10)))
                    .isInstanceOfSatisfying(JanitorException.class, e -> assertThat(e.reason()).isEqualTo(Reason.DATABASE_ERROR))
                    .hasMessageContaining("failed 5 times").hasMessageContaining("40P01");
            assertThat(failing.attempts.get()).isEqualTo(RetryPolicy.MAX_ATTEMPTS);
            assertThat(run.recorder().figures(0).retries()).isEqualTo(RetryPolicy.MAX_ATTEMPTS - 1);
        }
    }

    @Test
    void aMissingPrivilegeFailsWithTheOperationsWords() throws Exception {
        Work denied = new Work((n, slice) -> "42501");
        try (MaintenanceRun run = MaintenanceRun.open(pg.spec(), options(), ProgressListener.NONE, new AtomicBoolean())) {
            BatchLoop<Integer, Done> loop = run.batchLoop(run.batchSizer(), denied);
            assertThatThrownBy(() -> loop.run(items(10)))
                    .isInstanceOfSatisfying(JanitorException.class, e -> assertThat(e.reason()).isEqualTo(Reason.PERMISSION_DENIED))
                    .hasMessageContaining("to do the synthetic work");
        }
    }

    @Test
    void aTerminatedBackendIsReplacedMidBatchAndTheAdvisoryLockRetaken() throws Exception {
        String lockName = "runtime-test-" + System.nanoTime();
        try (Connection observer = pg.connect()) {
            Work work = new Work((n, slice) -> n == 2 ? "terminate" : null, observer);
            RunFigures f;
            try (MaintenanceRun run = MaintenanceRun.open(pg.spec(), options(), ProgressListener.NONE, new AtomicBoolean())) {
                run.session().lock(lockName);
                int before = pid(run.session().connection());
                assertThat(run.batchLoop(run.batchSizer(), work).run(items(120))).isEqualTo(120);
                int after = pid(run.session().connection());
                assertThat(after).isNotEqualTo(before);
                assertThat(advisoryHolders(observer)).as("the lock is held by the new session").contains(after).doesNotContain(before);
                f = run.figures();
            }
            assertThat(f.reconnects()).isEqualTo(1);
            assertThat(f.batches()).isEqualTo(3);
            assertThat(work.committedSizes).containsExactly(40, 40, 40);
            assertThat(advisoryHolders(observer)).as("released on close").isEmpty();
        }
    }

    private static List<Integer> advisoryHolders(Connection c) throws SQLException {
        List<Integer> pids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT pid FROM pg_catalog.pg_locks WHERE locktype = 'advisory'"
                + " AND granted AND pid <> pg_backend_pid()"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                pids.add(rs.getInt(1));
            }
        }
        return pids;
    }

    @Test
    void aReconnectEndsThisRunsOwnStaleBackendThatStillHoldsTheLock() throws Exception {
        String lockName = "runtime-stale-" + System.nanoTime();
        try (PartitionProxy proxy = new PartitionProxy(Integer.parseInt(pg.spec().port()));
             Connection observer = pg.connect()) {
            ConnectionSpec viaProxy = ConnectionSpec.parse("jdbc:postgresql://localhost:" + proxy.port() + "/"
                    + pg.spec().database() + "?user=" + pg.spec().user(), Map.of(), null);
            List<String> infos = new ArrayList<>();
            ProgressListener l = new ProgressListener() {
                @Override
                public void info(String message) {
                    infos.add(message);
                }
            };
            try (MaintenanceRun run = MaintenanceRun.open(viaProxy, options(), l, new AtomicBoolean())) {
                run.session().lock(lockName);
                int stale = pid(run.session().connection());
                proxy.cutClients(); // the client side is gone; the backend lives on, holding the lock
                Thread.sleep(300);
                assertThat(advisoryHolders(observer)).as("the stale backend still holds the lock").contains(stale);
                run.session().reconnect();
                int fresh = pid(run.session().connection());
                assertThat(fresh).isNotEqualTo(stale);
                assertThat(advisoryHolders(observer)).contains(fresh).doesNotContain(stale);
                assertThat(run.recorder().figures(0).reconnects()).isEqualTo(1);
                assertThat(infos).anyMatch(m -> m.contains("ended this run's previous server session (pid " + stale + ")"));
            }
        }
    }

    @Test
    void aServerThatDoesNotComeBackFailsTheReconnectWithinItsTimeout() throws Exception {
        PartitionProxy proxy = new PartitionProxy(Integer.parseInt(pg.spec().port()));
        ConnectionSpec viaProxy = ConnectionSpec.parse("jdbc:postgresql://localhost:" + proxy.port() + "/"
                + pg.spec().database() + "?user=" + pg.spec().user(), Map.of(), null);
        try (MaintenanceRun run = MaintenanceRun.open(viaProxy, options().toBuilder().reconnectTimeout(Duration.ofSeconds(2)).build(),
                ProgressListener.NONE, new AtomicBoolean())) {
            // not proxy.close(): a freed port can be taken by another server on the machine, which the reconnect then reaches
            proxy.refuseFromNowOn();
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> run.session().reconnect())
                    .isInstanceOfSatisfying(JanitorException.class, e -> assertThat(e.reason()).isEqualTo(Reason.CONNECTION))
                    .hasMessageContaining("could not reconnect within 2 s");
            assertThat((System.nanoTime() - t0) / 1e9).isLessThan(10);
        } finally {
            proxy.close();
        }
    }

    @Test
    void theQueryRunnerRunsReadOnlyWithItsOwnStatementTimeoutAndRetries() throws Exception {
        try (MaintenanceRun run = MaintenanceRun.open(pg.spec(), options(), ProgressListener.NONE, new AtomicBoolean())) {
            String timeout = run.queries().readOnly("check one", Duration.ofMillis(1500), c -> {
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW statement_timeout")) {
                    rs.next();
                    return rs.getString(1);
                }
            });
            assertThat(timeout).isEqualTo("1500ms");
            assertThatThrownBy(() -> run.queries().readOnly("check two", Duration.ofSeconds(5), c -> {
                try (Statement st = c.createStatement()) {
                    return st.execute("CREATE TEMP TABLE runtime_test_write (x int)");
                }
            })).isInstanceOfSatisfying(JanitorException.class, e -> assertThat(e.reason()).isEqualTo(Reason.DATABASE_ERROR))
                    .hasMessageContaining("check two").hasMessageContaining("25006");
            AtomicInteger calls = new AtomicInteger();
            int v = run.queries().readOnly("check three", Duration.ofSeconds(5), c -> {
                if (calls.incrementAndGet() == 1) {
                    throw new SQLException("synthetic", "40001");
                }
                return 7;
            });
            assertThat(v).isEqualTo(7);
            assertThat(run.recorder().figures(0).retries()).isEqualTo(1);
            assertThat(run.session().connection().getAutoCommit()).as("autocommit restored").isTrue();
        }
    }

    /**
     * CI, stop 40: SIGTERM during maintain's drop-orphan-inline-tables; the watchdog's cancel, sent for the batch's
     * statement, reached the server after that batch had committed and cancelled the recount that followed, so the step
     * failed and its result (the tables already dropped) was lost. A read that began after the cancel was sent runs
     * again; a read the cancel was sent for still fails (the stop cut it).
     */
    @Test
    void aReadHitByTheStopsLateCancelRunsAgainAndAReadTheStopCutFails() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        try (MaintenanceRun run = MaintenanceRun.open(pg.spec(), options(), ProgressListener.NONE, stop);
             Connection other = pg.connect()) {
            int pid = pid(run.session().connection());
            Watchdogs.stopAndAwaitCancel(run, stop);
            // the late cancel: it reaches the read begun after it was sent
            AtomicInteger calls = new AtomicInteger();
            int v = run.queries().withRetries("recount", c -> {
                if (calls.incrementAndGet() == 1) {
                    cancelSoon(other, pid);
                    try (Statement st = c.createStatement()) {
                        st.execute("SELECT pg_sleep(30)");
                    }
                }
                return 7;
            });
            assertThat(v).isEqualTo(7);
            assertThat(calls.get()).as("run again once").isEqualTo(2);
            // a 57014 past the late-cancel window is the read's own statement timeout: not waited for twice
            AtomicInteger timed = new AtomicInteger();
            assertThatThrownBy(() -> run.queries().readOnly("slow read", Duration.ofMillis(
                    RunWatchdog.LATE_CANCEL_WINDOW_SECONDS * 1000L + 500), c -> {
                timed.incrementAndGet();
                try (Statement st = c.createStatement()) {
                    return st.execute("SELECT pg_sleep(30)");
                }
            })).isInstanceOf(JanitorException.class).hasMessageContaining("57014");
            assertThat(timed.get()).as("a statement timeout is not run again").isEqualTo(1);
        }
        AtomicBoolean stop2 = new AtomicBoolean();
        try (MaintenanceRun run = MaintenanceRun.open(pg.spec(), options(), ProgressListener.NONE, stop2)) {
            AtomicInteger calls = new AtomicInteger();
            Thread t = new Thread(() -> {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                stop2.set(true);
            });
            t.start();
            assertThatThrownBy(() -> run.queries().withRetries("survey", c -> {
                calls.incrementAndGet();
                try (Statement st = c.createStatement()) {
                    return st.execute("SELECT pg_sleep(30)");
                }
            })).isInstanceOf(JanitorException.class).satisfies(e -> assertThat(RunWatchdog.cancelled(e)).isTrue());
            t.join();
            assertThat(calls.get()).as("the read the stop cut is not run again").isEqualTo(1);
        }
    }

    /** Cancels the statement of backend {@code pid} 300 ms from now, from {@code other}. */
    private static void cancelSoon(Connection other, int pid) {
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(300);
                try (PreparedStatement ps = other.prepareStatement("SELECT pg_cancel_backend(?)")) {
                    ps.setInt(1, pid);
                    ps.execute();
                }
            } catch (InterruptedException | SQLException e) {
                throw new IllegalStateException(e);
            }
        });
        t.setDaemon(true);
        t.start();
    }

    /**
     * Stop 40's CI and this stop's verify under load: the stop came after the batch loop had already ended by its
     * bounds, and the watchdog then cut the recount that follows, so the result was lost. Once the work has recorded its
     * stop, the watchdog cancels nothing: the result's reads run to their end.
     */
    @Test
    void aStopAfterTheWorkEndedDoesNotCutTheResultsReads() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        try (MaintenanceRun run = MaintenanceRun.open(pg.spec(), options(), ProgressListener.NONE, stop)) {
            run.watchdog().boundByBudget();
            run.recorder().stopped(RunFigures.StopReason.MAX_BATCHES);
            Thread t = new Thread(() -> {
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                stop.set(true);
            });
            t.start();
            boolean read = run.queries().withRetries("recount", c -> {
                try (Statement st = c.createStatement()) {
                    return st.execute("SELECT pg_sleep(1)");
                }
            });
            t.join();
            assertThat(read).isTrue();
            assertThat(stop.get()).isTrue();
        }
    }
}
