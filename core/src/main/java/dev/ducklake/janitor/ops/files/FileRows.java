package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.PathResolver;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The one query of a catalog's data and delete file rows with their table's and schema's paths, and how such a row's
 * relative path resolves to a full address: read alike by the known set ({@link KnownFiles}), the re-check before each
 * delete ({@link CatalogRecheck}) and the missing-object probe ({@link MissingObjects}).
 */
final class FileRows {

    private FileRows() {
    }

    /**
     * The one query of a catalog's data and delete file rows of any snapshot with their table's and schema's paths.
     * Columns: 1 file path, 2 its path_is_relative, 3 table path, 4 its path_is_relative, 5 schema path, 6 its
     * path_is_relative, 7 table row missing, 8 schema row missing; rows are resolved by {@link #resolve}.
     *
     * @param c an open connection (to read which path columns the format has)
     * @param schema the metadata schema
     * @param fileFilter a condition on the file rows' own columns with its WHERE (bind parameters allowed: it is
     *     applied to ducklake_data_file and ducklake_delete_file in that order), or "" for all rows
     * @return the SQL text
     * @throws SQLException on database errors
     */
    static String sql(Connection c, String schema, String fileFilter) throws SQLException {
        return sql(c, schema, fileFilter, false);
    }

    /**
     * {@link #sql(Connection, String, String)}, with {@code details} also columns 9 kind ({@code data} or
     * {@code delete}), 10 the file id, 11 table_id, 12 begin_snapshot, 13 end_snapshot (null: live), 14 file_size_bytes.
     */
    static String sql(Connection c, String schema, String fileFilter, boolean details) throws SQLException {
        return sql(c, schema, fileFilter, fileFilter, details);
    }

    /**
     * {@link #sql(Connection, String, String, boolean)} with a condition of its own for each file table (its bind
     * parameters, if any, come in that order: {@code dataFilter}'s, then {@code deleteFilter}'s), e.g. on their
     * primary keys, whose names differ.
     */
    static String sql(Connection c, String schema, String dataFilter, String deleteFilter, boolean details)
            throws SQLException {
        String sp = CatalogFiles.hasColumn(c, schema, "ducklake_schema", "path") ? "path, path_is_relative"
                : "NULL::varchar AS path, NULL::boolean AS path_is_relative";
        String tp = CatalogFiles.hasColumn(c, schema, "ducklake_table", "path") ? "path, path_is_relative"
                : "NULL::varchar AS path, NULL::boolean AS path_is_relative";
        String dataDetails = details ? ", 'data'::text AS kind, data_file_id AS file_id, begin_snapshot, end_snapshot, file_size_bytes" : "";
        String deleteDetails = details ? ", 'delete'::text, delete_file_id, begin_snapshot, end_snapshot, file_size_bytes" : "";
        return "SELECT f.path, f.path_is_relative, t.path, t.path_is_relative, s.path, s.path_is_relative,"
                + " t.table_id IS NULL, s.schema_id IS NULL"
                + (details ? ", f.kind, f.file_id, f.table_id, f.begin_snapshot, f.end_snapshot, f.file_size_bytes" : "")
                + " FROM (SELECT table_id, path, path_is_relative" + dataDetails + " FROM " + Sql.qualified(schema, "ducklake_data_file")
                + dataFilter
                + " UNION ALL SELECT table_id, path, path_is_relative" + deleteDetails + " FROM "
                + Sql.qualified(schema, "ducklake_delete_file") + deleteFilter + ") f"
                + " LEFT JOIN (SELECT DISTINCT table_id, schema_id, " + tp + " FROM " + Sql.qualified(schema, "ducklake_table")
                + ") t ON t.table_id = f.table_id"
                + " LEFT JOIN (SELECT DISTINCT schema_id, " + sp + " FROM " + Sql.qualified(schema, "ducklake_schema")
                + ") s ON s.schema_id = t.schema_id";
    }

    /**
     * The full address of a relative file row of {@link #sql} (through its table and schema paths), or null
     * when its table or schema row is missing.
     */
    static String resolve(ResultSet rs, PathResolver r, String path) throws SQLException {
        if (rs.getBoolean(7) || (rs.getObject(4) == null || (Boolean) rs.getObject(4)) && rs.getString(3) != null
                && rs.getBoolean(8)) {
            return null;
        }
        String schemaFull = r.schema(rs.getString(5), (Boolean) rs.getObject(6));
        String tableFull = PathResolver.table(schemaFull, rs.getString(3), (Boolean) rs.getObject(4));
        return PathResolver.file(tableFull, path, true);
    }
}
