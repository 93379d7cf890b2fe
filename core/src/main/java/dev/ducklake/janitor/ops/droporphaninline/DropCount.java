package dev.ducklake.janitor.ops.droporphaninline;

/**
 * The counts of one drop-orphan-inline-tables run, kept in {@link dev.ducklake.janitor.ops.runtime.Counts} by the
 * {@link DropTally} and by each batch's {@link DropBatch.Outcome}. Each is the {@link DropOrphanInlineTablesResult}
 * figure of the same name (documented there).
 */
enum DropCount {
    // the survey
    REGISTRY_ROWS,
    ORPHAN_ROWS,
    ORPHAN_TABLES_PRESENT,
    KEPT_BY_NAME_GUARD,
    KEPT_NOT_A_TABLE,
    UNREGISTERED_ORPHANS,
    INLINED_DELETE_ORPHANS,
    INLINED_DELETE_LIVE,
    /** Anomalies found (the result's {@code unregisteredAnomalies} and {@code anomalyTablesTotal}). */
    ANOMALIES,
    UNREGISTERED_TABLES_TOTAL,
    // non-empty tables met by the dry-run probe or the batches
    /** Registered orphan tables holding rows (the batches: {@code registeredNonempty}). */
    ORPHAN_NONEMPTY,
    UNREGISTERED_NONEMPTY,
    // the dry-run probe
    WOULD_DROP,
    // the batches
    DROPPED,
    ROWS_DELETED,
    /** Registry rows deleted because their table was already gone ({@code missingTables}). */
    MISSING_TABLES,
    SKIPPED_NONEMPTY,
    SKIPPED_LOCKED,
    DROPPED_UNREGISTERED,
    DROPPED_INLINED_DELETE,
    DROPPED_NONEMPTY,
    INLINED_ROWS_DROPPED,
    // the recount at the end
    REMAINING,
    REMAINING_UNREGISTERED
}
