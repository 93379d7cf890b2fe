package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.LinkedHashMap;
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
 * user, database = the user). A password file, when given, supplies the password if the string has none.
 *
 * <p>The password is kept only to open connections: {@link #toString()}, {@link #describe()} and
 * {@link #jdbcUrl()} never contain it.
 */
public final class ConnectionSpec {

    /** libpq keys accepted in key/value strings and URI query parameters. */
    private static final Set<String> KNOWN_KEYS = Set.of("host", "hostaddr", "port", "dbname", "user", "password",
            "sslmode", "sslrootcert", "sslcert", "sslkey", "sslpassword", "application_name", "connect_timeout",
            "options", "target_session_attrs", "keepalives", "gssencmode", "channel_binding");

    /** libpq environment variables and the key each one fills. */
    private static final Map<String, String> ENV_KEYS = Map.ofEntries(
            Map.entry("PGHOST", "host"), Map.entry("PGHOSTADDR", "hostaddr"), Map.entry("PGPORT", "port"),
            Map.entry("PGDATABASE", "dbname"), Map.entry("PGUSER", "user"), Map.entry("PGPASSWORD", "password"),
            Map.entry("PGSSLMODE", "sslmode"), Map.entry("PGSSLROOTCERT", "sslrootcert"),
            Map.entry("PGSSLCERT", "sslcert"), Map.entry("PGSSLKEY", "sslkey"),
            Map.entry("PGAPPNAME", "application_name"), Map.entry("PGCONNECT_TIMEOUT", "connect_timeout"),
            Map.entry("PGOPTIONS", "options"));

    private final String host;
    private final String port;
    private final String database;
    private final String user;
    private final String password;
    /** Extra pgjdbc properties (already translated from libpq names). */
    private final Map<String, String> jdbcParams;

    private ConnectionSpec(String host, String port, String database, String user, String password,
                           Map<String, String> jdbcParams) {
        this.host = host;
        this.port = port;
        this.database = database;
        this.user = user;
        this.password = password;
        this.jdbcParams = Map.copyOf(jdbcParams);
    }

    /**
     * Parses a connection string and fills the gaps from the environment.
     *
     * @param text the connection string in one of the accepted forms; null or blank means "from the PG*
     *     variables only", which needs at least PGHOST or PGDATABASE to be set
     * @param env the environment to read PG* variables from (normally {@code System.getenv()})
     * @param passwordFile a file whose first line is the password, or null; used when the string and
     *     PGPASSWORD give none
     * @return the parsed specification
     * @throws JanitorException with {@link Reason#USAGE} when the string is malformed, names an unknown
     *     parameter, a Unix-socket host (not supported by the JDBC driver), or when nothing names a catalog;
     *     the message never repeats the string itself (it may hold a password)
     */
    public static ConnectionSpec parse(String text, Map<String, String> env, Path passwordFile) throws JanitorException {
        Map<String, String> kv = new LinkedHashMap<>();
        String s = text == null ? "" : text.strip();
        if (s.isEmpty()) {
            if (!env.containsKey("PGHOST") && !env.containsKey("PGDATABASE") && !env.containsKey("PGSERVICE")) {
                throw new JanitorException(Reason.USAGE, "No catalog connection given: pass --catalog (or set "
                        + "DUCKLAKE_JANITOR_CATALOG), e.g. --catalog 'postgresql://user@host:5432/db', or set PGHOST/PGDATABASE.");
            }
        } else {
            String lower = s.toLowerCase(Locale.ROOT);
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
                parseUri(s.substring("jdbc:".length()), kv, true);
            } else if (lower.startsWith("postgresql://") || lower.startsWith("postgres://")) {
                parseUri(s, kv, false);
            } else if (lower.startsWith("jdbc:")) {
                throw new JanitorException(Reason.USAGE, "Only PostgreSQL JDBC URLs (jdbc:postgresql://...) are supported as --catalog.");
            } else {
                parseKeyValue(s, kv);
            }
        }
        for (Map.Entry<String, String> e : ENV_KEYS.entrySet()) {
            String v = env.get(e.getKey());
            if (v != null && !v.isEmpty()) {
                kv.putIfAbsent(e.getValue(), v);
            }
        }
        if (!kv.containsKey("password") && passwordFile != null) {
            kv.put("password", readPasswordFile(passwordFile));
        }
        return build(kv, env);
    }

    private static String readPasswordFile(Path file) throws JanitorException {
        try {
            String content = Files.readString(file, StandardCharsets.UTF_8);
            int nl = content.indexOf('\n');
            String line = nl >= 0 ? content.substring(0, nl) : content;
            if (line.endsWith("\r")) {
                line = line.substring(0, line.length() - 1);
            }
            if (line.isEmpty()) {
                throw new JanitorException(Reason.USAGE, "The password file " + file + " is empty.");
            }
            return line;
        } catch (IOException e) {
            throw new JanitorException(Reason.USAGE, "Cannot read the password file " + file + ": "
                    + e.getClass().getSimpleName() + ". Check the path and its permissions.");
        }
    }

    private static ConnectionSpec build(Map<String, String> kv, Map<String, String> env) throws JanitorException {
        for (String key : kv.keySet()) {
            if (!KNOWN_KEYS.contains(key)) {
                throw new JanitorException(Reason.USAGE, "Unsupported connection parameter '" + key + "'; supported: "
                        + String.join(", ", new java.util.TreeSet<>(KNOWN_KEYS)) + ".");
            }
        }
        String host = kv.containsKey("hostaddr") ? kv.get("hostaddr") : kv.getOrDefault("host", "localhost");
        if (host.isEmpty()) {
            host = "localhost";
        }
        if (host.startsWith("/") || host.startsWith("@")) {
            throw new JanitorException(Reason.USAGE, "Unix-domain socket hosts (" + host + ") are not supported by the "
                    + "JDBC driver; use a TCP host such as localhost.");
        }
        String port = kv.getOrDefault("port", "5432");
        for (String p : port.split(",")) {
            if (!p.matches("[0-9]{1,5}") || Integer.parseInt(p) < 1 || Integer.parseInt(p) > 65535) {
                throw new JanitorException(Reason.USAGE, "Invalid port '" + p + "' in the catalog connection: expected 1 to 65535.");
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
        copyParam(kv, params, "connect_timeout", "connectTimeout");
        copyParam(kv, params, "options", "options");
        copyParam(kv, params, "gssencmode", "gssEncMode");
        copyParam(kv, params, "channel_binding", "channelBinding");
        if (kv.containsKey("target_session_attrs")) {
            String t = kv.get("target_session_attrs");
            params.put("targetServerType", "read-write".equals(t) ? "primary" : t);
        }
        if (kv.containsKey("connect_timeout") && !kv.get("connect_timeout").matches("[0-9]{1,6}")) {
            throw new JanitorException(Reason.USAGE, "Invalid connect_timeout: expected whole seconds.");
        }
        return new ConnectionSpec(host, port, database, user, kv.get("password"), params);
    }

    private static void copyParam(Map<String, String> kv, Map<String, String> out, String libpq, String jdbc) {
        String v = kv.get(libpq);
        if (v != null) {
            out.put(jdbc, v);
        }
    }

    private static void parseUri(String s, Map<String, String> kv, boolean jdbc) throws JanitorException {
        URI uri;
        try {
            uri = new URI(s);
        } catch (URISyntaxException e) {
            throw new JanitorException(Reason.USAGE, "The catalog URI is malformed at character " + e.getIndex()
                    + ": " + e.getReason() + ".");
        }
        String authority = uri.getRawAuthority();
        if (authority != null && !authority.isEmpty()) {
            int at = authority.lastIndexOf('@');
            if (at >= 0) {
                String userInfo = authority.substring(0, at);
                authority = authority.substring(at + 1);
                int colon = userInfo.indexOf(':');
                if (colon >= 0) {
                    kv.put("user", decode(userInfo.substring(0, colon)));
                    kv.put("password", decode(userInfo.substring(colon + 1)));
                } else if (!userInfo.isEmpty()) {
                    kv.put("user", decode(userInfo));
                }
            }
            // host[:port][,host[:port]...]; IPv6 in brackets
            StringBuilder hosts = new StringBuilder();
            StringBuilder ports = new StringBuilder();
            for (String hp : authority.split(",")) {
                String h = hp;
                String p = null;
                if (hp.startsWith("[")) {
                    int close = hp.indexOf(']');
                    h = hp.substring(0, close + 1);
                    if (hp.length() > close + 1 && hp.charAt(close + 1) == ':') {
                        p = hp.substring(close + 2);
                    }
                } else {
                    int colon = hp.lastIndexOf(':');
                    if (colon >= 0) {
                        h = hp.substring(0, colon);
                        p = hp.substring(colon + 1);
                    }
                }
                if (hosts.length() > 0) {
                    hosts.append(',');
                    ports.append(',');
                }
                hosts.append(decode(h));
                ports.append(p == null || p.isEmpty() ? "5432" : p);
            }
            if (hosts.length() > 0 && !hosts.toString().replace(",", "").isEmpty()) {
                kv.put("host", hosts.toString());
                kv.put("port", ports.toString());
            }
        }
        String path = uri.getRawPath();
        if (path != null && path.length() > 1) {
            kv.put("dbname", decode(path.substring(1)));
        }
        String query = uri.getRawQuery();
        if (query != null && !query.isEmpty()) {
            for (String pair : query.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String key = decode(eq >= 0 ? pair.substring(0, eq) : pair);
                String value = eq >= 0 ? decode(pair.substring(eq + 1)) : "";
                kv.put(jdbc ? fromJdbcKey(key) : key, value);
            }
        }
    }

    /** Maps pgjdbc URL parameter names back to their libpq names so that one table of keys serves both. */
    private static String fromJdbcKey(String key) {
        switch (key) {
            case "ApplicationName": return "application_name";
            case "connectTimeout": return "connect_timeout";
            case "gssEncMode": return "gssencmode";
            case "channelBinding": return "channel_binding";
            case "targetServerType": return "target_session_attrs";
            default: return key;
        }
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** libpq key/value grammar: {@code key = value}, values optionally single-quoted with backslash escapes. */
    private static void parseKeyValue(String s, Map<String, String> kv) throws JanitorException {
        int i = 0;
        int n = s.length();
        boolean previousIsPassword = false;
        while (i < n) {
            while (i < n && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            if (i >= n) {
                break;
            }
            int keyStart = i;
            while (i < n && s.charAt(i) != '=' && !Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            String key = s.substring(keyStart, i);
            while (i < n && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            if (previousIsPassword && (i >= n || s.charAt(i) != '=' || !KNOWN_KEYS.contains(key))) {
                // most likely the rest of an unquoted password with a space: never echo it
                throw new JanitorException(Reason.USAGE, "Malformed catalog connection string after the password value "
                        + "(position " + keyStart + "; not shown): quote a password that contains spaces, e.g. password='...'.");
            }
            if (i >= n || s.charAt(i) != '=') {
                throw new JanitorException(Reason.USAGE, "Malformed catalog connection string: expected 'key=value' "
                        + "after '" + key + "' (position " + keyStart + "). Use a libpq string such as "
                        + "'host=h dbname=d user=u', a postgresql:// URI or a jdbc:postgresql:// URL.");
            }
            i++;
            while (i < n && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            StringBuilder value = new StringBuilder();
            boolean quoted = i < n && s.charAt(i) == '\'';
            if (quoted) {
                i++;
                boolean closed = false;
                while (i < n) {
                    char c = s.charAt(i++);
                    if (c == '\\' && i < n) {
                        value.append(s.charAt(i++));
                    } else if (c == '\'') {
                        closed = true;
                        break;
                    } else {
                        value.append(c);
                    }
                }
                if (!closed) {
                    throw new JanitorException(Reason.USAGE, "Malformed catalog connection string: unterminated quoted "
                            + "value for '" + key + "'.");
                }
            } else {
                while (i < n && !Character.isWhitespace(s.charAt(i))) {
                    char c = s.charAt(i++);
                    if (c == '\\' && i < n) {
                        value.append(s.charAt(i++));
                    } else {
                        value.append(c);
                    }
                }
            }
            if (key.isEmpty()) {
                throw new JanitorException(Reason.USAGE, "Malformed catalog connection string: empty key at position " + keyStart + ".");
            }
            kv.put(key, value.toString());
            previousIsPassword = !quoted && (key.equals("password") || key.equals("sslpassword"));
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
        return new ConnectionSpec(host, port, otherDatabase, user, password, jdbcParams);
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
     * Opens a new connection with autocommit on. The login timeout defaults to 10 seconds unless the
     * string set connect_timeout.
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
     * Opens a new connection, leaving the driver's exception as is (used by reconnect loops).
     *
     * @return an open connection with autocommit on
     * @throws SQLException as thrown by the driver
     */
    public Connection openRaw() throws SQLException {
        Properties props = new Properties();
        props.putAll(jdbcParams);
        props.setProperty("user", user);
        if (password != null) {
            props.setProperty("password", password);
        }
        props.putIfAbsent("ApplicationName", "ducklake-janitor");
        props.putIfAbsent("connectTimeout", "10");
        props.setProperty("tcpKeepAlive", "true");
        return DriverManager.getConnection(jdbcUrl(), props);
    }

    /**
     * Turns a failure to connect into a {@link Reason#CONNECTION} error with a clear, password-free message.
     *
     * @param e the driver's exception
     * @return the exception to throw
     */
    public JanitorException connectionFailure(SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        String what;
        if ("28P01".equals(state) || "28000".equals(state)) {
            what = "the server refused the login (wrong password or no pg_hba.conf entry)";
        } else if ("08004".equals(state) && password == null && e.getMessage() != null
                && e.getMessage().contains("no password was provided")) {
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
     * Removes this connection's password from a text (a last line of defence for driver messages).
     *
     * @param text any text, may be null
     * @return the text with every occurrence of the password replaced by {@code ***}
     */
    public String redact(String text) {
        if (text == null) {
            return "";
        }
        if (password == null || password.isEmpty()) {
            return text;
        }
        return text.replace(password, "***");
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
        return password != null;
    }

    @Override
    public String toString() {
        return "ConnectionSpec[" + describe() + (password != null ? ", password=***" : "") + "]";
    }
}
