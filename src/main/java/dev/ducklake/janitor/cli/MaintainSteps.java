package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.maintain.MaintenanceStep;
import dev.ducklake.janitor.maintain.OptionKind;
import dev.ducklake.janitor.maintain.StepConfig;
import dev.ducklake.janitor.maintain.StepContext;
import dev.ducklake.janitor.maintain.StepResult;
import dev.ducklake.janitor.maintain.YamlTree;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.ProgressListener;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The step registry of {@code maintain}: step name → adapter (options schema → the operation's Options record → its
 * engine call → its Result and the gauges its command pushes). The adapters call exactly what the commands call.
 *
 * <p>Operations not on this branch yet are declared with their option schema (so a configuration is fully validated
 * today) and report "not available in this build" when run. Wiring one is a few lines: replace its
 * {@link #unavailable} entry by an adapter like {@link DropStep} (build the Options from {@link StepConfig#options()},
 * validate it in {@code validate}, call the engine in {@code run}, return its Result with the command's pushed gauges).
 */
final class MaintainSteps {

    /** The reason an operation that is not in this build is skipped with. */
    static final String NOT_AVAILABLE = "not available in this build";

    private MaintainSteps() {
    }

    /**
     * The registry, in the chain's natural order (DuckLake's CHECKPOINT minus compaction).
     *
     * @param listener a progress listener for the step running on the calling thread
     * @return step name → adapter
     */
    static Map<String, MaintenanceStep> registry(Supplier<ProgressListener> listener) {
        Map<String, MaintenanceStep> r = new LinkedHashMap<>();
        // the runtime's timeouts, as every execute command has them
        Map<String, OptionKind> timeouts = Map.of("statement-timeout", OptionKind.DURATION, "lock-timeout", OptionKind.DURATION,
                "reconnect-timeout", OptionKind.DURATION);
        // issue 12 (branch expire): expire-snapshots
        Map<String, OptionKind> expire = new LinkedHashMap<>(timeouts);
        expire.putAll(Map.of("older-than", OptionKind.DURATION_OR_INSTANT, "retain-last", OptionKind.POSITIVE_INT,
                "versions", OptionKind.ID_LIST, "min-age", OptionKind.DURATION));
        add(r, unavailable("expire-snapshots", expire));
        add(r, new DropStep(listener));
        // issue 13 (branch check): purge-orphan-stats and check
        add(r, unavailable("purge-orphan-stats", timeouts));
        // issue 14 (branch storage): cleanup-old-files and delete-orphan-files
        Map<String, OptionKind> cleanup = new LinkedHashMap<>(Map.of("data-path", OptionKind.TEXT, "s3-region", OptionKind.TEXT,
                "s3-endpoint", OptionKind.TEXT, "s3-path-style", OptionKind.BOOLEAN));
        cleanup.put("older-than", OptionKind.DURATION_OR_INSTANT);
        cleanup.put("min-age", OptionKind.DURATION);
        add(r, unavailable("cleanup-old-files", cleanup));
        Map<String, OptionKind> orphans = new LinkedHashMap<>(cleanup);
        orphans.put("max-orphan-ratio", OptionKind.RATIO);
        orphans.put("allow-root-data-path", OptionKind.BOOLEAN);
        orphans.put("include-puffin", OptionKind.BOOLEAN);
        add(r, unavailable("delete-orphan-files", orphans));
        add(r, unavailable("check", Map.of("statement-timeout", OptionKind.DURATION, "max-examples", OptionKind.POSITIVE_INT,
                "bloat-min-dead-rows", OptionKind.POSITIVE_INT, "bloat-dead-ratio", OptionKind.RATIO)));
        return r;
    }

    private static void add(Map<String, MaintenanceStep> r, MaintenanceStep s) {
        r.put(s.name(), s);
    }

    /** A declared step whose operation is not in this build: options validated, runs report skipped. */
    static MaintenanceStep unavailable(String name, Map<String, OptionKind> options) {
        return new MaintenanceStep() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Map<String, OptionKind> options() {
                return options;
            }

            @Override
            public String unavailableReason() {
                return NOT_AVAILABLE;
            }

            @Override
            public StepResult run(StepContext ctx, StepConfig step) {
                return StepResult.skipped(NOT_AVAILABLE, null);
            }
        };
    }

    /** drop-orphan-inline-tables: the same engine call and pushed gauges as {@link DropOrphanInlineTablesCommand}. */
    static final class DropStep implements MaintenanceStep {

        private final Supplier<ProgressListener> listener;

        DropStep(Supplier<ProgressListener> listener) {
            this.listener = listener;
        }

        @Override
        public String name() {
            return DropOrphanInlineTablesCommand.OPERATION;
        }

        @Override
        public Map<String, OptionKind> options() {
            return Map.of("include-unregistered", OptionKind.BOOLEAN, "include-nonempty", OptionKind.BOOLEAN,
                    "statement-timeout", OptionKind.DURATION, "lock-timeout", OptionKind.DURATION, "reconnect-timeout", OptionKind.DURATION);
        }

        @Override
        public void validate(StepConfig step, YamlTree tree, String path) throws JanitorException {
            int batch = step.<Long>option("batch-size", (long) DropOrphanInlineTablesOptions.DEFAULT_BATCH_SIZE).intValue();
            if (batch > 2000) {
                throw tree.error(path + ".batch-size", "must be between 1 and 2000 tables, got " + batch);
            }
            try {
                options(step, "public", false, null, DropOrphanInlineTablesOptions.DEFAULT_LOCK_NAME).validate();
            } catch (JanitorException e) {
                throw tree.error(path, e.getMessage().replaceAll("\\.$", ""));
            }
        }

        static DropOrphanInlineTablesOptions options(StepConfig s, String schema, boolean dryRun, Duration budget, String lockName) {
            DropOrphanInlineTablesOptions d = DropOrphanInlineTablesOptions.defaults();
            return d.withMetadataSchema(schema)
                    .withDryRun(dryRun)
                    .withBatchSize(s.<Long>option("batch-size", (long) d.batchSize()).intValue())
                    .withMaxBatches(s.<Long>option("max-batches", 0L).intValue())
                    .withRunBudget(budget)
                    .withStatementTimeout(s.option("statement-timeout", d.statementTimeout()))
                    .withLockTimeout(s.option("lock-timeout", d.lockTimeout()))
                    .withLockName(lockName)
                    .withReconnectTimeout(s.option("reconnect-timeout", d.reconnectTimeout()))
                    .withIncludeUnregistered(s.option("include-unregistered", false))
                    .withIncludeNonempty(s.option("include-nonempty", false));
        }

        @Override
        public StepResult run(StepContext ctx, StepConfig step) throws JanitorException {
            DropOrphanInlineTablesOptions o = options(step, ctx.schema(), ctx.dryRun(), ctx.runBudget(), ctx.lockName());
            o.validate();
            DropOrphanInlineTables op = new DropOrphanInlineTables(ctx.connection(), o, listener.get());
            ctx.onStop().accept(op::requestStop);
            DropOrphanInlineTablesResult r = op.execute();
            return StepResult.ran(r, DropOrphanInlineTablesCommand.pushedGauges(r), false);
        }
    }
}
