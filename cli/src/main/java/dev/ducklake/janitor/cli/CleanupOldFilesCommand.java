package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.ops.runtime.MaintenanceOperation;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFiles;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.pg.ConnectionSpec;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

/** {@code ducklake-janitor cleanup-old-files}: parses flags, runs the engine through {@link MaintenanceRunner}, prints. */
@Command(name = "cleanup-old-files", mixinStandardHelpOptions = true,
        resourceBundle = "dev.ducklake.janitor.cli.CleanupOldFilesCommand",
        description = {"Deletes the files DuckLake scheduled for deletion (ducklake_files_scheduled_for_deletion) whose "
                + "schedule_start is older than --older-than, then their queue rows, in batches; like DuckLake's "
                + "ducklake_cleanup_old_files but without ATTACH and safer: a queue row goes only after its file is gone, "
                + "a file that fails keeps its row and is reported without stopping the run, a missing file counts as "
                + "deleted, and a path a data or delete file of this or of any consulted catalog (the overlapping ones of the database "
                + "and of the server's other databases, --also-catalog) still resolves to is never deleted (row kept, exit 12).",
            "A dry run (--dry-run) lists what would be deleted, with sizes, and changes nothing. An execute run on a "
                + "terminal asks for confirmation unless --yes is given; non-interactive runs (cron) do not ask.",
            "Exit codes: 0 done; 12 done, rows kept for a live file (findings); 13 some files could not be deleted, or "
                + "the store failed; 8 a DuckLake catalog that could reference the files cannot be read (nothing deleted; "
                + "--exclude-catalog-schema for one proven disjoint); 2 bad flags. With several schemas, the worst schema's."})
public final class CleanupOldFilesCommand extends StorageCommand<CleanupOldFilesResult, CleanupOldFilesOptions> {

    static final String OPERATION = "cleanup-old-files";

    public CleanupOldFilesCommand() {
        super(OPERATION, CleanupOldFilesResult.class);
    }

    @Override
    CleanupOldFilesOptions options() throws JanitorException {
        return storage.applyTo(CleanupOldFilesOptions.builder(catalog.metadataSchema)).build();
    }

    @Override
    public MaintenanceOperation<CleanupOldFilesResult> create(ConnectionSpec conn, RunOptions options, ProgressListener listener) {
        return new CleanupOldFiles(conn, base.withRun(options).withConsult(consultOptions(conn)), storage.store::open, filePrinter(),
                listener);
    }

    @Override
    public Map<String, MaintenanceRunReporter.PerRun> pushedGauges(CleanupOldFilesResult r) {
        return new PerRunGauges().label("short_retention", String.valueOf(r.allowShortRetention()))
                .add("ducklake_maintenance_files_deleted_last_run", r.filesDeleted(),
                        "Files deleted from storage by the last successful cleanup-old-files run.")
                .add("ducklake_maintenance_queue_rows_deleted_last_run", r.queueRowsDeleted(),
                        "ducklake_files_scheduled_for_deletion rows removed by the last successful run.")
                .add("ducklake_maintenance_files_kept_live_last_run", r.keptLive(),
                        "Queue rows kept because a live data or delete file resolves to the same path.")
                .add("ducklake_maintenance_bytes_deleted_last_run", r.bytes(),
                        "Bytes freed in storage by the last successful cleanup-old-files run (sizes the store gave before each delete).")
                .add("ducklake_maintenance_files_failed_last_run", r.failed(),
                        "Queued files the store could not delete in the last run (rows kept).")
                .map();
    }

    @Override
    public int exitCode(CleanupOldFilesResult r) {
        return r.exitCode();
    }

    @Override
    public void printText(PrintWriter out, ConnectionSpec conn, CleanupOldFilesResult r, boolean signalled) {
        out.printf("cleanup-old-files%s: schema %s, data path %s, cutoff %s (%s)%n", r.dryRun() ? " (dry run)" : "", r.schema(),
                r.dataPath(), r.cutoff(), r.cutoffSource());
        out.printf("  queue rows older than the cutoff: %d%n", r.queueRowsConsidered());
        if (r.dryRun()) {
            out.printf("  files that would be deleted: %d (%d bytes where the store gave sizes); queue rows that would be deleted: %d%n",
                    r.filesDeleted(), r.bytes(), r.queueRowsDeleted());
            out.printf("  kept: %d rows a live data/delete file still resolves to, %d rows without a usable path; would fail: %d%n",
                    r.keptLive(), r.keptUnresolvable(), r.failed());
        } else {
            out.printf("  files deleted: %d (%d bytes freed where the store gave sizes); queue rows deleted: %d%n",
                    r.filesDeleted(), r.bytes(), r.queueRowsDeleted());
            out.printf("  kept: %d rows a live data/delete file still resolves to, %d rows without a usable path; failed: %d%n",
                    r.keptLive(), r.keptUnresolvable(), r.failed());
        }
        if (r.filesNotFound() > 0) {
            out.printf("  %d queued files were not found where the catalog says they are (their rows %s deleted)%n",
                    r.filesNotFound(), r.dryRun() ? "would be" : "were");
        }
        if (r.allowShortRetention()) {
            out.println("  --allow-short-retention was given: the floor could be undercut");
        }
        if (r.catalogsConsulted().size() > 1 || !r.excludedCatalogSchemas().isEmpty() || !r.databasesNotConsulted().isEmpty()) {
            printConsulted(out, r.catalogsConsulted(), r.excludedCatalogSchemas(), r.databasesNotConsulted());
        }
        if (r.batchDeleteFallback()) {
            out.println("  the store rejected batch deletes: single deletes were used");
        }
        if (r.run().stopReason() != null && r.run().stopReason() != dev.ducklake.janitor.ops.runtime.RunFigures.StopReason.COMPLETED) {
            out.printf("  stopped early (%s%s): the rest is left for the next run%n", signalled ? "signal" : r.run().stopReason(),
                    r.stoppedDuring() == null ? "" : ", during " + r.stoppedDuring());
        }
        printFindings(out, r.findings(), r.findingsTotal());
        printFileListHint(out, r.filesDeleted() + r.keptLive() + r.keptUnresolvable() + r.failed());
        out.flush();
    }

    @Override
    public String confirmation(ConnectionSpec conn, List<String> schemas, RunOptions options) {
        return "Delete the scheduled files of the DuckLake catalog in " + Render.where(conn, schemas) + " from storage? [y/N] ";
    }

    @Override
    public List<String> totalFields(boolean dryRun) {
        return dryRun ? List.of("queue_rows_considered", "files_would_delete", "bytes_would_delete", "queue_rows_would_delete",
                "kept_live", "kept_unresolvable", "files_would_fail")
                : List.of("queue_rows_considered", "files_deleted", "bytes_deleted", "queue_rows_deleted", "kept_live",
                "kept_unresolvable", "files_failed");
    }
}
