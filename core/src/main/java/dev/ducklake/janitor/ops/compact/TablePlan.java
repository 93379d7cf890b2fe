package dev.ducklake.janitor.ops.compact;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * What {@link CompactionPlanner} found for one live DuckLake table, and the DuckLake {@code CALL}s an execute run issues for it.
 * Figures of the other mode are 0 (a flush plan does not read data files, a compaction plan does not count inlined rows).
 *
 * @param schemaName the DuckLake schema's name
 * @param tableName the DuckLake table's name
 * @param tableId its table_id
 * @param reasons why it is planned, e.g. {@code inlined_rows}, {@code small_files}, {@code deleted_rows}; empty = nothing to do
 * @param inlinedTables registered inlined-data tables of the table that exist
 * @param inlinedRows rows in them (what the flush writes to Parquet: DuckLake flushes every committed row, deleted ones
 *     included, with their snapshot ids)
 * @param liveInlinedRows of those, rows no snapshot deleted ({@code end_snapshot IS NULL})
 * @param inlinedDeletions rows of {@code ducklake_inlined_delete_<table_id>} (deletions of Parquet rows, also flushed)
 * @param liveDataFiles live data files of the table ({@code end_snapshot IS NULL})
 * @param targetFileSize the merge target, bytes (the flag, or the catalog's option, or DuckLake's 512 MiB)
 * @param sessionTargetFileSize the {@code ducklake_target_file_size} DuckDB setting an execute run sets for this table's
 *     calls ({@link DuckLakeCalls#setTargetFileSize}, reset after them), bytes; null = none, DuckLake reads the catalog's
 *     option. Set for {@code --target-file-size}, and for a pass that splits a merge step larger than
 *     {@code --max-input-files} ({@link CompactionPlanner#splitTarget}): then below targetFileSize
 * @param smallFiles merge candidates: live files below the target without any delete file or inlined deletion
 * @param mergeGroups groups (schema version, partition, partition values) with at least two candidates
 * @param mergeInputFiles files DuckLake's greedy pass merges, without a cap
 * @param mergeOutputFiles files those merges write
 * @param maxCompactedFiles the {@code max_compacted_files} argument of the call (from --max-input-files); null = none
 * @param maxFileSize the {@code max_file_size} argument of the call, bytes: a split pass after earlier passes of the run
 *     selects only files below it, leaving those passes' outputs to a later pass ({@link CompactionPlanner#splitPass});
 *     null = none
 * @param mergeInputFilesBound the most input files the call can merge with that argument and setting (equals
 *     mergeInputFiles without a cap); below mergeInputFiles, the table takes more than one call (passes)
 * @param deleteThreshold the rewrite threshold (the flag, or the catalog's option, or DuckLake's 0.95)
 * @param rewriteFiles live files whose deleted-row fraction is at least the threshold
 * @param rewriteDeletedRows deleted rows in those files (active delete file plus inlined deletions)
 * @param inputBytes bytes of the data files the calls read and rewrite ({@code file_size_bytes}): the merge inputs (with a
 *     {@code max_compacted_files} cap, the largest that many merge steps can take: an upper bound) plus the rewrite files;
 *     what {@code --max-bytes} counts; 0 for a flush plan
 * @param calls the exact statements an execute run issues, in order (the DuckDB catalog alias is {@value DuckLakeEngine#ALIAS})
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TablePlan(String schemaName, String tableName, long tableId, List<String> reasons, long inlinedTables,
                        long inlinedRows, long liveInlinedRows, long inlinedDeletions, long liveDataFiles, long targetFileSize,
                        Long sessionTargetFileSize,
                        long smallFiles, long mergeGroups, long mergeInputFiles, long mergeOutputFiles, Long maxCompactedFiles,
                        Long maxFileSize, long mergeInputFilesBound, double deleteThreshold, long rewriteFiles, long rewriteDeletedRows,
                        long inputBytes, List<String> calls) {

    /** @return whether an execute run would call anything for this table */
    public boolean hasWork() {
        return !calls.isEmpty();
    }

    /** @return whether this plan's merge call takes only part of the table's merge work (capped or split): plan again after it */
    public boolean partialMerge() {
        return mergeInputFilesBound < mergeInputFiles;
    }
}
