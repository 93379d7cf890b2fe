package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether a connection keeps one server session for its whole life (a direct connection to PostgreSQL, or a
 * session-mode pool such as PgBouncer's {@code pool_mode = session}), or may be handed a different server session for
 * each transaction (PgBouncer's {@code transaction} or {@code statement} mode, and poolers like it).
 *
 * <p>Why it matters: behind a transaction-mode pooler a session advisory lock stays on a server session that other
 * clients then use (so it protects nothing, and another run landing on that session "takes" it again), temporary
 * tables and {@code WITH HOLD} cursors vanish or appear in another client's transactions, and session {@code SET}s
 * leak onto connections other applications use. Commands that need such state refuse at start with
 * {@link Reason#POOLER_MODE} ({@link #requireSessionBound}); the others run with transaction-local state only.
 *
 * <p>How it is detected ({@link #probe}): the pooler is invisible to SQL (PgBouncer's {@code SHOW pool_mode} answers
 * only on its admin console), so the probe watches which server session ({@code pg_backend_pid()}) serves what.
 * Connection A notes its backend; a second connection B, opened the same way, begins a transaction and notes its
 * backend; then A notes its backend again while B's transaction holds B's. With one server session per client
 * (direct or session pooling) A's backend never changes and B never gets A's. Under transaction pooling A's backend
 * is free between A's transactions: PgBouncer hands the most recently released server to the next transaction
 * ({@code server_round_robin = 0}, the default), so B gets A's backend; with round robin A gets another one. Either
 * sighting proves transaction pooling; three rounds are run. A statement-mode pooler refuses any transaction block (PgBouncer
 * then closes the client connection), so nothing of the janitor works through it: the probe's own transaction fails
 * and {@link ConnectionSpec#connectionFailure} reports {@link Reason#POOLER_MODE}. A probe that cannot complete (B cannot log in: a full session pool, max_connections)
 * proves nothing and counts as session-bound. The result is cached per server, database and user for
 * {@link #CACHE_MILLIS} ms, so a run that opens several connections probes once.
 *
 * <p>The probe can miss only a transaction pooler whose choice of server session happens to mimic session
 * binding for three rounds; {@link AdvisoryLock} therefore also refuses (with the same reason) to take its lock on
 * a server session that holds it already, so a twin run that lands on the first run's server session never
 * proceeds.
 */
public final class Pooling {

    /** How a connection relates to its server sessions. */
    public enum Mode {
        /** One server session for the connection's whole life (direct, or a session-mode pool). */
        SESSION_BOUND,
        /** Server sessions may change between transactions (transaction or statement pooling). */
        TRANSACTION_POOLED
    }

    /** How long a probe result is reused for the same server, database and user, milliseconds. */
    static final long CACHE_MILLIS = 5 * 60_000;
    private static final int ROUNDS = 3;

    private static final Map<Connection, Mode> MODES = Collections.synchronizedMap(new WeakHashMap<>());
    private static final Map<String, long[]> CACHE = new ConcurrentHashMap<>();

    private Pooling() {
    }

    /** Opens a second, bare connection (no session settings, no probe) to the same place. */
    @FunctionalInterface
    interface Opener {
        Connection open() throws SQLException;
    }

    /**
     * The mode of a connection opened by {@link ConnectionSpec#openRaw()}.
     *
     * @param c a connection
     * @return its mode; {@link Mode#SESSION_BOUND} for a connection not opened through {@link ConnectionSpec}
     */
    public static Mode of(Connection c) {
        Mode m = MODES.get(c);
        return m == null ? Mode.SESSION_BOUND : m;
    }

    /** Whether the connection may change server sessions between transactions. */
    public static boolean transactionPooled(Connection c) {
        return of(c) == Mode.TRANSACTION_POOLED;
    }

    /**
     * Refuses a command that needs state beyond one transaction when the connection is transaction-pooled.
     *
     * @param c the connection the command would use
     * @param spec where it goes (for the message)
     * @param command the command, e.g. {@code "delete-orphan-files"}
     * @param needs what session state it needs, e.g. {@code "a session advisory lock"}
     * @throws JanitorException {@link Reason#POOLER_MODE} when {@link #transactionPooled}
     */
    public static void requireSessionBound(Connection c, ConnectionSpec spec, String command, String needs) throws JanitorException {
        if (transactionPooled(c)) {
            throw refusal(spec, command, needs);
        }
    }

    /**
     * The refusal for a transaction-pooled connection.
     *
     * @param spec where the connection goes (for the message; never the password), or null
     * @param command the command
     * @param needs what session state it needs
     * @return the exception ({@link Reason#POOLER_MODE})
     */
    public static JanitorException refusal(ConnectionSpec spec, String command, String needs) {
        return new JanitorException(Reason.POOLER_MODE, "The catalog connection " + (spec == null ? "" : spec.describe() + " ") + "goes through a connection"
                + " pooler in transaction (or statement) pooling mode (e.g. PgBouncer pool_mode = transaction): each transaction may"
                + " run on another server session, and " + command + " needs " + needs + ", which would not survive. Nothing was"
                + " changed. Point --catalog at the PostgreSQL server itself or at a session-mode pool (pool_mode = session).");
    }

    /**
     * Finds the mode of a freshly opened connection (cached per key) and remembers it for {@link #of}.
     *
     * @param key server, database and user
     * @param a the new connection (autocommit on, nothing run yet)
     * @param other opens a second bare connection for the probe
     * @return the mode
     * @throws SQLException when {@code a} itself fails
     */
    static Mode detect(String key, Connection a, Opener other) throws SQLException {
        long now = System.currentTimeMillis();
        long[] cached = CACHE.get(key);
        Mode m;
        if (cached != null && now - cached[1] < CACHE_MILLIS) {
            m = Mode.values()[(int) cached[0]];
        } else {
            m = probe(a, other);
            CACHE.put(key, new long[] {m.ordinal(), now});
        }
        MODES.put(a, m);
        return m;
    }

    /**
     * The probe described in the class comment.
     *
     * @param a the connection to classify (autocommit on)
     * @param other opens a second bare connection to the same place
     * @return the mode
     * @throws SQLException when {@code a} fails
     */
    static Mode probe(Connection a, Opener other) throws SQLException {
        long pa = pid(a);
        Connection b;
        try {
            b = other.open();
        } catch (SQLException e) {
            return Mode.SESSION_BOUND;
        }
        try {
            for (int round = 0; round < ROUNDS; round++) {
                long pb;
                try {
                    b.setAutoCommit(false);
                    pb = pid(b);
                } catch (SQLException e) {
                    if (String.valueOf(e.getMessage()).contains("pooling mode")) {
                        // PgBouncer statement mode: "transaction blocks not allowed in statement pooling mode"
                        return Mode.TRANSACTION_POOLED;
                    }
                    // B got no server session in time (a full session pool): proves nothing
                    return Mode.SESSION_BOUND;
                }
                try {
                    // while B's transaction is open: B on A's server session, or A moved to another one
                    if (pb == pa || pid(a) != pa) {
                        return Mode.TRANSACTION_POOLED;
                    }
                } finally {
                    try {
                        b.rollback();
                        b.setAutoCommit(true);
                    } catch (SQLException ignored) {
                        // B is only the probe's
                    }
                }
            }
        } finally {
            closeSecond(b);
        }
        return Mode.SESSION_BOUND;
    }

    /**
     * Closes the probe's second connection. In a template database ({@code datistemplate}: {@code template1}, which the
     * storage commands' survey of the server logs in to) it is closed inside an open transaction, so that a pooler in
     * front of the server ends its server session (PgBouncer: "client disconnect while server was not ready") instead of
     * keeping it idle for {@code server_idle_timeout}, during which every {@code CREATE DATABASE} copying the template
     * fails ("source database ... is being accessed by other users"). Elsewhere the pooler keeps it, as before.
     */
    private static void closeSecond(Connection b) {
        try {
            b.setAutoCommit(false);
            try (Statement st = b.createStatement()) {
                st.execute("SET LOCAL jit = off");
                try (ResultSet rs = st.executeQuery("SELECT datistemplate FROM pg_catalog.pg_database"
                        + " WHERE datname = pg_catalog.current_database()")) {
                    if (rs.next() && rs.getBoolean(1)) {
                        Transactions.closeQuietly(b); // the transaction left open on purpose
                        return;
                    }
                }
            }
            b.rollback();
        } catch (SQLException ignored) {
            // B is only the probe's: closed below
        }
        Transactions.closeQuietly(b);
    }

    /**
     * The connection's current backend, read in a transaction with {@code SET LOCAL jit = off} first (a utility
     * statement, not planned): the probe runs before the session settings, and on a server with
     * {@code jit_above_cost = 0} even this one-row SELECT would otherwise be JIT-compiled.
     */
    private static long pid(Connection c) throws SQLException {
        boolean auto = c.getAutoCommit();
        if (auto) {
            c.setAutoCommit(false);
        }
        try (Statement st = c.createStatement()) {
            st.execute("SET LOCAL jit = off");
            try (ResultSet rs = st.executeQuery("SELECT pg_catalog.pg_backend_pid()")) {
                rs.next();
                long pid = rs.getLong(1);
                if (auto) {
                    c.commit();
                }
                return pid;
            }
        } finally {
            if (auto) {
                try {
                    c.rollback();
                    c.setAutoCommit(true);
                } catch (SQLException ignored) {
                    // the connection is gone: the error that ended the statement (or its next use) tells why
                }
            }
        }
    }

    /** Forgets cached probe results (tests that reuse an address for another pooler). */
    static void forgetCache() {
        CACHE.clear();
    }
}
