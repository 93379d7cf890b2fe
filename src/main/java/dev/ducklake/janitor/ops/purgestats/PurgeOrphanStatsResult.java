package dev.ducklake.janitor.ops.purgestats;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.ducklake.janitor.ops.MaintenanceResult;
import dev.ducklake.janitor.ops.RunFigures;

import java.util.Map;

/**
 * What {@link PurgeOrphanStats} did (or, in a dry run, would do) in one metadata schema.
 *
 * @param schema the metadata schema
 * @param formatVersion the catalog format version
 * @param dryRun whether nothing was changed
 * @param orphanRows orphaned stats rows found before the run, per catalog table (the {@code orphaned_stats_rows} rule)
 * @param rowsDeleted rows deleted, per catalog table (all 0 in a dry run)
 * @param orphanRowsTotal sum of {@code orphanRows}
 * @param rowsDeletedTotal sum of {@code rowsDeleted}
 * @param tableIdsPurged table_ids whose table-level stats were deleted
 * @param dataFileIdsPurged data_file_ids whose per-file stats were deleted
 * @param remaining orphaned stats rows left after the run (0 unless stopped early or new orphans appeared)
 * @param batchSecondsMedian median wall time of a batch, seconds (0 without batches)
 * @param batchSecondsMax longest batch, seconds
 * @param run the generic figures (batches, retries, reconnects, batch sizes, elapsed, warnings), flattened into the JSON
 */
public record PurgeOrphanStatsResult(String schema, String formatVersion, boolean dryRun, Map<String, Long> orphanRows,
                                     Map<String, Long> rowsDeleted, long orphanRowsTotal, long rowsDeletedTotal, long tableIdsPurged,
                                     long dataFileIdsPurged, long remaining, double batchSecondsMedian, double batchSecondsMax,
                                     @JsonUnwrapped RunFigures run) implements MaintenanceResult {
}
