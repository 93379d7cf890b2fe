package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.Secrets;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.Properties;
import java.util.function.BooleanSupplier;

/**
 * Where the catalog database is and how to log in, parsed from what an operator already has.
 *
 * <p>Accepted forms (the same PostgreSQL a DuckLake {@code ATTACH} names):
 * <ul>
 *   <li>a JDBC URL: {@code jdbc:postgresql://host:5432/db?user=u&sslmode=require};</li>
 *   <li>a libpq URI: {@code postgresql://user[:password]@host:5432/db?sslmode=require} (also {@code postgres://});</li>
 *   <li>a libpq key/value string: {@code host=h port=5432 dbname=db user=u password='p w'};</li>
 *   <li>DuckLake's ATTACH string: {@code ducklake:postgres:dbname=db host=h} (the {@code ducklake:} and
 *       {@code postgres:} prefixes are removed and the rest parsed as above).</li>
 * </ul>
 * What the string leaves out is filled from the libpq environment variables PGHOST, PGHOSTADDR, PGPORT,
 * PGDATABASE, PGUSER, PGPASSWORD, PGSSLMODE, PGSSLROOTCERT, PGSSLCERT, PGSSLKEY, PGAPPNAME,
 * PGCONNECT_TIMEOUT and PGOPTIONS, then from libpq's defaults (host localhost, port 5432, user = the OS
 * user, database = the user). The password follows {@link PasswordSource}: the string's, then a password file
 * (re-read at every connect, so rotated secrets are picked up), then PGPASSWORD.
 *
 * <p>Timeouts (so that a server that accepts TCP and never answers cannot hang a run, {@code metrics} or
 * {@code serve}): the whole login (TCP connect, TLS, authentication) is bounded by {@code connect_timeout} from the
 * string or PGCONNECT_TIMEOUT, in seconds, default {@link #DEFAULT_CONNECT_TIMEOUT_SECONDS} (libpq waits forever by
 * default; a maintenance job must not). As in libpq, 0 means wait forever and 1 is taken as 2. After login every
 * read is bounded by the socket timeout: {@link #SOCKET_TIMEOUT_FLOOR_SECONDS} unless the caller sets another with
 * {@link #withSocketTimeoutAbove} or {@link #withSocketTimeoutJustAbove} (exceeding its statement timeout), so that
 * no path (schema discovery, the maintain steps, the dry-run probes) waits forever on a peer gone silent after login.
 *
 * <p>The password is kept only to open connections: {@link #toString()}, {@link #describe()} and
 * {@link #jdbcUrl()} never contain it.
 */
public final class ConnectionSpec {

    /**
     * Key of the environment map naming the variable its PGPASSWORD value was taken from (a configuration's
     * {@code password_env}), so that messages name the variable the operator set; only messages read it.
     */
    public static final String PASSWORD_VARIABLE = "DUCKLAKE_JANITOR_PASSWORD_VARIABLE";

    /** Login timeout when neither the string nor PGCONNECT_TIMEOUT sets connect_timeout, seconds. */
    public static final int DEFAULT_CONNECT_TIMEOUT_SECONDS = 10;
    /** How much the socket timeout exceeds the statement timeout, seconds (room for the server to report the cancel). */
    public static final int SOCKET_TIMEOUT_MARGIN_SECONDS = 30;
    /**
     * The least socket timeout, seconds: statements outside the batches (the survey of a very large registry) run
     * without a statement_timeout, and must not be cut by the socket timeout.
     */
    public static final int SOCKET_TIMEOUT_FLOOR_SECONDS = 600;

    private final String host;
    private final String port;
    private final String database;
    private final String user;
    private final PasswordSource password;
    /** Extra pgjdbc properties (already translated from libpq names). */
    private final Map<String, String> jdbcParams;
    private final int connectTimeoutSeconds;
    private final int socketTimeoutSeconds;
    /** Where connections come from instead of pgJDBC's driver, or null ({@link #fromDataSource}). */
    private final javax.sql.DataSource dataSource;

