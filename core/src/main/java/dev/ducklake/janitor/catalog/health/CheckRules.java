package dev.ducklake.janitor.catalog.health;

import java.util.List;

/** Every rule {@code check} runs, in report order. The kinds are the contract names of the findings and of the gauge. */
public final class CheckRules {

    private CheckRules() {
    }

    /** The survey-based kinds (they need drop-orphan-inline-tables' survey, see {@link InlineSurvey}). */
    static final List<String> SURVEY_KINDS = List.of("registry_rows_without_table", "unregistered_inlined_tables",
            "unreachable_inlined_delete_tables", "inlined_table_anomalies");

    /** @return every rule, in report order */
    public static List<CheckRule> all() {
        return List.of(new UnreachableInlinedTablesRule(), new RegistryRowsWithoutTableRule(),
                new RegistryRowsWithoutTableOfReachableTablesRule(), new UnregisteredInlinedTablesRule(),
                new UnreachableInlinedDeleteTablesRule(), new InlinedTableAnomaliesRule(), new LiveFilesOfUnreachableTablesRule(),
                new LiveFilesOfDroppedTablesRule(), new OrphanedStatsRowsRule(), new DuplicateDeletionQueueRowsRule(),
                new QueuedFilesStillReferencedRule(), new DeadInlinedRowsRule(), new SnapshotChangesWithoutSnapshotRule(),
                new SchemaVersionsBeyondRegistryRule(), new SchemaVersionsMigrationDuplicatesRule(), new RowsBeyondLastSnapshotRule(), new CatalogBloatRule(),
                new InterruptedMigrationTablesRule());
    }


    /** Finding kind of {@code check --storage}: retained data file rows whose object is gone. */
    public static final String MISSING_DATA = "missing_data_files";
    /** Finding kind of {@code check --storage}: retained delete file rows whose object is gone. */
    public static final String MISSING_DELETE = "missing_delete_files";
    /** Finding kind of {@code check --storage}: retained file rows whose object's size differs from file_size_bytes. */
    public static final String SIZE_MISMATCH = "size_mismatch_files";

    /** Severity {@value}: something a reader can hit, or data at risk; nothing in the maintenance chain repairs it. */
    public static final String DAMAGE = "damage";
    /** Severity {@value}: waste (or a harmless leftover) that no reader hits; the chain's own steps remove most of it. */
    public static final String DEBRIS = "debris";

    /** The damage kinds; every other kind is {@link #DEBRIS}. */
    private static final java.util.Set<String> DAMAGE_KINDS = java.util.Set.of("registry_rows_without_table_of_reachable_tables",
            "inlined_table_anomalies", "queued_files_still_referenced", "schema_versions_migration_duplicates",
            "rows_beyond_last_snapshot", "interrupted_migration_tables", MISSING_DATA, MISSING_DELETE, SIZE_MISMATCH);

    /**
     * The severity of a finding kind: {@link #DAMAGE} for a registry row whose inlined table is gone while its table is
     * reachable (reads fail), an inlined table of unknown shape, a queued file a catalog row still references (cleanup would
     * lose data), the 0.3→0.4 migration's duplicate schema versions (compaction fails) and rows beyond the last snapshot (a lost
     * snapshot; every command refuses the catalog); {@link #DEBRIS} for every other kind: leaked inlined tables and registry
     * rows (drop-orphan-inline-tables), live files of unreachable or dropped tables and dead inlined rows (expire-snapshots),
     * orphaned stats rows (purge-orphan-stats), duplicate queue rows (cleanup-old-files), bloat (autovacuum), and the
     * harmless leftovers {@code snapshot_changes_without_snapshot} and {@code schema_versions_beyond_registry}.
     *
     * @param kind a finding kind
     * @return {@code damage} or {@code debris}
     */
    public static String severityOf(String kind) {
        return DAMAGE_KINDS.contains(kind) ? DAMAGE : DEBRIS;
    }

    /** @return every kind name, in report order */
    public static List<String> kinds() {
        return all().stream().map(CheckRule::kind).toList();
    }
}
