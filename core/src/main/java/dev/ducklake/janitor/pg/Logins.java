package dev.ducklake.janitor.pg;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * Opens the janitor's sessions, through pgJDBC's driver or a caller's {@link javax.sql.DataSource}, and prepares each
 * the same way: the pooling probe ({@link Pooling}: behind a transaction-mode pooler no session setting is sent and
 * server-side prepared statements stay off), then on a session-bound connection the {@link SessionSettings}. A driver
 * login in progress can be interrupted by a stop request: every login in the JVM ({@link #abortPending()}; with
 * {@link #stopAll()} also every later one, for a process being stopped) or those whose caller's stop condition is up
 * ({@link #abortStopped()}, an operation's stop).
 */
final class Logins {

    /**
     * The message of the SQLException a login ends with when a stop request ended it (08001), before it started or
     * while it waited for the server; {@link #stopped(Throwable)} recognises it.
     */
    static final String STOPPED_MESSAGE = "Interrupted while attempting to connect: a stop was requested";

    /**
     * A login a stop request ended ({@link #STOPPED_MESSAGE}, 08001), naming the database it was for, so that the
     * report names the database actually being logged in to (a consulted {@code --also-catalog} one, not the run's).
     */
    static final class StoppedLogin extends SQLException {
        private static final long serialVersionUID = 1L;
        /** {@code user@host:port/database} of the login ({@link ConnectionSpec#describe()}); never a password. */
        final String target;

        StoppedLogin(String target, SQLException cause) {
            super(STOPPED_MESSAGE, "08001", cause);
            this.target = target;
        }
    }

    /**
     * @param e an exception from a login, or one caused by it
     * @return the database a stopped login was for ({@link StoppedLogin#target}), or null
     */
    static String stoppedTarget(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof StoppedLogin s) {
                return s.target;
            }
        }
        return null;
    }

    /** Threads inside a driver login now, each with the stop condition of its caller, so a stop can interrupt it. */
    private static final Map<Thread, BooleanSupplier> CONNECTING = new ConcurrentHashMap<>();
    /** Threads whose login a stop interrupted (pgJDBC reports the interrupt in several ways). */
    private static final Set<Thread> ABORTED = ConcurrentHashMap.newKeySet();
    /** Orders an abort against a login leaving {@link #CONNECTING}, so that no thread is interrupted after its login. */
    private static final Object LOCK = new Object();
    private static final BooleanSupplier NEVER = () -> false;

    private Logins() {
    }

    /** Set once the process is stopping ({@link #stopAll()}): no login starts any more in this JVM. */
    private static volatile boolean stopping;

    /** Interrupts every driver login in progress in this JVM; established sessions are not touched. */
    static void abortPending() {
        abort(c -> true);
    }

    /**
     * For a process that is stopping (SIGTERM/SIGINT): every login in progress is interrupted and every later one
     * fails at once with {@link #STOPPED_MESSAGE}, for the rest of this JVM's life.
     */
    static void stopAll() {
        stopping = true;
        abortPending();
    }

    /**
     * Interrupts the driver logins in progress whose stop condition is now true (an operation's stop request ends its
     * own login, not the logins of other work in the same JVM).
     */
    static void abortStopped() {
        abort(BooleanSupplier::getAsBoolean);
    }

    private static void abort(java.util.function.Predicate<BooleanSupplier> which) {
        synchronized (LOCK) {
            for (Map.Entry<Thread, BooleanSupplier> e : CONNECTING.entrySet()) {
                if (which.test(e.getValue()) && ABORTED.add(e.getKey())) {
                    e.getKey().interrupt();
                }
            }
        }
    }

    /**
     * @param e an exception from a login, or one caused by it
     * @return whether a stop request ended the login ({@link #STOPPED_MESSAGE} anywhere in the cause chain)
     */
    static boolean stopped(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException && STOPPED_MESSAGE.equals(t.getMessage())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The properties of a driver login: the specification's pgJDBC properties, user and password, the application
     * name unless the string set one, the login timeout, the socket timeout and TCP keepalive.
     *
     * @param jdbcParams the pgJDBC properties from the connection string
     * @param user the role
     * @param password the password now, or null for none
     * @param connectTimeoutSeconds bounds the whole login (TCP connect, TLS, authentication), seconds; 0 = none
     * @param socketTimeoutSeconds bounds every read once logged in, seconds; 0 = none
     * @return the properties for {@link #driver}
     */
    static Properties driverProperties(Map<String, String> jdbcParams, String user, String password,
                                       int connectTimeoutSeconds, int socketTimeoutSeconds) {
        Properties props = new Properties();
        props.putAll(jdbcParams);
        props.setProperty("user", user);
        if (password != null) {
            props.setProperty("password", password);
        }
        props.putIfAbsent("ApplicationName", "ducklake-janitor");
        // loginTimeout bounds the whole login (pgJDBC runs it in a helper thread and waits, interruptibly);
        // connectTimeout only the TCP connect; socketTimeout every later read
        props.setProperty("loginTimeout", Integer.toString(connectTimeoutSeconds));
        props.setProperty("connectTimeout", Integer.toString(connectTimeoutSeconds));
        props.setProperty("socketTimeout", Integer.toString(socketTimeoutSeconds));
        props.setProperty("tcpKeepAlive", "true");
        return props;
    }

    /**
     * A session through pgJDBC's driver.
     *
     * @param url the JDBC URL (no user, no password)
     * @param props the login properties (user, password, timeouts)
     * @param socketTimeoutSeconds the session's socket timeout, seconds (0 = none): the probe's second connection
     *     waits at most 10 s of it
     * @param user the role (the probe's cache key)
     * @param stop the caller's stop condition, or null for none: {@link #abortStopped()} interrupts the login once it
     *     is true (a login is not refused for it: a stop requested before an operation logs in ends the operation at
     *     its first safe point, after the login)
     * @return an open connection with autocommit on
     * @throws SQLException as the driver throws it; {@link #STOPPED_MESSAGE} (08001) for a login a stop request
     *     interrupted, or any login once the process is stopping ({@link #stopAll()})
     */
    static Connection driver(String url, Properties props, int socketTimeoutSeconds, String user, BooleanSupplier stop)
            throws SQLException {
        Thread me = Thread.currentThread();
        BooleanSupplier condition = stop == null ? NEVER : stop;
        // registered first, then the flag read: a stopAll() either sees this login or is seen here
        CONNECTING.put(me, condition);
        try {
            if (stopping) {
                throw new SQLException(STOPPED_MESSAGE, "08001");
            }
            Connection c = DriverManager.getConnection(url, props);
            Properties probeProps = new Properties();
            probeProps.putAll(props);
            // the probe's second connection waits at most 10 s for a server session (a full session pool)
            probeProps.setProperty("socketTimeout", Integer.toString(socketTimeoutSeconds == 0 ? 10
                    : Math.min(10, socketTimeoutSeconds)));
            return prepare(c, url + "|" + user, () -> DriverManager.getConnection(url, probeProps));
        } catch (SQLException e) {
            if (ABORTED.contains(me) && !STOPPED_MESSAGE.equals(e.getMessage())) {
                throw new SQLException(STOPPED_MESSAGE, "08001", e);
            }
            throw e;
        } finally {
            synchronized (LOCK) {
                CONNECTING.remove(me);
                if (ABORTED.remove(me)) {
                    // the interrupt was this class's way to end the wait, now reported as the exception: the thread goes on
                    Thread.interrupted();
                }
            }
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
     * @throws SQLException as the DataSource or the server throws it; {@link #STOPPED_MESSAGE} once the process is
     *     stopping ({@link #stopAll()}: a DataSource's login cannot be interrupted, only refused)
     */
    static Connection dataSource(javax.sql.DataSource dataSource, String user, int socketTimeoutSeconds) throws SQLException {
        if (stopping) {
            throw new SQLException(STOPPED_MESSAGE, "08001");
        }
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