    /** The parts as {@link ConnectionKeys#spec} checked them; {@code dataSource} null for a driver login. */
    ConnectionSpec(String host, String port, String database, String user, PasswordSource password,
                   Map<String, String> jdbcParams, int connectTimeoutSeconds, int socketTimeoutSeconds,
                   javax.sql.DataSource dataSource) {
        this.dataSource = dataSource;
        this.host = host;
        this.port = port;
        this.database = database;
        this.user = user;
        this.password = password;
        this.jdbcParams = Map.copyOf(jdbcParams);
        this.connectTimeoutSeconds = connectTimeoutSeconds;
        this.socketTimeoutSeconds = socketTimeoutSeconds;
    }

    /**
     * Parses a connection string and fills the gaps from the environment.
     *
     * @param text the connection string in one of the accepted forms; null or blank means "from the PG*
     *     variables only", which needs at least PGHOST or PGDATABASE to be set
     * @param env the environment to read PG* variables from (normally {@code System.getenv()})
     * @param passwordFile a file whose first line is the password, or null; wins over PGPASSWORD, loses to a
     *     password in the string; read again at every connect
     * @return the parsed specification
     * @throws JanitorException with {@link Reason#USAGE} when the string is malformed, names an unknown
     *     parameter, a Unix-socket host (not supported by the JDBC driver), when nothing names a catalog, when it is
     *     a whole DuckDB ATTACH statement, or when the password file cannot be read; the message never repeats the
     *     string itself (it may hold a password)
     */
    public static ConnectionSpec parse(String text, Map<String, String> env, Path passwordFile) throws JanitorException {
        return ConnectionKeys.spec(text, env, passwordFile);
    }

    /**
     * Another catalog database named relative to the one a run works on ({@code --also-catalog}): any form
     * {@link #parse} accepts, plus an optional {@code metadata_schema} key (key/value form
     * {@code metadata_schema=tenant_x}, URI query {@code ?metadata_schema=tenant_x}) naming one DuckLake catalog of that
     * database; without it, every DuckLake catalog of the database is meant. What the string leaves out of host, port
     * and user comes from {@code base}, then from the PG* variables; the password is the string's own, else
     * {@code base}'s source (its password file, PGPASSWORD or ~/.pgpass), so the same credentials serve unless the
     * string gives its own.
     *
     * @param text the connection string
     * @param env the environment (PG* variables)
     * @param base the connection of the run, or null (then only the environment fills gaps; used to check the syntax)
     * @return the connection and the metadata schema (null: all of them)
     * @throws JanitorException {@link Reason#USAGE} as {@link #parse}, also for an empty string or an empty metadata_schema
     */
    public static CatalogReference parseCatalogReference(String text, Map<String, String> env, ConnectionSpec base)
            throws JanitorException {
        return ConnectionKeys.reference(text, env, base);
    }

    /**
     * A catalog database and, optionally, one metadata schema in it.
     *
     * @param spec the connection
     * @param metadataSchema the schema holding the catalog, or null for every DuckLake catalog of the database
     */
    public record CatalogReference(ConnectionSpec spec, String metadataSchema) {
    }

    /** Whether another connection reaches the same server (host and port, as written) as this one. */
    public boolean sameServer(ConnectionSpec other) {
        return host.equalsIgnoreCase(other.host) && port.equals(other.port);
    }

    /**
     * The same server, user, password and parameters, but another database (the benchmark uses it to open the
     * databases it creates).
     *
     * @param otherDatabase the database name
     * @return a new specification
     */
    public ConnectionSpec withDatabase(String otherDatabase) {
        if (dataSource != null) {
            throw new IllegalStateException("a connection from a DataSource reaches one database only; cannot open " + otherDatabase);
        }
        return new ConnectionSpec(host, port, otherDatabase, user, password, jdbcParams, connectTimeoutSeconds, socketTimeoutSeconds,
                null);
    }

