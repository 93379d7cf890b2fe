package dev.ducklake.janitor.catalog;

import dev.ducklake.janitor.pg.Sql;

import java.util.ArrayList;
import java.util.List;

/**
 * The one definition of orphaned statistics rows, used by {@code check}'s rule {@code orphaned_stats_rows}, the
 * {@code ducklake_check_findings} gauge and {@code purge-orphan-stats} (which deletes exactly these rows). Unit: rows.
 * <ul>
 *   <li>table-level: {@code ducklake_table_stats} and {@code ducklake_table_column_stats} rows whose table_id has no
 *       {@code ducklake_table} row at all ({@link #tableLevelOrphan});</li>
 *   <li>per-file: {@code ducklake_file_column_stats} ({@code ducklake_file_column_statistics} before format 0.3),
 *       {@code ducklake_file_variant_stats} (from 0.4) and {@code ducklake_file_partition_value} rows whose data_file_id
 *       has no {@code ducklake_data_file} row ({@link #fileLevelOrphan}).</li>
 * </ul>
 * Rows with a NULL id are never counted (no id to tie them to; DuckLake never writes them).
 *
 * <p>Source: DuckLake's DROP TABLE leaves the stats rows, and {@code ducklake_expire_snapshots} deletes them only for
 * tables it removes through their {@code ducklake_table} rows (shared catalog notes, section 3); an expiry that removed
 * the table rows another way (older releases, hand-written SQL) leaves them for good. Per-file rows of deleted data
 * files: duckdb/ducklake#986 (variant stats left behind after expiry). A table_id that has any {@code ducklake_table}
 * row is never an orphan: DuckLake removes those stats itself at expiry.
 */
public final class OrphanedStatsPredicate {

    private OrphanedStatsPredicate() {
    }

    /** The table-level statistics tables, in the order purge-orphan-stats deletes from them (table stats first). */
    public static final List<String> TABLE_LEVEL = List.of("ducklake_table_stats", "ducklake_table_column_stats");

    /**
     * A boolean SQL expression: the row {@code alias} of a table-level stats table is orphaned (its table_id is not NULL
     * and has no {@code ducklake_table} row). Uses no bind parameters; hash anti-join on {@code ducklake_table}.
     *
     * @param schema the metadata schema
     * @param alias the alias of the stats table in the outer query (engine-written SQL)
     * @return the parenthesised expression
     */
    public static String tableLevelOrphan(String schema, String alias) {
        return "(" + alias + ".table_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM " + Sql.qualified(schema, "ducklake_table")
                + " dt WHERE dt.table_id = " + alias + ".table_id))";
    }

    /**
     * A boolean SQL expression: the row {@code alias} of a per-file stats table is orphaned (its data_file_id is not NULL
     * and has no {@code ducklake_data_file} row).
     *
     * @param schema the metadata schema
     * @param alias the alias of the stats table in the outer query
     * @return the parenthesised expression
     */
    public static String fileLevelOrphan(String schema, String alias) {
        return "(" + alias + ".data_file_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM " + Sql.qualified(schema, "ducklake_data_file")
                + " df WHERE df.data_file_id = " + alias + ".data_file_id))";
    }

    /**
     * The table-level stats tables present in this catalog (with a table_id column), in deletion order.
     *
     * @param layout the catalog layout
     * @return a subset of {@link #TABLE_LEVEL}
     */
    public static List<String> tableLevelTables(CatalogLayout layout) {
        return layout.has("ducklake_table", "table_id")
                ? TABLE_LEVEL.stream().filter(t -> layout.has(t, "table_id")).toList() : List.of();
    }

    /**
     * The per-file stats tables present in this catalog (with a data_file_id column).
     *
     * @param layout the catalog layout
     * @return the table names
     */
    public static List<String> fileLevelTables(CatalogLayout layout) {
        if (!layout.has("ducklake_data_file", "data_file_id")) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        String fcs = layout.fileColumnStatsTable();
        if (fcs != null) {
            out.add(fcs);
        }
        out.add("ducklake_file_variant_stats");
        out.add("ducklake_file_partition_value");
        return out.stream().filter(t -> layout.has(t, "data_file_id")).toList();
    }
}
