package dev.ducklake.janitor.ops.compact;

import dev.ducklake.janitor.catalog.InlinedTableName;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * What DuckDB's ATTACH of the catalog would scan, measured over JDBC before attaching: postgres_scanner's catalog
 * reflection reads every relation of the metadata schema and each one's columns from {@code pg_attribute}, and DuckLake
 * then binds every inlined table (the interop ATTACH benchmarks: 230,000 leaked inlined tables cost 84 s and 1.8 GiB).
 *
 * @param relations tables of the metadata schema
 * @param inlinedTables of those, inlined-data and inlined-deletion tables ({@link InlinedTableName#ANY_REGEX}), registered or not
 * @param columns {@code pg_attribute} rows (user columns, not dropped) of the metadata schema's tables
 */
public record AttachCost(long relations, long inlinedTables, long columns) {

    /**
     * Measures the schema.
     *
     * @param c a connection
     * @param schema the metadata schema
     * @return the figures
     * @throws SQLException on a database error
     */
    public static AttachCost measure(Connection c, String schema) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*), count(*) FILTER (WHERE k.relname ~ ?),"
                + " COALESCE(sum((SELECT count(*) FROM pg_catalog.pg_attribute a WHERE a.attrelid = k.oid AND a.attnum > 0"
                + " AND NOT a.attisdropped)), 0) FROM pg_catalog.pg_class k WHERE k.relkind IN ('r', 'p')"
                + " AND k.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?)")) {
            ps.setString(1, InlinedTableName.ANY_REGEX);
            ps.setString(2, schema);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new AttachCost(rs.getLong(1), rs.getLong(2), rs.getLong(3));
            }
        }
    }
}
