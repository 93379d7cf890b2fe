package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.maintain.OptionKind;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.ops.runtime.MaintenanceOperation;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.expiresnapshots.ExpireSnapshots;
import dev.ducklake.janitor.ops.expiresnapshots.ExpireSnapshotsOptions;
import dev.ducklake.janitor.ops.expiresnapshots.ExpireSnapshotsResult;
import dev.ducklake.janitor.ops.expiresnapshots.OlderThan;
import dev.ducklake.janitor.pg.ConnectionSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** {@code ducklake-janitor expire-snapshots}: parses flags, runs {@link ExpireSnapshots} through {@link MaintenanceRunner}, prints. */
@Command(name = "expire-snapshots", mixinStandardHelpOptions = true,
        resourceBundle = "dev.ducklake.janitor.cli.ExpireSnapshotsCommand",
        description = {"Expires DuckLake snapshots directly in the PostgreSQL catalog, with the semantics of DuckLake 1.5.5's "
                + "ducklake_expire_snapshots: the snapshots go, and with them every catalog row no remaining snapshot can see "
                + "(tables, files, stats, views, schemas, tags, macros, inlined tables). Removed data and delete files are "
                + "queued in ducklake_files_scheduled_for_deletion (delete them from storage later with "
                + "cleanup-old-files, this tool's counterpart of DuckLake's ducklake_cleanup_old_files); no file is deleted here.",
            "Works oldest first in batches of snapshots, one transaction each; a run stopped anywhere leaves a consistent "
                + "catalog and the next run continues. Never expires the newest snapshot nor one younger than --min-age.",
            "Do not run DuckLake's own expiry or CHECKPOINT at the same time: they do not take the janitor's advisory lock.",
            "A dry run (--dry-run) changes nothing and takes no lock; it reports per batch what would go."})
public final class ExpireSnapshotsCommand extends MaintenanceCommand<ExpireSnapshotsResult> {

    static final String OPERATION = "expire-snapshots";

    public ExpireSnapshotsCommand() {
        super(OPERATION, ExpireSnapshotsResult.class);
    }

    @StepOptions.Kind(OptionKind.DURATION_OR_INSTANT)
    @Option(names = "--older-than", paramLabel = "T",
            description = "Expire snapshots whose snapshot_time is strictly before T. T is an ISO-8601 instant with offset or Z "
                    + "(2026-11-30T12:00:00Z, fractional seconds allowed) or a duration counted back from the server's now() "
                    + "at the start of the run (" + dev.ducklake.janitor.Durations.GRAMMAR + "; docs/durations.md). Default: none.")
    String olderThan;

    @Option(names = "--retain-last", paramLabel = "N",
            description = "Never expire the newest N snapshots (N >= 1). With --older-than, a snapshot goes only when both allow it. "
                    + "Default: none.")
    Integer retainLast;

    @Option(names = "--versions", paramLabel = "ID", split = ",",
            description = "Expire exactly these snapshot ids (comma-separated); not with --older-than / --retain-last. "
                    + "Without any of the three the catalog's own expire_older_than option is used; without that, a usage error. "
                    + "Default: none.")
    List<Long> versions;

    @StepOptions.Kind(OptionKind.DURATION)
    @Option(names = "--min-age", paramLabel = "D", defaultValue = "1h",
            description = "Never expire a snapshot younger than the duration D (30s, 40m, 12h, 7d, ...), whatever the other options "
                    + "say: an open DuckLake "
                    + "transaction may still need it for its conflict check. 0s is allowed. Default: ${DEFAULT-VALUE}.")
    String minAge;

    @Override
    public Integer call() throws JanitorException {
        prepare();
        return runOperation();
    }

    /**
     * Checks the criteria ({@code maintain} calls this on a command parsed from a step). A unit of work here is a
     * snapshot: the --batch-size range and default are expire-snapshots' own ({@link Operations}).
     */
    @Override
    public void prepare() throws JanitorException {
        criteria();
    }

    /** Checks the criteria flags before anything connects. */
    private Criteria criteria() throws JanitorException {
        Duration min = ExpireSnapshotsOptions.parseMinAge(minAge);
        Criteria c = new Criteria(olderThan == null ? null : OlderThan.parse(olderThan, "--older-than"), retainLast, versions, min);
        ExpireSnapshotsOptions.builder().olderThan(c.olderThan()).retainLast(c.retainLast()).versions(c.versions())
                .minAge(c.minAge()).build().validate();
        return c;
    }

    private record Criteria(OlderThan olderThan, Integer retainLast, List<Long> versions, Duration minAge) {
    }


    @Override
    public MaintenanceOperation<ExpireSnapshotsResult> create(ConnectionSpec conn, RunOptions options, ProgressListener listener) {
        Criteria c;
        try {
            c = criteria();
        } catch (JanitorException e) {
            throw new IllegalStateException("criteria were validated before the run", e);
        }
        // the run options as given (--statement-timeout's default is the 120 s every command shares, not
        // ExpireSnapshotsOptions.DEFAULT_STATEMENT_TIMEOUT), with the batch size in snapshots, above the lock budget's cap
        return new ExpireSnapshots(conn, ExpireSnapshotsOptions.builder().run(options).batchSize(run.batchSize())
                .olderThan(c.olderThan()).retainLast(c.retainLast()).versions(c.versions()).minAge(c.minAge()).build(), listener);
    }

