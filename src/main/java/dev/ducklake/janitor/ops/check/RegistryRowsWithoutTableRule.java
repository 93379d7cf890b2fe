package dev.ducklake.janitor.ops.check;

import dev.ducklake.janitor.catalog.OrphanPredicate;

import java.sql.SQLException;
import java.util.List;

/**
 * {@code registry_rows_without_table}: rows of {@code ducklake_inlined_data_tables} naming a relation that does not
 * exist in the metadata schema. Unit: registry rows. Same figure as the {@code ducklake_inlined_data_registry_rows_missing_table}
 * gauge; each example says whether the table_id is reachable.
 *
 * <p>Source: DuckLake reads every registered inlined table of a table on each scan, in its post-flush cleanup
 * ({@code DropEmptySupersededInlinedTables}, {@code SELECT COUNT(*)} of each candidate) and in the 1.0 to 1.1 migration
 * ({@code MigrateInlinedColumnNames}); a row whose table is gone makes each of them fail. Fix: drop-orphan-inline-tables
 * deletes the rows of unreachable table_ids (counted there as {@code missing_tables}); for a reachable table_id nothing
 * automatic: recreate the table with DuckLake's columns from a backup, or delete the row only when the table's inlined
 * rows are known to be lost.
 */
final class RegistryRowsWithoutTableRule implements CheckRule {

    @Override
    public String kind() {
        return "registry_rows_without_table";
    }

    @Override
    public String fix() {
        return "ducklake-janitor drop-orphan-inline-tables removes those of unreachable table_ids; for a reachable table_id "
                + "none automatic: DuckLake's reads of that table fail until the inlined table is restored from a backup";
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        if (!ctx.info().hasInlinedRegistry()) {
            return finding(0, List.of());
        }
        String missing = " FROM " + ctx.t("ducklake_inlined_data_tables") + " r WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class c"
                + " WHERE c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?) AND c.relname::text = r.table_name)";
        long count = ctx.count("SELECT count(*)" + missing, ctx.schema());
        List<String> examples = count == 0 ? List.of() : ctx.examples("SELECT r.table_name, r.table_id, "
                + OrphanPredicate.unreachable(ctx.schema(), "r.table_id") + missing + " ORDER BY r.table_id, r.schema_version LIMIT ?",
                List.of("", "table_id=", "unreachable="), ctx.schema(), ctx.maxExamples());
        return finding(count, examples);
    }
}
