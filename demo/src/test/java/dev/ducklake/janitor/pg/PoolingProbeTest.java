package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.testsupport.CatalogInvariants;
import dev.ducklake.janitor.testsupport.PgBouncer;
import dev.ducklake.janitor.testsupport.PgBouncer.PoolMode;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Issue 23 item 3: the pooling probe ({@link Pooling}) against a real PgBouncer in each pool mode and a direct
 * connection, what a transaction-pooled connection leaves out (session SETs, server-side prepared statements), and the
 * advisory lock's guard against a server session that already holds the lock.
 */
class PoolingProbeTest {

    @Test
    void directAndSessionPoolsAreSessionBoundTransactionAndStatementPoolsAreNot() throws Exception {
        PgBouncer.assumeInstalled();
        try (Connection direct = TestPostgres.get().spec().openRaw()) {
            assertThat(Pooling.of(direct)).as("the test server itself").isEqualTo(Pooling.Mode.SESSION_BOUND);
        }
        try (PgBouncer session = PgBouncer.start(PoolMode.SESSION); Connection c = session.spec().openRaw()) {
            assertThat(Pooling.of(c)).as("pool_mode = session: %s", session.log()).isEqualTo(Pooling.Mode.SESSION_BOUND);
        }
        try (PgBouncer md5 = PgBouncer.start(PoolMode.SESSION, "s3cret-pw"); Connection c = md5.spec().openRaw()) {
            assertThat(Pooling.of(c)).as("pool_mode = session, auth md5").isEqualTo(Pooling.Mode.SESSION_BOUND);
        }
        try (PgBouncer tx = PgBouncer.start(PoolMode.TRANSACTION); Connection c = tx.spec().openRaw()) {
            assertThat(Pooling.of(c)).as("pool_mode = transaction: %s", tx.log()).isEqualTo(Pooling.Mode.TRANSACTION_POOLED);
        }
        try (PgBouncer st = PgBouncer.start(PoolMode.STATEMENT)) {
            JanitorException e = catchThrowableOfType(() -> st.spec().open().close(), JanitorException.class);
            assertThat(e).as("pool_mode = statement refuses every transaction").isNotNull();
            assertThat(e.reason()).as(e.getMessage()).isEqualTo(JanitorException.Reason.POOLER_MODE);
            assertThat(e.getMessage()).contains("statement pooling mode").contains("pool_mode = session");
        }
    }

    @Test
    void roundRobinTransactionPoolIsDetectedToo() throws Exception {
        // many probes, each on a fresh pooler (no cache): the probe must never call a transaction pool session-bound
        PgBouncer.assumeInstalled();
        for (int i = 0; i < 3; i++) {
            try (PgBouncer tx = PgBouncer.start(PoolMode.TRANSACTION)) {
                // warm the pool with several server sessions first, as a busy pool has
                Connection[] warm = new Connection[4];
                for (int k = 0; k < warm.length; k++) {
                    warm[k] = bare(tx);
                    warm[k].setAutoCommit(false);
                    pid(warm[k]);
                }
                for (Connection w : warm) {
                    w.rollback();
                    w.close();
                }
                try (Connection c = tx.spec().openRaw()) {
                    assertThat(Pooling.of(c)).as("probe %d on a warm transaction pool", i).isEqualTo(Pooling.Mode.TRANSACTION_POOLED);
                }
            }
        }
    }

    @Test
    void aTransactionPooledConnectionSendsNoSessionSettingsAndNoNamedStatements() throws Exception {
        PgBouncer.assumeInstalled();
        String jitDefault;
        String idleDefault;
        try (Connection direct = DriverManager.getConnection(TestPostgres.get().spec().jdbcUrl(), TestPostgres.get().spec().user(), null)) {
            jitDefault = show(direct, "jit");
            idleDefault = show(direct, "idle_in_transaction_session_timeout");
        }
        try (PgBouncer tx = PgBouncer.start(PoolMode.TRANSACTION)) {
            try (Connection c = tx.spec().openRaw()) {
                assertThat(Pooling.transactionPooled(c)).isTrue();
                // the same statement more often than pgJDBC's prepareThreshold (5): with named server-side statements,
                // a later execution on another server session fails with "prepared statement S_1 does not exist"
                try (Connection other = bare(tx)) {
                    java.util.Set<Long> servers = new java.util.HashSet<>();
                    for (int i = 0; i < 8; i++) {
                        // another client's transaction holds the server session c used last, so c runs on another one;
                        // once it ends, c gets the first one back
                        other.setAutoCommit(false);
                        pid(other);
                        servers.add(samePid(c, i));
                        other.rollback();
                        other.setAutoCommit(true);
                        servers.add(samePid(c, i));
                    }
                    assertThat(servers).as("the statement ran on more than one server session").hasSizeGreaterThan(1);
                }
                // LIFO: the next client gets the server session the janitor's connection used last
                try (Connection next = bare(tx)) {
                    assertThat(show(next, "jit")).as("the janitor's SET jit = off must not stay on a pooled server session")
                            .isEqualTo(jitDefault);
                    assertThat(show(next, "idle_in_transaction_session_timeout")).as("nor its idle timeouts").isEqualTo(idleDefault);
                }
            }
        }
    }