    /** @return false for a {@link #fromDataSource DataSource}'s connection, which reaches its one database only */
    public boolean reachesOtherDatabases() {
        return dataSource == null;
    }

    /**
     * The same connection with a socket timeout (pgJDBC {@code socketTimeout}: the longest wait for any read once
     * logged in) of {@code statementTimeout} plus {@link #SOCKET_TIMEOUT_MARGIN_SECONDS}, at least
     * {@link #SOCKET_TIMEOUT_FLOOR_SECONDS}, so that a statement is always ended by the server's statement_timeout
     * first and a silent network partition still cannot hang the caller.
     *
     * @param statementTimeout the longest statement_timeout the caller sets; zero (none) leaves reads unbounded
     * @return a new specification
     */
    public ConnectionSpec withSocketTimeoutAbove(java.time.Duration statementTimeout) {
        return withSocketTimeout(statementTimeout, SOCKET_TIMEOUT_FLOOR_SECONDS);
    }

    /**
     * The same connection with a socket timeout of {@code statementTimeout} plus {@link #SOCKET_TIMEOUT_MARGIN_SECONDS}
     * and no floor, for callers that run every long statement under that statement timeout ({@code check}): a peer
     * gone silent after login ends the call {@code statementTimeout + 30 s} after its last answer.
     *
     * @param statementTimeout the longest statement_timeout the caller sets; zero (none) leaves reads unbounded
     * @return a new specification
     */
    public ConnectionSpec withSocketTimeoutJustAbove(java.time.Duration statementTimeout) {
        return withSocketTimeout(statementTimeout, 0);
    }

    /**
     * The same connection with a socket timeout of exactly {@code seconds}, for a caller that bounds its whole
     * session itself ({@code serve}'s collection timeout): the reads of the login's session settings included.
     *
     * @param seconds the longest wait for any read once logged in, seconds; 0 = none
     * @return a new specification
     */
    public ConnectionSpec withSocketTimeoutSeconds(int seconds) {
        if (seconds < 0) {
            throw new IllegalArgumentException("negative socket timeout: " + seconds);
        }
        return new ConnectionSpec(host, port, database, user, password, jdbcParams, connectTimeoutSeconds, seconds, dataSource);
    }

    /**
     * The same connection with a socket timeout that lets the server's {@code statement_timeout} fire first: one set
     * already at or above {@code statementTimeout} plus {@link #SOCKET_TIMEOUT_MARGIN_SECONDS} is kept (the CLI's,
     * {@code check}'s tighter one); a lower one is raised to it; none (a {@link #fromDataSource DataSource}'s) becomes
     * {@link #withSocketTimeoutAbove}'s. What the runtime applies to every run's connection
     * ({@code MaintenanceRun.open}), so each path (CLI, connection string, DataSource) gets a bounded read.
     *
     * @param statementTimeout the longest statement_timeout the run sets; zero or null (none) keeps this specification
     * @return this specification or a new one
     */
    public ConnectionSpec withSocketTimeoutCovering(java.time.Duration statementTimeout) {
        if (statementTimeout == null || statementTimeout.isZero()) {
            return this;
        }
        if (socketTimeoutSeconds == 0) {
            return withSocketTimeoutAbove(statementTimeout);
        }
        ConnectionSpec justAbove = withSocketTimeoutJustAbove(statementTimeout);
        return socketTimeoutSeconds < justAbove.socketTimeoutSeconds ? justAbove : this;
    }

    private ConnectionSpec withSocketTimeout(java.time.Duration statementTimeout, int floorSeconds) {
        int s = statementTimeout == null || statementTimeout.isZero() ? 0
                : (int) Math.min(Integer.MAX_VALUE / 2, Math.max(floorSeconds,
                        (statementTimeout.toMillis() + 999) / 1000 + SOCKET_TIMEOUT_MARGIN_SECONDS));
        return new ConnectionSpec(host, port, database, user, password, jdbcParams, connectTimeoutSeconds, s, dataSource);
    }

