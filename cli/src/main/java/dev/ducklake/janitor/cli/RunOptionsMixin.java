package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.Durations;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.maintain.OptionKind;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.pg.LockBudget;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.Locale;

/**
 * The run-options mixin of every maintenance command: the flags of {@link RunOptions} (defaults are its
 * constants), {@code --all-metadata-schemas}, {@code --dry-run} and {@code --yes}. The range and default of
 * {@code --batch-size} are the operation's ({@link Operations.BatchUnit}). Descriptions that depend on
 * what a unit of work is carry a {@code descriptionKey}; a command overrides them in its resource bundle
 * ({@code @Command(resourceBundle = …)}), e.g. "Tables dropped per transaction".
 */
public final class RunOptionsMixin {

    static {
        HelpConstants.publish(); // the retry figures its descriptions quote
    }

    @StepOptions.CliOnly
    @Option(names = "--dry-run", descriptionKey = "dry-run",
            description = "Report what would be done; no DDL, no DML, no advisory lock. Default: off.")
    boolean dryRun;

    @StepOptions.CliOnly
    @Option(names = "--yes", description = "Do not ask for confirmation on a terminal. Default: off (asks only when run on a terminal).")
    boolean yes;

    @StepOptions.CliOnly
    @Option(names = "--all-metadata-schemas",
            description = "Run on every schema of the database that holds a DuckLake catalog (a ducklake_metadata table with "
                    + "a 'version' key), one after the other; not with --metadata-schema. To run on some schemas in turn, give "
                    + "--metadata-schema several times instead. Default: off.")
    boolean allMetadataSchemas;

    @Option(names = "--batch-size", paramLabel = "N", defaultValue = "" + RunOptions.DEFAULT_BATCH_SIZE, descriptionKey = "batch-size",
            description = "Units of work per transaction, 1 to " + LockBudget.MAX_BATCH + ". Lowered automatically to the server's "
                    + "lock budget. Default: ${DEFAULT-VALUE}.")
    int batchSize = RunOptions.DEFAULT_BATCH_SIZE;

