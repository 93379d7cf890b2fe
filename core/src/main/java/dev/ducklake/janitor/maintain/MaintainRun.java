package dev.ducklake.janitor.maintain;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogDiscovery;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.ops.runtime.MaintenanceResult;
import dev.ducklake.janitor.metrics.PushChannel;
import dev.ducklake.janitor.ops.files.ConsultOptions;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Pooling;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import dev.ducklake.janitor.Durations;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Runs the maintain chain: for each catalog (up to {@code parallelism} at once, each on its own thread and connections),
 * for each of its metadata schemas, each configured step in order through its {@link MaintenanceStep} adapter. Every step
 * takes the advisory lock itself (as its command does) and pushes its outcome under its own {@code operation} grouping
 * key. One catalog's failure never stops another; within a schema, a failure that makes the catalog unusable (see
 * {@link #CATALOG_WIDE}) fails the remaining steps too, not started (status error, the same reason and exit code, a
 * message naming the step that failed); any other failure lets the next step run. A catalog that cannot be maintained
 * at all (its password file cannot be read, its schemas cannot be listed, its connection is transaction-pooled) has
 * every configured step in the result with status error and that reason: none is missing.
 */
public final class MaintainRun {

    /** {@link StepOutcome#skipReason()} of a step whose {@code every} has not passed since its last successful run. */
    public static final String NOT_DUE = "not_due";

    /** The per-run gauge of a step with {@code every}: its period, so that the staleness alert allows for it. */
    public static final String EVERY_GAUGE = "ducklake_maintenance_every_seconds";

    /** Failures after which the remaining steps of the same schema are not started (status error): they would fail the same way. */
    public static final Set<Reason> CATALOG_WIDE = Set.of(Reason.CONNECTION, Reason.NOT_A_CATALOG, Reason.UNSUPPORTED_VERSION,
            Reason.UNSAFE_CATALOG_STATE, Reason.INTERNAL);

    /** How a step ended. */
    public enum Status {
        /** It ran and succeeded. */
        ok,
        /** It ran and finished with findings (its command exits 12). */
        findings,
        /** It was not possible on this catalog, not available in this build, or out of budget; not a failure. */
        skipped,
        /** It failed (or a required step was not possible). */
        error,
        /** It was not started because the run was stopped (a catalog-wide failure makes the later steps {@link #error}). */
        not_run,
        /**
         * It was running when the run was stopped (SIGTERM/SIGINT), or a store call of it was cut short by its run
         * budget: it ended at its next safe point, its result (if any) counts what was done so far.
         */
        stopped
    }

    /**
     * One step on one schema.
     *
     * @param catalog the catalog name
     * @param schema the metadata schema (null when the catalog's schemas could not be listed)
     * @param step the step name
     * @param status how it ended
     * @param reason the failure's reason (status error), else null
     * @param message the failure or skip explanation (never a password), else null
     * @param result the operation's Result record (status ok or findings), else null
     * @param elapsedSeconds wall-clock seconds spent
     * @param skipReason why a skipped step was skipped, as a key ({@link #NOT_DUE}), or null
     * @param lastSuccessAt the start of the step's last successful run as the run ledger records it, or null (no
     *     ledger, or never)
     * @param nextDueAt when a step with {@code every} is due next, or null (no cadence, or it ran now)
     */
    public record StepOutcome(String catalog, String schema, String step, Status status, Reason reason, String message, Object result,
                              double elapsedSeconds, String skipReason, Instant lastSuccessAt, Instant nextDueAt) {

        /** An outcome without cadence details. */
        public StepOutcome(String catalog, String schema, String step, Status status, Reason reason, String message, Object result,
                           double elapsedSeconds) {
            this(catalog, schema, step, status, reason, message, result, elapsedSeconds, null, null, null);
        }

        /**
         * The exit code this outcome alone would give: 0, 12 for findings, the reason's code for an error; a stopped
         * step gives its reason's code when it failed while stopping, else 0 (the process's exit code after a signal,
         * 143 or 130, is the CLI's to add).
         */
        public int exitCode() {
            return status == Status.error || status == Status.stopped && reason != null ? reason.exitCode()
                    : status == Status.findings ? Reason.FINDINGS.exitCode() : 0;
        }
    }

    /** Told about each step on the thread that runs it (logging context, section headers). */
    public interface Observer {
        /** Before the step starts (also for skipped ones). */
        void starting(MaintainConfig.Catalog catalog, String schema, String step);

