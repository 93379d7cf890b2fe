package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.Secrets;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A connection string's libpq keys ({@link ConnectionStrings}) made into a {@link ConnectionSpec}: the gaps filled
 * from the environment and from the run's own connection, the keys checked (usage errors that never repeat a value
 * unredacted), libpq's parameters translated to pgJDBC's properties (and back, for a client that speaks libpq) and
 * the hosts, ports and database to pgJDBC's URL.
 */
final class ConnectionKeys {

    /**
     * A libpq parameter passed on to pgJDBC as a property of another name.
     *
     * @param libpq its libpq name
     * @param jdbc the pgJDBC property
     * @param forLibpqClients whether {@link ConnectionSpec#libpqParameters()} hands it to a libpq client (security and
     *     routing: not the application name, never the key's passphrase)
     */
    record Parameter(String libpq, String jdbc, boolean forLibpqClients) {
    }

    /** The parameters passed through, in the order {@link ConnectionSpec#libpqParameters()} gives them. */
    static final List<Parameter> PARAMETERS = List.of(new Parameter("sslmode", "sslmode", true),
            new Parameter("sslrootcert", "sslrootcert", true), new Parameter("sslcert", "sslcert", true),
            new Parameter("sslkey", "sslkey", true), new Parameter("gssencmode", "gssEncMode", true),
            new Parameter("channel_binding", "channelBinding", true), new Parameter("options", "options", true),
            new Parameter("application_name", "ApplicationName", false), new Parameter("sslpassword", "sslpassword", false));

    private ConnectionKeys() {
    }

    /**
     * {@link ConnectionSpec#parse}: the string's keys, the gaps filled from the environment, the password source
     * chosen, then the keys checked ({@link #build}).
     *
     * @param text the connection string, or null or blank for the PG* variables only
     * @param env the environment (PG* variables)
     * @param passwordFile a password file, or null
     * @return the specification, with the socket timeout floor
     * @throws JanitorException {@link Reason#USAGE} as {@link ConnectionSpec#parse} documents
     */
    static ConnectionSpec spec(String text, Map<String, String> env, Path passwordFile) throws JanitorException {
        Map<String, String> kv = ConnectionStrings.keys(text, env);
        ConnectionStrings.fillFromEnv(kv, env);
        String pgPassword = env.get("PGPASSWORD");
        PasswordSource source = PasswordSource.choose(kv.remove("password"), passwordFile, pgPassword,
                env.get(ConnectionSpec.PASSWORD_VARIABLE)).passFile(PassFile.locate(env));
        return build(kv, env, source, ConnectionSpec.SOCKET_TIMEOUT_FLOOR_SECONDS);
    }

    /**
     * {@link ConnectionSpec#parseCatalogReference}: another catalog database named relative to {@code base}, whose
     * host and port (together), user, password source and socket timeout fill what the string leaves out.
     *
     * @param text the connection string, with an optional {@code metadata_schema} key
     * @param env the environment (PG* variables)
     * @param base the connection of the run, or null (only the environment fills gaps)
     * @return the connection and the metadata schema (null: all of them)
     * @throws JanitorException {@link Reason#USAGE} as {@link ConnectionSpec#parseCatalogReference} documents
     */
    static ConnectionSpec.CatalogReference reference(String text, Map<String, String> env, ConnectionSpec base)
            throws JanitorException {
        if (text == null || text.isBlank()) {
            throw new JanitorException(Reason.USAGE, "An empty catalog connection was given: pass a connection string such as "
                    + "'postgresql://user@host:5432/db' or 'host=h dbname=d metadata_schema=s'.");
        }
        Map<String, String> kv = ConnectionStrings.keys(text, env);
        String schema = kv.remove("metadata_schema");
        if (schema != null && schema.isEmpty()) {
            throw new JanitorException(Reason.USAGE, "metadata_schema in a catalog connection must name a schema; leave it out "
                    + "to mean every DuckLake catalog of that database.");
        }
        if (base != null) {
            if (!kv.containsKey("host") && !kv.containsKey("hostaddr")) {
                kv.put("host", base.host());
                kv.putIfAbsent("port", base.port());
            }
            kv.putIfAbsent("user", base.user());
        }
        ConnectionStrings.fillFromEnv(kv, env);
        String inString = kv.remove("password");
        PasswordSource source = inString != null || base == null
                ? PasswordSource.choose(inString, null, env.get("PGPASSWORD"), env.get(ConnectionSpec.PASSWORD_VARIABLE))
                        .passFile(PassFile.locate(env)) : base.passwordSource();
        ConnectionSpec spec = build(kv, env, source,
                base == null ? ConnectionSpec.SOCKET_TIMEOUT_FLOOR_SECONDS : base.socketTimeoutSeconds());
        return new ConnectionSpec.CatalogReference(spec, schema);
    }

