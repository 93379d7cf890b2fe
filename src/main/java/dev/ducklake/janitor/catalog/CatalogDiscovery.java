package dev.ducklake.janitor.catalog;

import dev.ducklake.janitor.pg.SqlState;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Finds the DuckLake catalogs of one PostgreSQL database. DuckLake's {@code METADATA_SCHEMA} ATTACH option puts
 * each catalog in its own schema, so one database may hold many (one per tenant). A schema holds a catalog when
 * it has a table {@code ducklake_metadata} with a row of key {@code version} (DuckLake writes it when it creates
 * the catalog, {@code InitializeDuckLake}). Reads only.
 */
public final class CatalogDiscovery {

    private CatalogDiscovery() {
    }

    /**
     * Lists the schemas holding a DuckLake catalog, sorted by name. A schema whose {@code ducklake_metadata} the
     * user may not read is listed too, so that the run on it reports the missing privilege instead of silently
     * leaving a tenant out. The version value itself is not checked here ({@link CatalogInspector} does it per
     * schema, so an unknown version is refused for that schema only).
     *
     * @param c an open connection (autocommit)
     * @return the schema names; empty when the database holds no catalog
     * @throws JanitorException {@link Reason#PERMISSION_DENIED} when pg_catalog cannot be read
     * @throws SQLException on other database errors
     */
    public static List<String> catalogSchemas(Connection c) throws JanitorException, SQLException {
        List<String> withTable = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT n.nspname::text FROM pg_catalog.pg_class t"
                + " JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace"
                + " WHERE t.relname = 'ducklake_metadata' AND t.relkind IN ('r', 'p', 'v', 'f') ORDER BY 1");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                withTable.add(rs.getString(1));
            }
        }
        List<String> out = new ArrayList<>();
        for (String schema : withTable) {
            try (PreparedStatement ps = c.prepareStatement("SELECT EXISTS (SELECT 1 FROM "
                    + Sql.qualified(schema, "ducklake_metadata") + " WHERE key = 'version')");
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (rs.getBoolean(1)) {
                    out.add(schema);
                }
            } catch (SQLException e) {
                if (SqlState.classify(e) != SqlState.Kind.PERMISSION_DENIED) {
                    throw e;
                }
                out.add(schema);
            }
        }
        return out;
    }
}