        /** After the step ended. */
        void finished(StepOutcome outcome);
    }

    private final MaintainConfig config;
    private final Map<String, MaintenanceStep> registry;
    private final boolean dryRun;
    private final int parallelism;
    private final Observer observer;
    private final Consumer<String> warn;
    /** The message of a step that did not run because the run was stopped. */
    static final String STOPPED_MESSAGE = "the run was stopped (SIGTERM/SIGINT)";

    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<Runnable> stoppers = new CopyOnWriteArrayList<>();
    /** One Pushgateway channel for the whole run (each push bounded by its timeout; after a failure the rest are skipped). */
    private final PushChannel channel;
    /** Where each catalog's steps' last successful runs are recorded, or null (no state_schema). */
    private final RunLedger ledger;

    /**
     * @param config the validated configuration
     * @param registry the step adapters by name
     * @param dryRun whether every step runs as a dry run (nothing changed, nothing pushed)
     * @param parallelism how many catalogs run at once (1 or more)
     * @param observer told about each step
     * @param warn where Pushgateway failures go
     */
    public MaintainRun(MaintainConfig config, Map<String, MaintenanceStep> registry, boolean dryRun, int parallelism, Observer observer,
                       Consumer<String> warn) {
        this.config = config;
        this.registry = registry;
        this.dryRun = dryRun;
        this.parallelism = Math.max(1, parallelism);
        this.observer = observer;
        this.warn = warn;
        this.channel = config.pushgateway() == null ? null : new PushChannel(config.pushgateway(), PushChannel.DEFAULT_TIMEOUT);
        this.ledger = config.stateSchema() == null ? null : new RunLedger(config.stateSchema(), toolVersion());
    }

    /** Stops at the next safe point: running steps are asked to stop (their batch in flight commits); nothing new starts. */
    public void requestStop() {
        stop.set(true);
        stoppers.forEach(Runnable::run);
    }

