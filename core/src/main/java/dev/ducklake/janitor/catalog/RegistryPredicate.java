package dev.ducklake.janitor.catalog;

import dev.ducklake.janitor.pg.Sql;

/**
 * The one definition of "this inlined table has no row in {@code ducklake_inlined_data_tables}", shared by the
 * survey of unregistered tables and the re-check under the table lock. Do not write this SQL anywhere else.
 *
 * <p>A table has no registry row when no row names it ({@code table_name}) and, for an inlined-data table, no
 * row carries its {@code (table_id, schema_version)}: either would make DuckLake (which resolves inlined tables
 * through the registry, {@code ducklake_inlined_data_tables}) consider it, so either keeps it out of reach of the
 * unregistered path. For an inlined deletion table the version expression is NULL and the second test is true:
 * they are never registered. The two tests are ANDed (no OR), so PostgreSQL plans both as anti-joins.
 */
public final class RegistryPredicate {

    private RegistryPredicate() {
    }

    /**
     * A boolean SQL expression, true when the relation described by the three expressions has no registry row.
     *
     * @param schema the metadata schema (quoted here through {@link Sql})
     * @param hasRegistry whether the catalog has a {@code ducklake_inlined_data_tables} table; without one every
     *     table is unregistered and the expression is {@code true}
     * @param nameExpr SQL expression of the outer query giving the relation name (text), engine-written
     * @param tableIdExpr SQL expression giving the parsed table_id (bigint)
     * @param schemaVersionExpr SQL expression giving the parsed schema_version (bigint; NULL for a deletion table)
     * @return the parenthesised expression; it uses no bind parameters
     */
    public static String noRegistryRow(String schema, boolean hasRegistry, String nameExpr, String tableIdExpr,
                                       String schemaVersionExpr) {
        if (!hasRegistry) {
            return "(true)";
        }
        String registry = Sql.qualified(schema, "ducklake_inlined_data_tables");
        return "(NOT EXISTS (SELECT 1 FROM " + registry + " r WHERE r.table_name = " + nameExpr + ")"
                + " AND NOT EXISTS (SELECT 1 FROM " + registry + " r WHERE r.table_id = " + tableIdExpr
                + " AND r.schema_version = " + schemaVersionExpr + "))";
    }
}
