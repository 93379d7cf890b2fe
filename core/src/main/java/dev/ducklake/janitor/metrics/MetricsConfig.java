package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.maintain.YamlTree;
import dev.ducklake.janitor.pg.ConnectionSpec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The metrics YAML file: several catalogs (tenants), each with its own connection, and extra gauges defined as SQL.
 *
 * <pre>
 * interval_seconds: 60              # delay between collections of a catalog (default 60)
 * statement_timeout_seconds: 30     # default statement_timeout of every query (default 30)
 * catalogs:
 *   - name: prod                    # the catalog label (required, unique)
 *     connection: ${env:PROD_CATALOG}   # any --catalog form; ${env:NAME} is replaced by the variable
 *     password_file: /run/secrets/prod-pg   # optional; the password is never printed
 *     metadata_schema: public       # optional (default public)
 *     all_metadata_schemas: false   # optional: every schema holding a DuckLake catalog (not with metadata_schema)
 *     statement_timeout_seconds: 30 # optional
 *     queries: []                   # optional extra gauges for this catalog only
 * queries:                          # extra gauges computed on every catalog
 *   - name: ducklake_tables_live    # metric name
 *     help: Live DuckLake tables.
 *     sql: SELECT count(*) AS value FROM ducklake_table WHERE end_snapshot IS NULL
 *     labels: []                    # label columns (optional)
 *     value: value                  # value column (default value)
 *     timeout_seconds: 10           # optional (default: the catalog's statement timeout)
 * </pre>
 * Unknown keys are errors (they are usually typos). The keys of the {@code maintain} configuration, which extends this
 * file ({@code maintain}, {@code pushgateway_url}, {@code pushgateway_job}, {@code run_budget}, {@code state_schema}; per
 * catalog {@code run_budget}, {@code lock_name}, {@code maintain}, {@code also_catalogs}, {@code exclude_catalog_schemas},
 * {@code consult_server}) are accepted and ignored here; {@code password_env} (the environment variable
 * holding the password) is honoured. Custom SQL runs in a read-only transaction with
 * {@code search_path} set to the metadata schema.
 *
 * @param source the file read
 * @param interval delay between collections of a catalog that answers
 * @param catalogs the catalogs, in file order
 */
public record MetricsConfig(Path source, Duration interval, List<TargetConfig> catalogs) {

    /** Default delay between collections. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(60);
    /** Default statement timeout of the collection queries. */
    public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(30);

    /** Keys of the maintain configuration (same file, read by {@code maintain}): accepted here and left to maintain. */
    private static final Set<String> MAINTAIN_TOP_KEYS = Set.of("maintain", "pushgateway_url", "pushgateway_job", "run_budget",
            "state_schema");
    private static final Set<String> TOP_KEYS = union(Set.of("interval_seconds", "statement_timeout_seconds", "catalogs", "queries"),
            MAINTAIN_TOP_KEYS);
    private static final Set<String> CATALOG_KEYS = Set.of("name", "connection", "password_file", "password_env", "metadata_schema",
            "all_metadata_schemas", "statement_timeout_seconds", "queries", "run_budget", "lock_name", "maintain", "also_catalogs",
            "exclude_catalog_schemas", "consult_server");
    private static final Set<String> QUERY_KEYS = Set.of("name", "help", "sql", "labels", "value", "timeout_seconds");

    /** Copies the catalog list. */
    public MetricsConfig {
        catalogs = List.copyOf(catalogs);
    }