    /**
     * Runs every catalog.
     *
     * @return the outcomes per catalog, in configuration order; each list holds every step of every schema
     * @throws InterruptedException when the calling thread is interrupted while waiting for the catalogs
     */
    public List<List<StepOutcome>> execute() throws InterruptedException {
        long runStart = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(parallelism, r -> {
            Thread t = new Thread(r, "maintain-catalog");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<List<StepOutcome>>> futures = new ArrayList<>();
            for (MaintainConfig.Catalog c : config.catalogs()) {
                futures.add(pool.submit(() -> catalog(c, runStart)));
            }
            List<List<StepOutcome>> out = new ArrayList<>();
            for (int i = 0; i < futures.size(); i++) {
                try {
                    out.add(futures.get(i).get());
                } catch (java.util.concurrent.ExecutionException e) {
                    MaintainConfig.Catalog c = config.catalogs().get(i);
                    String why = c.connection().redact("unexpected " + e.getCause().getClass().getSimpleName() + ": "
                            + e.getCause().getMessage());
                    List<StepOutcome> failed = new ArrayList<>();
                    for (StepConfig s : c.steps()) {
                        failed.add(new StepOutcome(c.name(), null, s.name(), Status.error, Reason.INTERNAL, why, null, 0));
                    }
                    out.add(failed);
                }
            }
            return out;
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    /**
     * What an execute run would do, for the confirmation on a terminal: per catalog, its schemas and each step's
     * {@link MaintenanceStep#plan} (the dry-run counts its command asks with), or why it is skipped, not due or cannot
     * run. Changes nothing, takes no lock, pushes nothing; a catalog that cannot be reached says so and the others are
     * still listed.
     *
     * @return the lines, indented by catalog, schema and step
     */
    public List<String> plan() {
        List<String> lines = new ArrayList<>();
        for (MaintainConfig.Catalog c : config.catalogs()) {
            lines.add("catalog " + c.name() + " (" + c.connection().describe() + "):");
            List<String> schemas;
            try {
                if (c.failure() != null) {
                    throw c.failure();
                }
                schemas = c.allSchemas() ? discover(c) : c.schemas();
            } catch (JanitorException e) {
                lines.add("  cannot be maintained: " + c.connection().redact(e.getMessage()));
                continue;
            }
            for (String schema : schemas) {
                lines.add("  schema " + schema + ":");
                for (StepConfig s : c.steps()) {
                    lines.add("    " + s.name() + ": " + planOf(c, schema, schemas, s));
                }
            }
        }
        return lines;
    }

    /** The storage steps' consulted catalogs: the catalog's own consult keys, and the schemas this run passes over. */
    private static ConsultOptions consultOf(MaintainConfig.Catalog c, List<String> schemas) {
        return ConsultOptions.defaults().withAlsoCatalogs(c.alsoCatalogs()).withExcludedSchemas(c.excludeCatalogSchemas())
                .withConsultServer(c.consultServer()).withRunSchemas(schemas);
    }

    private String planOf(MaintainConfig.Catalog c, String schema, List<String> schemas, StepConfig s) {
        MaintenanceStep step = registry.get(s.name());
        if (step.unavailableReason() != null) {
            return "skipped (" + step.unavailableReason() + ")";
        }
        try {
            if (ledger != null && s.every() != null) {
                RunLedger.Due due = ledger.due(c.connection(), c.name(), schema, s.name(), s.every());
                if (!due.due()) {
                    return "not due (every " + Durations.format(s.every()) + "; next due at " + due.nextDue() + ")";
                }
            }
            String text = step.plan(new StepContext(c.name(), c.connection(), schema, c.lockName(), true, null, r -> { },
                    consultOf(c, schemas)), s);
            return text == null ? "read-only" : text;
        } catch (JanitorException | RuntimeException e) {
            return "(no count: " + c.connection().redact(String.valueOf(e.getMessage())) + ")";
        }
    }

    private List<StepOutcome> catalog(MaintainConfig.Catalog c, long runStart) {
        long catalogStart = System.nanoTime();
        List<StepOutcome> out = new ArrayList<>();
        List<String> schemas;
        try {
            if (c.failure() != null) {
                // e.g. its password file cannot be read: this catalog's failure, the others run
                throw c.failure();
            }
            requireSessionBound(c);
            schemas = c.allSchemas() ? discover(c) : c.schemas();
        } catch (JanitorException e) {
            boolean stopped = stop.get() && ConnectionSpec.loginStopped(e);
            for (StepConfig s : c.steps()) {
                // SIGTERM/SIGINT while logging in to survey the catalog: its steps did not run (not a connection failure)
                out.add(stopped ? new StepOutcome(c.name(), null, s.name(), Status.not_run, null, STOPPED_MESSAGE, null, 0)
                        : new StepOutcome(c.name(), null, s.name(), Status.error, e.reason(), c.connection().redact(e.getMessage()), null, 0));
            }
            if (!out.isEmpty()) {
                // said once on stderr too (not only in the result on stdout), so that a scheduler's mail shows it
                observer.finished(out.get(0));
            }
            return out;
        }
        for (String schema : schemas) {
            StepOutcome blocking = null;
            for (StepConfig s : c.steps()) {
                if (blocking != null && !stop.get()) {
                    // the catalog cannot be used: this step fails as the first did (its status, reason and exit code),
                    // not started; said once on stderr (by the failed step), in full in the result
                    out.add(new StepOutcome(c.name(), schema, s.name(), Status.error, blocking.reason(), "not started: "
                            + blocking.step() + " failed on this catalog (" + blocking.reason().name().toLowerCase(java.util.Locale.ROOT)
                            + "): " + blocking.message(), null, 0));
                    continue;
                }
                observer.starting(c, schema, s.name());
                StepOutcome o;
                if (stop.get()) {
                    o = new StepOutcome(c.name(), schema, s.name(), Status.not_run, null, STOPPED_MESSAGE, null, 0);
                } else {
                    AtomicBoolean stopSeen = new AtomicBoolean();
                    o = stoppedIfSo(step(c, schema, schemas, s, runStart, catalogStart, stopSeen), stopSeen.get());
                    if (o.status() == Status.error && CATALOG_WIDE.contains(o.reason())) {
                        blocking = o;
                    }
                }
                observer.finished(o);
                out.add(o);
            }
        }
        return out;
    }

    /** @param stopSeen set when the stop flag was up as the step returned or failed (it was running when the stop came) */
    private StepOutcome step(MaintainConfig.Catalog c, String schema, List<String> schemas, StepConfig s, long runStart,
                             long catalogStart, AtomicBoolean stopSeen) {
        MaintenanceStep step = registry.get(s.name());
        if (step.unavailableReason() != null) {
            return new StepOutcome(c.name(), schema, s.name(), Status.skipped, null, step.unavailableReason(), null, 0);
        }
        Duration budget = s.runBudget();
        budget = min(budget, left(config.runBudget(), runStart));
        budget = min(budget, left(c.runBudget(), catalogStart));
        if (budget != null && (budget.isNegative() || budget.isZero())) {
            return new StepOutcome(c.name(), schema, s.name(), Status.skipped, null,
                    "run budget spent (" + (spent(left(c.runBudget(), catalogStart)) ? "the catalog's run_budget" : "the run's run_budget")
                            + "); the next run continues", null, 0);
        }
        MaintenanceRunReporter reporter = MaintenanceRunReporter.create(dryRun ? null : channel, config.pushgatewayJob(),
                c.name(), schema, s.name(), warn);
        Map<String, MaintenanceRunReporter.PerRun> cadence = s.every() == null ? Map.of()
                : Map.of(EVERY_GAUGE, new MaintenanceRunReporter.PerRun(s.every().toMillis() / 1000.0,
                "The step's configured period (maintain 'every'), seconds; 0 or absent when it runs every time."));
        RunLedger.Due due = null;
        if (ledger != null) {
            try {
                due = ledger.due(c.connection(), c.name(), schema, s.name(), s.every());
            } catch (JanitorException e) {
                return new StepOutcome(c.name(), schema, s.name(), Status.error, e.reason(), c.connection().redact(e.getMessage()),
                        null, 0);
            }
            if (!due.due()) {
                // nothing started, nothing changed: only the period is pushed, so the staleness alert allows for it
                reporter.pushOnly(cadence);
                return new StepOutcome(c.name(), schema, s.name(), Status.skipped, null, "not due: every "
                        + Durations.format(s.every()) + ", last successful run started " + due.lastSuccessStart() + "; next due at "
                        + due.nextDue(), null, 0, NOT_DUE, due.lastSuccessStart(), due.nextDue());
            }
        }
        long t0 = System.nanoTime();
        List<Runnable> mine = new ArrayList<>();
        StepContext ctx = new StepContext(c.name(), c.connection(), schema, c.lockName(), dryRun, budget, r -> {
            mine.add(r);
            stoppers.add(r);
            if (stop.get()) {
                r.run();
            }
        }, consultOf(c, schemas));
        String notPossible = step.notPossibleBecause(ctx, s);
        if (notPossible != null && !s.required()) {
            // nothing pushed: a step that never starts is not a run that never succeeded
            return new StepOutcome(c.name(), schema, s.name(), Status.skipped, null, notPossible, null, 0);
        }
        reporter.started();
        try {
            StepResult r;
            try {
                r = step.run(ctx, s);
            } finally {
                stopSeen.set(stop.get());
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            if (r.skippedReason() != null) {
                if (s.required()) {
                    reporter.failed();
                    return new StepOutcome(c.name(), schema, s.name(), Status.error, r.skippedBecause() == null ? Reason.CONFIG
                            : r.skippedBecause(), "required step not possible: " + r.skippedReason(), null, secs);
                }
                return new StepOutcome(c.name(), schema, s.name(), Status.skipped, null, r.skippedReason(), null, secs);
            }
            // a completed run pushes its gauges as its command does (MaintenanceRunner), whatever its exit code
            Map<String, MaintenanceRunReporter.PerRun> gauges = new java.util.LinkedHashMap<>(r.gauges());
            gauges.putAll(cadence);
            reporter.succeeded(gauges);
            if (r.exitCode() != 0 && r.exitCode() != Reason.FINDINGS.exitCode()) {
                // completed, but its command exits with a failure (e.g. 13: files the store could not delete): an error with a result
                Reason why = reasonOf(r.exitCode());
                return new StepOutcome(c.name(), schema, s.name(), Status.error, why, "completed with exit code " + r.exitCode()
                        + " (" + why.name().toLowerCase(java.util.Locale.ROOT) + "); see the result", r.result(), secs);
            }
            Instant next = null;
            // a run stopped by its budget, a stop request or max-batches is not complete: it stays due, so the next run continues it
            boolean complete = !(r.result() instanceof dev.ducklake.janitor.ops.runtime.MaintenanceResult m)
                    || !(m.budgetExhausted() || m.stopRequested() || m.maxBatchesReached());
            if (ledger != null && !dryRun && complete) {
                try {
                    ledger.recordSuccess(c.connection(), c.name(), schema, s.name(), due.now());
                    next = s.every() == null ? null : due.now().plus(s.every()).minus(RunLedger.slack(s.every()));
                } catch (JanitorException e) {
                    // the step succeeded; the next run only runs it again
                    warn.accept(s.name() + " on catalog " + c.name() + ", schema " + schema + ": succeeded, but "
                            + c.connection().redact(e.getMessage()) + "; the next run runs it again");
                }
            }
            return new StepOutcome(c.name(), schema, s.name(), r.exitCode() != 0 ? Status.findings : Status.ok, null, null, r.result(), secs,
                    null, due == null ? null : due.lastSuccessStart(), next);
        } catch (JanitorException e) {
            reporter.failed();
            if (stop.get() && ConnectionSpec.loginStopped(e)) {
                // SIGTERM/SIGINT while the step was logging in: nothing was done, so it did not run (not a connection failure)
                return new StepOutcome(c.name(), schema, s.name(), Status.not_run, null, STOPPED_MESSAGE
                        + " while the step was logging in; nothing was done", null, (System.nanoTime() - t0) / 1e9);
            }
            return new StepOutcome(c.name(), schema, s.name(), Status.error, e.reason(), c.connection().redact(e.getMessage()), null,
                    (System.nanoTime() - t0) / 1e9);
        } catch (RuntimeException e) {
            reporter.failed();
            return new StepOutcome(c.name(), schema, s.name(), Status.error, Reason.INTERNAL, c.connection().redact("unexpected "
                    + e.getClass().getSimpleName() + ": " + e.getMessage()), null, (System.nanoTime() - t0) / 1e9);
        } finally {
            stoppers.removeAll(mine);
        }
    }

    /**
     * A step that ran while the stop came (or whose store or DuckLake call its run budget cut short) is {@link Status#stopped},
     * whatever it returned: its result counts what was done up to its safe point, not a completed run. A failure it
     * ended with keeps its reason and message.
     */
    private static StepOutcome stoppedIfSo(StepOutcome o, boolean stopSeen) {
        boolean cutShort = o.result() instanceof MaintenanceResult r && r.cutShort();
        if (o.status() == Status.skipped || o.status() == Status.not_run || !(stopSeen || cutShort)) {
            return o;
        }
        String why = stopSeen ? "stopped by SIGTERM/SIGINT at its next safe point"
                : "its run budget ran out during " + ((MaintenanceResult) o.result()).cutShortDuring();
        return new StepOutcome(o.catalog(), o.schema(), o.step(), Status.stopped, o.status() == Status.error ? o.reason() : null,
                o.message() == null ? why : why + "; " + o.message(), o.result(), o.elapsedSeconds(), o.skipReason(),
                o.lastSuccessAt(), o.nextDueAt());
    }

    private static String toolVersion() {
        String v = MaintainRun.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    private static Reason reasonOf(int exitCode) {
        for (Reason r : Reason.values()) {
            if (r.exitCode() == exitCode) {
                return r;
            }
        }
        return Reason.INTERNAL;
    }

    private static Duration left(Duration budget, long startNanos) {
        return budget == null ? null : budget.minusNanos(System.nanoTime() - startNanos);
    }

    private static boolean spent(Duration left) {
        return left != null && (left.isNegative() || left.isZero());
    }

    private static Duration min(Duration a, Duration b) {
        return a == null ? b : b == null ? a : a.compareTo(b) <= 0 ? a : b;
    }

    /**
     * Refuses the whole catalog before its first step when its connection is transaction-pooled ({@link Pooling}): the
     * steps hold session advisory locks, temporary tables and WITH HOLD cursors, and a run that did some steps and
     * refused the others would be half done.
     */
    private static void requireSessionBound(MaintainConfig.Catalog c) throws JanitorException {
        Connection conn;
        try {
            conn = c.connection().open();
        } catch (JanitorException e) {
            // unreachable: each step reports it as before
            return;
        }
        try {
            Pooling.requireSessionBound(conn, c.connection(), "maintain", "session advisory locks, temporary tables and cursors"
                    + " held across transactions for its steps (check and metrics alone work through such a pool)");
        } finally {
            dev.ducklake.janitor.pg.Transactions.closeQuietly(conn);
        }
    }

    private static List<String> discover(MaintainConfig.Catalog c) throws JanitorException {
        try (Connection conn = c.connection().open()) {
            List<String> found = CatalogDiscovery.catalogSchemas(conn);
            if (found.isEmpty()) {
                throw CatalogDiscovery.noCatalog(c.connection().database());
            }
            return found;
        } catch (SQLException e) {
            throw new JanitorException(Reason.DATABASE_ERROR, "Could not list the DuckLake catalogs of " + c.connection().describe()
                    + ": " + c.connection().redact(e.getMessage()), e);
        }
    }
}
