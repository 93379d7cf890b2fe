package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.ops.runtime.MaintenanceOperation;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunFigures;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.compact.CompactMode;
import dev.ducklake.janitor.ops.compact.CompactOptions;
import dev.ducklake.janitor.ops.compact.CompactResult;
import dev.ducklake.janitor.ops.compact.CompactTables;
import dev.ducklake.janitor.ops.compact.DuckLakeCalls;
import dev.ducklake.janitor.ops.compact.EngineProbe;
import dev.ducklake.janitor.ops.compact.TableOutcome;
import dev.ducklake.janitor.ops.compact.TablePlan;
import dev.ducklake.janitor.pg.ConnectionSpec;
import picocli.CommandLine.Mixin;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Base of {@code flush-inlined-data} and {@code compact}: both run {@link CompactTables} (a plan over JDBC, then DuckLake's
 * own functions in an in-process DuckDB) and print its result the same way.
 */
abstract class EngineCommand extends MaintenanceCommand<CompactResult> {

    @Mixin
    EngineOptions engine;

    private final CompactMode mode;

    /**
     * The dry runs' check of the engine, once for all the schemas of this command (maintain sets one per run, shared by
     * its engine steps).
     */
    EngineProbe probe = new EngineProbe();

    EngineCommand(CompactMode mode) {
        super(mode.operation(), CompactResult.class);
        this.mode = mode;
    }

    @Override
    public final Integer call() throws JanitorException {
        return runOperation();
    }

    /** The mode's own options (thresholds) on top of the defaults. */
    abstract CompactOptions modeOptions(CompactOptions defaults);

    @Override
    public final MaintenanceOperation<CompactResult> create(ConnectionSpec conn, RunOptions options, ProgressListener listener) {
        return new CompactTables(conn, engine.apply(modeOptions(CompactOptions.defaults(mode).withRun(options))), listener, probe);
    }

    @Override
    public Map<String, MaintenanceRunReporter.PerRun> pushedGauges(CompactResult r) {
        String p = "ducklake_maintenance_" + mode.operation().replace('-', '_');
        return new PerRunGauges()
                .add(p + "_tables_done_last_run", r.tablesDone(), "Tables whose DuckLake calls ran in the last successful " + mode.operation() + " run.")
                .add(p + "_tables_remaining", r.remainingTablesWithWork(), "Tables still with work after the last successful "
                        + mode.operation() + " run.")
                .map();
    }

    @Override
    public void printText(PrintWriter out, ConnectionSpec conn, CompactResult r, boolean signalled) {
        out.printf(Locale.ROOT, "%s on %s, schema %s (DuckLake format %s)%s%n", r.mode(), conn.describe(), r.schema(), r.formatVersion(),
                r.dryRun() ? ": DRY RUN, nothing changed" : "");
        if (r.duckdbVersion() != null) {
            out.printf(Locale.ROOT, "  engine: DuckDB %s, extensions %s%n", r.duckdbVersion(), r.extensionVersions());
        }
        out.printf(Locale.ROOT, "  ATTACH would scan %,d relations (%,d inlined tables, %,d columns)%n", r.attachCost().relations(),
                r.attachCost().inlinedTables(), r.attachCost().columns());
        for (TableOutcome o : r.tables()) {
            TablePlan p = o.plan();
            out.printf(Locale.ROOT, "  %s.%s (table_id %d) %s%s: %s; %s%n", p.schemaName(), p.tableName(), p.tableId(), o.status(),
                    o.passes() > 1 ? " in " + o.passes() + " capped passes" : "", String.join(", ", p.reasons()), figures(p));
            if (p.sessionTargetFileSize() != null) {
                out.printf(Locale.ROOT, "    %s%n", DuckLakeCalls.setTargetFileSize(p.sessionTargetFileSize()));
            }
            for (String c : p.calls()) {
                out.printf(Locale.ROOT, "    %s%n", c);
            }
        }
        RunFigures f = r.run();
        String stop = f.stopReason() == RunFigures.StopReason.COMPLETED ? ""
                : " (stopped early: " + (signalled ? "SIGTERM/SIGINT received" : f.stopReason().name().toLowerCase(Locale.ROOT))
                + "; rerun to continue)";
        out.printf(Locale.ROOT, "  %d of %d table(s) with work %s, %d call(s), %d retries, %d deferred, %d remaining, %s%s%n",
                r.dryRun() ? r.tablesWithWork() : r.tablesDone(), r.tablesWithWork(), r.dryRun() ? "planned" : "done", r.callsIssued(),
                f.retries(), r.tablesDeferred(), r.remainingTablesWithWork(), Render.seconds(f.elapsedSeconds()), stop);
        if (mode == CompactMode.COMPACT) {
            out.printf(Locale.ROOT, "  input bytes: %,d planned%s%n", r.inputBytes(),
                    r.dryRun() ? "" : String.format(Locale.ROOT, ", %,d taken by this run", r.inputBytesTaken()));
        }
        out.flush();
    }

    private String figures(TablePlan p) {
        if (mode == CompactMode.FLUSH_INLINED_DATA) {
            return String.format(Locale.ROOT, "%,d inlined rows (%,d live) in %d inlined table(s), %,d inlined deletions",
                    p.inlinedRows(), p.liveInlinedRows(), p.inlinedTables(), p.inlinedDeletions());
        }
        return String.format(Locale.ROOT, "%,d live files, %,d below %,d bytes; merge %,d files into %,d in %d group(s)%s; rewrite %,d "
                        + "files (%,d deleted rows, threshold %s); %,d input bytes", p.liveDataFiles(), p.smallFiles(), p.targetFileSize(), p.mergeInputFiles(),
                p.mergeOutputFiles(), p.mergeGroups(), !p.partialMerge() ? ""
                        : String.format(Locale.ROOT, " (this call at most %,d%s%s%s)", p.mergeInputFilesBound(),
                                p.maxCompactedFiles() == null ? "" : ": max_compacted_files " + p.maxCompactedFiles(),
                                p.sessionTargetFileSize() == null || p.sessionTargetFileSize() >= p.targetFileSize() ? ""
                                        : String.format(Locale.ROOT, ", steps split at a target of %,d bytes", p.sessionTargetFileSize()),
                                p.maxFileSize() == null ? ""
                                        : String.format(Locale.ROOT, ", only files below %,d bytes (earlier passes' outputs left out)",
                                                p.maxFileSize())),
                p.rewriteFiles(), p.rewriteDeletedRows(), p.deleteThreshold(), p.inputBytes());
    }

    @Override
    public String confirmation(ConnectionSpec conn, List<String> schemas, RunOptions options) throws JanitorException {
        long tables = 0;
        for (String schema : schemas) {
            tables += create(conn, options.toBuilder().metadataSchema(schema).dryRun(true).build(), ProgressListener.NONE).execute().tablesWithWork();
        }
        return String.format(Locale.ROOT, "Run DuckLake's %s on %d table(s) in %s? [y/N] ", mode.operation(), tables, Render.where(conn, schemas));
    }

    @Override
    public List<String> totalFields(boolean dryRun) {
        return dryRun ? List.of("tables_with_work", "remaining_tables_with_work")
                : List.of("tables_with_work", "tables_done", "tables_deferred", "calls_issued", "remaining_tables_with_work");
    }
}
