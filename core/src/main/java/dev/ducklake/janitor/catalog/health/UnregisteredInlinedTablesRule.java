package dev.ducklake.janitor.catalog.health;

/**
 * {@code unregistered_inlined_tables}: tables named exactly {@code ducklake_inlined_data_<table_id>_<v>} with no registry
 * row (by name or by ids) whose table_id is unreachable, as drop-orphan-inline-tables' survey reports them
 * ({@code unregistered_orphans}; this class only reads that figure). Unit: tables.
 *
 * <p>Source: older DuckLake releases deleted registry rows and kept the tables (shared catalog notes, section 2;
 * duckdb/ducklake#1065); DuckLake never sees them again, and ATTACH still reflects each. Fix:
 * drop-orphan-inline-tables --include-unregistered.
 */
final class UnregisteredInlinedTablesRule extends SurveyRule {

    UnregisteredInlinedTablesRule() {
        super("unregistered_inlined_tables",
                "ducklake-janitor drop-orphan-inline-tables --include-unregistered",
                InlineSurvey.SurveyFigures::unregisteredData, InlineSurvey.SurveyFigures::unregisteredDataExamples);
    }
}