    /** The login timeout in seconds (0 = wait forever), from connect_timeout / PGCONNECT_TIMEOUT or the default. */
    public int connectTimeoutSeconds() {
        return connectTimeoutSeconds;
    }

    /** The socket timeout in seconds (0 = none; {@link #SOCKET_TIMEOUT_FLOOR_SECONDS} unless a caller set another). */
    public int socketTimeoutSeconds() {
        return socketTimeoutSeconds;
    }

    /**
     * Interrupts every login in progress in this JVM (a stop request: SIGTERM/SIGINT, the end of {@code serve}). The
     * interrupted {@link #openRaw()} calls fail at once with an SQLException; established sessions are not touched.
     */
    public static void abortPendingConnects() {
        Logins.abortPending();
    }

    /**
     * For a process that is stopping (the CLI's SIGTERM/SIGINT hooks): interrupts every login in progress in this JVM,
     * as {@link #abortPendingConnects()}, and makes every later {@link #open()} and {@link #openRaw()} fail at once as an
     * interrupted login ({@link #loginStopped}), so that no login starts after the stop request. For the rest of the
     * JVM's life: never call it in a JVM that goes on working (a library, {@code serve} in-process).
     */
    public static void stopAllLogins() {
        Logins.stopAll();
    }

    /**
     * Interrupts the logins in progress in this JVM whose stop condition ({@link #open(BooleanSupplier)},
     * {@link #openRaw(BooleanSupplier)}) is now true: an operation's stop request ends its own login at once, not the
     * logins of other work in the same JVM. Call it after setting the stop condition.
     */
    public static void abortStoppedConnects() {
        Logins.abortStopped();
    }

    /**
     * Whether a stop request ended a login ({@link #abortPendingConnects()}, {@link #abortStoppedConnects()}, or
     * {@link #stopAllLogins()} before it started), so that a caller can report a stop rather than a connection
     * failure. Only the janitor's own stop is recognised: a login ended by its timeout or refused by the server is not.
     *
     * @param e a {@link JanitorException} from {@link #open}, the driver's exception from {@link #openRaw}, or any
     *     exception caused by either
     * @return true when the login was stopped
     */
    public static boolean loginStopped(Throwable e) {
        return Logins.stopped(e);
    }

    /**
     * The database a stopped login ({@link #loginStopped}) was for: the run's catalog or another database it consults
     * ({@code --also-catalog}), so that the report names the login that was actually stopped.
     *
     * @param e an exception from {@link #open} or {@link #openRaw}, or one caused by either
     * @return {@code user@host:port/database} ({@link #describe()}, never a password), or null when no login was stopped
     */
    public static String stoppedLoginTarget(Throwable e) {
        return Logins.stoppedTarget(e);
    }

    /** The JDBC URL, without user and password. */
    public String jdbcUrl() {
        return ConnectionKeys.jdbcUrl(host, port, database);
    }

    /**
     * Opens a new connection with autocommit on and the janitor's session settings ({@link SessionSettings}). The
     * login is bounded by {@link #connectTimeoutSeconds()}.
     *
     * @return an open connection
     * @throws JanitorException with {@link Reason#CONNECTION} when the server is unreachable or refuses the
     *     login, with a message naming host, port, database and user (never the password)
     */
    public Connection open() throws JanitorException {
        return open(null);
    }

    /**
     * {@link #open()} for a caller that can be stopped: {@link #abortStoppedConnects()} interrupts the login in
     * progress once {@code stop} is true (a login is not refused because it already is). A stopped login fails with a
     * {@link Reason#CONNECTION} error that {@link #loginStopped} recognises ("the login was interrupted by a stop
     * request").
     *
     * @param stop the caller's stop condition, or null for none
     * @return an open connection
     * @throws JanitorException as {@link #open()}
     */
    public Connection open(BooleanSupplier stop) throws JanitorException {
        try {
            return openRaw(stop);
        } catch (SQLException e) {
            throw connectionFailure(e);
        }
    }

