package dev.ducklake.janitor.ops.cleanupoldfiles;

import dev.ducklake.janitor.ops.files.AgeThreshold;

import java.time.Duration;

/**
 * Options of {@link CleanupOldFiles}. Build with {@link #defaults(String)} and the {@code with…} methods.
 *
 * @param schema the metadata schema
 * @param dataPathOverride {@code --data-path}: where the data path is mounted for this run (DuckLake's
 *     OVERRIDE_DATA_PATH), or null for ducklake_metadata's data_path
 * @param olderThan queue rows whose schedule_start is before this are cleaned; null = the catalog's
 *     delete_older_than option, else 2 days (DuckLake's default)
 * @param minAge the floor under which --older-than may not go (default 1 hour: a file scheduled moments ago may
 *     still be read by a running query)
 * @param batchSize queue rows (distinct id/path pairs) per batch (default 1,000); S3 deletes go out in requests of
 *     at most 1,000 keys
 * @param dryRun list what would be deleted, change nothing (default true: deleting needs --execute)
 * @param lockName the advisory lock of execute runs
 */
public record CleanupOldFilesOptions(String schema, String dataPathOverride, AgeThreshold olderThan, Duration minAge,
                                     int batchSize, boolean dryRun, String lockName) {

    /** Defaults for a schema: catalog age default, 1 h floor, batches of 1,000, dry run. */
    public static CleanupOldFilesOptions defaults(String schema) {
        return new CleanupOldFilesOptions(schema, null, null, Duration.ofHours(1), 1000, true, "ducklake-maintenance");
    }

    /** @return a copy with the data path override */
    public CleanupOldFilesOptions withDataPath(String p) {
        return new CleanupOldFilesOptions(schema, p, olderThan, minAge, batchSize, dryRun, lockName);
    }

    /** @return a copy with the age limit */
    public CleanupOldFilesOptions withOlderThan(AgeThreshold t) {
        return new CleanupOldFilesOptions(schema, dataPathOverride, t, minAge, batchSize, dryRun, lockName);
    }

    /** @return a copy with the floor */
    public CleanupOldFilesOptions withMinAge(Duration d) {
        return new CleanupOldFilesOptions(schema, dataPathOverride, olderThan, d, batchSize, dryRun, lockName);
    }

    /** @return a copy with the batch size */
    public CleanupOldFilesOptions withBatchSize(int n) {
        return new CleanupOldFilesOptions(schema, dataPathOverride, olderThan, minAge, n, dryRun, lockName);
    }

    /** @return a copy that deletes (false) or only lists (true) */
    public CleanupOldFilesOptions withDryRun(boolean d) {
        return new CleanupOldFilesOptions(schema, dataPathOverride, olderThan, minAge, batchSize, d, lockName);
    }

    /** @return a copy with the lock name */
    public CleanupOldFilesOptions withLockName(String n) {
        return new CleanupOldFilesOptions(schema, dataPathOverride, olderThan, minAge, batchSize, dryRun, n);
    }
}