    /** The command this mixin is part of (its operation's {@link Operations.BatchUnit}). */
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--max-batches", paramLabel = "N",
            description = "Stop after N batches (N >= 1); the next run resumes. Default: no limit.")
    Integer maxBatches;

    @Option(names = "--run-budget", paramLabel = "DURATION", descriptionKey = "run-budget",
            description = "Stop cleanly once this many seconds of wall-clock time are spent, checked between batches and between "
                    + "units inside a batch (the unit in flight commits; at least one always goes through). "
                    + "A positive duration (" + dev.ducklake.janitor.Durations.GRAMMAR + "), a number of seconds, or 'inf'. "
                    + "Default: unbounded.")
    String runBudget;

    @StepOptions.Kind(OptionKind.DURATION)
    @Option(names = "--statement-timeout", paramLabel = "SECONDS", defaultValue = "" + RunOptions.DEFAULT_STATEMENT_TIMEOUT_SECONDS,
            description = "statement_timeout set for each batch, in seconds (0 = none). Default: ${DEFAULT-VALUE}.")
    double statementTimeout;

    @StepOptions.Kind(OptionKind.DURATION)
    @Option(names = "--lock-timeout", paramLabel = "SECONDS", defaultValue = "" + RunOptions.DEFAULT_LOCK_TIMEOUT_SECONDS,
            descriptionKey = "lock-timeout",
            description = "lock_timeout set for each batch, in seconds (0 = none). Default: ${DEFAULT-VALUE}.")
    double lockTimeout;

    @StepOptions.Kind(OptionKind.DURATION)
    @Option(names = "--reconnect-timeout", paramLabel = "SECONDS", defaultValue = "" + RunOptions.DEFAULT_RECONNECT_TIMEOUT_SECONDS,
            description = "How long to keep reconnecting (with a backoff of ${sys:" + HelpConstants.RECONNECT_BACKOFF + "}) after the connection is lost "
                    + "mid-run, in seconds. Default: ${DEFAULT-VALUE}.")
    double reconnectTimeout;

    @StepOptions.CliOnly
    @Option(names = "--lock-name", paramLabel = "NAME", defaultValue = RunOptions.DEFAULT_LOCK_NAME,
            description = "Advisory lock taken by execute runs (pg_try_advisory_lock(hashtext(NAME))); a run refuses to start while "
                    + "another session holds it. Default: ${DEFAULT-VALUE}.")
    String lockName;

    /**
     * The run options of these flags for the first schema given; every schema given is validated before any runs
     * (a bad value must not come after changes).
     *
     * @param catalog the connection mixin (its --metadata-schema values)
     * @return the validated options
     * @throws JanitorException {@link Reason#USAGE} naming the first bad flag
     */
    RunOptions toRunOptions(CatalogOptions catalog) throws JanitorException {
        if (allMetadataSchemas && !catalog.metadataSchemas.isEmpty()) {
            throw usage("--all-metadata-schemas and --metadata-schema exclude each other: give one or the other.");
        }
        Operations.BatchUnit unit = batchUnit();
        int size = batchSize();
        if (unit != null && (size < 1 || size > unit.maximum())) {
            throw usage("--batch-size must be between 1 and " + unit.maximum() + " " + unit.noun() + ", got " + size + ".");
        }
        if (maxBatches != null && maxBatches < 1) {
            throw usage("--max-batches must be 1 or more, got " + maxBatches + " (leave it out for no limit).");
        }
        RunOptions options = RunOptions.builder()
                .metadataSchema(catalog.metadataSchema)
                .dryRun(dryRun)
                .batchSize(Math.min(size, LockBudget.MAX_BATCH))
                .maxBatches(maxBatches == null ? 0 : maxBatches)
                .runBudget(runBudget())
                .statementTimeout(pgTimeout("--statement-timeout", statementTimeout))
                .lockTimeout(pgTimeout("--lock-timeout", lockTimeout))
                .lockName(lockName)
                .reconnectTimeout(seconds("--reconnect-timeout", reconnectTimeout))
                .build();
        for (String schema : catalog.metadataSchemas) {
            options.toBuilder().metadataSchema(schema).build().validate();
        }
        options.validate();
        return options;
    }

    /** @return what this command's --batch-size counts ({@link Operations}), or null for a command without one */
    Operations.BatchUnit batchUnit() {
        return Operations.of(mixee.userObject().getClass()).batch();
    }

    /**
     * @return the batch size of this run: --batch-size as given, else the operation's default; the shared
     *     {@link RunOptions} never receives more than {@link LockBudget#MAX_BATCH}: a command whose unit allows more
     *     (expire-snapshots) reads this itself
     */
    int batchSize() {
        Operations.BatchUnit unit = batchUnit();
        CommandLine.ParseResult given = mixee.commandLine() == null ? null : mixee.commandLine().getParseResult();
        return unit == null || given != null && given.hasMatchedOption("--batch-size") ? batchSize : unit.defaultSize();
    }

    /** @return whether the run covers several schemas (--all-metadata-schemas or --metadata-schema twice or more) */
    boolean multiSchema(CatalogOptions catalog) {
        return allMetadataSchemas || catalog.metadataSchemas.size() > 1;
    }

    private Duration runBudget() throws JanitorException {
        if (runBudget == null) {
            return null;
        }
        String b = runBudget.strip().toLowerCase(Locale.ROOT);
        if (b.equals("inf") || b.equals("infinity")) {
            return null;
        }
        double secs;
        try {
            if (!b.matches("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)(e[+-]?\\d+)?")) {
                // not plain seconds (Double.parseDouble alone would read "40d" as the Java literal 40.0)
                throw new NumberFormatException(b);
            }
            secs = Double.parseDouble(b);
        } catch (NumberFormatException notSeconds) {
            // the one duration grammar (40m, 2h, PT1H, '90 minutes'), as in the maintain configuration's run_budget
            Duration d;
            try {
                d = dev.ducklake.janitor.Durations.parse(runBudget);
            } catch (dev.ducklake.janitor.Durations.InvalidDuration e) {
                throw usage("--run-budget: " + e.getMessage() + "; or a number of seconds, or 'inf'.");
            }
            if (d.isZero()) {
                throw usage("--run-budget must be more than 0, got '" + runBudget.strip() + "'.");
            }
            return d;
        }
        if (!(secs > 0) || Double.isInfinite(secs) || Double.isNaN(secs)) {
            throw usage("--run-budget must be a positive duration (" + dev.ducklake.janitor.Durations.GRAMMAR
                    + "), a number of seconds or 'inf', got '" + runBudget + "'.");
        }
        if (secs > dev.ducklake.janitor.Durations.MAX.getSeconds()) {
            throw usage("--run-budget " + runBudget.strip() + " is longer than 100 years, the longest duration accepted.");
        }
        return Duration.ofNanos((long) (secs * 1e9));
    }

    private static Duration seconds(String flag, double value) throws JanitorException {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw usage(flag + " must be 0 or more seconds, got " + Render.number(value) + ".");
        }
        return Durations.ofSeconds(value);
    }

    /** A PostgreSQL timeout setting: at most INT_MAX milliseconds (about 24.8 days), else the server refuses it mid-run. */
    private static Duration pgTimeout(String flag, double value) throws JanitorException {
        Duration d = seconds(flag, value);
        if (d.toMillis() > Integer.MAX_VALUE) {
            throw usage(flag + " must be at most " + Integer.MAX_VALUE / 1000 + " seconds (PostgreSQL's limit), got " + Render.number(value) + ".");
        }
        return d;
    }

    private static JanitorException usage(String message) {
        return new JanitorException(Reason.USAGE, message);
    }
}
