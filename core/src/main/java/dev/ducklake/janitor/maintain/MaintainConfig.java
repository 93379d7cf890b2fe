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
 *     maintain:                        # this catalog's own step options, over the chain's (steps of the chain only)
 *       delete-orphan-files: {s3-endpoint: "http://minio-b:9000"}
 *     also_catalogs: [${env:OTHER_DB}] # the storage steps' --also-catalog (any connection form)
 *     exclude_catalog_schemas: [t9]    # the storage steps' --exclude-catalog-schema
 *     consult_server: true             # false: the storage steps' --no-consult-server
 * pushgateway_url: http://pushgateway:9091   # default $PUSHGATEWAY_URL
 * pushgateway_job: ducklake_janitor
 * run_budget: 3000                     # the whole run
 * state_schema: ducklake_janitor       # where each catalog database records its steps' last successful runs
 * maintain:                            # in order; a list of one-key mappings (or one mapping)
 *   - expire-snapshots: {older-than: 7d, retain-last: 10}
 *   - drop-orphan-inline-tables: {include-unregistered: true, run-budget: 15m}
 *   - cleanup-old-files: {older-than: 2d, required: true, every: 1d}
 * </pre>
 * A step with {@code every} (a positive duration) runs only when it is due by the last successful run recorded in
 * {@code state_schema} (see {@link RunLedger}); {@code every} needs {@code state_schema}.
 * A {@code password_file} that cannot be read is not a configuration error: the catalog is loaded with
 * {@link Catalog#failure()} set, and its steps fail at run time (exit 3) while the other catalogs run.
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
 * @param stateSchema the schema (in each catalog's database) of the run ledger, or null for no ledger
 */
public record MaintainConfig(Path source, List<Catalog> catalogs, List<StepConfig> steps, MaintenanceRunReporter.Target pushgateway,
                             String pushgatewayJob, Duration runBudget, String stateSchema) {

    /** What the messages call this file. */
    static final String WHAT = "Maintain configuration";

    /**
     * Options every step accepts: batch-size, max-batches, run-budget (the shared runtime's), required and every (the
     * step's cadence).
     */
    public static final Map<String, OptionKind> COMMON_OPTIONS = Map.of("batch-size", OptionKind.POSITIVE_INT,
            "max-batches", OptionKind.POSITIVE_INT, "run-budget", OptionKind.BUDGET, "required", OptionKind.BOOLEAN,
            "every", OptionKind.DURATION);

    private static final Set<String> TOP_KEYS = Set.of("catalogs", "maintain", "pushgateway_url", "pushgateway_job", "run_budget",
            "state_schema", "interval_seconds", "statement_timeout_seconds", "queries");
    private static final Set<String> CATALOG_KEYS = Set.of("name", "connection", "password_file", "password_env", "metadata_schema",
            "all_metadata_schemas", "run_budget", "lock_name", "maintain", "statement_timeout_seconds", "queries", "also_catalogs",
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
     * @param steps this catalog's chain: the file's steps with the catalog's own {@code maintain:} options over them
     * @param failure why this catalog cannot be maintained in this run although its configuration is valid (its
     *     password file cannot be read: {@link Reason#CONNECTION}), or null; every step of it then fails with it
     * @param alsoCatalogs {@code also_catalogs}: other catalogs the storage steps read before deleting a file, as their
     *     {@code --also-catalog} (parsed here against this catalog's connection, so user, host and password default to
     *     it); default none
     * @param excludeCatalogSchemas {@code exclude_catalog_schemas}: the storage steps' {@code --exclude-catalog-schema};
     *     default none
     * @param consultServer {@code consult_server}: whether the storage steps search the server's other databases (false
     *     is their {@code --no-consult-server}); default true
     */
    public record Catalog(String name, ConnectionSpec connection, List<String> schemas, boolean allSchemas, Duration runBudget,
                          String lockName, List<StepConfig> steps, JanitorException failure,
                          List<ConnectionSpec.CatalogReference> alsoCatalogs, List<String> excludeCatalogSchemas,
                          boolean consultServer) {
        /** Copies the lists. */
        public Catalog {
            schemas = List.copyOf(schemas);
            steps = List.copyOf(steps);
            alsoCatalogs = List.copyOf(alsoCatalogs);
            excludeCatalogSchemas = List.copyOf(excludeCatalogSchemas);
        }

        /** The same catalog with only the steps {@code keep} accepts. */
        Catalog withSteps(java.util.function.Predicate<StepConfig> keep) {
            return new Catalog(name, connection, schemas, allSchemas, runBudget, lockName, steps.stream().filter(keep).toList(), failure,
                    alsoCatalogs, excludeCatalogSchemas, consultServer);
        }
    }

    /** Copies the lists. */
    public MaintainConfig {
        catalogs = List.copyOf(catalogs);
        steps = List.copyOf(steps);
    }

    /**
     * The configuration narrowed and overridden from the command line ({@code maintain --only-catalog} and friends).
     *
     * @param onlyCatalogs the catalog names to keep (empty: all)
     * @param onlySteps the step names to keep (empty: all)
     * @param skipSteps the step names to leave out
     * @return the narrowed configuration
     * @throws JanitorException USAGE when a name is not a catalog or step of the file, or nothing is left to run
     */
    public MaintainConfig select(Set<String> onlyCatalogs, Set<String> onlySteps, Set<String> skipSteps) throws JanitorException {
        Set<String> names = new java.util.LinkedHashSet<>();
        catalogs.forEach(c -> names.add(c.name()));
        for (String n : onlyCatalogs) {
            if (!names.contains(n)) {
                throw new JanitorException(Reason.USAGE, "--only-catalog " + n + ": no catalog of that name in " + source
                        + "; its catalogs: " + String.join(", ", names) + ".");
            }
        }
        Set<String> chain = new java.util.LinkedHashSet<>();
        steps.forEach(s -> chain.add(s.name()));
        for (String n : union(onlySteps, skipSteps)) {
            if (!chain.contains(n)) {
                throw new JanitorException(Reason.USAGE, (onlySteps.contains(n) ? "--only-step " : "--skip-step ") + n
                        + ": not a step of the chain in " + source + "; its steps: " + String.join(", ", chain) + ".");
            }
        }
        java.util.function.Predicate<StepConfig> keep = s -> (onlySteps.isEmpty() || onlySteps.contains(s.name()))
                && !skipSteps.contains(s.name());
        List<StepConfig> kept = steps.stream().filter(keep).toList();
        if (kept.isEmpty()) {
            throw new JanitorException(Reason.USAGE, "--only-step / --skip-step leave no step of the chain to run.");
        }
        List<Catalog> cats = catalogs.stream().filter(c -> onlyCatalogs.isEmpty() || onlyCatalogs.contains(c.name()))
                .map(c -> c.withSteps(keep)).toList();
        return new MaintainConfig(source, cats, kept, pushgateway, pushgatewayJob, runBudget, stateSchema);
    }

    /** The same configuration with another whole-run budget (null: none). */
    public MaintainConfig withRunBudget(Duration budget) {
        return new MaintainConfig(source, catalogs, steps, pushgateway, pushgatewayJob, budget, stateSchema);
    }

    /** The same configuration pushing to another Pushgateway (null: nowhere). */
    public MaintainConfig withPushgateway(MaintenanceRunReporter.Target target) {
        return new MaintainConfig(source, catalogs, steps, target, pushgatewayJob, runBudget, stateSchema);
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> u = new java.util.LinkedHashSet<>(a);
        u.addAll(b);
        return u;
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
        Map<String, Object> top = tree.map("", tree.root());
        tree.checkKeys("", top, TOP_KEYS);
        Duration runBudget = budget(tree, "run_budget", top.get("run_budget"));
        Map<String, Map<String, Object>> given = new LinkedHashMap<>();
        List<StepConfig> steps = steps(tree, top.get("maintain"), registry, given);
        List<Catalog> catalogs = catalogs(tree, top.get("catalogs"), env, steps, given, registry);
        String stateSchema = top.get("state_schema") == null ? null : tree.text("state_schema", top.get("state_schema"));
        if (stateSchema == null) {
            for (Catalog c : catalogs) {
                for (StepConfig s : c.steps()) {
                    if (s.every() != null) {
                        throw tree.error("state_schema", "is required when a step has 'every' (" + s.name() + " of catalog "
                                + c.name() + "): maintain records each step's last successful run in a table of that schema "
                                + "(created if absent) to decide whether the step is due");
                    }
                }
            }
        }
        String url = top.containsKey("pushgateway_url") ? tree.expandEnv("pushgateway_url", tree.text("pushgateway_url",
                top.get("pushgateway_url")), env) : env.get("PUSHGATEWAY_URL");
        MaintenanceRunReporter.Target target = null;
        if (url != null && !url.isBlank()) {
            try {
                target = MaintenanceRunReporter.parseUrl(url);
            } catch (JanitorException e) {
                throw tree.error(top.containsKey("pushgateway_url") ? "pushgateway_url" : "", e.getMessage().replaceAll("\\.$", ""));
            }
        }
        String job = top.containsKey("pushgateway_job") ? tree.text("pushgateway_job", top.get("pushgateway_job"))
                : MaintenanceRunReporter.DEFAULT_JOB;
        if (job.contains("/")) {
            throw tree.error("pushgateway_job", "must be a name without '/'");
        }
        return new MaintainConfig(source, catalogs, steps, target, job, runBudget, stateSchema);
    }

    private static List<Catalog> catalogs(YamlTree tree, Object node, Map<String, String> env, List<StepConfig> chain,
                                          Map<String, Map<String, Object>> given, Map<String, MaintenanceStep> registry)
            throws JanitorException {
        if (!(node instanceof List<?> list) || list.isEmpty()) {
            throw tree.error("catalogs", "must be a non-empty list of catalogs (name, connection, ...)");
        }
        List<Catalog> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            String at = "catalogs[" + i + "]";
            Map<String, Object> c = tree.map(at, list.get(i));
            tree.checkKeys(at, c, CATALOG_KEYS);
            String name = tree.text(at + ".name", c.get("name"));
            if (!names.add(name)) {
                throw tree.error(at + ".name", "duplicate catalog name '" + name + "'");
            }
            String conn = tree.expandEnv(at + ".connection", tree.text(at + ".connection", c.get("connection")), env);
            Path pwFile = c.get("password_file") == null ? null
                    : Path.of(tree.expandEnv(at + ".password_file", tree.text(at + ".password_file", c.get("password_file")), env));
            Map<String, String> connEnv = env;
            if (c.get("password_env") != null) {
                if (pwFile != null) {
                    throw tree.error(at + ".password_env", "give password_file or password_env, not both");
                }
                String var = tree.text(at + ".password_env", c.get("password_env"));
                String pw = env.get(var);
                if (pw == null) {
                    throw tree.error(at + ".password_env", "names the environment variable " + var + ", which is not set");
                }
                connEnv = new HashMap<>(env);
                connEnv.put("PGPASSWORD", pw);
                connEnv.put(ConnectionSpec.PASSWORD_VARIABLE, var);
            }
            ConnectionSpec spec;
            JanitorException failure = null;
            String unreadable = pwFile == null ? null : unreadable(pwFile);
            try {
                if (unreadable != null) {
                    // a file that cannot be read now is this catalog's failure at run time, not a configuration error: the
                    // connection is parsed without it (and without an inherited PGPASSWORD) only to be described
                    Map<String, String> noPw = new HashMap<>(connEnv);
                    noPw.remove("PGPASSWORD");
                    spec = ConnectionSpec.parse(conn, noPw, null);
                    failure = new JanitorException(Reason.CONNECTION, unreadable);
                } else {
                    spec = ConnectionSpec.parse(conn, connEnv, pwFile);
                }
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
            String lock = c.get("lock_name") == null ? "ducklake-maintenance" : tree.text(at + ".lock_name", c.get("lock_name"));
            List<StepConfig> own = ownSteps(tree, at + ".maintain", c.get("maintain"), chain, given, registry);
            List<ConnectionSpec.CatalogReference> also = new ArrayList<>();
            List<String> alsoTexts = texts(tree, at + ".also_catalogs", c.get("also_catalogs"));
            for (int j = 0; j < alsoTexts.size(); j++) {
                String where = at + ".also_catalogs[" + j + "]";
                try {
                    also.add(ConnectionSpec.parseCatalogReference(tree.expandEnv(where, alsoTexts.get(j), env), connEnv, spec));
                } catch (JanitorException e) {
                    throw tree.error(where, dev.ducklake.janitor.Secrets.redact(spec.redact(e.getMessage())).replaceAll("\\.$", ""));
                }
            }
            List<String> excluded = texts(tree, at + ".exclude_catalog_schemas", c.get("exclude_catalog_schemas"));
            boolean consultServer = Boolean.TRUE.equals(OptionKind.BOOLEAN.check(tree, at + ".consult_server",
                    c.getOrDefault("consult_server", Boolean.TRUE)));
            out.add(new Catalog(name, spec, schemas, all, budget(tree, at + ".run_budget", c.get("run_budget")), lock, own, failure,
                    also, excluded, consultServer));
        }
        return out;
    }

    /** Why the password file cannot be read now (its first line is the password), or null when it can. */
    private static String unreadable(Path file) {
        try {
            dev.ducklake.janitor.pg.PasswordSource.choose(null, file, null);
            return null;
        } catch (JanitorException e) {
            // "the password file F cannot be read (it does not exist)": no "F: why", which redaction would take for a
            // "password: value" pair when the path ends in "password" (as the shipped Secret mount does)
            String m = e.getMessage();
            int at = m.indexOf(file + ": ");
            String why = at < 0 ? m : m.substring(at + file.toString().length() + 2).replaceFirst("\\.( Check .*)?$", "");
            return "The password file " + file + " cannot be read (" + why + "); the other catalogs are maintained.";
        }
    }

    /**
     * A catalog's chain: the file's steps, each with the catalog's own {@code maintain:} options (a mapping step name →
     * options) over the chain's, validated as a whole by the step.
     */
    private static List<StepConfig> ownSteps(YamlTree tree, String path, Object node, List<StepConfig> chain,
                                             Map<String, Map<String, Object>> given, Map<String, MaintenanceStep> registry)
            throws JanitorException {
        if (node == null) {
            return chain;
        }
        Map<String, Object> own = tree.map(path, node);
        for (String name : own.keySet()) {
            if (!given.containsKey(name)) {
                throw tree.error(path + "." + name, "not a step of the 'maintain:' chain; a catalog gives options to the chain's "
                        + "steps only: " + String.join(", ", given.keySet()));
            }
        }
        List<StepConfig> out = new ArrayList<>();
        for (StepConfig s : chain) {
            Object mine = own.get(s.name());
            if (mine == null) {
                out.add(s);
                continue;
            }
            Map<String, Object> merged = new LinkedHashMap<>(given.get(s.name()));
            merged.putAll(tree.map(path + "." + s.name(), mine));
            out.add(step(tree, path + "." + s.name(), s.name(), merged, registry));
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
            out.add(tree.text(node instanceof List<?> ? path + "[" + i + "]" : path, items.get(i)));
        }
        return out;
    }

    private static List<String> schemas(YamlTree tree, String at, Map<String, Object> c) throws JanitorException {
        // one schema or all of them, exactly as serve reads the same file (MetricsConfig)
        if (c.containsKey("metadata_schema")) {
            return List.of(tree.text(at + ".metadata_schema", c.get("metadata_schema")));
        }
        return List.of();
    }

    private static List<StepConfig> steps(YamlTree tree, Object node, Map<String, MaintenanceStep> registry,
                                          Map<String, Map<String, Object>> givenByName) throws JanitorException {
        List<Map.Entry<String, Object>> entries = new ArrayList<>();
        List<String> paths = new ArrayList<>();
        if (node instanceof List<?> list && !list.isEmpty()) {
            for (int i = 0; i < list.size(); i++) {
                Object item = list.get(i);
                if (item instanceof String s) {
                    item = new LinkedHashMap<>(Map.of(s, new LinkedHashMap<>()));
                }
                Map<String, Object> m = tree.map("maintain[" + i + "]", item);
                if (m.size() != 1) {
                    throw tree.error("maintain[" + i + "]", "each list item is one step: '- step-name: {options}'");
                }
                Map.Entry<String, Object> e = m.entrySet().iterator().next();
                entries.add(e);
                paths.add("maintain[" + i + "]." + e.getKey());
            }
        } else if (node instanceof Map<?, ?> && !((Map<?, ?>) node).isEmpty()) {
            for (Map.Entry<String, Object> e : tree.map("maintain", node).entrySet()) {
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
            if (!registry.containsKey(name)) {
                throw tree.error(path, "unknown step; known steps: " + String.join(", ", new TreeSet<>(registry.keySet())));
            }
            if (givenByName.containsKey(name)) {
                throw tree.error(path, "the step " + name + " is listed twice; the chain runs each step once");
            }
            Object raw = entries.get(i).getValue();
            Map<String, Object> given = raw == null ? Map.of() : tree.map(path, raw);
            givenByName.put(name, given);
            out.add(step(tree, path, name, given, registry));
        }
        return out;
    }

    /** One step's configuration from the options written for it, each checked against its kind, then as a whole. */
    private static StepConfig step(YamlTree tree, String path, String name, Map<String, Object> given,
                                   Map<String, MaintenanceStep> registry) throws JanitorException {
        {
            MaintenanceStep step = registry.get(name);
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
            Duration every = (Duration) opts.remove("every");
            if (every != null && every.isZero()) {
                throw tree.error(path + ".every", "must be a positive duration (" + dev.ducklake.janitor.Durations.GRAMMAR
                        + "), got " + OptionKind.describe(given.get("every")));
            }
            if (required && step.unavailableReason() != null) {
                throw tree.error(path, "the step is marked required but is " + step.unavailableReason());
            }
            Map<String, Object> written = new LinkedHashMap<>(given);
            written.remove("required");
            written.remove("run-budget");
            written.remove("every");
            StepConfig cfg = new StepConfig(name, opts, written, required, stepBudget, tree.line(path), every);
            step.validate(cfg, tree, path);
            return cfg;
        }
    }

    private static Duration budget(YamlTree tree, String path, Object node) throws JanitorException {
        if (node == null) {
            return null;
        }
        Object v = OptionKind.BUDGET.check(tree, path, node);
        return v instanceof Duration d ? d : null;
    }
}
