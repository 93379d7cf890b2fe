package dev.ducklake.janitor.ops.cleanupoldfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.files.AgeThreshold;
import dev.ducklake.janitor.ops.files.ConsultOptions;
import dev.ducklake.janitor.ops.files.StorageRunOptions;

import java.time.Duration;

/**
 * Options of {@link CleanupOldFiles}. Build with {@link #defaults(String)} and the {@code with…} methods.
 *
 * @param run the generic run options: schema, dry run, batch size (distinct queue entries per batch; S3 deletes go
 *     out in requests of at most 1,000 keys), max batches, run budget, timeouts, lock name
 * @param dataPathOverride {@code --data-path}: where the data path is mounted for this run (DuckLake's
 *     OVERRIDE_DATA_PATH), or null for ducklake_metadata's data_path
 * @param olderThan queue rows whose schedule_start is before this are cleaned; null = the catalog's
 *     delete_older_than option, else 2 days (DuckLake's default)
 * @param minAge the floor under which --older-than may not go (default 1 hour, {@link #FLOOR}: a file scheduled
 *     moments ago may still be read by a running query); below {@link #FLOOR} only with {@code allowShortRetention}
 * @param consult which other catalogs are read for the live-file check (a queued file that another catalog still
 *     references is kept); an unreadable one refuses the run, as for delete-orphan-files ({@link ConsultOptions})
 * @param allowShortRetention whether {@code minAge} may go below {@link #FLOOR} ({@code --allow-short-retention})
 * @param deleteConcurrency {@code --delete-concurrency}: delete calls in flight at once ({@link
 *     dev.ducklake.janitor.ops.files.ParallelDeletes}); 0 = the store's default (8 on an object store, 4 on a local
 *     file system), 1 = one call at a time
 */
public record CleanupOldFilesOptions(RunOptions run, String dataPathOverride, AgeThreshold olderThan, Duration minAge,
                                     ConsultOptions consult, boolean allowShortRetention, int deleteConcurrency) implements StorageRunOptions {

    /** The floor under which --min-age needs --allow-short-retention. */
    public static final Duration FLOOR = Duration.ofHours(1);

    /** Default batch size, distinct queue entries. */
    public static final int DEFAULT_BATCH_SIZE = 1000;

    /** Defaults for a schema: catalog age default, 1 h floor, batches of 1,000, dry run. */
    public static CleanupOldFilesOptions defaults(String schema) {
        return new CleanupOldFilesOptions(RunOptions.defaults().withMetadataSchema(schema).withDryRun(true)
                .withBatchSize(DEFAULT_BATCH_SIZE), null, null, FLOOR,
                ConsultOptions.defaults(), false, 0);
    }

    /** @throws JanitorException USAGE for a bad value */
    public void validate() throws JanitorException {
        run.validate();
        consult.validate();
        dev.ducklake.janitor.ops.files.FileAges.checkOlderThan(olderThan);
        if (deleteConcurrency < 0 || deleteConcurrency > dev.ducklake.janitor.ops.files.ParallelDeletes.MAX_CONCURRENCY) {
            throw new JanitorException(JanitorException.Reason.USAGE, "--delete-concurrency must be between 1 and "
                    + dev.ducklake.janitor.ops.files.ParallelDeletes.MAX_CONCURRENCY + ", got " + deleteConcurrency + ".");
        }
        dev.ducklake.janitor.ops.files.FileAges.checkFloor(minAge, FLOOR, allowShortRetention, "cleanup-old-files");
    }

    /** @return the metadata schema */
    public String schema() {
        return run.metadataSchema();
    }

    /** @return whether nothing is changed */
    public boolean dryRun() {
        return run.dryRun();
    }

    /** @return distinct queue entries per batch */
    public int batchSize() {
        return run.batchSize();
    }

    /** @return a copy with other run options */
    public CleanupOldFilesOptions withRun(RunOptions r) {
        return new CleanupOldFilesOptions(r, dataPathOverride, olderThan, minAge, consult, allowShortRetention, deleteConcurrency);
    }

    /** @return a copy with the data path override */
    public CleanupOldFilesOptions withDataPath(String p) {
        return new CleanupOldFilesOptions(run, p, olderThan, minAge, consult, allowShortRetention, deleteConcurrency);
    }

    /** @return a copy with the age limit */
    public CleanupOldFilesOptions withOlderThan(AgeThreshold t) {
        return new CleanupOldFilesOptions(run, dataPathOverride, t, minAge, consult, allowShortRetention, deleteConcurrency);
    }

    /** @return a copy with the floor */
    public CleanupOldFilesOptions withMinAge(Duration d) {
        return new CleanupOldFilesOptions(run, dataPathOverride, olderThan, d, consult, allowShortRetention, deleteConcurrency);
    }

    /** @return a copy with other consulted catalogs */
    public CleanupOldFilesOptions withConsult(ConsultOptions c) {
        return new CleanupOldFilesOptions(run, dataPathOverride, olderThan, minAge, c, allowShortRetention, deleteConcurrency);
    }

    /** @return a copy that may (true) or may not go below {@link #FLOOR} */
    public CleanupOldFilesOptions withAllowShortRetention(boolean a) {
        return new CleanupOldFilesOptions(run, dataPathOverride, olderThan, minAge, consult, a, deleteConcurrency);
    }

    /** @return a copy with the batch size */
    public CleanupOldFilesOptions withBatchSize(int n) {
        return withRun(run.withBatchSize(n));
    }

    /**
     * @param n delete calls in flight at once, 1 to {@value dev.ducklake.janitor.ops.files.ParallelDeletes#MAX_CONCURRENCY};
     *     0 = the store's default
     * @return a copy with that concurrency
     */
    public CleanupOldFilesOptions withDeleteConcurrency(int n) {
        return new CleanupOldFilesOptions(run, dataPathOverride, olderThan, minAge, consult, allowShortRetention, n);
    }

    /** @return a copy that deletes (false) or only lists (true) */
    public CleanupOldFilesOptions withDryRun(boolean d) {
        return withRun(run.withDryRun(d));
    }
}
