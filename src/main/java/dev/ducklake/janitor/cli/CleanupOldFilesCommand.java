package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFiles;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.ops.files.CatalogFiles;
import dev.ducklake.janitor.storage.FileStore;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.PrintWriter;
import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code ducklake-janitor cleanup-old-files}: parses flags, calls {@link CleanupOldFiles}, prints. */
@Command(name = "cleanup-old-files", mixinStandardHelpOptions = true,
        description = {"Deletes the files DuckLake scheduled for deletion (ducklake_files_scheduled_for_deletion) whose "
                + "schedule_start is older than --older-than, then their queue rows, in batches; like DuckLake's "
                + "ducklake_cleanup_old_files but without ATTACH and safer: a queue row goes only after its file is gone, "
                + "a file that fails keeps its row and is reported without stopping the run, a missing file counts as "
                + "deleted, and a path a live data or delete file still resolves to is never deleted (row kept, exit 12).",
            "Without --execute it is a dry run: it lists what would be deleted, with sizes, and changes nothing.",
            "Exit codes: 0 done; 12 done, rows kept for a live file (findings); 13 some files could not be deleted or the "
                + "store failed; 2 bad flags."})
public final class CleanupOldFilesCommand implements Callable<Integer> {

    static final String OPERATION = "cleanup-old-files";

    @ParentCommand
    JanitorCommand parent;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    CatalogOptions catalog;

    @Mixin
    StorageOptions storage;

    @Mixin
    PushOptions push;

    @Option(names = "--execute", description = "Delete files and queue rows. Default: off (dry run).")
    boolean execute;

    @Option(names = "--batch-size", paramLabel = "ROWS", defaultValue = "1000",
            description = "Distinct queue entries per batch (one transaction; S3 deletes go out in requests of at most 1,000 "
                    + "keys), 1 to 10000. Default: ${DEFAULT-VALUE}.")
    int batchSize;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean json = catalog.output == CatalogOptions.Output.json;
        ConnectionSpec conn = null;
        try {
            if (batchSize < 1 || batchSize > 10_000) {
                throw new JanitorException(Reason.USAGE, "--batch-size must be between 1 and 10000, got " + batchSize + ".");
            }
            String schema = catalog.singleSchema();
            CleanupOldFilesOptions o = CleanupOldFilesOptions.defaults(schema).withDataPath(storage.dataPath)
                    .withOlderThan(storage.olderThan()).withMinAge(storage.minAge()).withBatchSize(batchSize)
                    .withDryRun(!execute).withLockName(catalog.lockName);
            conn = catalog.connection(parent.env());
            push.validate(parent.env());
            MaintenanceRunReporter reporter = push.reporter(parent.env(), conn, schema, OPERATION, !execute, err);
            CleanupOldFilesResult r;
            try (Connection c = conn.open()) {
                String dataPath = CatalogFiles.resolver(c, schema, storage.dataPath).dataPath();
                reporter.started();
                try (FileStore store = storage.open(dataPath)) {
                    r = CleanupOldFiles.run(c, store, o, StorageOptions.printer(out, err, json));
                } catch (JanitorException | RuntimeException e) {
                    reporter.failed();
                    throw e;
                }
                if (r.failed() == 0) {
                    reporter.succeeded(gauges(r));
                } else {
                    reporter.failed();
                }
            }
            if (json) {
                Render.json(out, Render.envelope(OPERATION, conn, schema, fields(r)));
            } else {
                print(out, r);
            }
            return r.failed() > 0 ? Reason.STORAGE.exitCode() : r.hasFindings() ? Reason.FINDINGS.exitCode() : ExitCodes.OK;
        } catch (java.sql.SQLException e) {
            JanitorException je = StorageOptions.databaseFailure(e, conn);
            if (json) {
                Render.json(out, Render.error(OPERATION, conn, catalog.metadataSchema, je));
            }
            throw je;
        } catch (JanitorException e) {
            if (json) {
                Render.json(out, Render.error(OPERATION, conn, catalog.metadataSchema, e));
            }
            throw e;
        }
    }

    /** Per-run gauges pushed after a successful execute run. */
    static Map<String, MaintenanceRunReporter.PerRun> gauges(CleanupOldFilesResult r) {
        Map<String, MaintenanceRunReporter.PerRun> g = new LinkedHashMap<>();
        g.put("ducklake_maintenance_files_deleted_last_run",
                new MaintenanceRunReporter.PerRun(r.objectsDeleted(), "Files deleted from storage by the last successful cleanup-old-files run."));
        g.put("ducklake_maintenance_queue_rows_deleted_last_run",
                new MaintenanceRunReporter.PerRun(r.queueRowsDeleted(), "ducklake_files_scheduled_for_deletion rows removed by the last successful run."));
        g.put("ducklake_maintenance_files_kept_live_last_run",
                new MaintenanceRunReporter.PerRun(r.keptLive(), "Queue rows kept because a live data or delete file resolves to the same path."));
        return g;
    }

    static Map<String, Object> fields(CleanupOldFilesResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("dry_run", r.dryRun());
        m.put("data_path", r.dataPath());
        m.put("cutoff", r.cutoff().toString());
        m.put("cutoff_source", r.cutoffSource());
        m.put("queue_rows_considered", r.queueRowsConsidered());
        m.put(r.dryRun() ? "files_would_delete" : "files_deleted", r.objectsDeleted());
        if (r.dryRun()) {
            m.put("bytes_would_delete", r.bytesDeleted());
        }
        m.put("queue_rows_deleted", r.queueRowsDeleted());
        m.put("kept_live", r.keptLive());
        m.put("kept_unresolvable", r.keptUnresolvable());
        m.put("failed", r.failed());
        m.put("batches", r.batches());
        m.put("batch_delete_fallback", r.batchDeleteFallback());
        m.put("findings", r.findings());
        return m;
    }

    private static void print(PrintWriter out, CleanupOldFilesResult r) {
        out.printf("cleanup-old-files %s: data path %s, cutoff %s (%s)%n", r.dryRun() ? "(dry run)" : "", r.dataPath(),
                r.cutoff(), r.cutoffSource());
        out.printf("  queue rows older than the cutoff: %d%n", r.queueRowsConsidered());
        if (r.dryRun()) {
            out.printf("  files that would be deleted: %d (%d bytes where the store gave sizes)%n", r.objectsDeleted(), r.bytesDeleted());
        } else {
            out.printf("  files deleted: %d; queue rows deleted: %d%n", r.objectsDeleted(), r.queueRowsDeleted());
        }
        out.printf("  kept: %d rows a live data/delete file still resolves to, %d rows without a usable path; failed: %d%n",
                r.keptLive(), r.keptUnresolvable(), r.failed());
        if (r.batchDeleteFallback()) {
            out.println("  the store rejected batch deletes: single deletes were used");
        }
        for (String f : r.findings()) {
            out.println("  " + f);
        }
        out.flush();
    }
}