    /**
     * Reads and validates a metrics YAML file.
     *
     * @param file the file
     * @param env environment for {@code ${env:NAME}} references and the PG* variables
     * @return the configuration
     * @throws JanitorException {@link Reason#CONFIG} when the file cannot be read, is not valid YAML, has an unknown
     *     key, a missing or invalid value, a duplicate catalog name, an invalid metric or label name, a custom metric
     *     named like a built-in one, or a reference to an unset environment variable; the message names the file and
     *     the place, never a password
     */
    public static MetricsConfig load(Path file, Map<String, String> env) throws JanitorException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            String why = e instanceof java.nio.file.NoSuchFileException ? "it does not exist"
                    : e instanceof java.nio.file.AccessDeniedException ? "permission denied"
                    : Files.isDirectory(file) ? "it is a directory" : "it is not readable as UTF-8 text";
            throw new JanitorException(Reason.CONFIG, "Cannot read the metrics configuration " + file + ": " + why + ".", e);
        }
        return parse(file, text, env);
    }

    /**
     * Parses a metrics YAML document (see {@link #load}).
     *
     * @param source the file name used in messages
     * @param text the YAML text
     * @param env environment for {@code ${env:NAME}} references and the PG* variables
     * @return the configuration
     * @throws JanitorException {@link Reason#CONFIG} as for {@link #load}
     */
    public static MetricsConfig parse(Path source, String text, Map<String, String> env) throws JanitorException {
        // the maintain configuration's reader: line numbers, and never SnakeYAML's quotation of the offending line
        YamlTree tree = YamlTree.parse(source, text, "Metrics configuration");
        Map<String, Object> top = tree.map("", tree.root());
        tree.checkKeys("", top, TOP_KEYS);
        Duration interval = seconds(tree, "interval_seconds", top.get("interval_seconds"), DEFAULT_INTERVAL, false);
        Duration defaultTimeout = seconds(tree, "statement_timeout_seconds", top.get("statement_timeout_seconds"),
                DEFAULT_STATEMENT_TIMEOUT, true);
        List<CustomQuery> global = queries(tree, "queries", top.get("queries"), defaultTimeout);
        Object cats = top.get("catalogs");
        if (!(cats instanceof List<?> list) || list.isEmpty()) {
            throw tree.error("catalogs", "must be a non-empty list of catalogs");
        }
        List<TargetConfig> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            String where = "catalogs[" + i + "]";
            Map<String, Object> c = tree.map(where, list.get(i));
            tree.checkKeys(where, c, CATALOG_KEYS);
            String name = string(tree, where + ".name", c.get("name"), true);
            if (!names.add(name)) {
                throw tree.error(where + ".name", "duplicate catalog name '" + name + "'");
            }
            String connText = tree.expandEnv(where + ".connection", string(tree, where + ".connection", c.get("connection"), true), env);
            String pwFile = c.get("password_file") == null ? null
                    : tree.expandEnv(where + ".password_file", string(tree, where + ".password_file", c.get("password_file"), true), env);
            Map<String, String> connEnv = env;
            if (c.get("password_env") != null) {
                // the maintain configuration's password_env: the named variable holds the password
                String var = string(tree, where + ".password_env", c.get("password_env"), true);
                if (env.get(var) == null) {
                    throw tree.error(where + ".password_env", "names the environment variable " + var + ", which is not set");
                }
                connEnv = new java.util.HashMap<>(env);
                connEnv.put("PGPASSWORD", env.get(var));
                connEnv.put(ConnectionSpec.PASSWORD_VARIABLE, var);
            }
            ConnectionSpec spec;
            try {
                spec = ConnectionSpec.parse(connText, connEnv, pwFile == null ? null : Path.of(pwFile));
            } catch (JanitorException e) {
                throw tree.error(where + ".connection", e.getMessage());
            }
            String schema = c.get("metadata_schema") == null ? "public" : string(tree, where + ".metadata_schema", c.get("metadata_schema"), true);
            Object all = c.get("all_metadata_schemas");
            if (all != null && !(all instanceof Boolean)) {
                throw tree.error(where + ".all_metadata_schemas", "must be true or false");
            }
            boolean allSchemas = Boolean.TRUE.equals(all);
            if (allSchemas && c.get("metadata_schema") != null) {
                throw tree.error(where, "give either metadata_schema or all_metadata_schemas: true, not both");
            }
            Duration timeout = seconds(tree, where + ".statement_timeout_seconds", c.get("statement_timeout_seconds"), defaultTimeout, true);
            List<CustomQuery> qs = new ArrayList<>(global.stream().map(q -> q.timeout() == null ? withTimeout(q, timeout) : q).toList());
            for (CustomQuery q : queries(tree, where + ".queries", c.get("queries"), timeout)) {
                if (qs.stream().anyMatch(g -> g.name().equals(q.name()))) {
                    throw tree.error(where + ".queries", "metric " + q.name() + " is also defined in the top-level queries");
                }
                qs.add(q);
            }
            out.add(new TargetConfig(name, spec, schema, timeout, qs, allSchemas));
        }
        return new MetricsConfig(source, interval, out);
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> u = new HashSet<>(a);
        u.addAll(b);
        return Set.copyOf(u);
    }

    private static CustomQuery withTimeout(CustomQuery q, Duration timeout) {
        return new CustomQuery(q.name(), q.help(), q.sql(), q.labels(), q.valueColumn(), timeout);
    }

    /** Parses a query list; a query without timeout_seconds gets {@code null} at top level, filled per catalog. */
    private static List<CustomQuery> queries(YamlTree tree, String where, Object node, Duration defaultTimeout) throws JanitorException {
        if (node == null) {
            return List.of();
        }
        if (!(node instanceof List<?> list)) {
            throw tree.error(where, "must be a list of queries");
        }
        List<CustomQuery> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            String at = where + "[" + i + "]";
            Map<String, Object> q = tree.map(at, list.get(i));
            tree.checkKeys(at, q, QUERY_KEYS);
            String name = string(tree, at + ".name", q.get("name"), true);
            if (!CustomQuery.METRIC_NAME.matcher(name).matches()) {
                throw tree.error(at + ".name", "'" + name + "' is not a valid Prometheus metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)");
            }
            if (isReserved(name)) {
                throw tree.error(at + ".name", "'" + name + "' is the name of a built-in metric; choose another name");
            }
            if (!names.add(name)) {
                throw tree.error(at + ".name", "duplicate metric name '" + name + "'");
            }
            String help = string(tree, at + ".help", q.get("help"), true);
            String sql = string(tree, at + ".sql", q.get("sql"), true);
            List<String> labels = new ArrayList<>();
            Object l = q.get("labels");
            if (l != null) {
                if (!(l instanceof List<?> ll)) {
                    throw tree.error(at + ".labels", "must be a list of column names");
                }
                for (Object o : ll) {
                    String label = string(tree, at + ".labels", o, true);
                    if (!CustomQuery.LABEL_NAME.matcher(label).matches() || label.startsWith("__")
                            || label.equals(CatalogHealthCollector.CATALOG_LABEL) || label.equals(CatalogTarget.SCHEMA_LABEL)
                            || labels.contains(label)) {
                        throw tree.error(at + ".labels", "'" + label + "' is not a valid label name here (letters, digits, "
                                + "underscores; not 'catalog' or 'schema', not starting with __, no duplicates)");
                    }
                    labels.add(label);
                }
            }
            String value = q.get("value") == null ? "value" : string(tree, at + ".value", q.get("value"), true);
            Duration timeout = q.get("timeout_seconds") == null ? (where.equals("queries") ? null : defaultTimeout)
                    : seconds(tree, at + ".timeout_seconds", q.get("timeout_seconds"), defaultTimeout, false);
            out.add(new CustomQuery(name, help, sql, labels, value, timeout));
        }
        return out;
    }

    private static boolean isReserved(String name) {
        return name.startsWith("ducklake_janitor_") || CatalogHealthCollector.BUILT_IN_NAMES.contains(name)
                || CatalogHealthCollector.BUILT_IN_NAMES.contains(name + "_info");
    }

    private static String string(YamlTree tree, String where, Object node, boolean required) throws JanitorException {
        if (node == null || (node instanceof String s && s.isBlank())) {
            if (required) {
                throw tree.error(where, "is required");
            }
            return null;
        }
        if (!(node instanceof String) && !(node instanceof Number)) {
            throw tree.error(where, "must be text");
        }
        return node.toString();
    }

    private static Duration seconds(YamlTree tree, String where, Object node, Duration dflt, boolean zeroAllowed) throws JanitorException {
        if (node == null) {
            return dflt;
        }
        if (!(node instanceof Number n) || node instanceof Boolean) {
            throw tree.error(where, "must be a number of seconds");
        }
        double s = n.doubleValue();
        if (!(s >= 0) || Double.isInfinite(s) || (!zeroAllowed && s == 0) || s > 86_400) {
            throw tree.error(where, "must be " + (zeroAllowed ? "0" : "more than 0") + " to 86400 seconds, got " + node);
        }
        return dev.ducklake.janitor.Durations.ofSeconds(s);
    }
}
