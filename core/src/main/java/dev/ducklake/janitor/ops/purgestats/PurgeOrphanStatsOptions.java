package dev.ducklake.janitor.ops.purgestats;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.runtime.RunOptions;

/**
 * Options of {@link PurgeOrphanStats}: only the generic run options ({@link RunOptions}). The batch size counts ids per
 * transaction (table_ids for the table-level stats, data_file_ids for the per-file stats); the default is the runtime's
 * ({@value #DEFAULT_BATCH_SIZE}).
 *
 * @param run the generic run options (metadata schema, dry run, batch size, max batches, run budget, timeouts, lock name)
 */
public record PurgeOrphanStatsOptions(RunOptions run) {

    /** Default ids per batch transaction. */
    public static final int DEFAULT_BATCH_SIZE = RunOptions.DEFAULT_BATCH_SIZE;

    /** The defaults: {@link RunOptions#defaults()} with {@value #DEFAULT_BATCH_SIZE} ids per batch. */
    public static PurgeOrphanStatsOptions defaults() {
        return new PurgeOrphanStatsOptions(RunOptions.builder().batchSize(DEFAULT_BATCH_SIZE).build());
    }

    /** @return a copy with this metadata schema */
    public PurgeOrphanStatsOptions withMetadataSchema(String s) {
        return new PurgeOrphanStatsOptions(run.toBuilder().metadataSchema(s).build());
    }

    /** @return a copy with this dry-run flag */
    public PurgeOrphanStatsOptions withDryRun(boolean d) {
        return new PurgeOrphanStatsOptions(run.toBuilder().dryRun(d).build());
    }

    /** @return a copy with this batch size (ids per batch) */
    public PurgeOrphanStatsOptions withBatchSize(int n) {
        return new PurgeOrphanStatsOptions(run.toBuilder().batchSize(n).build());
    }

    /** @return a copy with other run options */
    public PurgeOrphanStatsOptions withRun(RunOptions r) {
        return new PurgeOrphanStatsOptions(r);
    }

    /**
     * Checks the values.
     *
     * @throws JanitorException USAGE naming the bad value
     */
    public void validate() throws JanitorException {
        run.validate();
    }
}
