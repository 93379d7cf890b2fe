package dev.ducklake.janitor.maintain;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The maintain configuration: the metrics YAML file's catalog list (the file {@code serve} reads), extended with a
 * {@code maintain:} chain of steps, run budgets and the Pushgateway URL.
 *
 * <pre>
 * catalogs:
 *   - name: lake                       # the catalog label (required, unique)
 *     connection: ${env:LAKE_CATALOG}  # any --catalog form; ${env:NAME} is replaced
 *     password_file: /run/secrets/pg   # or password_env: NAME (the variable holding the password)
 *     metadata_schema: public          # or all_metadata_schemas: true (as serve reads it)
 *     run_budget: 2400                 # seconds (or 40m) for this catalog's whole chain
 *     lock_name: ducklake-maintenance  # advisory lock every step takes (default as the commands)
 *     also_catalogs: [${env:OTHER_DB}] # the storage steps' --also-catalog (any connection form)
 *     exclude_catalog_schemas: [t9]    # the storage steps' --exclude-catalog-schema
 *     consult_server: true             # false: the storage steps' --no-consult-server
 * pushgateway_url: http://pushgateway:9091   # default $PUSHGATEWAY_URL
 * pushgateway_job: ducklake_janitor
 * run_budget: 3000                     # the whole run
 * maintain:                            # in order; a list of one-key mappings (or one mapping)
 *   - expire-snapshots: {older-than: 7d, retain-last: 10}
 *   - drop-orphan-inline-tables: {include-unregistered: true, run-budget: 15m}
 *   - cleanup-old-files: {older-than: 2d, required: true}
 * </pre>
 * Every key is checked: unknown keys, unknown steps, unknown options and bad values are configuration errors (exit 11)
 * naming the file, the line and the key, raised before anything runs. The keys of {@code serve} ({@code interval_seconds},
 * {@code statement_timeout_seconds}, {@code queries}) are accepted and left to {@code serve}.
 *
 * @param source the file read
 * @param catalogs the catalogs, in file order
 * @param steps the chain, in order
 * @param pushgateway where each step's outcome is pushed, or null for nowhere
 * @param pushgatewayJob the Pushgateway job name
 * @param runBudget the budget of the whole run, or null for none
 */
