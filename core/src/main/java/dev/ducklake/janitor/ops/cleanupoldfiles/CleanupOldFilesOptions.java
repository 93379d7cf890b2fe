package dev.ducklake.janitor.ops.cleanupoldfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.files.AgeThreshold;
import dev.ducklake.janitor.ops.files.ConsultOptions;
import dev.ducklake.janitor.ops.files.StorageOptionsBuilder;
import dev.ducklake.janitor.ops.files.StorageRunOptions;

import java.time.Duration;

/**
 * Options of {@link CleanupOldFiles}. Build with {@link #builder(String)}.
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

    /**
     * Default batch size, distinct queue entries: the runtime's ({@link RunOptions#DEFAULT_BATCH_SIZE}), the one
     * {@code --batch-size} default of the CLI, {@code maintain} and the library (it was 1,000 here while the others ran 500).
     */
    public static final int DEFAULT_BATCH_SIZE = RunOptions.DEFAULT_BATCH_SIZE;

    /** Defaults for a schema: catalog age default, 1 h floor, batches of {@value #DEFAULT_BATCH_SIZE}, dry run. */
    public static CleanupOldFilesOptions defaults(String schema) {
        return new CleanupOldFilesOptions(RunOptions.builder().metadataSchema(schema).dryRun(true)
                .batchSize(DEFAULT_BATCH_SIZE).build(), null, null, FLOOR,
                ConsultOptions.defaults(), false, 0);
    }

    /** @return a builder from the {@link #defaults(String) defaults} of a schema: the way to set the options */
    public static Builder builder(String schema) {
        return defaults(schema).toBuilder();
    }

    /** @return a builder from these options */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** @throws JanitorException USAGE for a bad value */
    public void validate() throws JanitorException {
        validateShared(FLOOR, "cleanup-old-files");
    }

    /** @return distinct queue entries per batch */
    public int batchSize() {
        return run.batchSize();
    }

    /** @return a copy with other run options (a run's own: its schema, dry run, timeouts) */
    public CleanupOldFilesOptions withRun(RunOptions r) {
        return toBuilder().run(r).build();
    }

    /** @return a copy with other consulted catalogs */
    public CleanupOldFilesOptions withConsult(ConsultOptions c) {
        return toBuilder().consult(c).build();
    }

    /** @return a copy that deletes (false) or only lists (true) */
    public CleanupOldFilesOptions withDryRun(boolean d) {
        return toBuilder().dryRun(d).build();
    }

    /** The builder of {@link CleanupOldFilesOptions}: the shared storage options and the batch size. */
    public static final class Builder extends StorageOptionsBuilder<Builder, CleanupOldFilesOptions> {

        private Builder(CleanupOldFilesOptions from) {
            super(from);
        }

        /**
         * @param n distinct queue entries per batch
         * @return this builder
         */
        public Builder batchSize(int n) {
            run = run.toBuilder().batchSize(n).build();
            return this;
        }

        @Override
        public CleanupOldFilesOptions build() {
            return new CleanupOldFilesOptions(run, dataPathOverride, olderThan, minAge, consult, allowShortRetention, deleteConcurrency);
        }
    }
}
