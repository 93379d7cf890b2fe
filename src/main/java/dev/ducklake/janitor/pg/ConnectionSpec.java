package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.Secrets;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

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

    private static final Set<String> KNOWN_KEYS = ConnectionStrings.KNOWN_KEYS;

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

    /** Threads inside {@link #openRaw()} now, so that a stop request can interrupt a login in progress. */
    private static final java.util.Set<Thread> CONNECTING = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Threads whose login {@link #abortPendingConnects()} interrupted (pgJDBC reports the interrupt in several ways). */
    private static final java.util.Set<Thread> ABORTED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** libpq environment variables and the key each one fills (PGPASSWORD is handled by {@link PasswordSource}). */
    private static final Map<String, String> ENV_KEYS = Map.ofEntries(
            Map.entry("PGHOST", "host"), Map.entry("PGHOSTADDR", "hostaddr"), Map.entry("PGPORT", "port"),
            Map.entry("PGDATABASE", "dbname"), Map.entry("PGUSER", "user"),
            Map.entry("PGSSLMODE", "sslmode"), Map.entry("PGSSLROOTCERT", "sslrootcert"),
            Map.entry("PGSSLCERT", "sslcert"), Map.entry("PGSSLKEY", "sslkey"),
            Map.entry("PGAPPNAME", "application_name"), Map.entry("PGCONNECT_TIMEOUT", "connect_timeout"),
            Map.entry("PGOPTIONS", "options"));

    private final String host;
    private final String port;
    private final String database;
    private final String user;
    private final PasswordSource password;
    /** Extra pgjdbc properties (already translated from libpq names). */
    private final Map<String, String> jdbcParams;
    private final int connectTimeoutSeconds;
    private final int socketTimeoutSeconds;
    /** Where connections come from instead of {@link DriverManager}, or null ({@link #fromDataSource}). */
    private final javax.sql.DataSource dataSource;

    private ConnectionSpec(String host, String port, String database, String user, PasswordSource password,
                           Map<String, String> jdbcParams, int connectTimeoutSeconds, int socketTimeoutSeconds) {
        this(host, port, database, user, password, jdbcParams, connectTimeoutSeconds, socketTimeoutSeconds, null);
    }

    private ConnectionSpec(String host, String port, String database, String user, PasswordSource password,
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
        Map<String, String> kv = parseToMap(text, env);
        fillFromEnv(kv, env);
        String pgPassword = env.get("PGPASSWORD");
        PasswordSource source = PasswordSource.choose(kv.remove("password"), passwordFile, pgPassword, env.get(PASSWORD_VARIABLE));
        return build(kv, env, source);
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
        if (text == null || text.isBlank()) {
            throw new JanitorException(Reason.USAGE, "An empty catalog connection was given: pass a connection string such as "
                    + "'postgresql://user@host:5432/db' or 'host=h dbname=d metadata_schema=s'.");
        }
        Map<String, String> kv = parseToMap(text, env);
        String schema = kv.remove("metadata_schema");
        if (schema != null && schema.isEmpty()) {
            throw new JanitorException(Reason.USAGE, "metadata_schema in a catalog connection must name a schema; leave it out "
                    + "to mean every DuckLake catalog of that database.");
        }
        if (base != null) {
            if (!kv.containsKey("host") && !kv.containsKey("hostaddr")) {
                kv.put("host", base.host);
                kv.putIfAbsent("port", base.port);
            }
            kv.putIfAbsent("user", base.user);
        }
        fillFromEnv(kv, env);
        String inString = kv.remove("password");
        PasswordSource source = inString != null || base == null
                ? PasswordSource.choose(inString, null, env.get("PGPASSWORD"), env.get(PASSWORD_VARIABLE)) : base.password;
        ConnectionSpec spec = build(kv, env, source);
        if (base != null) {
            spec = new ConnectionSpec(spec.host, spec.port, spec.database, spec.user, spec.password, spec.jdbcParams,
                    spec.connectTimeoutSeconds, base.socketTimeoutSeconds);
        }
        return new CatalogReference(spec, schema);
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

    private static void fillFromEnv(Map<String, String> kv, Map<String, String> env) {
        for (Map.Entry<String, String> e : ENV_KEYS.entrySet()) {
            String v = env.get(e.getKey());
            if (v != null && !v.isEmpty()) {
                kv.putIfAbsent(e.getValue(), v);
            }
        }
    }

    /** The libpq keys of a connection string in any accepted form (before the environment fills gaps). */
    private static Map<String, String> parseToMap(String text, Map<String, String> env) throws JanitorException {
        Map<String, String> kv = new LinkedHashMap<>();
        String s = text == null ? "" : text.strip();
        if (s.isEmpty()) {
            if (!env.containsKey("PGHOST") && !env.containsKey("PGDATABASE") && !env.containsKey("PGSERVICE")) {
                throw new JanitorException(Reason.USAGE, "No catalog connection given: pass --catalog (or set "
                        + "DUCKLAKE_JANITOR_CATALOG), e.g. --catalog 'postgresql://user@host:5432/db', or set PGHOST/PGDATABASE.");
            }
        } else {
            String lower = s.toLowerCase(Locale.ROOT);
            if (lower.startsWith("attach ") || lower.startsWith("attach'") || lower.startsWith("attach\t")) {
                throw attachStatement(s);
            }
            if (lower.startsWith("ducklake:")) {
                s = s.substring("ducklake:".length());
                lower = s.toLowerCase(Locale.ROOT);
                if (!lower.startsWith("postgres:")) {
                    throw new JanitorException(Reason.USAGE, "The DuckLake ATTACH string does not name a PostgreSQL "
                            + "catalog: expected 'ducklake:postgres:<libpq connection string>'.");
                }
            }
            if (lower.startsWith("postgres:") && !lower.startsWith("postgres://")) {
                s = s.substring("postgres:".length()).strip();
                lower = s.toLowerCase(Locale.ROOT);
            }
            if (lower.startsWith("jdbc:postgresql:")) {
                ConnectionStrings.parseUri(s.substring("jdbc:".length()), kv, true);
            } else if (lower.startsWith("postgresql://") || lower.startsWith("postgres://")) {
                ConnectionStrings.parseUri(s, kv, false);
            } else if (lower.startsWith("jdbc:")) {
                throw new JanitorException(Reason.USAGE, "Only PostgreSQL JDBC URLs (jdbc:postgresql://...) are supported as --catalog.");
            } else if (SCHEME.matcher(s).lookingAt()) {
                throw unknownScheme(s);
            } else {
                ConnectionStrings.parseKeyValue(s, kv);
            }
        }
        return kv;
    }

    /**
     * The error for a pasted DuckDB statement such as {@code ATTACH 'ducklake:postgres:dbname=d' AS lake
     * (METADATA_SCHEMA 'm')}: names the schema it found (never the connection string, which may hold a password).
     */
    private static JanitorException attachStatement(String s) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)METADATA_SCHEMA\\s*'([^']*)'").matcher(s);
        String schemaHint = m.find() ? " --metadata-schema " + Sql.printable(m.group(1)) : " --metadata-schema <schema>";
        return new JanitorException(Reason.USAGE, "--catalog takes a connection string, not a DuckDB ATTACH statement: pass "
                + "the quoted 'ducklake:postgres:...' part as --catalog and the METADATA_SCHEMA option as" + schemaHint + ".");
    }

    /** A URI-like start ({@code name:/}) that is none of the accepted schemes: a mistyped scheme, not a key/value string. */
    private static final java.util.regex.Pattern SCHEME = java.util.regex.Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*):/");

    /**
     * The error for {@code postgressql://…}, {@code pgsql://…}, {@code postgresql:/…}: names the scheme (never the rest, which
     * may hold a password) and the accepted ones.
     */
    private static JanitorException unknownScheme(String s) {
        java.util.regex.Matcher m = SCHEME.matcher(s);
        m.lookingAt();
        String scheme = m.group(1);
        String lower = scheme.toLowerCase(Locale.ROOT);
        boolean oneSlash = !s.startsWith("//", m.end() - 1);
        String hint = (lower.equals("postgresql") || lower.equals("postgres")) && oneSlash
                ? "'" + scheme + ":/' needs two slashes: " + lower + "://user@host:5432/db"
                : "the scheme " + Sql.printable(scheme + ":") + " is not one of postgresql://, postgres://, jdbc:postgresql:// "
                        + "or ducklake:postgres:";
        return new JanitorException(Reason.USAGE, "The catalog connection string is not a connection string this tool reads: " + hint
                + " (the string itself is not shown; it may hold a password).");
    }

    private static ConnectionSpec build(Map<String, String> kv, Map<String, String> env, PasswordSource source)
            throws JanitorException {
        for (String key : kv.keySet()) {
            if (!KNOWN_KEYS.contains(key)) {
                throw new JanitorException(Reason.USAGE, "Unsupported connection parameter '" + Secrets.redact(key) + "'; supported: "
                        + String.join(", ", new java.util.TreeSet<>(KNOWN_KEYS)) + ".");
            }
        }
        String host = kv.containsKey("hostaddr") ? kv.get("hostaddr") : kv.getOrDefault("host", "localhost");
        if (host.isEmpty()) {
            host = "localhost";
        }
        if (host.startsWith("/") || host.startsWith("@")) {
            throw new JanitorException(Reason.USAGE, "Unix-domain socket hosts (" + Secrets.redact(host) + ") are not supported by the "
                    + "JDBC driver; use a TCP host such as localhost.");
        }
        String port = kv.getOrDefault("port", "5432");
        for (String p : port.split(",")) {
            if (!p.matches("[0-9]{1,5}") || Integer.parseInt(p) < 1 || Integer.parseInt(p) > 65535) {
                throw new JanitorException(Reason.USAGE, "Invalid port '" + Secrets.redact(p) + "' in the catalog connection: expected 1 to 65535.");
            }
        }
        String osUser = env.getOrDefault("USER", System.getProperty("user.name", "postgres"));
        String user = kv.getOrDefault("user", osUser);
        String database = kv.getOrDefault("dbname", user);
        Map<String, String> params = new LinkedHashMap<>();
        copyParam(kv, params, "sslmode", "sslmode");
        copyParam(kv, params, "sslrootcert", "sslrootcert");
        copyParam(kv, params, "sslcert", "sslcert");
        copyParam(kv, params, "sslkey", "sslkey");
        copyParam(kv, params, "sslpassword", "sslpassword");
        copyParam(kv, params, "application_name", "ApplicationName");
        copyParam(kv, params, "options", "options");
        copyParam(kv, params, "gssencmode", "gssEncMode");
        copyParam(kv, params, "channel_binding", "channelBinding");
        if (kv.containsKey("target_session_attrs")) {
            String t = kv.get("target_session_attrs");
            params.put("targetServerType", "read-write".equals(t) ? "primary" : t);
        }
        int connectTimeout = DEFAULT_CONNECT_TIMEOUT_SECONDS;
        if (kv.containsKey("connect_timeout")) {
            String ct = kv.get("connect_timeout").strip();
            if (!ct.matches("-?[0-9]{1,6}")) {
                throw new JanitorException(Reason.USAGE, "Invalid connect_timeout (connection string or PGCONNECT_TIMEOUT): "
                        + "expected whole seconds, e.g. connect_timeout=10.");
            }
            // libpq: zero or negative waits forever, 1 is taken as 2
            int v = Integer.parseInt(ct);
            connectTimeout = v <= 0 ? 0 : Math.max(2, v);
        }
        return new ConnectionSpec(host, port, database, user, source, params, connectTimeout, SOCKET_TIMEOUT_FLOOR_SECONDS);
    }

    private static void copyParam(Map<String, String> kv, Map<String, String> out, String libpq, String jdbc) {
        String v = kv.get(libpq);
        if (v != null) {
            out.put(jdbc, v);
        }
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
        return new ConnectionSpec(host, port, otherDatabase, user, password, jdbcParams, connectTimeoutSeconds, socketTimeoutSeconds);
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
        for (Thread t : CONNECTING) {
            ABORTED.add(t);
            t.interrupt();
        }
    }

    /** The JDBC URL, without user and password. */
    public String jdbcUrl() {
        StringBuilder url = new StringBuilder("jdbc:postgresql://");
        String[] hosts = host.split(",");
        String[] ports = port.split(",");
        for (int i = 0; i < hosts.length; i++) {
            if (i > 0) {
                url.append(',');
            }
            url.append(hosts[i]).append(':').append(ports[Math.min(i, ports.length - 1)]);
        }
        url.append('/').append(java.net.URLEncoder.encode(database, StandardCharsets.UTF_8).replace("+", "%20"));
        return url.toString();
    }

    /**
     * Opens a new connection with autocommit on and the janitor's session settings ({@link #SESSION_SETTINGS}). The
     * login is bounded by {@link #connectTimeoutSeconds()}.
     *
     * @return an open connection
     * @throws JanitorException with {@link Reason#CONNECTION} when the server is unreachable or refuses the
     *     login, with a message naming host, port, database and user (never the password)
     */
    public Connection open() throws JanitorException {
        try {
            return openRaw();
        } catch (SQLException e) {
            throw connectionFailure(e);
        }
    }

    /**
     * Opens a new connection with the janitor's session settings ({@link #SESSION_SETTINGS}), leaving the driver's
     * exception as is (used by reconnect loops). The connection's pooling mode is found first ({@link Pooling}, cached
     * per server, database and user): behind a transaction-mode pooler no session setting is sent and pgJDBC's
     * server-side prepared statements are off ({@code prepareThreshold = 0}).
     *
     * @return an open connection with autocommit on
     * @throws SQLException as thrown by the driver
     */
    public Connection openRaw() throws SQLException {
        if (dataSource != null) {
            return openFromDataSource();
        }
        Properties props = new Properties();
        props.putAll(jdbcParams);
        props.setProperty("user", user);
        String pw = password.resolve();
        if (pw != null) {
            props.setProperty("password", pw);
        }
        props.putIfAbsent("ApplicationName", "ducklake-janitor");
        // loginTimeout bounds the whole login (pgJDBC runs it in a helper thread and waits, interruptibly);
        // connectTimeout only the TCP connect; socketTimeout every later read
        props.setProperty("loginTimeout", Integer.toString(connectTimeoutSeconds));
        props.setProperty("connectTimeout", Integer.toString(connectTimeoutSeconds));
        props.setProperty("socketTimeout", Integer.toString(socketTimeoutSeconds));
        props.setProperty("tcpKeepAlive", "true");
        Thread me = Thread.currentThread();
        CONNECTING.add(me);
        try {
            Connection c = DriverManager.getConnection(jdbcUrl(), props);
            try {
                Properties probeProps = new Properties();
                probeProps.putAll(props);
                // the probe's second connection waits at most 10 s for a server session (a full session pool)
                probeProps.setProperty("socketTimeout", Integer.toString(socketTimeoutSeconds == 0 ? 10
                        : Math.min(10, socketTimeoutSeconds)));
                // no server-side prepared statements while probing: pgJDBC names its COMMIT on first use unless the
                // threshold is 0, and a named COMMIT prepared on one server session fails on the next
                org.postgresql.PGConnection pg = c.unwrap(org.postgresql.PGConnection.class);
                int threshold = pg.getPrepareThreshold();
                pg.setPrepareThreshold(0);
                Pooling.Mode mode = Pooling.detect(jdbcUrl() + "|" + user, c, () -> DriverManager.getConnection(jdbcUrl(), probeProps));
                if (mode == Pooling.Mode.SESSION_BOUND) {
                    pg.setPrepareThreshold(threshold);
                    startSession(c);
                }
                // transaction-pooled: no server-side prepared statements (they live on one server session) and no
                // session SETs (they would stay on a server session other clients use): every transaction sets what it
                // needs locally
            } catch (SQLException e) {
                try {
                    c.close();
                } catch (SQLException ignored) {
                    // closing a session that failed its first statement
                }
                throw e;
            }
            return c;
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
     * A specification whose connections come from the caller's {@link javax.sql.DataSource} (a library caller, e.g. a
     * scheduler that already has one): {@link #open()} and {@link #openRaw()} call {@code getConnection()} and apply the
     * same pooling probe and session settings as a parsed connection. The DataSource's own login, socket and TLS settings
     * apply: this specification sets no timeout of its own ({@link #withSocketTimeoutAbove} and its siblings change
     * nothing for it). It reaches one database: {@link #withDatabase} throws. One connection is opened here to learn the
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
             PreparedStatement ps = c.prepareStatement("SELECT current_user::text, current_database()::text,"
                     + " coalesce(host(inet_server_addr()), 'local'), coalesce(inet_server_port()::text, '-')");
             java.sql.ResultSet rs = ps.executeQuery()) {
            rs.next();
            return new ConnectionSpec(rs.getString(3), rs.getString(4), rs.getString(2), rs.getString(1),
                    unknown.password, Map.of(), 0, 0, dataSource);
        } catch (SQLException e) {
            throw unknown.connectionFailure(e);
        }
    }

    /** {@link #openRaw()} for a specification made by {@link #fromDataSource}. */
    private Connection openFromDataSource() throws SQLException {
        Connection c = dataSource.getConnection();
        try {
            c.setAutoCommit(true);
            org.postgresql.PGConnection pg = c.unwrap(org.postgresql.PGConnection.class);
            int threshold = pg.getPrepareThreshold();
            pg.setPrepareThreshold(0);
            Pooling.Mode mode = Pooling.detect("datasource@" + System.identityHashCode(dataSource) + "|" + user, c,
                    dataSource::getConnection);
            if (mode == Pooling.Mode.SESSION_BOUND) {
                pg.setPrepareThreshold(threshold);
                startSession(c);
            }
            return c;
        } catch (SQLException e) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing a connection that failed its first statement
            }
            throw e;
        }
    }

    /**
     * The janitor's session settings, sent once after login (utility statements: not planned, so not compiled
     * themselves). {@code jit = off}: on a server with {@code jit = on} every statement whose plan costs more than
     * {@code jit_above_cost} is first compiled by LLVM, which costs tens to hundreds of milliseconds per statement and
     * bought nothing for the janitor's catalog queries ({@code check} took 21 s instead of 1 s, issue 23). Behind a
     * transaction-mode pooler a session setting may land on another server connection, so the transactions that plan
     * catalog-wide statements also set it locally ({@link Transactions#JIT_OFF}).
     */
    static final String SESSION_SETTINGS = "SET jit = off";

    /**
     * The most a janitor session may stay idle inside a transaction ({@code idle_in_transaction_session_timeout}):
     * its transactions never wait on anything but the server and the store's bounded calls.
     */
    public static final java.time.Duration IDLE_IN_TRANSACTION_TIMEOUT = java.time.Duration.ofHours(1);
    /**
     * The most a janitor session may stay idle between statements ({@code idle_session_timeout}, PostgreSQL 14+):
     * above any collection interval of {@code serve} and any listing between two catalog statements of a storage run.
     */
    public static final java.time.Duration IDLE_SESSION_TIMEOUT = java.time.Duration.ofHours(6);

    private static void startSession(Connection c) throws SQLException {
        try (java.sql.Statement st = c.createStatement()) {
            st.execute(SESSION_SETTINGS);
        }
        idleTimeouts(c);
    }

    /**
     * Bounds how long the server keeps a janitor session whose client is gone without a word (a SIGKILLed run behind
     * a proxy that keeps the server connection open would otherwise keep its advisory lock for hours; TCP keepalives
     * cover a vanished peer on a direct connection): {@link #IDLE_IN_TRANSACTION_TIMEOUT} and, from PostgreSQL 14 on,
     * {@link #IDLE_SESSION_TIMEOUT}. A shorter value set by the DBA (role, database, server) is kept: the janitor
     * only lowers these, never raises them. Session-level: behind a transaction-mode pooler they may land on a shared
     * server connection, like {@code jit = off}.
     */
    private static void idleTimeouts(Connection c) throws SQLException {
        List<String[]> settings = new java.util.ArrayList<>();
        settings.add(new String[] {"idle_in_transaction_session_timeout", IDLE_IN_TRANSACTION_TIMEOUT.toMillis() + "ms"});
        if (c.getMetaData().getDatabaseMajorVersion() >= 14) {
            settings.add(new String[] {"idle_session_timeout", IDLE_SESSION_TIMEOUT.toMillis() + "ms"});
        }
        // each setting (name, bound) is lowered to the bound unless it is already below it and not 0 (none)
        StringBuilder sql = new StringBuilder("SELECT set_config(s.n, CASE WHEN s.cur = interval '0' OR s.cur > s.v::interval"
                + " THEN s.v ELSE current_setting(s.n) END, false) FROM (SELECT n, v, current_setting(n)::interval AS cur FROM (VALUES ");
        for (int i = 0; i < settings.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("(?, ?)");
        }
        sql.append(") x(n, v)) s");
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            int p = 1;
            for (String[] setting : settings) {
                ps.setString(p++, setting[0]);
                ps.setString(p++, setting[1]);
            }
            ps.execute();
        }
    }

    /**
     * Turns a failure to connect into a {@link Reason#CONNECTION} error with a clear, password-free message.
     *
     * @param e the driver's exception
     * @return the exception to throw
     */
    public JanitorException connectionFailure(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        String message = e.getMessage() == null ? "" : e.getMessage();
        String what;
        if (message.contains("statement pooling mode")) {
            // PgBouncer pool_mode = statement refused a transaction block (and closed the connection): every command
            // of the janitor runs transactions
            return new JanitorException(Reason.POOLER_MODE, "The catalog connection " + describe() + " goes through a connection"
                    + " pooler in statement pooling mode (PgBouncer pool_mode = statement), which refuses transactions; every"
                    + " command of ducklake-janitor needs them. Nothing was changed. Point --catalog at the PostgreSQL server itself"
                    + " or at a session-mode pool (pool_mode = session).", e);
        }
        if (password.kind() == PasswordSource.Kind.PASSWORD_FILE && message.contains("password file")) {
            // the password file could not be read at this connect (PasswordSource.resolve)
            return new JanitorException(Reason.CONNECTION, "Cannot connect to the catalog " + describe() + ": " + message, e);
        } else if ("28P01".equals(state) || "28000".equals(state)) {
            what = "the server refused the login (wrong password or no pg_hba.conf entry; " + password.describe() + ")";
        } else if (message.contains("timed out") && connectTimeoutSeconds > 0) {
            what = "no answer within " + connectTimeoutSeconds + " s (the login timeout; set connect_timeout in the connection "
                    + "string or PGCONNECT_TIMEOUT to change it)";
        } else if (message.startsWith("Interrupted while attempting to connect")) {
            what = "the login was interrupted by a stop request";
        } else if (interruptedLogin(e)) {
            // pgJDBC reports an interrupted wait for its login thread as 99999 "Something unusual has occurred"
            return new JanitorException(Reason.CONNECTION, "Cannot connect to the catalog " + describe()
                    + ": the login was interrupted before the server answered it.", e);
        } else if ("08004".equals(state) && password.kind() == PasswordSource.Kind.NONE
                && message.contains("no password was provided")) {
            what = "the server asks for a password and no password was given (use --password-file, PGPASSWORD, "
                    + "~/.pgpass or PGPASSFILE, or the connection string)";
        } else if ("08004".equals(state)) {
            what = "the server rejected the connection";
        } else if ("3D000".equals(state)) {
            what = "the database does not exist";
        } else if (state.startsWith("08") || state.isEmpty()) {
            what = "the server cannot be reached";
        } else {
            what = "connecting failed";
        }
        return new JanitorException(Reason.CONNECTION, "Cannot connect to the catalog " + describe() + ": " + what
                + " (SQLSTATE " + (state.isEmpty() ? "none" : state) + ": " + redact(e.getMessage()) + ").", e);
    }

    /**
     * Whether pgJDBC failed a login because the thread waiting for it was interrupted: it then throws SQLSTATE 99999
     * ("Something unusual has occurred") caused by a RuntimeException "Interrupted while attempting to connect."
     *
     * @param e the driver's exception
     * @return true for an interrupted login
     */
    public static boolean interruptedLogin(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getMessage() != null && t.getMessage().startsWith("Interrupted while attempting to connect")) {
                return true;
            }
        }
        return false;
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
        Map<String, String> out = new LinkedHashMap<>();
        String[][] names = {{"sslmode", "sslmode"}, {"sslrootcert", "sslrootcert"}, {"sslcert", "sslcert"},
                {"sslkey", "sslkey"}, {"gssEncMode", "gssencmode"}, {"channelBinding", "channel_binding"},
                {"options", "options"}};
        for (String[] n : names) {
            String v = jdbcParams.get(n[0]);
            if (v != null && !v.isEmpty()) {
                out.put(n[1], v);
            }
        }
        String target = jdbcParams.get("targetServerType");
        if (target != null && !target.isEmpty()) {
            out.put("target_session_attrs", "primary".equals(target) ? "read-write" : target);
        }
        if (connectTimeoutSeconds > 0) {
            out.put("connect_timeout", Integer.toString(connectTimeoutSeconds));
        }
        return out;
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
