package dev.ducklake.janitor.catalog.health;

import dev.ducklake.janitor.catalog.OrphanPredicate;

import java.sql.SQLException;
import java.util.List;

/**
 * {@code registry_rows_without_table}: orphan registry rows (table_id unreachable, {@link OrphanPredicate}) whose table
 * does not exist, as drop-orphan-inline-tables' survey counts them ({@code orphan_rows - orphan_tables_present}). Unit:
 * registry rows. Examples come from {@link #missing}, the one anti-join of registry names against pg_class.
 *
 * <p>Source: older DuckLake releases and hand-made cleanups dropped inlined tables without their registry rows; DuckLake
 * reads every registered table of a table in scans, in its post-flush cleanup ({@code DropEmptySupersededInlinedTables})
 * and in the 1.0 to 1.1 migration ({@code MigrateInlinedColumnNames}), and each read of a missing one fails. Fix:
 * drop-orphan-inline-tables, which deletes these rows ({@code missing_tables}).
 */
final class RegistryRowsWithoutTableRule extends NamedRule {

    RegistryRowsWithoutTableRule() {
        super("registry_rows_without_table",
                "ducklake-janitor drop-orphan-inline-tables (deletes the registry rows whose table is gone)");
    }

    /**
     * A query part selecting registry rows (columns table_id, table_name, schema_version) whose table is missing from the
     * schema, of unreachable or of reachable table_ids; its one bind parameter is the schema name. The missing rows are
     * found first (one anti-join of registry names against pg_class) and only their ids are classified, so the cost does
     * not depend on how many tables leaked.
     *
     * @param ctx the check context
     * @param reachable true for reachable table_ids only, false for unreachable ones only
     * @return {@code WITH ... SELECT r.table_id, r.table_name, r.schema_version FROM missing r WHERE ...}
     */
    static String missing(CheckContext ctx, boolean reachable) {
        return "WITH missing AS MATERIALIZED (SELECT r.table_id, r.table_name, r.schema_version FROM "
                + ctx.t("ducklake_inlined_data_tables") + " r WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class c"
                + " WHERE c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?) AND c.relname::text = r.table_name)), "
                + Reachability.cte(ctx.schema(), "missing")
                + " SELECT r.table_id, r.table_name, r.schema_version FROM missing r WHERE "
                + (reachable ? "" : "NOT ") + Reachability.reachable("r.table_id");
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        long count = ctx.survey().get().registryRowsWithoutTable();
        List<String> examples = count == 0 || !ctx.info().hasInlinedRegistry() ? List.of() : ctx.examples("SELECT m.table_name,"
                + " m.table_id FROM (" + missing(ctx, false) + ") m ORDER BY m.table_id, m.schema_version LIMIT ?",
                List.of("", "table_id="), ctx.schema(), ctx.maxExamples());
        return finding(count, examples);
    }
}
