package dev.ducklake.janitor.api;

import dev.ducklake.janitor.ops.runtime.MaintenanceOperation;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStats;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStatsOptions;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStatsResult;
import dev.ducklake.janitor.pg.ConnectionSpec;

/**
 * {@code purge-orphan-stats}: deletes the statistics rows ({@code ducklake_table_stats},
 * {@code ducklake_table_column_stats}, {@code ducklake_file_column_stats}, ...) of tables and files the catalog no
 * longer has, in batches of one transaction each. Only the run settings of {@link MaintenanceAction} apply.
 *
 * <pre>{@code
 * PurgeOrphanStatsResult r = Janitor.on(dataSource, "lake_meta").purgeOrphanStats().execute();
 * long deleted = r.rowsDeletedTotal();
 * }</pre>
 *
 * Batch unit: table and data-file ids (default {@value dev.ducklake.janitor.ops.runtime.RunOptions#DEFAULT_BATCH_SIZE}).
 */
public final class PurgeOrphanStatsAction extends MaintenanceAction<PurgeOrphanStatsAction, PurgeOrphanStatsResult> {

    PurgeOrphanStatsAction(Janitor janitor) {
        super(janitor);
    }

    @Override
    MaintenanceOperation<PurgeOrphanStatsResult> operation(ConnectionSpec spec, String schema, ProgressListener listener) {
        return new PurgeOrphanStats(spec, new PurgeOrphanStatsOptions(runOptions(PurgeOrphanStatsOptions.defaults().run(), schema)),
                listener);
    }
}
