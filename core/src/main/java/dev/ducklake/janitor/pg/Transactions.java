package dev.ducklake.janitor.pg;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * Transaction plumbing every operation uses: read-only transactions, transaction-local timeouts, savepoints,
 * and the quiet rollback / autocommit restore after a failure. Savepoint names are engine-written constants,
 * never user input.
 */
public final class Transactions {

    /**
     * The select-list item that turns JIT compilation off for the current transaction. The janitor's sessions start
     * with {@code jit = off} ({@link ConnectionSpec#openRaw()}), but behind a transaction-mode pooler a session setting
     * may be on another server connection, so every transaction that plans catalog-wide statements repeats it locally.
     * Why: on servers with {@code jit = on} (Debian's, PGDG's and the official images' default) a plan whose cost
     * exceeds {@code jit_above_cost} (100,000) is compiled, inlined and optimised by LLVM first; the anti-joins planned
     * with {@code enable_nestloop = off} cost ~1e10 and took 17 s instead of 0.2 s (issue 23). {@code jit} can be set
     * by any user (PGC_USERSET) on every supported major (13 to 17).
     */
    public static final String JIT_OFF = "set_config('jit', 'off', true)";

    private Transactions() {
    }

    /**
     * Turns JIT off for the current transaction ({@link #JIT_OFF}), for transactions that set no timeouts.
     *
     * @param c the session, inside a transaction
     * @throws SQLException when the session fails
     */
    public static void setLocalJitOff(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + JIT_OFF)) {
            ps.execute();
        }
    }

    /**
     * Plans the current transaction's statements with hash joins instead of nested loops
     * ({@code enable_nestloop = off}) and without JIT ({@link #JIT_OFF}), both transaction-local: the catalog-wide
     * anti-joins (registry against pg_class, stats rows against tables) stay linear in the catalog whatever the
     * statistics say, and their inflated plan cost does not trigger JIT compilation.
     *
     * @param c the session, inside a transaction
     * @throws SQLException when the session fails
     */
    public static void setLocalHashJoins(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT set_config('enable_nestloop', 'off', true), " + JIT_OFF)) {
            ps.execute();
        }
    }

    /**
     * Starts a read-only transaction (autocommit off, {@code setReadOnly(true)}); undo it with
     * {@link #endQuietly(Connection)} in a {@code finally}.
     *
     * @param c the session
     * @throws SQLException when the session fails
     */
    public static void beginReadOnly(Connection c) throws SQLException {
        c.setAutoCommit(false);
        c.setReadOnly(true);
    }

    /**
     * Sets {@code statement_timeout} and {@code lock_timeout} for the current transaction only
     * ({@code set_config(…, true)}, values as bind parameters), and {@code jit = off} (see {@link #JIT_OFF}).
     *
     * @param c the session, inside a transaction
     * @param statementTimeout statement_timeout (0 = none), whole milliseconds
     * @param lockTimeout lock_timeout (0 = none), whole milliseconds
     * @throws SQLException when the session fails
     */
    public static void setLocalTimeouts(Connection c, Duration statementTimeout, Duration lockTimeout) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT set_config('statement_timeout', ?, true), set_config('lock_timeout', ?, true), " + JIT_OFF)) {
            ps.setString(1, Long.toString(statementTimeout.toMillis()));
            ps.setString(2, Long.toString(lockTimeout.toMillis()));
            ps.execute();
        }
    }

    /**
     * Sets {@code lock_timeout} on the session ({@code set_config(…, false)}, the value a bind parameter): the
     * session-scope twin of {@link #setLocalTimeouts}, for runs on one server session (the storage commands, refused
     * behind a transaction-mode pooler) whose every catalog statement must fail with 55P03 behind a writer's lock
     * instead of waiting without end. Nothing when {@code lockTimeout} is null.
     *
     * @param c the session, autocommit on (the setting must not be rolled back with a transaction)
     * @param lockTimeout lock_timeout (0 = none), whole milliseconds; null leaves the session's own
     * @throws SQLException when the session fails
     */
    public static void setSessionLockTimeout(Connection c, Duration lockTimeout) throws SQLException {
        if (lockTimeout == null) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT set_config('lock_timeout', ?, false)")) {
            ps.setString(1, Long.toString(lockTimeout.toMillis()));
            ps.execute();
        }
    }

    /**
     * Rolls back to a savepoint and releases it (the transaction goes on).
     *
     * @param c the session
     * @param savepoint an engine-written savepoint name
     * @throws SQLException when the session fails
     */
    public static void rollbackTo(Connection c, String savepoint) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("ROLLBACK TO SAVEPOINT " + savepoint + "; RELEASE SAVEPOINT " + savepoint);
        }
    }

    /**
     * Releases a savepoint (keeps what was done since it).
     *
     * @param c the session
     * @param savepoint an engine-written savepoint name
     * @throws SQLException when the session fails
     */
    public static void release(Connection c, String savepoint) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("RELEASE SAVEPOINT " + savepoint);
        }
    }

    /**
     * Back to autocommit and read-write; ignores a broken session (a reconnect replaces it).
     *
     * @param c the session, may be null
     */
    public static void restoreAutoCommit(Connection c) {
        try {
            if (c != null && !c.isClosed()) {
                c.setAutoCommit(true);
                c.setReadOnly(false);
            }
        } catch (SQLException ignored) {
            // a broken connection is replaced by the next reconnect
        }
    }

    /**
     * Rolls back an open transaction, if any, then {@link #restoreAutoCommit}; never throws.
     *
     * @param c the session, may be null
     */
    public static void rollbackQuietly(Connection c) {
        try {
            if (c != null && !c.isClosed() && !c.getAutoCommit()) {
                c.rollback();
            }
        } catch (SQLException ignored) {
            // the connection may be gone; the server rolls back on its own
        }
        restoreAutoCommit(c);
    }

    /**
     * Ends a read-only transaction: rolls back whatever is left (nothing to keep) and restores autocommit.
     *
     * @param c the session, may be null
     */
    public static void endQuietly(Connection c) {
        rollbackQuietly(c);
    }

    /**
     * Closes a session, ignoring errors.
     *
     * @param c the session, may be null
     */
    public static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing
            }
        }
    }
}
