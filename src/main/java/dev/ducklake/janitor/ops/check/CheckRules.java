package dev.ducklake.janitor.ops.check;

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


    /** @return every kind name, in report order */
    public static List<String> kinds() {
        return all().stream().map(CheckRule::kind).toList();
    }
}
