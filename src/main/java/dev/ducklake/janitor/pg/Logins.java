package dev.ducklake.janitor.pg;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Opens the janitor's sessions, through pgJDBC's driver or a caller's {@link javax.sql.DataSource}, and prepares each
 * the same way: the pooling probe ({@link Pooling}: behind a transaction-mode pooler no session setting is sent and
 * server-side prepared statements stay off), then on a session-bound connection the {@link SessionSettings}. A driver
 * login in progress can be interrupted by a stop request ({@link #abortPending()}).
 */
final class Logins {

    /** Threads inside a driver login now, so that a stop request can interrupt it. */
    private static final Set<Thread> CONNECTING = ConcurrentHashMap.newKeySet();
    /** Threads whose login {@link #abortPending()} interrupted (pgJDBC reports the interrupt in several ways). */
    private static final Set<Thread> ABORTED = ConcurrentHashMap.newKeySet();

    private Logins() {
    }

    /** Interrupts every driver login in progress in this JVM; established sessions are not touched. */
    static void abortPending() {
        for (Thread t : CONNECTING) {
            ABORTED.add(t);
            t.interrupt();
        }
    }

    /**
     * A session through pgJDBC's driver.
     *
     * @param url the JDBC URL (no user, no password)
     * @param props the login properties (user, password, timeouts)
     * @param socketTimeoutSeconds the session's socket timeout, seconds (0 = none): the probe's second connection
     *     waits at most 10 s of it
     * @param user the role (the probe's cache key)
     * @return an open connection with autocommit on
     * @throws SQLException as the driver throws it; "Interrupted while attempting to connect: a stop was requested"
     *     (08001) for a login a stop request interrupted
     */
    static Connection driver(String url, Properties props, int socketTimeoutSeconds, String user) throws SQLException {
        Thread me = Thread.currentThread();
        CONNECTING.add(me);
        try {
            Connection c = DriverManager.getConnection(url, props);
            Properties probeProps = new Properties();
            probeProps.putAll(props);
            // the probe's second connection waits at most 10 s for a server session (a full session pool)
            probeProps.setProperty("socketTimeout", Integer.toString(socketTimeoutSeconds == 0 ? 10
                    : Math.min(10, socketTimeoutSeconds)));
            return prepare(c, url + "|" + user, () -> DriverManager.getConnection(url, probeProps));
        } catch (SQLException e) {
            if (ABORTED.remove(me)) {
                throw new SQLException("Interrupted while attempting to connect: a stop was requested", "08001", e);
            }
            throw e;
        } finally {
            CONNECTING.remove(me);
            ABORTED.remove(me);
        }
    }

    /**
     * A session from the caller's DataSource, autocommit on, its network timeout ({@code setNetworkTimeout}: pgJDBC's
     * socket timeout) set to the engine's, as a connection string would get it: the DataSource's login settings
     * apply, but no read of the run waits longer than the engine allows, whatever the DataSource's own
     * {@code socketTimeout}.
     *
     * @param dataSource where connections come from
     * @param user the role it logs in as (the probe's cache key)
     * @param socketTimeoutSeconds the longest wait for any read once logged in, seconds; 0 leaves the DataSource's
     * @return the connection
     * @throws SQLException as the DataSource or the server throws it
     */
    static Connection dataSource(javax.sql.DataSource dataSource, String user, int socketTimeoutSeconds) throws SQLException {
        Connection c = withNetworkTimeout(dataSource.getConnection(), socketTimeoutSeconds);
        // the probe's second connection waits at most 10 s for a server session (a full session pool), as a driver login's
        return prepare(c, "datasource@" + System.identityHashCode(dataSource) + "|" + user,
                () -> withNetworkTimeout(dataSource.getConnection(), socketTimeoutSeconds == 0 ? 10 : Math.min(10, socketTimeoutSeconds)));
    }

    /** Autocommit on and, unless {@code seconds} is 0, the network timeout; closes the connection when either fails. */
    private static Connection withNetworkTimeout(Connection c, int seconds) throws SQLException {
        try {
            c.setAutoCommit(true);
            if (seconds > 0) {
                // pgJDBC ignores the executor (the socket's own SO_TIMEOUT ends a silent read)
                c.setNetworkTimeout(Runnable::run, (int) Math.min(Integer.MAX_VALUE, seconds * 1000L));
            }
            return c;
        } catch (SQLException e) {
            closeQuietly(c);
            throw e;
        }
    }

    /** The probe and the session settings on a new connection; closes it when they fail. */
    private static Connection prepare(Connection c, String poolKey, Pooling.Opener other) throws SQLException {
        try {
            // no server-side prepared statements while probing: pgJDBC names its COMMIT on first use unless the
            // threshold is 0, and a named COMMIT prepared on one server session fails on the next
            org.postgresql.PGConnection pg = c.unwrap(org.postgresql.PGConnection.class);
            int threshold = pg.getPrepareThreshold();
            pg.setPrepareThreshold(0);
            if (Pooling.detect(poolKey, c, other) == Pooling.Mode.SESSION_BOUND) {
                pg.setPrepareThreshold(threshold);
                SessionSettings.apply(c);
            }
            // transaction-pooled: no server-side prepared statements (they live on one server session) and no session
            // SETs (they would stay on a server session other clients use): every transaction sets what it needs locally
            return c;
        } catch (SQLException e) {
            closeQuietly(c);
            throw e;
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // closing a session that failed its first statement
        }
    }
}