    /**
     * Opens a new connection with the janitor's session settings ({@link SessionSettings}), leaving the driver's
     * exception as is (used by reconnect loops). The connection's pooling mode is found first ({@link Pooling}, cached
     * per server, database and user): behind a transaction-mode pooler no session setting is sent and pgJDBC's
     * server-side prepared statements are off ({@code prepareThreshold = 0}).
     *
     * @return an open connection with autocommit on
     * @throws SQLException as thrown by the driver
     */
    public Connection openRaw() throws SQLException {
        return openRaw(null);
    }

    /**
     * {@link #openRaw()} for a caller that can be stopped, as {@link #open(BooleanSupplier)}; a stopped login throws
     * "Interrupted while attempting to connect: a stop was requested" (SQLSTATE 08001). A DataSource's login cannot be
     * interrupted.
     *
     * @param stop the caller's stop condition, or null for none
     * @return an open connection with autocommit on
     * @throws SQLException as thrown by the driver, or for a stopped login
     */
    public Connection openRaw(BooleanSupplier stop) throws SQLException {
        try {
            return login(stop);
        } catch (SQLException e) {
            if (Logins.stopped(e) && Logins.stoppedTarget(e) == null) {
                throw new Logins.StoppedLogin(describe(), e);
            }
            throw e;
        }
    }

    private Connection login(BooleanSupplier stop) throws SQLException {
        if (dataSource != null) {
            return Logins.dataSource(dataSource, user, socketTimeoutSeconds);
        }
        String pw = password.resolve();
        Properties props = Logins.driverProperties(jdbcParams, user, pw, connectTimeoutSeconds, socketTimeoutSeconds);
        if (pw == null && password.passFileIgnored()) {
            // pgJDBC reads the password file whatever its mode; libpq ignores a file others can read, and so do we
            props.setProperty("authenticationPluginClassName", IgnoredPassFile.class.getName());
        }
        return Logins.driver(jdbcUrl(), props, socketTimeoutSeconds, user, stop);
    }

    /**
     * A specification whose connections come from the caller's {@link javax.sql.DataSource} (a library caller, e.g. a
     * scheduler that already has one): {@link #open()} and {@link #openRaw()} call {@code getConnection()} and apply the
     * same pooling probe and session settings as a parsed connection. The DataSource's own login and TLS settings
     * apply; the socket timeout of {@link #withSocketTimeoutAbove} and its siblings is set on each connection it returns
     * ({@code setNetworkTimeout}), as a connection string gets it, and none is set until one of them is called (the
     * runtime calls {@link #withSocketTimeoutCovering} for every run). It reaches one database: {@link #withDatabase} throws. One connection is opened here to learn the
     * user, server address, port and database for {@link #describe()} (the password, which the DataSource keeps, is
     * never seen).
     *
     * @param dataSource where connections come from; each {@code getConnection()} must return a new or pool-fresh
     *     connection to the catalog database with autocommit on
     * @return the specification
     * @throws JanitorException {@link Reason#CONNECTION} when the first connection fails
     */
    public static ConnectionSpec fromDataSource(javax.sql.DataSource dataSource) throws JanitorException {
        java.util.Objects.requireNonNull(dataSource, "dataSource");
        ConnectionSpec unknown = new ConnectionSpec("?", "?", "?", "?", PasswordSource.choose(null, null, null, null),
                Map.of(), 0, 0, dataSource);
        try (Connection c = dataSource.getConnection();
             java.sql.PreparedStatement ps = c.prepareStatement("SELECT current_user::text, current_database()::text,"
                     + " coalesce(host(inet_server_addr()), 'local'), coalesce(inet_server_port()::text, '-')");
             java.sql.ResultSet rs = ps.executeQuery()) {
            rs.next();
            return new ConnectionSpec(rs.getString(3), rs.getString(4), rs.getString(2), rs.getString(1),
                    unknown.password, Map.of(), 0, 0, dataSource);
        } catch (SQLException e) {
            throw unknown.connectionFailure(e);
        }
    }

