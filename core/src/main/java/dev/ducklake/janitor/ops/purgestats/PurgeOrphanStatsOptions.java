package dev.ducklake.janitor.ops.purgestats;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.runtime.RunOptionsBuilder;

/**
 * Options of {@link PurgeOrphanStats}: only the generic run options ({@link RunOptions}). The batch size counts ids per
 * transaction (table_ids for the table-level stats, data_file_ids for the per-file stats); the default is the runtime's
 * ({@value #DEFAULT_BATCH_SIZE}). Build with {@link #builder()}, change with {@link #toBuilder()}.
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

    /** @return a builder from the {@link #defaults() defaults}: the way to set the options */
    public static Builder builder() {
        return defaults().toBuilder();
    }

    /** @return a builder from these options */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * Checks the values.
     *
     * @throws JanitorException USAGE naming the bad value
     */
    public void validate() throws JanitorException {
        run.validate();
    }

    /** The builder of {@link PurgeOrphanStatsOptions}: the run setters of {@link RunOptionsBuilder}, nothing of its own. */
    public static final class Builder extends RunOptionsBuilder<Builder, PurgeOrphanStatsOptions> {

        private Builder(PurgeOrphanStatsOptions from) {
            super(from.run);
        }

        @Override
        public PurgeOrphanStatsOptions build() {
            return new PurgeOrphanStatsOptions(runOptions());
        }
    }
}
