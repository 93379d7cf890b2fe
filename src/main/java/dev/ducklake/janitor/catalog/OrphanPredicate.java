package dev.ducklake.janitor.catalog;

import dev.ducklake.janitor.pg.Sql;

/**
 * The one definition of "this DuckLake table_id is unreachable", shared by every command and metric that
 * needs it ({@code drop-orphan-inline-tables}, the {@code ducklake_unreachable_inline_tables} metric, the
 * search for unregistered leftovers). Do not write this SQL anywhere else.
 *
 * <p>A table_id is unreachable when no {@code ducklake_table} row of it satisfies
 * {@code begin_snapshot <= max(snapshot_id) AND (end_snapshot IS NULL OR end_snapshot > min(snapshot_id))},
 * min and max taken over {@code ducklake_snapshot}: no retained snapshot can see any version of the table.
 * A table_id with no {@code ducklake_table} row at all is unreachable. {@code end_snapshot} is exclusive
 * (DuckLake spec: a row is visible at snapshot S when {@code begin_snapshot <= S < end_snapshot}), so with
 * snapshots 100..200 retained an end of 100 is unreachable and an end of 101 is reachable.
 *
 * <p>This is at least as conservative as DuckLake's own {@code ducklake_expire_snapshots} rule for
 * removable tables (see shared catalog notes, section 3): every table_id called unreachable here is also
 * removable by DuckLake, which drops such a table's inlined tables whatever their content.
 *
 * <p>Safety: the expression is false for every row when {@code ducklake_snapshot} is empty (NULL bounds
 * would otherwise make every table unreachable); callers also refuse to run on such a catalog.
 */
public final class OrphanPredicate {

    private OrphanPredicate() {
    }

    /**
     * A boolean SQL expression, true when the table_id given by {@code tableIdExpr} is unreachable.
     *
     * @param schema the metadata schema (quoted here through {@link Sql})
     * @param tableIdExpr an SQL expression of the outer query giving the table_id, e.g. {@code r.table_id};
     *     must be engine-written SQL, never user input
     * @return the parenthesised expression; it uses no bind parameters
     */
    public static String unreachable(String schema, String tableIdExpr) {
        String snapshot = Sql.qualified(schema, "ducklake_snapshot");
        String table = Sql.qualified(schema, "ducklake_table");
        return "(EXISTS (SELECT 1 FROM " + snapshot + ")"
                + " AND NOT EXISTS (SELECT 1 FROM " + table + " dt"
                + " WHERE dt.table_id = " + tableIdExpr
                + " AND dt.begin_snapshot <= (SELECT max(snapshot_id) FROM " + snapshot + ")"
                + " AND (dt.end_snapshot IS NULL OR dt.end_snapshot > (SELECT min(snapshot_id) FROM " + snapshot + "))))";
    }

    /**
     * A query with one bigint column: the number of {@code ducklake_inlined_data_tables} rows whose
     * table_id is unreachable (orphan registry rows, whatever their table_name). This is the figure of
     * both the dry run's {@code orphan_rows} and the {@code ducklake_unreachable_inline_tables} metric.
     *
     * @param schema the metadata schema
     * @return the SQL text, without bind parameters
     */
    public static String countOrphanRegistryRows(String schema) {
        return "SELECT count(*) FROM " + Sql.qualified(schema, "ducklake_inlined_data_tables") + " r WHERE "
                + unreachable(schema, "r.table_id");
    }
}
