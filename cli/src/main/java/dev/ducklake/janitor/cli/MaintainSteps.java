package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.maintain.MaintenanceStep;
import dev.ducklake.janitor.maintain.OptionKind;
import dev.ducklake.janitor.maintain.StepConfig;
import dev.ducklake.janitor.maintain.StepContext;
import dev.ducklake.janitor.maintain.StepResult;
import dev.ducklake.janitor.maintain.YamlTree;
import dev.ducklake.janitor.ops.compact.EngineProbe;
import dev.ducklake.janitor.ops.runtime.MaintenanceOperation;
import dev.ducklake.janitor.ops.runtime.MaintenanceResult;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.check.CatalogCheck;
import dev.ducklake.janitor.ops.check.CheckOptions;
import dev.ducklake.janitor.ops.check.CheckResult;
import dev.ducklake.janitor.catalog.health.CheckRules;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.LockBudget;
import dev.ducklake.janitor.storage.StorageLocation;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The step registry of {@code maintain}: step name → adapter. An adapter parses the step's options (as written in the
 * file) with its command's own picocli parser into a fresh command object, and runs that command's
 * {@link OperationAdapter} ({@code prepare}, {@code create}, {@code pushedGauges}, {@code exitCode}): exactly the calls the
 * command makes, so a file option and the flag of the same name mean the same thing.
 *
 * <p>The run options (batch size, max batches, statement/lock/reconnect timeouts) come from the step's options in
 * their normal form ({@link OptionKind#DURATION} accepts {@code 45s}, {@code 2m}); the schema, dry run, lock name and
 * run budget come from {@code maintain}. {@code check} is read-only and not an {@link OperationAdapter}: {@link CheckStep}
 * runs {@link CatalogCheck} with the options {@link CheckCommand} parses, as that command does.
 */
final class MaintainSteps {

    /**
     * Step options that {@code maintain} turns into {@link RunOptions} itself (not handed to the command's parser; the
     * timeouts are durations here, seconds there). {@code batch-size} goes to the parser: a command may have its own
     * range and default (expire-snapshots counts snapshots).
     */
    private static final Set<String> RUN_KEYS = Set.of("max-batches", "statement-timeout", "lock-timeout",
            "reconnect-timeout", "required", "run-budget");

    private MaintainSteps() {
    }

    /**
     * The registry with per-file lines of the storage steps discarded.
     *
     * @param listener a progress listener for the step running on the calling thread
     * @return step name → adapter
     */
    static Map<String, MaintenanceStep> registry(Supplier<ProgressListener> listener) {
        return registry(listener, new PrintWriter(java.io.Writer.nullWriter()));
    }

    /**
     * The registry: the steps of {@link Operations}, in the chain's order, each with its command's flags as its options
     * ({@link StepOptions}).
     *
     * @param listener a progress listener for the step running on the calling thread
     * @param fileLines where the storage steps' per-file lines go (stderr: stdout holds the result)
     * @return step name → adapter; make one per run: its engine steps share the run's {@link EngineProbe}
     */
    static Map<String, MaintenanceStep> registry(Supplier<ProgressListener> listener, PrintWriter fileLines) {
        Map<String, MaintenanceStep> r = new LinkedHashMap<>();
        CommandLine root = new CommandLine(new JanitorCommand(Map.of()));
        // the engine steps' dry runs start DuckDB once for the whole run (flush-inlined-data's and compact's, every schema)
        EngineProbe engineProbe = new EngineProbe();
        for (Operations.Operation o : Operations.steps()) {
            Map<String, OptionKind> options = StepOptions.of(root.getSubcommands().get(o.name()).getCommandSpec());
            // check is read-only and not an OperationAdapter; an engine step's DuckDB reaches the data path through httpfs
            add(r, o.command() == CheckCommand.class ? new CheckStep(options, fileLines)
                    : new CommandStep(o.name(), options, listener, fileLines,
                            StorageCommand.class.isAssignableFrom(o.command()) ? StoreUse.FILES
                                    : EngineCommand.class.isAssignableFrom(o.command()) ? StoreUse.ENGINE : StoreUse.NONE, engineProbe));
        }
        return r;
    }

    private static void add(Map<String, MaintenanceStep> r, MaintenanceStep s) {
        r.put(s.name(), s);
    }

    /**
     * The command's own arguments for a step: each option as written in the file becomes {@code --name=value}
     * ({@code --name} for true, nothing for false, one flag per element of a list); the run options are left out.
     *
     * @param name the command name
     * @param step the step
     * @return the argument list, starting with the command name
     */
    static List<String> args(String name, StepConfig step) {
        List<String> a = new ArrayList<>();
        a.add(name);
        for (Map.Entry<String, Object> e : step.raw().entrySet()) {
            if (RUN_KEYS.contains(e.getKey())) {
                continue;
            }
            Object v = e.getValue();
            if (v instanceof Boolean b) {
                if (b) {
                    a.add("--" + e.getKey());
                }
            } else if (v instanceof List<?> l) {
                l.forEach(x -> a.add("--" + e.getKey() + "=" + x));
            } else {
                a.add("--" + e.getKey() + "=" + v);
            }
        }
        return a;
    }

    /**
     * A fresh command object of the step, its flags parsed from the step's options by its own picocli model.
     *
     * @param args the arguments from {@link #args}
     * @param fileLines the command's stdout (its per-file lines)
     * @return the parsed command
     * @throws CommandLine.ParameterException when an option is not one the command accepts
     */
    static Object parse(List<String> args, PrintWriter fileLines) {
        CommandLine root = new CommandLine(new JanitorCommand(Map.of()));
        root.setOut(fileLines);
        root.setErr(fileLines);
        root.setCaseInsensitiveEnumValuesAllowed(true);
        CommandLine.ParseResult parsed = root.parseArgs(args.toArray(String[]::new));
        return parsed.subcommand().commandSpec().userObject();
    }

    /**
     * Prints a step's result as its command prints it.
     *
     * @param out stdout
     * @param step the step name
     * @param conn the catalog database
     * @param result the step's result
     * @param signalled whether the run was stopped by a signal
     * @return false when no command of that name prints results (the caller renders it generically)
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static boolean printText(PrintWriter out, String step, ConnectionSpec conn, Object result, boolean signalled) {
        if (result instanceof CheckResult r) {
            CheckCommand.printResult(out, conn, r);
            return true;
        }
        CommandLine root = new CommandLine(new JanitorCommand(Map.of()));
        CommandLine sub = root.getSubcommands().get(step);
        if (sub == null || !(sub.getCommand() instanceof OperationAdapter a) || !(result instanceof MaintenanceResult)) {
            return false;
        }
        root.setOut(out);
        root.parseArgs(step);
        ((OperationAdapter) a).printText(out, conn, (MaintenanceResult) result, signalled);
        return true;
    }

    /**
     * {@code check}: read-only, no lock; the options parsed by {@link CheckCommand}'s own model, the rules run by
     * {@link CatalogCheck} as the command runs them; exit code as the command's (0 clean, 12 findings, 8 a rule lacked a privilege, 9 a rule failed).
     * It pushes the generic series only (the findings by kind are {@code ducklake_check_findings} of serve/metrics).
     */
    static final class CheckStep implements MaintenanceStep {

        private final Map<String, OptionKind> options;
        private final PrintWriter fileLines;

        CheckStep(Map<String, OptionKind> commandOptions, PrintWriter fileLines) {
            Map<String, OptionKind> o = new LinkedHashMap<>(commandOptions);
            o.put(FAIL_ON, OptionKind.SEVERITY);
            this.options = Map.copyOf(o);
            this.fileLines = fileLines;
        }

        @Override
        public String name() {
            return CheckCommand.OPERATION;
        }

        @Override
        public Map<String, OptionKind> options() {
            return options;
        }

        /** The step's own option (not a flag of the check command): the lowest severity that makes the step exit 12. */
        static final String FAIL_ON = "fail-on";

        private CheckCommand command(StepConfig step) {
            List<String> a = new ArrayList<>(args(name(), step));
            a.removeIf(x -> x.startsWith("--" + FAIL_ON + "="));
            return (CheckCommand) parse(a, fileLines);
        }

        private CheckOptions options(StepConfig step) throws JanitorException {
            CheckOptions o = command(step).options();
            Duration timeout = step.option("statement-timeout", null);
            return timeout == null ? o : o.withStatementTimeout(timeout);
        }

        @Override
        public void validate(StepConfig step, YamlTree tree, String path) throws JanitorException {
            try {
                options(step).validate();
            } catch (CommandLine.ParameterException e) {
                throw tree.error(path, e.getMessage().replaceAll("\\.$", ""));
            } catch (JanitorException e) {
                throw tree.error(path, e.getMessage().replaceAll("\\.$", ""));
            }
        }

        @Override
        public StepResult run(StepContext ctx, StepConfig step) throws JanitorException {
            CatalogCheck check = new CatalogCheck(ctx.connection(), options(step).withMetadataSchema(ctx.schema()));
            CheckCommand cmd = command(step);
            String noStore = null;
            if (cmd.storage) {
                // a store that cannot be used (no S3 credentials) is not possible as for the storage steps: the catalog
                // rules still run and the result says the comparison was not made and why; a required step fails
                noStore = storeNotPossible(ctx, cmd.store.dataPath);
                if (noStore != null && step.required()) {
                    return StepResult.skipped(noStore, Reason.STORAGE);
                }
                if (noStore == null) {
                    // check --storage: the data path compared with the retained file rows, as the command does
                    cmd.store.beforeOpen = location -> requireCredentials(location, null);
                    check.withStorage(cmd.store::open, cmd.store.dataPath);
                }
            }
            CheckResult r = check.execute();
            if (noStore != null) {
                r = r.withStorageNotChecked(noStore);
            }
            return StepResult.ran(r, Map.of(), exitCode(r, step.option(FAIL_ON, CheckRules.DAMAGE)));
        }

        /**
         * The check command's exit code, except that findings below {@code failOn} do not fail the step: with {@code damage}
         * (the default) only damage findings give 12; with {@code debris} or {@code any} every finding does. A failed rule
         * still gives 9, or 8 for a missing privilege (the catalog is not known to be clean).
         */
        static int exitCode(CheckResult r, String failOn) {
            int code = CheckCommand.exitCode(r);
            if (code == Reason.FINDINGS.exitCode() && failOn.equals(CheckRules.DAMAGE)
                    && r.findings().stream().noneMatch(f -> f.severity().equals(CheckRules.DAMAGE))) {
                return 0;
            }
            return code;
        }
    }

    /**
     * Why a step cannot use the store of its data path, found before it starts: the data path (the step's
     * {@code data-path}, else the catalog's {@code data_path}) is on S3 and the AWS SDK's default chain finds no
     * credentials. Anything else that goes wrong here (catalog unreadable, path unusable) is left to the run.
     *
     * @param ctx the catalog and schema
     * @param dataPathOption the step's {@code data-path}, or null for the catalog's
     * @return the reason ({@link #noCredentials}), or null
     */
    static String storeNotPossible(StepContext ctx, String dataPathOption) {
        String path = dataPathOption;
        if (path == null) {
            try (java.sql.Connection c = ctx.connection().open()) {
                path = dev.ducklake.janitor.ops.files.CatalogFiles.option(c, ctx.schema(), "data_path");
            } catch (java.sql.SQLException | JanitorException | RuntimeException e) {
                return null;
            }
        }
        if (path == null || path.isBlank()) {
            return null;
        }
        try {
            return noCredentials(new dev.ducklake.janitor.storage.PathResolver(path).dataLocation());
        } catch (RuntimeException e) {
            return null; // an unusable path is the run's to report
        }
    }

    /**
     * Why the store of a location cannot be used for want of credentials: it is on S3 and the AWS SDK's default chain
     * finds none. The text names the bucket, what is missing and what to set; the storage steps are skipped with it and
     * {@code check --storage} fails with it.
     *
     * @param location the data location
     * @return the reason, or null (not on S3, or credentials found)
     */
    static String noCredentials(StorageLocation location) {
        if (!"s3".equals(location.scheme())) {
            return null;
        }
        try {
            dev.ducklake.janitor.storage.S3FileStore.resolveCredentials();
            return null;
        } catch (dev.ducklake.janitor.storage.StorageException e) {
            return "no AWS credentials for s3://" + location.bucket() + "/ in the AWS SDK's default provider chain: set "
                    + "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (AWS_SESSION_TOKEN for temporary ones), or AWS_PROFILE with "
                    + "~/.aws/credentials, or give the janitor a web identity (AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE), "
                    + "container or instance role";
        }
    }

    /**
     * Fails (and records why) when the location's store cannot be used for want of credentials ({@link #noCredentials}).
     *
     * @param location the data location
     * @param noStore set to the reason when it fails
     * @throws JanitorException STORAGE with the reason
     */
    static void requireCredentials(StorageLocation location, AtomicReference<String> noStore) throws JanitorException {
        String why = noCredentials(location);
        if (why != null) {
            if (noStore != null) {
                noStore.set(why);
            }
            throw new JanitorException(Reason.STORAGE, why + ".");
        }
    }

    /** Whether and how a step reaches the catalog's data path. */
    enum StoreUse {
        /** Catalog only. */
        NONE,
        /** DuckDB writes there (flush-inlined-data, compact): S3 credentials are needed, no data-path option. */
        ENGINE,
        /** A storage command with its own store and data-path option. */
        FILES
    }

    /** A step run through its command's {@link OperationAdapter}. */
    static final class CommandStep implements MaintenanceStep {

        private final String name;
        private final Map<String, OptionKind> options;
        private final Supplier<ProgressListener> listener;
        private final PrintWriter fileLines;
        /** A storage command (cleanup-old-files, delete-orphan-files): its own file store, data-path option. */
        private final boolean storage;
        /** A step that reaches the data path at all (the storage commands, and the engine steps' DuckDB through httpfs). */
        private final boolean readsStore;
        /** The engine steps' dry-run check of DuckDB, one for the run's steps, schemas and catalogs (the registry is the run's). */
        private final EngineProbe engineProbe;

        CommandStep(String name, Map<String, OptionKind> options, Supplier<ProgressListener> listener, PrintWriter fileLines,
                    StoreUse store, EngineProbe engineProbe) {
            this.engineProbe = engineProbe;
            this.name = name;
            this.options = Map.copyOf(options);
            this.listener = listener;
            this.fileLines = fileLines;
            this.storage = store == StoreUse.FILES;
            this.readsStore = store != StoreUse.NONE;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Map<String, OptionKind> options() {
            return options;
        }

        @Override
        public void validate(StepConfig step, YamlTree tree, String path) throws JanitorException {
            try {
                MaintenanceCommand<?> cmd = (MaintenanceCommand<?>) parse(args(name, step), fileLines);
                cmd.prepare();
                Operations.BatchUnit unit = cmd.run.batchUnit();
                if (unit != null && cmd.run.batchSize() > unit.maximum()) {
                    throw tree.error(path + ".batch-size", "must be between 1 and " + unit.maximum() + " " + unit.noun()
                            + ", got " + cmd.run.batchSize());
                }
                runOptions(step, cmd, "public", false, null, RunOptions.DEFAULT_LOCK_NAME).validate();
            } catch (CommandLine.ParameterException e) {
                throw tree.error(path, e.getMessage().replaceAll("\\.$", ""));
            } catch (JanitorException e) {
                throw tree.error(path, e.getMessage().replaceAll("\\.$", ""));
            }
        }

        /** As RunOptionsMixin.toRunOptions: the command's batch size (capped at the lock budget's), the rest from the step. */
        static RunOptions runOptions(StepConfig s, MaintenanceCommand<?> cmd, String schema, boolean dryRun, Duration budget,
                                     String lockName) {
            RunOptions d = RunOptions.defaults();
            return d.toBuilder().metadataSchema(schema)
                    .dryRun(dryRun)
                    .batchSize(Math.min(cmd.run.batchSize(), LockBudget.MAX_BATCH))
                    .maxBatches(s.<Long>option("max-batches", 0L).intValue())
                    .runBudget(budget)
                    .statementTimeout(s.option("statement-timeout", d.statementTimeout()))
                    .lockTimeout(s.option("lock-timeout", d.lockTimeout()))
                    .lockName(lockName)
                    .reconnectTimeout(s.option("reconnect-timeout", d.reconnectTimeout()))
                    .build();
        }

        /**
         * A storage step on an {@code s3://} data path (the step's {@code data-path}, else the catalog's
         * {@code data_path}), or an engine step on a catalog whose {@code data_path} is on S3, without credentials in the AWS
         * SDK's default chain is not possible ({@link #storeNotPossible}). Anything else that goes wrong here (catalog
         * unreadable, path unusable) is left to the run, which reports it as its command does.
         */
        @Override
        public String notPossibleBecause(StepContext ctx, StepConfig step) {
            if (!readsStore) {
                return null;
            }
            return storeNotPossible(ctx, storage ? step.rawText("data-path") : null);
        }

        /** The question the step's command asks before an execute run (its dry-run count included), without "? [y/N]". */
        @Override
        @SuppressWarnings({"rawtypes"})
        public String plan(StepContext ctx, StepConfig step) throws JanitorException {
            OperationAdapter adapter = command(step);
            adapter.prepare();
            RunOptions run = runOptions(step, (MaintenanceCommand<?>) adapter, ctx.schema(), false, ctx.runBudget(), ctx.lockName());
            String q = adapter.confirmation(ctx.connection().withSocketTimeoutAbove(run.statementTimeout()), List.of(ctx.schema()), run);
            return q.replaceFirst("\\?\\s*\\[y/N]\\s*$", "");
        }

        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public StepResult run(StepContext ctx, StepConfig step) throws JanitorException {
            OperationAdapter adapter = command(step);
            AtomicReference<String> noStore = new AtomicReference<>();
            if (storage) {
                // a store that cannot be used (no S3 credentials) makes the step skipped, checked before it changes anything
                ((StorageCommand<?, ?>) adapter).storage.store.beforeOpen = location -> requireCredentials(location, noStore);
                // the catalog's consult settings and the schemas of this run, as the command's flags would give them
                ((StorageCommand<?, ?>) adapter).configConsult = ctx.consult();
                adapter.runSchemas(ctx.consult().runSchemas());
            }
            adapter.prepare();
            RunOptions run = runOptions(step, (MaintenanceCommand<?>) adapter, ctx.schema(), ctx.dryRun(), ctx.runBudget(), ctx.lockName());
            run.validate();
            // reads bounded beyond the step's statement timeout, as for the single command (MaintenanceRunner)
            MaintenanceOperation<? extends MaintenanceResult> op = adapter.create(
                    ctx.connection().withSocketTimeoutAbove(run.statementTimeout()), run, listener.get());
            ctx.onStop().accept(op::requestStop);
            MaintenanceResult r;
            try {
                r = op.execute();
            } catch (JanitorException e) {
                if (noStore.get() != null) {
                    return StepResult.skipped(noStore.get(), Reason.STORAGE);
                }
                throw e;
            }
            return StepResult.ran(r, adapter.pushedGauges(r), adapter.exitCode(r));
        }

        /** The step's command, parsed from its options; an engine step's with the run's {@link #engineProbe}. */
        @SuppressWarnings({"rawtypes"})
        private OperationAdapter command(StepConfig step) {
            OperationAdapter adapter = (OperationAdapter) parse(args(name, step), fileLines);
            if (adapter instanceof EngineCommand e) {
                e.probe = engineProbe;
            }
            return adapter;
        }
    }
}
