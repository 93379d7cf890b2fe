package dev.ducklake.janitor.catalog;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.Sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The storage commands' refusal of catalogs with nested schemas (format 1.1: a {@code ducklake_schema} row whose
 * {@code parent_schema_id} is set). Resolving a file's full path goes file → table → schema → data path
 * ({@link dev.ducklake.janitor.storage.PathResolver}); for a nested schema it is not known whether its relative
 * {@code path} is relative to the data path or to its parent schema's path: the newest DuckLake source readable here
 * (duckdb/ducklake {@code 2ed0a0be}, 2026-08-20) has no nested schemas at all, and ducklake.select's "Nested Schemas" and
 * "Paths" pages do not say. A wrong guess makes live files look unknown to delete-orphan-files (and queued files look
 * unreferenced to cleanup-old-files), so those commands refuse such a catalog instead. The catalog-only commands do not
 * resolve paths and are not affected. One query, read only.
 */
public final class NestedSchemas {

    private NestedSchemas() {
    }

    /**
     * Refuses a catalog that has nested schemas (any snapshot, dropped ones included: their files are still known files).
     *
     * @param c an open connection
     * @param schema the metadata schema
     * @throws JanitorException {@link Reason#UNSUPPORTED_VERSION} (exit 5) when {@code ducklake_schema.parent_schema_id} is
     *     set on any row; the message names the count, the first schema and why
     * @throws SQLException on database errors
     */
    public static void requireFlat(Connection c, String schema) throws JanitorException, SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class t ON t.oid = a.attrelid"
                + " JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = ? AND t.relname = 'ducklake_schema'"
                + " AND a.attname = 'parent_schema_id' AND NOT a.attisdropped")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return;
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*), min(schema_id), (array_agg(schema_name ORDER BY schema_id))[1]"
                + " FROM " + Sql.qualified(schema, "ducklake_schema") + " WHERE parent_schema_id IS NOT NULL");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            long n = rs.getLong(1);
            if (n > 0) {
                throw new JanitorException(Reason.UNSUPPORTED_VERSION, "The DuckLake catalog in schema " + Sql.printable(schema) + " has " + n
                        + " nested schema(s) (ducklake_schema.parent_schema_id set; first: schema_id " + rs.getLong(2) + " "
                        + Sql.printable(rs.getString(3)) + "). Where DuckLake 1.1 keeps a nested schema's files (relative to its parent"
                        + " schema's path or to the data path) is not settled from DuckLake's source, so this storage command refuses"
                        + " the catalog rather than guess which files are known; nothing was deleted. The catalog commands"
                        + " (expire-snapshots, drop-orphan-inline-tables, purge-orphan-stats, check, metrics) work on it.");
            }
        }
    }
}