    /** The per-run gauges pushed after a successful execute run (names as in the README). */
    @Override
    public Map<String, MaintenanceRunReporter.PerRun> pushedGauges(ExpireSnapshotsResult r) {
        return new PerRunGauges()
                .add("ducklake_maintenance_snapshots_expired_last_run", r.snapshotsExpired(),
                        "Snapshots expired by the last successful run.")
                .add("ducklake_maintenance_data_files_scheduled_last_run", r.dataFilesScheduled(),
                        "Data files queued for deletion by the last successful run.")
                .add("ducklake_maintenance_delete_files_scheduled_last_run", r.deleteFilesScheduled(),
                        "Delete files queued for deletion by the last successful run.")
                .add("ducklake_maintenance_tables_removed_last_run", r.tablesRemoved(),
                        "DuckLake tables removed by the last successful run.")
                .add("ducklake_maintenance_inlined_tables_dropped_last_run", r.inlinedTablesDropped(),
                        "Inlined tables dropped by the last successful run.")
                .map();
    }

    /** Asks with the count of snapshots a dry run finds (the dry run takes no lock and writes nothing). */
    @Override
    public String confirmation(ConnectionSpec conn, List<String> schemas, RunOptions options) throws JanitorException {
        long snapshots = 0;
        for (String schema : schemas) {
            snapshots += create(conn, options.toBuilder().metadataSchema(schema).dryRun(true).build(), ProgressListener.NONE).execute()
                    .snapshotsExpired();
        }
        return String.format(Locale.ROOT, "Expire %d snapshot(s) in %s? [y/N] ", snapshots, Render.where(conn, schemas));
    }

    @Override
    public long relationsDropped(ExpireSnapshotsResult r) {
        return r.dryRun() ? 0 : r.inlinedTablesDropped();
    }

    @Override
    public List<String> totalFields(boolean dryRun) {
        return dryRun ? List.of("snapshots_would_expire", "data_files_would_schedule", "delete_files_would_schedule",
                "tables_would_remove", "inlined_tables_would_drop", "other_rows_would_delete", "inlined_rows_would_delete")
                : List.of("snapshots_expired", "data_files_scheduled", "delete_files_scheduled", "tables_removed",
                "inlined_tables_dropped", "other_rows_deleted", "inlined_rows_deleted", "remaining_selected");
    }


    @Override
    public void printText(PrintWriter out, ConnectionSpec conn, ExpireSnapshotsResult r, boolean signalled) {
        out.printf(Locale.ROOT, "%s%s on %s, schema %s (DuckLake format %s)%n", OPERATION, r.dryRun() ? " (dry run)" : "",
                conn.describe(), r.schema(), r.formatVersion());
        out.printf(Locale.ROOT, "  %-30s %s%n", "criterion", r.criterion());
        out.printf(Locale.ROOT, "  %-30s %s%n", "cutoff", r.cutoff() == null ? "-" : r.cutoff());
        out.printf(Locale.ROOT, "  %-30s %s%n", "min-age protects from", r.minAgeCutoff() == null ? "-" : r.minAgeCutoff());
        // a dry run says what an execute run would do, an execute run what it did (the JSON keys say the same)
        boolean dry = r.dryRun();
        row(out, dry ? "would expire snapshots" : "expired snapshots", r.snapshotsExpired());
        row(out, dry ? "would schedule data files" : "scheduled data files", r.dataFilesScheduled());
        row(out, dry ? "would schedule delete files" : "scheduled delete files", r.deleteFilesScheduled());
        row(out, dry ? "would remove tables" : "removed tables", r.tablesRemoved());
        row(out, dry ? "would drop inlined tables" : "dropped inlined tables", r.inlinedTablesDropped());
        row(out, dry ? "would delete other rows" : "deleted other rows", r.otherRowsDeleted());
        row(out, dry ? "would delete dead inlined rows" : "deleted dead inlined rows", r.inlinedRowsDeleted());
        out.printf(Locale.ROOT, "  %-30s %s%n", "oldest retained snapshot", r.oldestRetainedSnapshot());
        row(out, "batches", r.batches());
        row(out, "retries", r.run().retries());
        if (r.expiredRanges() != null) {
            out.printf(Locale.ROOT, "  %-30s %s%n", "snapshot ranges that would go", summary(r.expiredRanges().stream()
                    .map(g -> g.first() == g.last() ? Long.toString(g.first()) : g.first() + ".." + g.last()).toList()));
        }
        if (r.removedTables() != null) {
            out.printf(Locale.ROOT, "  %-30s %s%n", "tables that would go", summary(r.removedTables().stream()
                    .map(x -> (x.schemaName() == null ? "" : x.schemaName() + ".") + x.tableName() + " (table_id " + x.tableId() + ")")
                    .toList()));
        }
        if (r.budgetExhausted() || r.stopRequested()) {
            out.println(signalled ? "  stopped: SIGTERM/SIGINT received (the batch in flight committed); rerun to continue"
                    : "  stopped: run budget spent; rerun to continue");
        }
        if (r.maxBatchesReached()) {
            out.println("  stopped: --max-batches reached; rerun to continue");
        }
        for (String w : r.warnings()) {
            out.println("  warning: " + w);
        }
        out.printf(Locale.ROOT, "  %-30s %s%n", "elapsed", Render.seconds(r.elapsedSeconds()));
        out.flush();
    }

    /** The first {@value #LISTED} items, then how many more the JSON output lists. */
    private static String summary(List<String> items) {
        if (items.isEmpty()) {
            return "-";
        }
        String head = String.join(", ", items.subList(0, Math.min(LISTED, items.size())));
        return items.size() <= LISTED ? head : head + " and " + (items.size() - LISTED) + " more (all in --output json)";
    }

    private static final int LISTED = 10;

    private static void row(PrintWriter out, String label, long value) {
        out.printf(Locale.ROOT, "  %-30s %d%n", label, value);
    }
}
