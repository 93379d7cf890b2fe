package dev.ducklake.janitor.catalog.health;

import java.sql.SQLException;
import java.util.List;

/**
 * {@code registry_rows_without_table_of_reachable_tables}: rows of {@code ducklake_inlined_data_tables} whose table_id is
 * still reachable from a retained snapshot and whose table does not exist ({@link RegistryRowsWithoutTableRule#missing}).
 * Unit: registry rows. The same figure as the reachable part of the {@code ducklake_inlined_data_registry_rows_missing_table}
 * gauge.
 *
 * <p>Source: as {@code registry_rows_without_table} (every DuckLake scan of the table, its post-flush cleanup and the
 * 1.0 to 1.1 migration read each registered inlined table); here the DuckLake table is live or still visible to time
 * travel, so its reads fail now. drop-orphan-inline-tables never touches a reachable table. Fix: none automatic: restore the
 * inlined table (DuckLake's columns) from a backup; delete the registry row only if its inlined rows are known lost.
 */
final class RegistryRowsWithoutTableOfReachableTablesRule extends NamedRule {

    RegistryRowsWithoutTableOfReachableTablesRule() {
        super("registry_rows_without_table_of_reachable_tables",
                "none automatic: DuckLake's reads of this table fail until the inlined table is restored from a backup (delete the "
                        + "registry row by hand only if its inlined rows are known to be lost)");
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        if (!ctx.info().hasInlinedRegistry()) {
            return none();
        }
        String missing = "(" + RegistryRowsWithoutTableRule.missing(ctx, true) + ") m";
        long count = ctx.count("SELECT count(*) FROM " + missing, ctx.schema());
        List<String> examples = count == 0 ? List.of() : ctx.examples("SELECT m.table_name, m.table_id FROM " + missing
                + " ORDER BY m.table_id, m.schema_version LIMIT ?", List.of("", "table_id="), ctx.schema(), ctx.maxExamples());
        return finding(count, examples);
    }
}
