package dev.ducklake.janitor.ops.expiresnapshots;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.ducklake.janitor.ops.runtime.DoneOrWould;
import dev.ducklake.janitor.ops.runtime.Figure;
import dev.ducklake.janitor.ops.runtime.MaintenanceResult;
import dev.ducklake.janitor.ops.runtime.RunFigures;

import java.util.List;
import java.util.Map;

/**
 * What one {@link ExpireSnapshots} run did (execute) or would do (dry run). Counts are rows or relations;
 * times are seconds.
 *
 * @param schema the catalog schema
 * @param formatVersion the catalog's DuckLake format version
 * @param dryRun whether nothing was changed
 * @param criterion which criterion selected the snapshots: {@code older_than}, {@code retain_last},
 *     {@code older_than+retain_last}, {@code versions} or {@code catalog_option}
 * @param cutoff the time cutoff as ISO-8601 (snapshot_time strictly before it), or null without a time criterion
 * @param minAgeCutoff snapshots younger than this were protected by --min-age (ISO-8601), or null for 0s
 * @param snapshotsExpired snapshots expired (dry run: that would be). The JSON keys of this and the next six figures
 *     say which ({@link #doneOrWould()}): {@code snapshots_expired} in an execute run, {@code snapshots_would_expire} in a
 *     dry run
 * @param dataFilesScheduled data files removed from the catalog and queued in
 *     ducklake_files_scheduled_for_deletion
 * @param deleteFilesScheduled delete files removed and queued
 * @param tablesRemoved DuckLake table ids removed (all their rows)
 * @param inlinedTablesDropped inlined-data and inlined-deletion relations dropped
 * @param otherRowsDeleted closed rows of ducklake_schema, _view, _view_column_tag, _tag and _macro deleted
 * @param inlinedRowsDeleted dead rows deleted from the inlined-data tables of reachable tables: rows that no retained
 *     snapshot can see (DuckLake's fix for duckdb/ducklake#1390, after 1.5.5); 0 when the run was stopped by a signal or its
 *     budget before that step (dry run: that would be)
 * @param oldestRetainedSnapshot the oldest snapshot id left after the run (dry run: that would be)
 * @param newestSnapshot the newest snapshot id (never expired)
 * @param remainingSelected snapshots the selection still allows after the run (0 unless stopped early)
 * @param tableBudget inlined relations one batch may drop (the lock budget, after any halving)
 * @param batchList per batch figures (at most the first 1,000; a dry run lists the simulated batches)
 * @param removedTables dry run: every DuckLake table the run would remove, by table_id (never cut); null in an execute run
 * @param expiredRanges dry run: every range of consecutive catalog snapshots the run would expire, oldest first (never
 *     cut); null in an execute run
 * @param run the generic figures of the runtime (batches committed or simulated, retries, reconnects, stop
 *     reason, elapsed seconds, warnings), flattened into the JSON
 */
public record ExpireSnapshotsResult(String schema, String formatVersion, boolean dryRun, String criterion,
                                    String cutoff, String minAgeCutoff, @JsonIgnore long snapshotsExpired,
                                    @JsonIgnore long dataFilesScheduled, @JsonIgnore long deleteFilesScheduled,
                                    @JsonIgnore long tablesRemoved, @JsonIgnore long inlinedTablesDropped,
                                    @JsonIgnore long otherRowsDeleted, @JsonIgnore long inlinedRowsDeleted, @Figure.NotSummed Long oldestRetainedSnapshot,
                                    @Figure.NotSummed long newestSnapshot, @Figure.Remaining long remainingSelected,
                                    @Figure.NotSummed int tableBudget, List<Batch> batchList,
                                    List<RemovedTable> removedTables, List<SnapshotRange> expiredRanges,
                                    @JsonUnwrapped RunFigures run) implements MaintenanceResult {

    /** @return batches committed (dry run: simulated) */
    public int batches() {
        return run.batches();
    }

    /**
     * The figures whose key says whether they happened or would ({@link DoneOrWould}): {@code snapshots_expired},
     * {@code data_files_scheduled}, {@code delete_files_scheduled}, {@code tables_removed}, {@code inlined_tables_dropped},
     * {@code other_rows_deleted}, {@code inlined_rows_deleted} in an execute run; {@code snapshots_would_expire},
     * {@code data_files_would_schedule}, {@code delete_files_would_schedule}, {@code tables_would_remove},
     * {@code inlined_tables_would_drop}, {@code other_rows_would_delete}, {@code inlined_rows_would_delete} in a dry run.
     *
     * @return the figures, by JSON key
     */
    @JsonAnyGetter
    public Map<String, Long> doneOrWould() {
        return DoneOrWould.<Long>of(dryRun).figure("snapshots_expired", "snapshots_would_expire", snapshotsExpired)
                .figure("data_files_scheduled", "data_files_would_schedule", dataFilesScheduled)
                .figure("delete_files_scheduled", "delete_files_would_schedule", deleteFilesScheduled)
                .figure("tables_removed", "tables_would_remove", tablesRemoved)
                .figure("inlined_tables_dropped", "inlined_tables_would_drop", inlinedTablesDropped)
                .figure("other_rows_deleted", "other_rows_would_delete", otherRowsDeleted)
                .figure("inlined_rows_deleted", "inlined_rows_would_delete", inlinedRowsDeleted).map();
    }


    /**
     * A DuckLake table an expiry removes.
     *
     * @param tableId its table_id
     * @param schemaName the schema of its newest ducklake_table row (null when that schema row is gone)
     * @param tableName the name of its newest row
     * @param beginSnapshot the first snapshot of its life
     * @param endSnapshot the snapshot that ended it (the last row's end)
     */
    public record RemovedTable(long tableId, String schemaName, String tableName, Long beginSnapshot, Long endSnapshot) {
    }

    /**
     * Consecutive catalog snapshots an expiry removes.
     *
     * @param first the first snapshot id
     * @param last the last snapshot id
     * @param snapshots how many snapshots (ids in between that the catalog had no longer are not counted)
     */
    public record SnapshotRange(long first, long last, long snapshots) {
    }

    /**
     * One batch.
     *
     * @param number 1-based
     * @param snapshots snapshots expired in it
     * @param firstSnapshot smallest expired id (-1 when none: a table-only batch)
     * @param lastSnapshot largest expired id (-1 when none)
     * @param dataFiles data files queued
     * @param deleteFiles delete files queued
     * @param tables tables removed
     * @param inlinedTables inlined relations dropped
     * @param otherRows closed schema/view/tag/macro rows deleted
     * @param seconds wall-clock time of the batch
     */
    public record Batch(int number, long snapshots, long firstSnapshot, long lastSnapshot, long dataFiles,
                        long deleteFiles, long tables, long inlinedTables, long otherRows, double seconds) {
    }
}
