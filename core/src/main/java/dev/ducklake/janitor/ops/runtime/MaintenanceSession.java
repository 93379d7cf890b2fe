package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.retry.Backoff;
import dev.ducklake.janitor.retry.Bounds;
import dev.ducklake.janitor.retry.FailureKind;
import dev.ducklake.janitor.retry.Pause;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.pg.AdvisoryLock;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Pooling;
import dev.ducklake.janitor.pg.SqlState;
import dev.ducklake.janitor.pg.Transactions;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The one connection of a run: opened once, inspected, locked (execute runs), reopened after a loss, closed.
 * Helpers receive the session and call {@link #connection()} for each transaction, never keep the
 * {@link Connection}: a {@link #reconnect()} replaces it.
 *
 * <p>A lost connection does not always end its server session: after a network cut the old backend can live on
 * (until TCP keepalive notices), holding the advisory lock and the batch's locks. So {@link #reconnect()} first
 * ends this run's previous backend (matched by pid and backend_start, so a reused pid is never hit; best effort,
 * needs the same role), and a lock still held is retried within the reconnect timeout like a failed connect: it
 * is usually that old session on its way out. Only a lock held past the timeout is {@link Reason#LOCK_HELD}.
 */
public final class MaintenanceSession implements AutoCloseable {

    /** The wait between reconnect attempts: 1 s doubling to 10 s (within the reconnect timeout, not the run budget). */
    public static final Backoff RECONNECT_BACKOFF = new Backoff(1_000, 10_000);

    private final ConnectionSpec spec;
    private final String schema;
    private final Duration reconnectTimeout;
    private final RunRecorder recorder;
    private final RunBudget budget;
    private Connection conn;
    private AdvisoryLock lock;
    /** pid and backend_start of the current backend, to end it after a reconnect if it outlived the connection. */
    private String[] backend;

    private MaintenanceSession(ConnectionSpec spec, String schema, Duration reconnectTimeout, RunRecorder recorder,
                               RunBudget budget) {
        this.spec = spec;
        this.schema = schema;
        this.reconnectTimeout = reconnectTimeout;
        this.recorder = recorder;
        this.budget = budget;
    }

    /**
     * Opens the session.
     *
     * @param spec where the catalog database is
     * @param schema the metadata schema
     * @param reconnectTimeout how long {@link #reconnect()} keeps trying
     * @param recorder where reconnects are counted and messages go
     * @param budget the run's stop flag (a stop ends a reconnect wait)
     * @return the open session
     * @throws JanitorException {@link Reason#CONNECTION} when the server cannot be reached or refuses the login, or
     *     when a stop was requested before or during the login ({@link ConnectionSpec#loginStopped} tells it apart)
     */
    public static MaintenanceSession open(ConnectionSpec spec, String schema, Duration reconnectTimeout, RunRecorder recorder,
                                          RunBudget budget) throws JanitorException {
        MaintenanceSession s = new MaintenanceSession(spec, schema, reconnectTimeout, recorder, budget);
        // a stop request during the login ends it at once (StoppableOperation.requestStop)
        s.conn = spec.open(budget::stopRequested);
        s.rememberBackend();
        return s;
    }

    /** @return the current connection; valid until the next {@link #reconnect()} */
    public Connection connection() {
        return conn;
    }

    /** @return where the catalog database is (for messages: {@link ConnectionSpec#describe()}, never the password) */
    public ConnectionSpec spec() {
        return spec;
    }

    /** @return the metadata schema */
    public String schema() {
        return schema;
    }

    /**
     * Inspects the catalog ({@link CatalogInspector}) and reports its format version and snapshots.
     *
     * @return what the catalog is
     * @throws JanitorException {@link Reason#NOT_A_CATALOG}, {@link Reason#UNSUPPORTED_VERSION},
     *     {@link Reason#UNSAFE_CATALOG_STATE}, {@link Reason#PERMISSION_DENIED} from the checks
     * @throws SQLException on a database error
     */
    public CatalogInfo inspect() throws JanitorException, SQLException {
        CatalogInfo info = CatalogInspector.inspect(conn, schema);
        recorder.info("catalog " + spec.describe() + " schema " + schema + ": DuckLake format " + info.version().text()
                + ", snapshots " + info.minSnapshotId() + ".." + info.maxSnapshotId() + " (" + info.snapshotCount() + ")");
        recorder.phase(ProgressListener.Phase.INSPECTED, schema);
        return info;
    }

    /**
     * Takes the advisory lock ({@link AdvisoryLock}); it is re-taken after every reconnect and released by
     * {@link #close()}.
     *
     * @param lockName the lock name (--lock-name)
     * @throws JanitorException {@link Reason#LOCK_HELD} when another session holds it; {@link Reason#POOLER_MODE} when the
     *     connection is transaction-pooled ({@link Pooling})
     * @throws SQLException on a database error
     */
    public void lock(String lockName) throws JanitorException, SQLException {
        Pooling.requireSessionBound(conn, spec, "an execute run", "a session advisory lock held for the whole run");
        lock = AdvisoryLock.acquire(conn, lockName, schema);
        recorder.phase(ProgressListener.Phase.LOCKED, lock.describe());
    }

    /**
     * Proves that the server session running the current transaction holds this run's advisory lock
     * ({@link AdvisoryLock#verify}): the batch loop calls it at the start of every batch transaction, before the
     * batch's first change. A no-op when the run took no lock (dry runs).
     *
     * @param c the current connection, inside the transaction about to change the catalog
     * @throws JanitorException {@link Reason#POOLER_MODE} when another server session holds the lock (or none does)
     * @throws SQLException on a database error (classified by the caller's retry policy)
     */
    public void verifyLock(Connection c) throws JanitorException, SQLException {
        if (lock != null) {
            lock.verify(c);
        }
    }

    /**
     * Reopens the connection with backoff (1 s doubling to 10 s) within the reconnect timeout, ends this run's
     * previous backend if it outlived the connection, and re-takes the advisory lock. A stop request ends the wait.
     *
     * @throws JanitorException {@link Reason#CONNECTION} when the server did not come back in time (or a stop was
     *     requested meanwhile); {@link Reason#LOCK_HELD} when the lock stayed held by another session
     */
    public void reconnect() throws JanitorException {
        Transactions.closeQuietly(conn);
        long deadline = System.nanoTime() + reconnectTimeout.toNanos();
        int attempt = 1;
        SQLException last = null;
        JanitorException lockHeld = null;
        while (true) {
            try {
                conn = spec.openRaw(budget::stopRequested);
                endPreviousBackend();
                if (lock != null) {
                    lock.reacquire(conn);
                }
                recorder.reconnected();
                rememberBackend();
                recorder.info("reconnected to " + spec.describe() + (lock != null ? " and re-took the advisory lock " + lock.describe() : ""));
                recorder.phase(ProgressListener.Phase.RECONNECTED, spec.describe());
                return;
            } catch (SQLException e) {
                last = e;
                Transactions.closeQuietly(conn);
                conn = null;
            } catch (JanitorException e) {
                if (e.reason() != Reason.LOCK_HELD) {
                    throw e;
                }
                lockHeld = e;
                Transactions.closeQuietly(conn);
                conn = null;
            }
            if (budget.stopRequested()) {
                // SIGTERM/SIGINT while the server is away: no batch is in flight, so stop now instead of after the
                // reconnect timeout (the stop hook waits at most 30 s)
                throw new JanitorException(Reason.CONNECTION, "Lost the connection to " + spec.describe() + " and stopped "
                        + "(SIGTERM/SIGINT) while reconnecting. Work committed so far is kept; rerun to resume.", last);
            }
            long backoff = RECONNECT_BACKOFF.millis(attempt++);
            if (System.nanoTime() + backoff * 1_000_000 - deadline >= 0) {
                if (lockHeld != null && last == null) {
                    throw new JanitorException(Reason.LOCK_HELD, "Lost the connection to " + spec.describe() + " mid-run; after"
                            + " reconnecting, the advisory lock " + lock.describe() + " stayed held by another session for "
                            + reconnectTimeout.toSeconds() + " s. Work committed so far is kept; rerun to resume.", lockHeld);
                }
                throw new JanitorException(Reason.CONNECTION, "Lost the connection to " + spec.describe()
                        + " and could not reconnect within " + reconnectTimeout.toSeconds() + " s (last SQLSTATE "
                        + (last == null ? "none" : SqlState.codeOf(last)) + "). Work committed so far is kept; rerun to resume.", last);
            }
            // the reconnect timeout bounds this wait, not the run budget: only a stop request cuts it short
            Pause.pause(backoff, Bounds.stopOnly(budget::stopRequested));
        }
    }

    /**
     * The error a failure outside the retry policy's reach becomes: {@link Reason#CONNECTION} for a lost
     * connection, else {@link Reason#DATABASE_ERROR} with the (redacted) server message.
     *
     * @param what what was being done, for the message
     * @param e the failure
     * @return the exception to throw
     */
    public JanitorException databaseError(String what, SQLException e) {
        if (SqlState.classify(e) == FailureKind.CONNECTION_LOST) {
            return new JanitorException(Reason.CONNECTION, "Lost the connection to " + spec.describe() + " during " + what
                    + " (SQLSTATE " + SqlState.codeOf(e) + "). Work committed so far is kept; rerun to resume.", e);
        }
        if (SqlState.INVALID_SQL_STATEMENT_NAME.code().equals(SqlState.codeOf(e))) {
            // the server session changed under the run: a pooler in transaction mode the probe did not see
            return new JanitorException(Reason.POOLER_MODE, "During " + what + " a statement prepared on the run's server"
                    + " session was gone (SQLSTATE 26000: " + spec.redact(e.getMessage()) + "): the connection goes through a"
                    + " pooler that moves the run between server sessions (a transaction-mode pool), so the run's advisory"
                    + " lock and session state cannot be relied on. Batches committed before stay committed; nothing more is"
                    + " changed. Use pool_mode = session or connect to the server directly.", e);
        }
        return new JanitorException(Reason.DATABASE_ERROR, "Database error during " + what + " (SQLSTATE "
                + SqlState.codeOf(e) + "): " + spec.redact(e.getMessage()), e);
    }

    /** Releases the advisory lock (if held) and closes the connection; never throws. */
    @Override
    public void close() {
        if (lock != null && conn != null) {
            lock.release(conn);
        }
        Transactions.closeQuietly(conn);
    }

    private void rememberBackend() {
        if (Pooling.transactionPooled(conn)) {
            // the backend serves other clients between our transactions: never end it on a reconnect
            backend = null;
            return;
        }
        try (PreparedStatement ps = conn.prepareStatement("SELECT pid::text, backend_start::text FROM pg_catalog.pg_stat_activity"
                + " WHERE pid = pg_backend_pid()"); ResultSet rs = ps.executeQuery()) {
            backend = rs.next() ? new String[] {rs.getString(1), rs.getString(2)} : null;
        } catch (SQLException e) {
            backend = null;
        }
    }

    private void endPreviousBackend() {
        if (backend == null) {
            return;
        }
        try (PreparedStatement ps = conn.prepareStatement("SELECT pg_catalog.pg_terminate_backend(pid) FROM pg_catalog.pg_stat_activity"
                + " WHERE pid::text = ? AND backend_start::text = ? AND pid <> pg_backend_pid()")) {
            ps.setString(1, backend[0]);
            ps.setString(2, backend[1]);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next() && rs.getBoolean(1)) {
                    recorder.info("ended this run's previous server session (pid " + backend[0] + "), which outlived its connection");
                }
            }
        } catch (SQLException e) {
            // not permitted or already gone: the lock retry waits for it instead
        }
    }

}
