package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.catalog.CatalogLayout;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.pg.Sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Which DuckLake catalog tables and columns a metadata schema has. The layout differs by format version
 * (shared/ducklake/catalog.md §1: 0.1 has no path columns on schema/table and no scope on metadata,
 * {@code ducklake_file_column_stats} was {@code ducklake_file_column_statistics} before 0.3, the macro, sort and
 * variant-stats tables arrive in 0.4, {@code ducklake_view_column_tag} in 1.1-dev1). Expiry touches only the
 * relations and columns that exist, as DuckLake's own statements would after its migration. Reads every catalog table
 * expiry may touch (a wider list than {@link CatalogLayout#read}, with its own query); the column answers are
 * {@link CatalogLayout}'s.
 */
final class ExpiryLayout {

    private final String schema;
    private final FormatVersion version;
    private final CatalogLayout columns;

    private ExpiryLayout(String schema, FormatVersion version, CatalogLayout columns) {
        this.schema = schema;
        this.version = version;
        this.columns = columns;
    }

    /** Reads the columns of every catalog table ({@code ducklake_*} except the inlined-data tables). */
    static ExpiryLayout read(Connection c, String schema, FormatVersion version) throws SQLException {
        Map<String, Set<String>> cols = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT cl.relname::text, a.attname::text"
                + " FROM pg_catalog.pg_class cl JOIN pg_catalog.pg_namespace n ON n.oid = cl.relnamespace"
                + " JOIN pg_catalog.pg_attribute a ON a.attrelid = cl.oid AND a.attnum > 0 AND NOT a.attisdropped"
                + " WHERE n.nspname = ? AND cl.relkind IN ('r', 'p') AND cl.relname::text = ANY (?)")) {
            ps.setString(1, schema);
            ps.setArray(2, c.createArrayOf("text", KNOWN.toArray(new String[0])));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    cols.computeIfAbsent(rs.getString(1), k -> new HashSet<>()).add(rs.getString(2));
                }
            }
        }
        return new ExpiryLayout(schema, version, CatalogLayout.of(cols));
    }

    private static final Set<String> KNOWN = Set.of("ducklake_metadata", "ducklake_snapshot", "ducklake_snapshot_changes",
            "ducklake_schema", "ducklake_table", "ducklake_view", "ducklake_view_column_tag", "ducklake_tag",
            "ducklake_column_tag", "ducklake_data_file", "ducklake_file_column_stats", "ducklake_file_column_statistics",
            "ducklake_file_variant_stats", "ducklake_delete_file", "ducklake_column", "ducklake_table_stats",
            "ducklake_table_column_stats", "ducklake_partition_info", "ducklake_partition_column",
            "ducklake_file_partition_value", "ducklake_files_scheduled_for_deletion", "ducklake_inlined_data_tables",
            "ducklake_column_mapping", "ducklake_name_mapping", "ducklake_schema_versions", "ducklake_macro",
            "ducklake_macro_impl", "ducklake_macro_parameters", "ducklake_sort_info", "ducklake_sort_expression");

    String schema() {
        return schema;
    }

    FormatVersion version() {
        return version;
    }

    /** Whether the table exists. */
    boolean has(String table) {
        return columns.has(table);
    }

    /** Whether the table exists and has all the named columns. */
    boolean has(String table, String... cols) {
        return columns.has(table, cols);
    }

    /** The schema-qualified, quoted name of a catalog table. */
    String q(String table) {
        return Sql.qualified(schema, table);
    }

    /** The file-column-stats table of this layout (renamed in 0.3), or null. */
    String fileColumnStats() {
        return columns.fileColumnStatsTable();
    }

    /** Whether ducklake_metadata has the scope column (0.2 and later). */
    boolean metadataHasScope() {
        return has("ducklake_metadata", "scope");
    }

    /** Whether schema and table rows carry path / path_is_relative (0.2 and later; 0.1 means '' relative). */
    boolean hasPaths() {
        return has("ducklake_schema", "path", "path_is_relative") && has("ducklake_table", "path", "path_is_relative");
    }

    /**
     * A global-scope value of ducklake_metadata ({@code scope IS NULL}; 0.1 has no scope column).
     *
     * @return the value, or null when the key is not set
     */
    String globalOption(Connection c, String key) throws SQLException {
        String sql = "SELECT value FROM " + q("ducklake_metadata") + " WHERE key = ?"
                + (metadataHasScope() ? " AND scope IS NULL" : "") + " LIMIT 1";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }
}
