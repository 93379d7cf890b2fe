package dev.ducklake.janitor.catalog.health;

/**
 * {@code unreachable_inlined_delete_tables}: tables {@code ducklake_inlined_delete_<table_id>} of unreachable table_ids,
 * as drop-orphan-inline-tables' survey reports them ({@code inlined_delete_orphans}). Unit: tables.
 *
 * <p>Source: DuckLake creates one per table for small deletes against Parquet files and never registers it; only
 * {@code ducklake_expire_snapshots} of 1.5.3 and later drops it, and only for tables it is removing at that moment
 * (releases 1.5.0 to 1.5.2 leak them; shared catalog notes, section 2). Fix: drop-orphan-inline-tables --include-unregistered.
 */
final class UnreachableInlinedDeleteTablesRule extends SurveyRule {

    UnreachableInlinedDeleteTablesRule() {
        super("unreachable_inlined_delete_tables",
                "ducklake-janitor drop-orphan-inline-tables --include-unregistered",
                InlineSurvey.SurveyFigures::unreachableDelete, InlineSurvey.SurveyFigures::unreachableDeleteExamples);
    }
}