    @Test
    void theAdvisoryLockRefusesAServerSessionThatAlreadyHoldsIt() throws Exception {
        // bare connections are not probed (Pooling.of says session-bound): the lock's own guard is the last line
        PgBouncer.assumeInstalled();
        try (PgBouncer tx = PgBouncer.start(PoolMode.TRANSACTION); Connection first = bare(tx); Connection twin = bare(tx)) {
            AdvisoryLock held = AdvisoryLock.acquire(first, "pool-guard-test", "s1");
            try {
                JanitorException e = catchThrowableOfType(() -> AdvisoryLock.acquire(twin, "pool-guard-test", "s1"),
                        JanitorException.class);
                assertThat(e).as("the twin must not get the lock (PgBouncer hands it the first run's server session)").isNotNull();
                assertThat(e.reason()).isIn(JanitorException.Reason.POOLER_MODE, JanitorException.Reason.LOCK_HELD);
                if (e.reason() == JanitorException.Reason.POOLER_MODE) {
                    assertThat(e.getMessage()).contains("already holds").contains("session-mode pool");
                }
            } finally {
                held.release(first);
            }
        }
        try (PgBouncer tx = PgBouncer.start(PoolMode.TRANSACTION); Connection c = tx.spec().openRaw()) {
            JanitorException e = catchThrowableOfType(() -> AdvisoryLock.acquire(c, "pool-guard-test", "s2"), JanitorException.class);
            assertThat(e.reason()).as("a probed transaction-pooled connection never takes a session lock")
                    .isEqualTo(JanitorException.Reason.POOLER_MODE);
            assertThat(e.reason().exitCode()).isEqualTo(19);
            assertThat(e.getMessage()).contains("transaction").contains("--catalog").contains("pool_mode = session");
        }
    }

    /**
     * Issue 23 item 3, the lock's second guard: a run whose probe missed the transaction pool takes its lock on one
     * server session, and its next transaction lands on another (here because another client holds the first one in a
     * transaction, as PgBouncer hands the most recently released server to the next client). {@link AdvisoryLock#verify},
     * called first in each batch transaction, must refuse it with exit 19 naming both sessions, and change nothing; on a
     * direct connection the same check passes inside a transaction and fails once the lock is released.
     */
    @Test
    void workOnAServerSessionThatDoesNotHoldTheLockIsRefused() throws Exception {
        PgBouncer.assumeInstalled();
        try (PgBouncer tx = PgBouncer.start(PoolMode.TRANSACTION); Connection run = bare(tx); Connection other = bare(tx)) {
            long lockedOn = pid(run);
            AdvisoryLock held = AdvisoryLock.acquire(run, "pool-verify-test", "s1");
            try {
                other.setAutoCommit(false);
                long otherPid = pid(other);
                run.setAutoCommit(false);
                long workOn = pid(run);
                assertThat(workOn).as("the run's transaction runs on another server session than the one that took the lock"
                        + " (other client on %d)", otherPid).isNotEqualTo(otherPid);
                JanitorException e = catchThrowableOfType(() -> held.verify(run), JanitorException.class);
                assertThat(e).as("lock taken on pid %d (now %d's), work on pid %d", lockedOn, otherPid, workOn).isNotNull();
                assertThat(e.reason()).isEqualTo(JanitorException.Reason.POOLER_MODE);
                assertThat(e.reason().exitCode()).isEqualTo(19);
                assertThat(e.getMessage()).contains("pid " + workOn).contains("held by pid " + otherPid)
                        .contains("protect nothing").contains("pool_mode = session");
                run.rollback();
                other.rollback();
            } finally {
                run.setAutoCommit(true);
                other.setAutoCommit(true);
                // the lock sits on whichever server session took it: release it there (LIFO hands it back to run)
                held.release(run);
            }
        }
        try (Connection direct = TestPostgres.get().spec().openRaw()) {
            AdvisoryLock held = AdvisoryLock.acquire(direct, "pool-verify-test", "s2");
            direct.setAutoCommit(false);
            held.verify(direct);
            direct.rollback();
            direct.setAutoCommit(true);
            held.release(direct);
            JanitorException gone = catchThrowableOfType(() -> held.verify(direct), JanitorException.class);
            assertThat(gone).as("a session that no longer holds the lock fails the check").isNotNull();
            assertThat(gone.getMessage()).contains("no session holds it now");
            AdvisoryLock.acquire(direct, "pool-verify-test", "s2");
            try (Connection twin = TestPostgres.get().spec().openRaw()) {
                JanitorException notOurs = catchThrowableOfType(() -> AdvisoryLock.named("pool-verify-test", "s2").verify(twin),
                        JanitorException.class);
                assertThat(notOurs).as("another session's lock does not cover this one's work").isNotNull();
                assertThat(notOurs.getMessage()).contains("held by pid " + pid(direct));
            } finally {
                AdvisoryLock.named("pool-verify-test", "s2").release(direct);
            }
        }
    }

