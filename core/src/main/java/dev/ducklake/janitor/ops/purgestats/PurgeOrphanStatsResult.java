package dev.ducklake.janitor.ops.purgestats;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.ducklake.janitor.ops.runtime.DoneOrWould;
import dev.ducklake.janitor.ops.runtime.Figure;
import dev.ducklake.janitor.ops.runtime.MaintenanceResult;
import dev.ducklake.janitor.ops.runtime.RunFigures;

import java.util.Map;

/**
 * What {@link PurgeOrphanStats} did (or, in a dry run, would do) in one metadata schema.
 *
 * @param schema the metadata schema
 * @param formatVersion the catalog format version
 * @param dryRun whether nothing was changed
 * @param orphanRows orphaned stats rows found before the run, per catalog table (the {@code orphaned_stats_rows} rule)
 * @param rowsDeleted rows deleted, per catalog table (all 0 in a dry run); JSON {@code rows_deleted} in an execute run, a
 *     dry run has {@code rows_would_delete} ({@link #doneOrWould()})
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
                                     @JsonIgnore Map<String, Long> rowsDeleted, long orphanRowsTotal,
                                     @JsonIgnore long rowsDeletedTotal, @JsonIgnore long tableIdsPurged,
                                     @JsonIgnore long dataFileIdsPurged, @Figure.Remaining long remaining, @Figure.NotSummed double batchSecondsMedian,
                                     @Figure.NotSummed double batchSecondsMax,
                                     @JsonUnwrapped RunFigures run) implements MaintenanceResult {

    /**
     * The figures whose key says whether they happened or would ({@link DoneOrWould}): {@code rows_deleted} (per
     * catalog table), {@code rows_deleted_total}, {@code table_ids_purged}, {@code data_file_ids_purged} in an execute
     * run; {@code rows_would_delete} and {@code rows_would_delete_total} in a dry run (the orphaned rows found: an execute
     * run deletes every one of them; a dry run does not group them by id, so it has no id figures).
     *
     * @return the figures, by JSON key
     */
    @JsonAnyGetter
    public Map<String, Object> doneOrWould() {
        return DoneOrWould.<Object>of(dryRun).figure("rows_deleted", "rows_would_delete", dryRun ? orphanRows : rowsDeleted)
                .figure("rows_deleted_total", "rows_would_delete_total", dryRun ? orphanRowsTotal : rowsDeletedTotal)
                .done("table_ids_purged", tableIdsPurged).done("data_file_ids_purged", dataFileIdsPurged).map();
    }
}
