package dev.ducklake.janitor.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which DuckLake catalog tables and columns a metadata schema has. The layout differs by format version (DuckLake's
 * migration chain: {@code ducklake_file_column_statistics} until 0.2, {@code ducklake_schema_versions} from 0.3 and its
 * {@code table_id} from 0.4, {@code ducklake_file_variant_stats} from 0.4, paths on schema and table from 0.2), and a
 * damaged catalog may lack a table: every rule of {@code check} and {@code purge-orphan-stats} asks here instead of
 * assuming. Read with one query on {@code pg_attribute} restricted to the named catalog tables (never the per-table
 * inlined tables). {@code expire-snapshots} reads a wider list of tables with its own query and answers from the same
 * type ({@link #of}).
 */
public final class CatalogLayout {

    /** Every catalog table a rule may read (all format versions). */
    static final List<String> TABLES = List.of("ducklake_metadata", "ducklake_snapshot", "ducklake_snapshot_changes",
            "ducklake_schema", "ducklake_table", "ducklake_data_file", "ducklake_delete_file", "ducklake_table_stats",
            "ducklake_table_column_stats", "ducklake_file_column_stats", "ducklake_file_column_statistics",
            "ducklake_file_variant_stats", "ducklake_file_partition_value", "ducklake_files_scheduled_for_deletion",
            "ducklake_inlined_data_tables", "ducklake_schema_versions");

    private final Map<String, Set<String>> columns;

    private CatalogLayout(Map<String, Set<String>> columns) {
        this.columns = columns;
    }

    /**
     * A layout of columns read elsewhere.
     *
     * @param columns the columns of each catalog table present, by table name (kept, not copied)
     * @return the layout
     */
    public static CatalogLayout of(Map<String, Set<String>> columns) {
        return new CatalogLayout(columns);
    }

    /**
     * Reads the layout of a schema.
     *
     * @param c an open connection
     * @param schema the metadata schema
     * @return the tables of {@link #TABLES} present (plain or partitioned tables) with their columns
     * @throws SQLException on database errors
     */
    public static CatalogLayout read(Connection c, String schema) throws SQLException {
        Map<String, Set<String>> cols = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT c.relname::text, a.attname::text FROM pg_catalog.pg_class c"
                + " JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped"
                + " WHERE c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?)"
                + " AND c.relkind IN ('r', 'p') AND c.relname::text = ANY (?)")) {
            ps.setString(1, schema);
            ps.setArray(2, c.createArrayOf("text", TABLES.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    cols.computeIfAbsent(rs.getString(1), k -> new HashSet<>()).add(rs.getString(2));
                }
            }
        }
        return new CatalogLayout(cols);
    }

    /** Whether the catalog table exists. */
    public boolean has(String table) {
        return columns.containsKey(table);
    }

    /** Whether the catalog table exists and has every one of the columns. */
    public boolean has(String table, String... cols) {
        Set<String> present = columns.get(table);
        if (present == null) {
            return false;
        }
        for (String col : cols) {
            if (!present.contains(col)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The per-file column statistics table: {@code ducklake_file_column_stats}, or its name before format 0.3,
     * {@code ducklake_file_column_statistics}; null when neither exists.
     */
    public String fileColumnStatsTable() {
        if (has("ducklake_file_column_stats")) {
            return "ducklake_file_column_stats";
        }
        return has("ducklake_file_column_statistics") ? "ducklake_file_column_statistics" : null;
    }
}
