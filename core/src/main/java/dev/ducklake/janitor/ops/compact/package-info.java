/**
 * {@code flush-inlined-data} and {@code compact}: the Parquet half of DuckLake's CHECKPOINT (issue 26), planned over JDBC
 * from the catalog alone ({@link dev.ducklake.janitor.ops.compact.CompactionPlanner}, no ATTACH) and executed table by table
 * by DuckLake's own functions in an in-process DuckDB ({@link dev.ducklake.janitor.ops.compact.DuckLakeEngine}), under the
 * janitor's advisory lock, run budget and stop signal ({@link dev.ducklake.janitor.ops.compact.CompactTables}).
 *
 * <p>DuckLake source followed: duckdb/ducklake commit {@code d8a1881e} (the extension of DuckDB 1.5.5):
 * {@code src/functions/ducklake_compaction_functions.cpp} ({@code DuckLakeCompactor::GenerateCompactions},
 * {@code BindCompaction}, {@code GetDeleteThreshold}), {@code src/storage/ducklake_metadata_manager.cpp}
 * ({@code GetFilesForCompaction}), {@code src/functions/ducklake_flush_inlined_data.cpp} and
 * {@code src/storage/ducklake_catalog.cpp} ({@code GetTargetFileSize}, {@code TryGetConfigOption}).
 */
package dev.ducklake.janitor.ops.compact;
