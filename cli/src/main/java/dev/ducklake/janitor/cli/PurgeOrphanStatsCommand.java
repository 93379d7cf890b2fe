package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.ops.runtime.MaintenanceOperation;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunFigures;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStats;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStatsOptions;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStatsResult;
import dev.ducklake.janitor.pg.ConnectionSpec;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** {@code ducklake-janitor purge-orphan-stats}: parses flags, runs {@link PurgeOrphanStats} through {@link MaintenanceRunner}. */
@Command(name = "purge-orphan-stats", mixinStandardHelpOptions = true,
        resourceBundle = "dev.ducklake.janitor.cli.PurgeOrphanStatsCommand",
        description = {"Deletes orphaned statistics rows (the orphaned_stats_rows finding of check): ducklake_table_stats and "
                + "ducklake_table_column_stats rows of table_ids that have no ducklake_table row at all, and per-file stats rows "
                + "(ducklake_file_column_stats, ducklake_file_variant_stats, ducklake_file_partition_value) of data files that no "
                + "longer exist. DuckLake reads both table-stats tables on every commit, so orphans slow every writer.",
            "Never touches the stats of a table_id that has any ducklake_table row. Works in batches of one transaction each "
                + "(a table_id's table stats and column stats together, table stats first); an execute run holds the advisory "
                + "lock (--lock-name) and asks for confirmation on a terminal unless --yes; a dry run (--dry-run) only counts.",
            "Several catalogs: --metadata-schema may be given several times, or --all-metadata-schemas; the exit code is then "
                + "the worst schema's."})
public final class PurgeOrphanStatsCommand extends MaintenanceCommand<PurgeOrphanStatsResult> {

    static final String OPERATION = "purge-orphan-stats";

    public PurgeOrphanStatsCommand() {
        super(OPERATION, PurgeOrphanStatsResult.class);
    }

    @Override
    public Integer call() throws JanitorException {
        return runOperation();
    }


    @Override
    public MaintenanceOperation<PurgeOrphanStatsResult> create(ConnectionSpec conn, RunOptions options, ProgressListener listener) {
        return new PurgeOrphanStats(conn, new PurgeOrphanStatsOptions(options), listener);
    }

    /** The per-run gauges pushed after a successful execute run (names in the README). */
    @Override
    public Map<String, MaintenanceRunReporter.PerRun> pushedGauges(PurgeOrphanStatsResult r) {
        return new PerRunGauges()
                .add("ducklake_maintenance_orphan_stats_rows_deleted_last_run", r.rowsDeletedTotal(),
                        "Orphaned stats rows deleted by the last successful purge-orphan-stats run.")
                .add("ducklake_maintenance_orphan_stats_rows_remaining", r.remaining(),
                        "Orphaned stats rows left after the last successful purge-orphan-stats run.")
                .map();
    }

    @Override
    public void printText(PrintWriter out, ConnectionSpec conn, PurgeOrphanStatsResult r, boolean signalled) {
        out.printf(Locale.ROOT, "%s on %s, schema %s (DuckLake format %s)%s%n", OPERATION, conn.describe(), r.schema(),
                r.formatVersion(), r.dryRun() ? ": DRY RUN, nothing changed" : "");
        for (Map.Entry<String, Long> e : r.orphanRows().entrySet()) {
            out.printf(Locale.ROOT, "  %-34s orphaned %,d%s%n", e.getKey(), e.getValue(),
                    r.dryRun() ? "" : String.format(Locale.ROOT, ", deleted %,d", r.rowsDeleted().get(e.getKey())));
        }
        RunFigures f = r.run();
        String stop = f.stopReason() == RunFigures.StopReason.COMPLETED ? ""
                : " (stopped early: " + (signalled ? "SIGTERM/SIGINT received" : f.stopReason().name().toLowerCase(Locale.ROOT))
                + "; rerun to continue)";
        out.printf(Locale.ROOT, "  %s %,d rows; %d batch(es), %d retries, %d reconnects, remaining %,d, %s%s%n",
                r.dryRun() ? "would delete" : "deleted", r.dryRun() ? r.orphanRowsTotal() : r.rowsDeletedTotal(), f.batches(),
                f.retries(), f.reconnects(), r.remaining(), Render.seconds(f.elapsedSeconds()), stop);
        out.flush();
    }

    /** Asks with the count of a dry run of every schema first. */
    @Override
    public String confirmation(ConnectionSpec conn, List<String> schemas, RunOptions options) throws JanitorException {
        long rows = 0;
        for (String schema : schemas) {
            rows += create(conn, options.toBuilder().metadataSchema(schema).dryRun(true).build(), ProgressListener.NONE).execute().orphanRowsTotal();
        }
        return String.format(Locale.ROOT, "Delete %d orphaned stats row(s) in %s? [y/N] ", rows, Render.where(conn, schemas));
    }

    @Override
    public List<String> totalFields(boolean dryRun) {
        return dryRun ? List.of("orphan_rows_total", "rows_would_delete_total", "remaining")
                : List.of("orphan_rows_total", "rows_deleted_total", "table_ids_purged", "data_file_ids_purged", "remaining");
    }
}