public record MaintainConfig(Path source, List<Catalog> catalogs, List<StepConfig> steps, MaintenanceRunReporter.Target pushgateway,
                             String pushgatewayJob, Duration runBudget) {

    /** What the messages call this file. */
    static final String WHAT = "Maintain configuration";

    /** Options every step accepts: batch-size, max-batches, run-budget (the shared runtime's) and required. */
    public static final Map<String, OptionKind> COMMON_OPTIONS = Map.of("batch-size", OptionKind.POSITIVE_INT,
            "max-batches", OptionKind.POSITIVE_INT, "run-budget", OptionKind.BUDGET, "required", OptionKind.BOOLEAN);

    private static final Pattern ENV_REF = Pattern.compile("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)}");
    private static final Set<String> TOP_KEYS = Set.of("catalogs", "maintain", "pushgateway_url", "pushgateway_job", "run_budget",
            "interval_seconds", "statement_timeout_seconds", "queries");
    private static final Set<String> CATALOG_KEYS = Set.of("name", "connection", "password_file", "password_env", "metadata_schema",
            "all_metadata_schemas", "run_budget", "lock_name", "statement_timeout_seconds", "queries", "also_catalogs",
            "exclude_catalog_schemas", "consult_server");

    /**
     * One catalog database.
     *
     * @param name the catalog label (unique)
     * @param connection the connection (the password is never printed)
     * @param schemas the metadata schemas to maintain, in order (empty when {@code allSchemas})
     * @param allSchemas whether every schema holding a DuckLake catalog is maintained (found at run time)
     * @param runBudget the budget of this catalog's chain, or null for none
     * @param lockName the advisory lock name every step takes
     * @param alsoCatalogs {@code also_catalogs}: other catalogs the storage steps read before deleting a file, as their
     *     {@code --also-catalog} (parsed here against this catalog's connection, so user, host and password default to
     *     it); default none
     * @param excludeCatalogSchemas {@code exclude_catalog_schemas}: the storage steps' {@code --exclude-catalog-schema};
     *     default none
     * @param consultServer {@code consult_server}: whether the storage steps search the server's other databases (false
     *     is their {@code --no-consult-server}); default true
     */
    public record Catalog(String name, ConnectionSpec connection, List<String> schemas, boolean allSchemas, Duration runBudget,
                          String lockName, List<ConnectionSpec.CatalogReference> alsoCatalogs, List<String> excludeCatalogSchemas,
                          boolean consultServer) {
        /** Copies the lists. */
        public Catalog {
            schemas = List.copyOf(schemas);
            alsoCatalogs = List.copyOf(alsoCatalogs);
            excludeCatalogSchemas = List.copyOf(excludeCatalogSchemas);
        }

        /** A catalog with the default consult settings (nothing added or excluded, the server searched). */
        public Catalog(String name, ConnectionSpec connection, List<String> schemas, boolean allSchemas, Duration runBudget,
                       String lockName) {
            this(name, connection, schemas, allSchemas, runBudget, lockName, List.of(), List.of(), true);
        }
    }

    /** Copies the lists. */
    public MaintainConfig {
        catalogs = List.copyOf(catalogs);
        steps = List.copyOf(steps);
    }

    /**
     * Reads and validates a maintain configuration file.
     *
     * @param file the file
     * @param env the environment ({@code ${env:NAME}}, {@code password_env}, PG* variables, PUSHGATEWAY_URL)
     * @param registry the known steps by name
     * @return the configuration
     * @throws JanitorException CONFIG (exit 11) naming the file, line and key, before anything runs
     */
    public static MaintainConfig load(Path file, Map<String, String> env, Map<String, MaintenanceStep> registry) throws JanitorException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new JanitorException(Reason.CONFIG, "Cannot read the maintain configuration " + file + " ("
                    + (e instanceof java.nio.file.NoSuchFileException ? "no such file" : e.getClass().getSimpleName()) + ").", e);
        }
        return parse(file, text, env, registry);
    }

    /**
     * Parses a maintain configuration (see {@link #load}).
     *
     * @param source the file name used in messages
     * @param text the YAML text
     * @param env the environment
     * @param registry the known steps by name
     * @return the configuration
     * @throws JanitorException CONFIG as for {@link #load}
     */
    public static MaintainConfig parse(Path source, String text, Map<String, String> env, Map<String, MaintenanceStep> registry)
            throws JanitorException {
        YamlTree tree = YamlTree.parse(source, text, WHAT);
        Map<String, Object> top = map(tree, "", tree.root());
        checkKeys(tree, "", top, TOP_KEYS);
        Duration runBudget = budget(tree, "run_budget", top.get("run_budget"));
        List<Catalog> catalogs = catalogs(tree, top.get("catalogs"), env);
        List<StepConfig> steps = steps(tree, top.get("maintain"), registry);
        String url = top.containsKey("pushgateway_url") ? expand(tree, "pushgateway_url", text(tree, "pushgateway_url",
                top.get("pushgateway_url")), env) : env.get("PUSHGATEWAY_URL");
        MaintenanceRunReporter.Target target = null;
        if (url != null && !url.isBlank()) {
            try {
                target = MaintenanceRunReporter.parseUrl(url);
            } catch (JanitorException e) {
                throw tree.error(top.containsKey("pushgateway_url") ? "pushgateway_url" : "", e.getMessage().replaceAll("\\.$", ""));
            }
        }
        String job = top.containsKey("pushgateway_job") ? text(tree, "pushgateway_job", top.get("pushgateway_job"))
                : MaintenanceRunReporter.DEFAULT_JOB;
        if (job.contains("/")) {
            throw tree.error("pushgateway_job", "must be a name without '/'");
        }
        return new MaintainConfig(source, catalogs, steps, target, job, runBudget);
    }

    private static List<Catalog> catalogs(YamlTree tree, Object node, Map<String, String> env) throws JanitorException {
        if (!(node instanceof List<?> list) || list.isEmpty()) {
            throw tree.error("catalogs", "must be a non-empty list of catalogs (name, connection, ...)");
        }
        List<Catalog> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            String at = "catalogs[" + i + "]";
            Map<String, Object> c = map(tree, at, list.get(i));
            checkKeys(tree, at, c, CATALOG_KEYS);
            String name = text(tree, at + ".name", c.get("name"));
            if (!names.add(name)) {
                throw tree.error(at + ".name", "duplicate catalog name '" + name + "'");
            }
            String conn = expand(tree, at + ".connection", text(tree, at + ".connection", c.get("connection")), env);
            Path pwFile = c.get("password_file") == null ? null
                    : Path.of(expand(tree, at + ".password_file", text(tree, at + ".password_file", c.get("password_file")), env));
            Map<String, String> connEnv = env;
            if (c.get("password_env") != null) {
                if (pwFile != null) {
                    throw tree.error(at + ".password_env", "give password_file or password_env, not both");
                }
                String var = text(tree, at + ".password_env", c.get("password_env"));
                String pw = env.get(var);
                if (pw == null) {
                    throw tree.error(at + ".password_env", "names the environment variable " + var + ", which is not set");
                }
                connEnv = new HashMap<>(env);
                connEnv.put("PGPASSWORD", pw);
            }
            if (pwFile != null && !Files.isReadable(pwFile)) {
                throw tree.error(at + ".password_file", "the file " + pwFile + " cannot be read");
            }
            ConnectionSpec spec;
            try {
                spec = ConnectionSpec.parse(conn, connEnv, pwFile);
            } catch (JanitorException e) {
                throw tree.error(at + ".connection", e.getMessage().replaceAll("\\.$", ""));
            }
            List<String> schemas = schemas(tree, at, c);
            boolean all = Boolean.TRUE.equals(OptionKind.BOOLEAN.check(tree, at + ".all_metadata_schemas",
                    c.getOrDefault("all_metadata_schemas", Boolean.FALSE)));
            if (all && c.containsKey("metadata_schema")) {
                throw tree.error(at + ".all_metadata_schemas", "excludes metadata_schema: give one of them");
            }
            if (!all && schemas.isEmpty()) {
                schemas = List.of("public");
            }
            String lock = c.get("lock_name") == null ? "ducklake-maintenance" : text(tree, at + ".lock_name", c.get("lock_name"));
            List<ConnectionSpec.CatalogReference> also = new ArrayList<>();
            List<String> alsoTexts = texts(tree, at + ".also_catalogs", c.get("also_catalogs"));
            for (int j = 0; j < alsoTexts.size(); j++) {
                String where = at + ".also_catalogs[" + j + "]";
                try {
                    also.add(ConnectionSpec.parseCatalogReference(expand(tree, where, alsoTexts.get(j), env), connEnv, spec));
                } catch (JanitorException e) {
                    throw tree.error(where, dev.ducklake.janitor.Secrets.redact(spec.redact(e.getMessage())).replaceAll("\\.$", ""));
                }
            }
            List<String> excluded = texts(tree, at + ".exclude_catalog_schemas", c.get("exclude_catalog_schemas"));
            boolean consultServer = Boolean.TRUE.equals(OptionKind.BOOLEAN.check(tree, at + ".consult_server",
                    c.getOrDefault("consult_server", Boolean.TRUE)));
            out.add(new Catalog(name, spec, schemas, all, budget(tree, at + ".run_budget", c.get("run_budget")), lock, also,
                    excluded, consultServer));
        }
        return out;
    }

    /** A list of non-empty texts (one text counts as a list of one); absent is empty. */
    private static List<String> texts(YamlTree tree, String path, Object node) throws JanitorException {
        if (node == null) {
            return List.of();
        }
        List<?> items = node instanceof List<?> l ? l : List.of(node);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            out.add(text(tree, node instanceof List<?> ? path + "[" + i + "]" : path, items.get(i)));
        }
        return out;
    }

    private static List<String> schemas(YamlTree tree, String at, Map<String, Object> c) throws JanitorException {
        // one schema or all of them, exactly as serve reads the same file (MetricsConfig)
        if (c.containsKey("metadata_schema")) {
            return List.of(text(tree, at + ".metadata_schema", c.get("metadata_schema")));
        }
        return List.of();
    }

    private static List<StepConfig> steps(YamlTree tree, Object node, Map<String, MaintenanceStep> registry) throws JanitorException {
        List<Map.Entry<String, Object>> entries = new ArrayList<>();
        List<String> paths = new ArrayList<>();
        if (node instanceof List<?> list && !list.isEmpty()) {
            for (int i = 0; i < list.size(); i++) {
                Object item = list.get(i);
                if (item instanceof String s) {
                    item = new LinkedHashMap<>(Map.of(s, new LinkedHashMap<>()));
                }
                Map<String, Object> m = map(tree, "maintain[" + i + "]", item);
                if (m.size() != 1) {
                    throw tree.error("maintain[" + i + "]", "each list item is one step: '- step-name: {options}'");
                }
                Map.Entry<String, Object> e = m.entrySet().iterator().next();
                entries.add(e);
                paths.add("maintain[" + i + "]." + e.getKey());
            }
        } else if (node instanceof Map<?, ?> && !((Map<?, ?>) node).isEmpty()) {
            for (Map.Entry<String, Object> e : map(tree, "maintain", node).entrySet()) {
                entries.add(e);
                paths.add("maintain." + e.getKey());
            }
        } else {
            throw tree.error("maintain", "must list the steps in order, e.g. '- drop-orphan-inline-tables: {include-unregistered: true}'; "
                    + "known steps: " + String.join(", ", new TreeSet<>(registry.keySet())));
        }
        List<StepConfig> out = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            String name = entries.get(i).getKey();
            String path = paths.get(i);
            MaintenanceStep step = registry.get(name);
            if (step == null) {
                throw tree.error(path, "unknown step; known steps: " + String.join(", ", new TreeSet<>(registry.keySet())));
            }
            Object raw = entries.get(i).getValue();
            Map<String, Object> given = raw == null ? Map.of() : map(tree, path, raw);
            Map<String, OptionKind> schema = new LinkedHashMap<>(COMMON_OPTIONS);
            schema.putAll(step.options());
            Map<String, Object> opts = new LinkedHashMap<>();
            for (Map.Entry<String, Object> o : given.entrySet()) {
                OptionKind kind = schema.get(o.getKey());
                if (kind == null) {
                    throw tree.error(path + "." + o.getKey(), "unknown option of " + name + "; allowed: "
                            + String.join(", ", new TreeSet<>(schema.keySet())));
                }
                opts.put(o.getKey(), kind.check(tree, path + "." + o.getKey(), o.getValue()));
            }
            boolean required = Boolean.TRUE.equals(opts.remove("required"));
            Object b = opts.remove("run-budget");
            Duration stepBudget = b instanceof Duration d ? d : null;
            if (required && step.unavailableReason() != null) {
                throw tree.error(path, "the step is marked required but is " + step.unavailableReason());
            }
            Map<String, Object> written = new LinkedHashMap<>(given);
            written.remove("required");
            written.remove("run-budget");
            StepConfig cfg = new StepConfig(name, opts, written, required, stepBudget, tree.line(path));
            step.validate(cfg, tree, path);
            out.add(cfg);
        }
        return out;
    }

    private static Duration budget(YamlTree tree, String path, Object node) throws JanitorException {
        if (node == null) {
            return null;
        }
        Object v = OptionKind.BUDGET.check(tree, path, node);
        return v instanceof Duration d ? d : null;
    }

    private static String expand(YamlTree tree, String path, String value, Map<String, String> env) throws JanitorException {
        Matcher m = ENV_REF.matcher(value);
        StringBuilder b = new StringBuilder();
        while (m.find()) {
            String v = env.get(m.group(1));
            if (v == null) {
                throw tree.error(path, "references the environment variable " + m.group(1) + ", which is not set");
            }
            m.appendReplacement(b, Matcher.quoteReplacement(v));
        }
        m.appendTail(b);
        return b.toString();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(YamlTree tree, String path, Object node) throws JanitorException {
        if (!(node instanceof Map<?, ?>)) {
            throw tree.error(path, "must be a mapping (key: value)");
        }
        return (Map<String, Object>) node;
    }

    private static void checkKeys(YamlTree tree, String path, Map<String, Object> m, Set<String> allowed) throws JanitorException {
        for (String k : m.keySet()) {
            if (!allowed.contains(k)) {
                throw tree.error(path.isEmpty() ? k : path + "." + k, "unknown key; allowed: " + String.join(", ", new TreeSet<>(allowed)));
            }
        }
    }

    private static String text(YamlTree tree, String path, Object node) throws JanitorException {
        if (node instanceof String s && !s.isBlank()) {
            return s;
        }
        if (node instanceof Long l) {
            return l.toString();
        }
        throw tree.error(path, node == null ? "is required" : "must be non-empty text");
    }
}
