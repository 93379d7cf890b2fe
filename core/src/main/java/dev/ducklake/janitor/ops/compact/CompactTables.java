package dev.ducklake.janitor.ops.compact;

import dev.ducklake.janitor.retry.FailureKind;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.ops.runtime.MaintenanceRun;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.retry.RetryLoop;
import dev.ducklake.janitor.retry.RetryPolicy;
import dev.ducklake.janitor.ops.runtime.RunFigures;
import dev.ducklake.janitor.ops.runtime.StoppableOperation;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.pg.SqlState;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code flush-inlined-data} and {@code compact}: plans over JDBC ({@link CompactionPlanner}, no ATTACH), then, for an
 * execute run, calls DuckLake's own function table by table in an in-process DuckDB ({@link DuckLakeEngine}).
 *
 * <p>Order of an execute run: inspect the catalog and take the advisory lock (the shared runtime,
 * {@link MaintenanceRun}); refuse a format the engine cannot write ({@link Reason#ENGINE_UNAVAILABLE}: DuckLake 1.5.5
 * writes {@value DuckLakeEngine#WRITABLE_FORMAT} and would migrate anything else); measure what ATTACH would scan and refuse
 * a bloated schema ({@link Reason#ATTACH_BLOATED}); plan; start DuckDB only when a table has work; then per table (at most
 * --max-tables) its calls in DuckLake CHECKPOINT's order (flush; merge, then rewrite), each in its own DuckDB transaction.
 * A transaction conflict (a writer committing at the same time) is retried by {@link RetryPolicy} with its backoff; the run
 * budget and the stop signal are checked before each call, and a call in flight is cancelled when a stop is requested or
 * the budget runs out ({@link DuckLakeEngine#call(String, dev.ducklake.janitor.retry.Bounds)}: DuckDB rolls its
 * transaction back, the table is {@code stopped} and the next run does it again; docs/stops-and-budgets.md). Each call
 * commits on its own, so a stopped or failed run leaves consistent tables: run it again. Afterwards the catalog is planned again for
 * {@code remaining_tables_with_work}. A dry run plans and reports the exact calls; it takes no lock and ATTACHes nothing
 * (it only checks that DuckDB and its extensions would start, once per run: {@link EngineProbe}).
 */
public final class CompactTables extends StoppableOperation<CompactResult> {

    private final ConnectionSpec spec;
    private final CompactOptions options;
    private final ProgressListener listener;
    /** A dry run's check of the engine, shared by the schemas of a run ({@link EngineProbe}). */
    private final EngineProbe probe;
    /** Set when the run's stop request or budget cancelled a DuckLake call in flight ({@link CompactResult#stoppedDuring}). */
    private String stoppedDuring;

    /** {@link CompactResult#stoppedDuring} of a run whose stop or budget cancelled a DuckLake call in flight. */
    public static final String STOPPED_DURING_CALL = "ducklake_call";

    /**
     * @param spec where the catalog database is
     * @param options what to do
     * @param listener where progress goes
     */
    public CompactTables(ConnectionSpec spec, CompactOptions options, ProgressListener listener) {
        this(spec, options, listener, new EngineProbe());
    }

    /**
     * @param spec where the catalog database is
     * @param options what to do
     * @param listener where progress goes
     * @param probe a dry run's check of the engine, kept for the run: pass the same one to every schema's operation of a
     *     run so that its dry runs start DuckDB once (each still warns when the engine could not start)
     */
    public CompactTables(ConnectionSpec spec, CompactOptions options, ProgressListener listener, EngineProbe probe) {
        this.spec = spec;
        this.options = options;
        this.listener = listener;
        this.probe = java.util.Objects.requireNonNull(probe, "probe");
    }

    /**
     * {@inheritDoc}
     *
     * @throws JanitorException USAGE for invalid options; CONNECTION, NOT_A_CATALOG, UNSUPPORTED_VERSION, LOCK_HELD from the
     *     runtime; ENGINE_UNAVAILABLE for a format the engine cannot write, a missing driver or extension; ATTACH_BLOATED when
     *     ATTACH would scan more than the limits; DATABASE_ERROR when a call failed (after retries for conflicts); the
     *     tables done before are kept
     */
    @Override
    protected CompactResult run() throws JanitorException {
        options.validate();
        boolean dry = options.run().dryRun();
        try (MaintenanceRun run = MaintenanceRun.open(spec, options.run(), listener, stopFlag())) {
            CatalogInfo info = run.inspectAndLock();
            String schema = info.schema();
            if (!plannable(info.version())) {
                throw new JanitorException(Reason.ENGINE_UNAVAILABLE, "The catalog in schema '" + schema + "' has format "
                        + info.version().text() + "; DuckLake 1.5.5 (the engine of " + options.mode().operation() + ") writes format "
                        + DuckLakeEngine.WRITABLE_FORMAT + " and would have to migrate this one first. Nothing was changed.");
            }
            if (!dry && !DuckLakeEngine.WRITABLE_FORMAT.equals(info.version().text())) {
                throw new JanitorException(Reason.ENGINE_UNAVAILABLE, "The catalog in schema '" + schema + "' has format "
                        + info.version().text() + ", which DuckLake 1.5.5 (the engine of " + options.mode().operation()
                        + ") cannot write: it writes format " + DuckLakeEngine.WRITABLE_FORMAT + " only. Use DuckLake's own "
                        + "functions from a DuckDB release that writes " + info.version().text() + ". Nothing was changed.");
            }
            AttachCost cost = run.queries().readOnly("measuring what ATTACH would scan", options.run().statementTimeout(),
                    c -> AttachCost.measure(c, schema));
            String bloat = bloat(cost);
            if (bloat != null) {
                if (!dry) {
                    throw new JanitorException(Reason.ATTACH_BLOATED, "Refusing to ATTACH the catalog in schema '" + schema + "': "
                            + bloat + ". Run drop-orphan-inline-tables (and expire-snapshots) first. Nothing was changed.");
                }
                run.recorder().warn("an execute run would refuse to ATTACH (exit 20): " + bloat);
            }
            List<TablePlan> plans = plan(run, info);
            List<TablePlan> work = plans.stream().filter(TablePlan::hasWork).toList();
            run.recorder().info(String.format(Locale.ROOT, "%s: %d live table(s), %d with work", options.mode().operation(), plans.size(),
                    work.size()));
            List<TableOutcome> outcomes = new ArrayList<>();
            String duckdbVersion = null;
            Map<String, String> extensions = null;
            long done = 0;
            long calls = 0;
            long bytesTaken = 0;
            if (dry) {
                work.forEach(p -> outcomes.add(new TableOutcome(p, "planned", 0, 0, null)));
                work.stream().map(this::stepTooLarge).filter(java.util.Objects::nonNull).forEach(run.recorder()::warn);
                if (!work.isEmpty()) {
                    String dataPath = run.queries().readOnly("reading the data path", options.run().statementTimeout(), c -> dataPath(c, schema));
                    try {
                        probe.check(options.engine(), dataPath);
                    } catch (JanitorException e) {
                        run.recorder().warn("an execute run would stop before starting DuckDB (exit " + e.reason().exitCode() + "): "
                                + e.getMessage());
                    }
                }
            } else if (!work.isEmpty()) {
                String dataPath = run.queries().readOnly("reading the data path", options.run().statementTimeout(), c -> dataPath(c, schema));
                try (DuckLakeEngine engine = DuckLakeEngine.open(options.engine(), spec, schema, dataPath)) {
                    duckdbVersion = engine.duckdbVersion();
                    extensions = engine.extensionVersions();
                    run.recorder().info("DuckLake engine: DuckDB " + duckdbVersion + ", extensions " + extensions);
                    int i = 0;
                    for (TablePlan p : work) {
                        if (options.maxTables() > 0 && i >= options.maxTables()) {
                            outcomes.add(new TableOutcome(p, "deferred", 0, 0, null));
                            continue;
                        }
                        if (!mayCall(run, p, calls, bytesTaken, true)) {
                            outcomes.add(new TableOutcome(p, "deferred", 0, 0, null));
                            continue;
                        }
                        i++;
                        // a merge capped or split by --max-input-files takes part of the table: plan it again and take the
                        // next part while the run may (its budget, --max-batches, --max-bytes), so one run compacts a table
                        // of 100,000 small files in bounded calls instead of one call per run
                        TableOutcome o = null;
                        TablePlan pass = p;
                        // the passes' outputs get data_file_ids from here on: a later split pass leaves them out
                        long newFilesFrom = p.partialMerge() ? nextFileId(run, info) : Long.MAX_VALUE;
                        while (true) {
                            bytesTaken += pass.inputBytes();
                            long committed = run.recorder().batches();
                            TableOutcome step = execute(run, engine, pass);
                            calls += run.recorder().batches() - committed;
                            o = o == null ? step : o.then(step);
                            if (!"done".equals(step.status()) || !pass.partialMerge()) {
                                break;
                            }
                            TablePlan next = replan(run, info, p.tableId(), newFilesFrom);
                            if (next == null || !next.hasWork() || !progressed(pass, next) || !mayCall(run, next, calls, bytesTaken, false)) {
                                break;
                            }
                            pass = next;
                        }
                        outcomes.add(o);
                        if ("done".equals(o.status())) {
                            done++;
                        }
                    }
                }
            }
            long remaining = dry ? work.size() : plan(run, info).stream().filter(TablePlan::hasWork).count();
            return new CompactResult(schema, info.version().text(), options.mode().operation(), dry, duckdbVersion, extensions, cost,
                    plans.size(), work.size(), done, dry ? 0 : work.size() - done, calls,
                    work.stream().mapToLong(TablePlan::inlinedRows).sum(), work.stream().mapToLong(TablePlan::mergeInputFiles).sum(),
                    work.stream().mapToLong(TablePlan::rewriteFiles).sum(), work.stream().mapToLong(TablePlan::inputBytes).sum(),
                    bytesTaken, remaining, List.copyOf(outcomes), run.figures(), stoppedDuring);
        } catch (SQLException e) {
            throw new JanitorException(Reason.DATABASE_ERROR, "Database error: " + spec.redact(e.getMessage()), e);
        }
    }

    /**
     * Whether the run may issue a table's calls now: not past --max-batches, the run budget or a stop, and within
     * --max-bytes. Records why it stops (the budget, a stop, --max-batches).
     *
     * @param first the table's first pass (a table above --max-bytes on its own is named in a warning then)
     */
    private boolean mayCall(MaintenanceRun run, TablePlan p, long calls, long bytesTaken, boolean first) {
        if (options.run().maxBatches() > 0 && calls >= options.run().maxBatches()) {
            run.recorder().stopped(RunFigures.StopReason.MAX_BATCHES);
            return false;
        }
        if (run.budget().shouldStop()) {
            run.recorder().stopped(run.budget().stopRequested() ? RunFigures.StopReason.STOP_REQUESTED : RunFigures.StopReason.RUN_BUDGET);
            return false;
        }
        String tooLarge = stepTooLarge(p);
        if (tooLarge != null) {
            if (first) {
                run.recorder().warn(tooLarge);
            }
            return false;
        }
        if (options.maxBytes() > 0 && bytesTaken + p.inputBytes() > options.maxBytes()) {
            if (first && p.inputBytes() > options.maxBytes()) {
                run.recorder().warn(String.format(Locale.ROOT, "%s.%s needs %d input bytes, more than --max-bytes (%d) on its own:"
                        + " it is never compacted under this cap; raise --max-bytes or bound its merge with --max-input-files",
                        p.schemaName(), p.tableName(), p.inputBytes(), options.maxBytes()));
            }
            return false;
        }
        return true;
    }

    /**
     * @return why a table's merge cannot be bounded by --max-input-files (a step of two or more files that no lower
     *     target splits, e.g. files of zero bytes), or null; such a table is left untouched rather than the cap broken
     */
    private String stepTooLarge(TablePlan p) {
        if (options.maxInputFiles() > 0 && p.mergeInputFilesBound() > options.maxInputFiles()) {
            return String.format(Locale.ROOT, "%s.%s: one DuckLake merge step alone would take %d input files, more than"
                    + " --max-input-files (%d), and no lower target splits it: the table is left untouched; raise"
                    + " --max-input-files (its memory is about 0.2 MB per input file) or run without it",
                    p.schemaName(), p.tableName(), p.mergeInputFilesBound(), options.maxInputFiles());
        }
        return null;
    }

    /** Whether a pass took work off the table (fewer merge inputs or fewer files to rewrite): otherwise stop, never loop. */
    static boolean progressed(TablePlan before, TablePlan after) {
        return after.mergeInputFiles() < before.mergeInputFiles() || after.rewriteFiles() < before.rewriteFiles();
    }

    private TablePlan replan(MaintenanceRun run, CatalogInfo info, long tableId, long newFilesFrom) throws JanitorException {
        return run.queries().readOnly("planning " + options.mode().operation() + " again", options.run().statementTimeout(),
                c -> new CompactionPlanner(c, info, options).planTable(tableId, newFilesFrom));
    }

    private long nextFileId(MaintenanceRun run, CatalogInfo info) throws JanitorException {
        return run.queries().readOnly("reading the next data file id", options.run().statementTimeout(),
                c -> new CompactionPlanner(c, info, options).nextFileId());
    }

    /** Formats whose layout the planner reads (ducklake_schema_versions.table_id exists from 0.4 on). */
    private static boolean plannable(FormatVersion v) {
        return switch (v) {
            case V0_1, V0_2, V0_3_DEV1, V0_3 -> false;
            default -> true;
        };
    }

    private List<TablePlan> plan(MaintenanceRun run, CatalogInfo info) throws JanitorException {
        return run.queries().readOnly("planning " + options.mode().operation(), options.run().statementTimeout(),
                c -> new CompactionPlanner(c, info, options).plan());
    }

    /** @return why ATTACH would be too costly, or null */
    private String bloat(AttachCost cost) {
        EngineSettings e = options.engine();
        if (e.maxAttachInlinedTables() > 0 && cost.inlinedTables() > e.maxAttachInlinedTables()) {
            return String.format(Locale.ROOT, "the metadata schema holds %,d inlined tables (registered or leaked), more than "
                    + "--max-attach-inlined-tables %,d", cost.inlinedTables(), e.maxAttachInlinedTables());
        }
        if (e.maxAttachColumns() > 0 && cost.columns() > e.maxAttachColumns()) {
            return String.format(Locale.ROOT, "the metadata schema's tables have %,d pg_attribute rows, more than "
                    + "--max-attach-columns %,d", cost.columns(), e.maxAttachColumns());
        }
        return null;
    }

    /**
     * Runs a table's calls, retrying transaction conflicts, at the table's session target when it has one (SET before,
     * RESET after, also after a failure or a stop).
     *
     * @return {@code done}, or {@code stopped} when the run's stop request or budget ended the calls (a call cancelled
     *     in flight and rolled back, or not started; the calls before it committed)
     * @throws JanitorException DATABASE_ERROR when a call failed (after retries for conflicts) or DuckDB refused the SET
     *     or RESET; a RESET that fails after a failed call is attached to the call's error as suppressed and warned about,
     *     never thrown in its place
     */
    TableOutcome execute(MaintenanceRun run, DuckLakeEngine engine, TablePlan p) throws JanitorException {
        long t0 = System.nanoTime();
        List<String> output = new ArrayList<>();
        if (p.sessionTargetFileSize() != null) {
            setting(engine, p, DuckLakeCalls.setTargetFileSize(p.sessionTargetFileSize()));
        }
        Calls c;
        try {
            c = calls(run, engine, p, output);
        } catch (JanitorException | RuntimeException e) {
            if (p.sessionTargetFileSize() != null) {
                try {
                    setting(engine, p, DuckLakeCalls.resetTargetFileSize());
                } catch (JanitorException | RuntimeException reset) {
                    // the call's failure is the one to report: the RESET's (e.g. the engine gone under both) rides along
                    e.addSuppressed(reset);
                    run.recorder().warn("the RESET after a failed call failed too (the call's error is reported): "
                            + reset.getMessage());
                }
            }
            throw e;
        }
        if (p.sessionTargetFileSize() != null) {
            setting(engine, p, DuckLakeCalls.resetTargetFileSize());
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (c.cancelledInFlight()) {
            stoppedDuring = STOPPED_DURING_CALL;
        }
        if (c.stopped()) {
            return new TableOutcome(p, "stopped", c.attempts(), seconds, List.copyOf(output));
        }
        run.recorder().info(String.format(Locale.ROOT, "%s.%s: %s in %.2f s%s", p.schemaName(), p.tableName(),
                String.join(", ", p.reasons()), seconds, output.isEmpty() ? "" : " -> " + output));
        return new TableOutcome(p, "done", c.attempts(), seconds, List.copyOf(output));
    }

    /**
     * What a table's calls did.
     *
     * @param attempts attempts made, retries included
     * @param stopped whether the run's stop request or budget ended them before the last one committed
     * @param cancelledInFlight whether that stop cancelled a call in flight (rolled back)
     */
    private record Calls(int attempts, boolean stopped, boolean cancelledInFlight) {
    }

    private static void setting(DuckLakeEngine engine, TablePlan p, String sql) throws JanitorException {
        try {
            engine.call(sql);
        } catch (SQLException e) {
            throw new JanitorException(Reason.DATABASE_ERROR, "DuckDB refused " + sql + " for " + p.schemaName() + "." + p.tableName()
                    + ": " + engine.redact(e.getMessage()), e);
        }
    }

    /**
     * Issues a table's calls in order, each retried on a transaction conflict, each within the run's bounds: a call is
     * not started once a stop is requested or the budget is spent, a call in flight is cancelled then (DuckDB rolls its
     * transaction back; never retried), and a conflict's backoff is not waited past them.
     */
    private Calls calls(MaintenanceRun run, DuckLakeEngine engine, TablePlan p, List<String> output) throws JanitorException {
        int[] attempts = {0};
        for (String call : p.calls()) {
            String what = p.schemaName() + "." + p.tableName() + ": " + call;
            int[] tries = {0};
            Calls stopped = RetryLoop.of(SQLException.class, RetryPolicy.DEFAULT, run.budget(), new RetryLoop.Hooks<SQLException, JanitorException>() {
                @Override
                public FailureKind classify(SQLException e) {
                    return DuckLakeEngine.isConflict(e) ? FailureKind.RETRYABLE : FailureKind.FATAL;
                }

                @Override
                public JanitorException fail(SQLException e, RetryPolicy.Decision d) {
                    return new JanitorException(Reason.DATABASE_ERROR, "DuckLake failed on " + what + " (attempt " + tries[0]
                            + "): " + engine.redact(e.getMessage()) + ". The tables before it are done; rerun to continue.", e);
                }

                @Override
                public void retrying(SQLException e, RetryPolicy.Decision d, int attempt) {
                    run.recorder().warn("transaction conflict on " + what + ", retrying in " + d.backoffMillis() + " ms: "
                            + engine.redact(e.getMessage()));
                }

                @Override
                @SuppressWarnings("unchecked")
                public <V> V waitRefused(SQLException e, RetryPolicy.Decision d) {
                    // the conflicting attempt rolled back: a stop (or a budget too short for the backoff) ends the
                    // table's calls as a stop, not as a failure
                    RunFigures.StopReason why = stopReason(run);
                    run.recorder().stopped(why);
                    run.recorder().warn(what + ": not retried, " + (why == RunFigures.StopReason.STOP_REQUESTED
                            ? "the run was asked to stop" : "the run budget would run out first") + "; the next run does it again");
                    return (V) new Calls(attempts[0], true, false);
                }

                @Override
                public void retried(SQLException e, RetryPolicy.Decision d, int attempt) {
                    run.recorder().retried();
                }
            }).run(() -> {
                attempts[0]++;
                tries[0]++;
                try {
                    output.addAll(engine.call(call, run.budget()));
                    run.recorder().batchCommitted();
                    return null;
                } catch (DuckLakeEngine.Cancelled e) {
                    // the run's bounds, never a conflict: not judged by the retry policy
                    RunFigures.StopReason why = stopReason(run);
                    run.recorder().stopped(why);
                    if (!e.inFlight()) {
                        return new Calls(attempts[0] - 1, true, false);
                    }
                    run.recorder().warn(what + ": cancelled in flight, " + (why == RunFigures.StopReason.STOP_REQUESTED
                            ? "the run was asked to stop (SIGTERM/SIGINT)" : "the run budget ran out")
                            + "; DuckDB rolled the call's transaction back (no snapshot committed); the next run does it again");
                    return new Calls(attempts[0], true, true);
                }
            });
            if (stopped != null) {
                return stopped;
            }
        }
        return new Calls(attempts[0], false, false);
    }

    private static RunFigures.StopReason stopReason(MaintenanceRun run) {
        return run.budget().stopRequested() ? RunFigures.StopReason.STOP_REQUESTED : RunFigures.StopReason.RUN_BUDGET;
    }

    /** The catalog's global {@code data_path}, or null. */
    private static String dataPath(Connection c, String schema) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT value FROM " + Sql.qualified(schema, "ducklake_metadata")
                + " WHERE key = 'data_path' AND scope IS NULL LIMIT 1"); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
