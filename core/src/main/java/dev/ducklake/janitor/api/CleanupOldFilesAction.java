package dev.ducklake.janitor.api;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFiles;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.ops.runtime.MaintenanceOperation;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.pg.ConnectionSpec;

/**
 * {@code cleanup-old-files}: deletes the files DuckLake scheduled for deletion
 * ({@code ducklake_files_scheduled_for_deletion}) whose {@code schedule_start} is older than {@link #olderThan}, then
 * their queue rows, in batches; a queue row goes only after its file is gone, and a file that a data or delete file of
 * this or of any consulted catalog still resolves to is never deleted (docs/storage-maintenance.md). The same engine and
 * defaults as the CLI command; a dry run unless {@code dryRun(false)}.
 *
 * <pre>{@code
 * CleanupOldFilesResult r = Janitor.on(connectionString, "lake_meta").cleanupOldFiles()
 *         .olderThan(Duration.ofDays(3)).dryRun(false).execute();
 * long freed = r.bytes();
 * }</pre>
 *
 * Batch unit: distinct queue entries (default {@value CleanupOldFilesOptions#DEFAULT_BATCH_SIZE},
 * as the CLI's {@code --batch-size}); age floor 1 hour ({@link CleanupOldFilesOptions#FLOOR}).
 */
public final class CleanupOldFilesAction extends StorageMaintenanceAction<CleanupOldFilesAction, CleanupOldFilesResult> {

    CleanupOldFilesAction(Janitor janitor) {
        super(janitor);
    }

    @Override
    MaintenanceOperation<CleanupOldFilesResult> operation(ConnectionSpec spec, String schema, ProgressListener listener)
            throws JanitorException {
        CleanupOldFilesOptions o = CleanupOldFilesOptions.builder(schema).run(runOptions(DEFAULTS, schema))
                .dataPath(dataPathOverride()).olderThan(olderThanOrNull())
                .minAge(minAgeOr(CleanupOldFilesOptions.FLOOR)).allowShortRetention(shortRetentionAllowed())
                .deleteConcurrency(concurrency()).consult(consult(spec)).build();
        return new CleanupOldFiles(spec, o, opener(), fileListener(), listener);
    }
}