    /**
     * Turns a failure to connect into a {@link Reason#CONNECTION} error with a clear, password-free message
     * ({@link LoginFailure}).
     *
     * @param e the driver's exception
     * @return the exception to throw
     */
    public JanitorException connectionFailure(SQLException e) {
        return LoginFailure.of(this, e);
    }

    /**
     * @param e the driver's exception from {@link #openRaw()}
     * @return whether the login failed because a stop request interrupted it ({@link #abortPendingConnects()})
     */
    public static boolean interruptedLogin(SQLException e) {
        return e.getMessage() != null && e.getMessage().startsWith("Interrupted while attempting to connect")
                || LoginFailure.interruptedLogin(e) || Thread.currentThread().isInterrupted();
    }

    /**
     * Removes this connection's password from a text (a last line of defence for driver messages).
     *
     * @param text any text, may be null
     * @return the text with every occurrence of the password and of the {@code sslpassword} replaced by {@code ***}, then
     *     anything else that could be a password ({@link Secrets#redact})
     */
    public String redact(String text) {
        if (text == null) {
            return "";
        }
        String pw = password.lastKnown();
        String out = pw == null || pw.isEmpty() ? text : text.replace(pw, Secrets.MASK);
        String sslPw = sslPassword();
        return Secrets.redact(sslPw == null ? out : out.replace(sslPw, Secrets.MASK));
    }

    /** {@code user@host:port/database}, for logs and results; never the password. */
    public String describe() {
        return user + "@" + host + ":" + port + "/" + database;
    }

    /** The host (or comma-separated hosts). */
    public String host() {
        return host;
    }

    /** The port (or comma-separated ports). */
    public String port() {
        return port;
    }

    /** The database name. */
    public String database() {
        return database;
    }

    /** The user name. */
    public String user() {
        return user;
    }

    /** Whether a password is set (the password itself is never exposed). */
    public boolean hasPassword() {
        return password.kind() != PasswordSource.Kind.NONE;
    }

    /** Where the password comes from (for messages; never the password). */
    public PasswordSource passwordSource() {
        return password;
    }

    /**
     * The connection's security and routing parameters in libpq spelling, for a client that speaks libpq (DuckDB's
     * postgres extension, which DuckLake's ATTACH uses): {@code sslmode}, {@code sslrootcert}, {@code sslcert},
     * {@code sslkey}, {@code gssencmode}, {@code channel_binding}, {@code target_session_attrs}, {@code options} as the
     * connection string or the {@code PGSSL*} environment gave them, and {@code connect_timeout} in seconds (when not
     * 0). Never the password nor {@code sslpassword} (see {@link #sslPassword}).
     *
     * @return libpq key to value, in a stable order; empty values left out
     */
    public Map<String, String> libpqParameters() {
        return ConnectionKeys.libpqParameters(jdbcParams, connectTimeoutSeconds);
    }

    /**
     * The {@code sslpassword} (the passphrase of an encrypted client key), only to hand it to a client that keeps it
     * secret (DuckDB's postgres secret, which redacts it); never to be logged. {@link #redact} removes it from texts.
     *
     * @return the passphrase, or null when none is set
     */
    public String sslPassword() {
        String v = jdbcParams.get("sslpassword");
        return v == null || v.isEmpty() ? null : v;
    }

    @Override
    public String toString() {
        return "ConnectionSpec[" + describe() + (hasPassword() ? ", password=***" : "") + "]";
    }
}