    /** libpq's sslmode values (pgJDBC accepts the same). */
    private static final List<String> SSL_MODES = List.of("disable", "allow", "prefer", "require", "verify-ca", "verify-full");

    /**
     * The specification the keys describe, after checking them: known keys only, a TCP host, ports 1 to 65535, a
     * libpq sslmode, connect_timeout in whole seconds (libpq's rule: 0 or less waits forever, 1 is taken as 2; default
     * {@link ConnectionSpec#DEFAULT_CONNECT_TIMEOUT_SECONDS}); libpq's parameters become pgJDBC's ({@link #PARAMETERS},
     * target_session_attrs read-write as targetServerType primary); libpq's defaults fill the rest (host localhost,
     * port 5432, user the OS user, database the user).
     *
     * @param kv the libpq keys, password removed
     * @param env the environment (USER, for the default user)
     * @param source where the password comes from
     * @param socketTimeoutSeconds the socket timeout, seconds
     * @return the specification
     * @throws JanitorException {@link Reason#USAGE} for an unknown key or a bad host, port, sslmode or connect_timeout
     *     (never repeating a value unredacted)
     */
    private static ConnectionSpec build(Map<String, String> kv, Map<String, String> env, PasswordSource source,
                                        int socketTimeoutSeconds) throws JanitorException {
        ConnectionStrings.requireKnownKeys(kv);
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
                // the value is not shown: in a mangled URI it is a piece of a password
                throw new JanitorException(Reason.USAGE, "Invalid port in the catalog connection (or PGPORT; the value is not shown): "
                        + "expected a number from 1 to 65535. In a postgresql:// URI, " + UriPasswordCheck.FIX);
            }
        }
        String sslmode = kv.get("sslmode");
        if (sslmode != null && !SSL_MODES.contains(sslmode)) {
            // else the driver's own refusal reads as an unreachable server (exit 3)
            throw new JanitorException(Reason.USAGE, "Invalid sslmode '" + Secrets.redact(sslmode) + "' in the catalog connection"
                    + " (or PGSSLMODE): expected one of " + String.join(", ", SSL_MODES) + ".");
        }
        String osUser = env.getOrDefault("USER", System.getProperty("user.name", "postgres"));
        String user = kv.getOrDefault("user", osUser);
        String database = kv.getOrDefault("dbname", user);
        Map<String, String> params = new LinkedHashMap<>();
        for (Parameter p : PARAMETERS) {
            String v = kv.get(p.libpq());
            if (v != null) {
                params.put(p.jdbc(), v);
            }
        }
        if (kv.containsKey("target_session_attrs")) {
            String t = kv.get("target_session_attrs");
            params.put("targetServerType", "read-write".equals(t) ? "primary" : t);
        }
        int connectTimeout = ConnectionSpec.DEFAULT_CONNECT_TIMEOUT_SECONDS;
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
        return new ConnectionSpec(host, port, database, user, source, params, connectTimeout, socketTimeoutSeconds, null);
    }

    /**
     * {@link ConnectionSpec#libpqParameters()}: pgJDBC's properties back in libpq spelling, those
     * {@link Parameter#forLibpqClients()} only, with connect_timeout unless it is 0.
     *
     * @param jdbcParams the specification's pgJDBC properties
     * @param connectTimeoutSeconds its login timeout, seconds
     * @return libpq key to value, in {@link #PARAMETERS}' order; empty values left out
     */
    static Map<String, String> libpqParameters(Map<String, String> jdbcParams, int connectTimeoutSeconds) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Parameter p : PARAMETERS) {
            String v = jdbcParams.get(p.jdbc());
            if (p.forLibpqClients() && v != null && !v.isEmpty()) {
                out.put(p.libpq(), v);
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
     * {@link ConnectionSpec#jdbcUrl()}: pgJDBC's URL for the hosts and ports (a host without its own port takes the
     * last one given) and the database, URL-encoded; never a user or a password.
     *
     * @param host the host or comma-separated hosts
     * @param port the port or comma-separated ports
     * @param database the database name
     * @return {@code jdbc:postgresql://host:port[,host:port...]/database}
     */
    static String jdbcUrl(String host, String port, String database) {
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
}