    /**
     * The same guard end to end: a transaction pool the probe could not classify (its second login failed, as with a
     * full pool: counted session-bound) runs drop-orphan-inline-tables, and right after the run took its lock another
     * client begins a transaction on the server session that took it. The run's first batch then lands on another server
     * session; it must stop with exit 19 before dropping anything.
     */
    @Test
    void anExecuteRunWhoseProbeMissedTheTransactionPoolStopsBeforeItsFirstBatch() throws Exception {
        PgBouncer.assumeInstalled();
        String schema = TestPostgres.get().freshSchema("pool_verify_run");
        try (Connection direct = TestPostgres.get().connect()) {
            dev.ducklake.janitor.testsupport.FaultCatalog.build(direct, schema, 6);
        }
        CatalogInvariants.Snapshot before;
        try (Connection direct = TestPostgres.get().connect()) {
            before = CatalogInvariants.snapshot(direct, schema);
        }
        try (PgBouncer tx = PgBouncer.start(PoolMode.TRANSACTION); Connection other = bare(tx)) {
            ConnectionSpec spec = tx.spec();
            try (Connection seed = bare(tx)) {
                Pooling.detect(spec.jdbcUrl() + "|" + spec.user(), seed, () -> {
                    throw new SQLException("no second login (a full pool)");
                });
            }
            java.util.concurrent.atomic.AtomicBoolean taken = new java.util.concurrent.atomic.AtomicBoolean();
            ProgressListener grab = new ProgressListener() {
                @Override
                public void phase(Phase phase, String detail) {
                    if (phase == Phase.LOCKED) {
                        try {
                            other.setAutoCommit(false);
                            pid(other);
                            taken.set(true);
                        } catch (SQLException e) {
                            throw new IllegalStateException(e);
                        }
                    }
                }
            };
            JanitorException e = catchThrowableOfType(() -> new DropOrphanInlineTables(spec,
                    DropOrphanInlineTablesOptions.builder().metadataSchema(schema).dryRun(false).build(), grab).execute(),
                    JanitorException.class);
            assertThat(taken).as("the other client took the lock's server session").isTrue();
            assertThat(e).as("the run must not drop through a lock on another server session").isNotNull();
            assertThat(e.reason()).as(e.getMessage()).isEqualTo(JanitorException.Reason.POOLER_MODE);
            // caught by the lock's check at the batch, or earlier by a statement prepared on the lock's server session
            // that the next one lacks (SQLSTATE 26000): either way the pooler is named, before anything is dropped
            assertThat(e.getMessage()).containsAnyOf("does not hold the advisory lock", "prepared on the run's server session")
                    .contains("pool_mode = session");
            other.rollback();
        } finally {
            Pooling.forgetCache();
        }
        try (Connection direct = TestPostgres.get().connect()) {
            CatalogInvariants.assertUnchanged(direct, before);
        }
    }

    private static Connection bare(PgBouncer b) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + b.port() + "/" + TestPostgres.get().spec().database()
                + "?prepareThreshold=0", TestPostgres.get().spec().user(), null);
    }

    /** The same SQL text each time, so pgJDBC's prepareThreshold counts it. */
    private static long samePid(Connection c, int i) throws SQLException {
        try (var ps = c.prepareStatement("SELECT pg_catalog.pg_backend_pid() + ? - ?")) {
            ps.setInt(1, i);
            ps.setInt(2, i);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private static long pid(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String show(Connection c, String name) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW " + name)) {
            rs.next();
            return rs.getString(1);
        }
    }
}
