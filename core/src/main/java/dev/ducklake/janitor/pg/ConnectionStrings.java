package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.Secrets;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The two libpq connection-string grammars (URI and key/value, libpq manual section "Connection Strings"), parsed
 * into a map of libpq keys, which {@link ConnectionKeys} makes into a {@link ConnectionSpec}. Messages never repeat a
 * value (it may be a password).
 */
final class ConnectionStrings {

    /** libpq keys accepted in key/value strings and URI query parameters. */
    static final Set<String> KNOWN_KEYS = Set.of("host", "hostaddr", "port", "dbname", "user", "password",
            "sslmode", "sslrootcert", "sslcert", "sslkey", "sslpassword", "application_name", "connect_timeout",
            "options", "target_session_attrs", "keepalives", "gssencmode", "channel_binding");

    private ConnectionStrings() {
    }

    /**
     * @param kv a connection string's keys
     * @throws JanitorException {@link Reason#USAGE} naming the first key that is not in {@link #KNOWN_KEYS}
     */
    static void requireKnownKeys(Map<String, String> kv) throws JanitorException {
        for (String key : kv.keySet()) {
            if (!KNOWN_KEYS.contains(key)) {
                throw new JanitorException(Reason.USAGE, "Unsupported connection parameter " + (SHOWN_KEY.matcher(key).matches()
                        ? "'" + Secrets.redact(key) + "'" : "(its name is not shown: it may be a piece of a password)") + "; supported: "
                        + String.join(", ", new java.util.TreeSet<>(KNOWN_KEYS)) + ".");
            }
        }
    }

    /** A parameter name that is quoted in messages: a plain identifier (a mangled password piece rarely is one). */
    private static final java.util.regex.Pattern SHOWN_KEY = java.util.regex.Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

    /** libpq environment variables and the key each one fills (PGPASSWORD is handled by {@link PasswordSource}). */
    private static final Map<String, String> ENV_KEYS = Map.ofEntries(
            Map.entry("PGHOST", "host"), Map.entry("PGHOSTADDR", "hostaddr"), Map.entry("PGPORT", "port"),
            Map.entry("PGDATABASE", "dbname"), Map.entry("PGUSER", "user"),
            Map.entry("PGSSLMODE", "sslmode"), Map.entry("PGSSLROOTCERT", "sslrootcert"),
            Map.entry("PGSSLCERT", "sslcert"), Map.entry("PGSSLKEY", "sslkey"),
            Map.entry("PGAPPNAME", "application_name"), Map.entry("PGCONNECT_TIMEOUT", "connect_timeout"),
            Map.entry("PGOPTIONS", "options"));

    /** Fills the keys the string left out from the libpq environment variables ({@link #ENV_KEYS}). */
    static void fillFromEnv(Map<String, String> kv, Map<String, String> env) {
        for (Map.Entry<String, String> e : ENV_KEYS.entrySet()) {
            String v = env.get(e.getKey());
            if (v != null && !v.isEmpty()) {
                kv.putIfAbsent(e.getValue(), v);
            }
        }
    }

    /**
     * The libpq keys of a connection string in any accepted form, before the environment fills gaps.
     *
     * @param text the connection string (JDBC URL, libpq URI or key/value string, DuckLake ATTACH string); null or
     *     blank for none, which needs PGHOST, PGDATABASE or PGSERVICE in {@code env}
     * @param env the environment
     * @return the keys and values, in the string's order
     * @throws JanitorException {@link Reason#USAGE} for a string this tool does not read (never repeating it)
     */
    static Map<String, String> keys(String text, Map<String, String> env) throws JanitorException {
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
                parseUri(s.substring("jdbc:".length()), kv, true);
            } else if (lower.startsWith("postgresql://") || lower.startsWith("postgres://")) {
                parseUri(s, kv, false);
            } else if (lower.startsWith("jdbc:")) {
                throw new JanitorException(Reason.USAGE, "Only PostgreSQL JDBC URLs (jdbc:postgresql://...) are supported as --catalog.");
            } else if (SCHEME.matcher(s).lookingAt()) {
                throw unknownScheme(s);
            } else {
                parseKeyValue(s, kv);
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

    static void parseUri(String s, Map<String, String> kv, boolean jdbc) throws JanitorException {
        UriPasswordCheck.check(s);
        URI uri;
        try {
            uri = new URI(s);
        } catch (URISyntaxException e) {
            throw UriPasswordCheck.unreadable(s, e);
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
            boolean afterPassword = false;
            for (String pair : query.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String raw = decode(eq >= 0 ? pair.substring(0, eq) : pair);
                String key = jdbc ? fromJdbcKey(raw) : raw;
                if (afterPassword && (eq < 0 || !KNOWN_KEYS.contains(key) && !key.equals("metadata_schema"))) {
                    // most likely the rest of a password with a raw '&': never echo it
                    throw new JanitorException(Reason.USAGE, "Malformed catalog URI after the password value in its query (not "
                            + "shown): write a '&' in a password as %26; or " + UriPasswordCheck.FIX);
                }
                kv.put(key, eq >= 0 ? decode(pair.substring(eq + 1)) : "");
                afterPassword = key.equals("password") || key.equals("sslpassword");
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

    private static String decode(String s) throws JanitorException {
        try {
            return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            // a '%' not followed by two hex digits; the message would quote the value
            throw new JanitorException(Reason.USAGE, "The catalog URI has a '%' that is not followed by two hexadecimal digits: "
                    + "write a '%' in a password or another value as %25; or " + UriPasswordCheck.FIX);
        }
    }

    /** libpq key/value grammar: {@code key = value}, values optionally single-quoted with backslash escapes. */
    static void parseKeyValue(String s, Map<String, String> kv) throws JanitorException {
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
            if (previousIsPassword && (i >= n || s.charAt(i) != '=' || !KNOWN_KEYS.contains(key) && !key.equals("metadata_schema"))) {
                // most likely the rest of an unquoted password with a space: never echo it
                throw new JanitorException(Reason.USAGE, "Malformed catalog connection string after the password value "
                        + "(position " + keyStart + "; not shown): quote a password that contains spaces, e.g. password='...', "
                        + "and write a quote or a backslash in it as \\' or \\\\.");
            }
            if (i >= n || s.charAt(i) != '=') {
                throw new JanitorException(Reason.USAGE, "Malformed catalog connection string: expected 'key=value' "
                        + "after '" + Secrets.redact(key) + "' (position " + keyStart + ")" + (key.contains(":")
                        ? ": libpq key/value strings put '=' between a key and its value, not ':'" : "") + ". Use a libpq string such as "
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
                            + "value for '" + Secrets.redact(key) + "'.");
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
            // a quoted password followed at once by more text (password='it's'): that text is a piece of it too
            previousIsPassword = (key.equals("password") || key.equals("sslpassword"))
                    && (!quoted || i < n && !Character.isWhitespace(s.charAt(i)));
        }
    }
}
