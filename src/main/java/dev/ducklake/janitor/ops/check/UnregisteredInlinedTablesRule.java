package dev.ducklake.janitor.ops.check;

import java.sql.SQLException;

/**
 * {@code unregistered_inlined_tables}: tables named exactly {@code ducklake_inlined_data_<table_id>_<v>} with no registry
 * row (by name or by ids) whose table_id is unreachable, as drop-orphan-inline-tables' survey reports them
 * ({@code unregistered_orphans}; this class only reads that figure). Unit: tables.
 *
 * <p>Source: older DuckLake releases deleted registry rows and kept the tables (shared catalog notes, section 2;
 * duckdb/ducklake#1065); DuckLake never sees them again, and ATTACH still reflects each. Fix:
 * drop-orphan-inline-tables --include-unregistered.
 */
final class UnregisteredInlinedTablesRule implements CheckRule {

    @Override
    public String kind() {
        return "unregistered_inlined_tables";
    }

    @Override
    public String fix() {
        return "ducklake-janitor drop-orphan-inline-tables --include-unregistered";
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        InlineSurvey.Figures f = ctx.survey().get();
        return finding(f.unregisteredData(), f.unregisteredDataExamples());
    }
}
