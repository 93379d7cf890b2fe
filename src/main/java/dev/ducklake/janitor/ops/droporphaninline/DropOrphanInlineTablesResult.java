package dev.ducklake.janitor.ops.droporphaninline;

import java.util.List;

/**
 * What a run of {@link DropOrphanInlineTables} found and did. Counts are registry rows or tables as named;
 * times are seconds.
 *
 * @param schema the metadata schema
 * @param formatVersion the catalog format version found
 * @param dryRun whether this was a dry run (nothing changed)
 * @param registryRows rows in ducklake_inlined_data_tables when the run started
 * @param orphanRows registry rows whose table_id is unreachable ({@link dev.ducklake.janitor.catalog.OrphanPredicate})
 * @param orphanTablesPresent orphan rows whose table exists in pg_class
 * @param orphanNonempty orphan tables holding rows (dry run: all of them, probed; execute: those met during the run)
 * @param keptByNameGuard orphan rows whose table_name is not exactly the DuckLake name for its ids; never acted on
 * @param keptNotATable orphan rows whose name belongs to a relation that is not a plain table; never acted on
 * @param dropped tables dropped
 * @param rowsDeleted registry rows deleted (of dropped tables and of tables already gone)
 * @param missingTables registry rows deleted because their table was already gone
 * @param skippedNonempty orphan tables skipped because they hold rows (table and row kept)
 * @param skippedLocked orphan tables skipped because another session kept them locked past lock_timeout, twice
 * @param remaining orphan registry rows left when the run ended
 * @param batches batches committed
 * @param retries batch attempts retried after a retryable error
 * @param reconnects reconnects after a lost connection
 * @param batchSizeRequested the batch size asked for
 * @param batchSizeStart the batch size used at the start (after the lock budget)
 * @param batchSizeFinal the batch size at the end (after halvings and growth)
 * @param budgetExhausted whether the run stopped because the run budget was spent (or a stop was requested)
 * @param maxBatchesReached whether the run stopped because --max-batches was reached
 * @param elapsedSeconds wall-clock duration of the run, seconds
 * @param nonEmptyTables the non-empty orphan tables met (at most 1,000 listed)
 * @param warnings warnings raised during the run (at most 100 listed)
 */
public record DropOrphanInlineTablesResult(String schema, String formatVersion, boolean dryRun, long registryRows,
                                           long orphanRows, long orphanTablesPresent, long orphanNonempty,
                                           long keptByNameGuard, long keptNotATable, long dropped, long rowsDeleted,
                                           long missingTables, long skippedNonempty, long skippedLocked, long remaining,
                                           int batches, int retries, int reconnects, int batchSizeRequested,
                                           int batchSizeStart, int batchSizeFinal, boolean budgetExhausted,
                                           boolean maxBatchesReached, double elapsedSeconds,
                                           List<NonEmptyTable> nonEmptyTables, List<String> warnings) {

    /**
     * A non-empty orphan table.
     *
     * @param tableName the inlined-data table's name
     * @param tableId its DuckLake table_id
     * @param schemaVersion its schema version
     */
    public record NonEmptyTable(String tableName, long tableId, long schemaVersion) {
    }
}
