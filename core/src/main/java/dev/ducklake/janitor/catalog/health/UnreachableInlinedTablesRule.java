package dev.ducklake.janitor.catalog.health;

import dev.ducklake.janitor.catalog.OrphanPredicate;

import java.sql.SQLException;
import java.util.List;

/**
 * {@code unreachable_inlined_tables}: registry rows of {@code ducklake_inlined_data_tables} whose table_id no retained
 * snapshot can reach, counted by {@link OrphanPredicate#countOrphanRegistryRows} — the same SQL as
 * drop-orphan-inline-tables' {@code orphan_rows} and the {@code ducklake_unreachable_inline_tables} gauge. Unit: registry
 * rows.
 *
 * <p>Source: DuckLake leaks the inlined tables of dropped tables (duckdb/ducklake#1065, #1219, #1237: DuckLake's
 * {@code DropEmptySupersededInlinedTables} never drops a table_id's newest inlined table; releases up to 1.5.2 kept them
 * after expiry too). Each one is read by DuckDB's ATTACH reflection. Fix: drop-orphan-inline-tables.
 */
final class UnreachableInlinedTablesRule extends NamedRule {

    UnreachableInlinedTablesRule() {
        super("unreachable_inlined_tables",
                "ducklake-janitor drop-orphan-inline-tables (add --include-nonempty for those still holding rows)");
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        if (!ctx.info().hasInlinedRegistry()) {
            return none();
        }
        long count = ctx.count(OrphanPredicate.countOrphanRegistryRows(ctx.schema()));
        List<String> examples = count == 0 ? List.of() : ctx.examples("SELECT r.table_name, r.table_id FROM "
                + ctx.t("ducklake_inlined_data_tables") + " r WHERE " + OrphanPredicate.unreachable(ctx.schema(), "r.table_id")
                + " ORDER BY r.table_id, r.schema_version LIMIT ?", List.of("", "table_id="), ctx.maxExamples());
        return finding(count, examples);
    }
}
