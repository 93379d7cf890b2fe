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
     * What {@link #discover} found.
     *
     * @param schemas the schemas holding a DuckLake catalog that the role may use, sorted by name
     * @param noUsage schemas with a {@code ducklake_metadata} table on which the role has no USAGE privilege (it
     *     cannot tell whether they hold a catalog, nor work on them), sorted by name
     */
    public record Found(List<String> schemas, List<String> noUsage) {
    }

    /**
     * Lists the schemas holding a DuckLake catalog, sorted by name. A schema whose {@code ducklake_metadata} the
     * user may not read is listed too, so that the run on it reports the missing privilege instead of silently
     * leaving a tenant out; a schema the role has no USAGE on at all is not a tenant of this role and is returned
     * apart ({@link Found#noUsage()}), for the caller to name. The version value itself is not checked here
     * ({@link CatalogInspector} does it per schema, so an unknown version is refused for that schema only).
     *
     * @param c an open connection (autocommit)
     * @return the schemas, and those without USAGE
     * @throws JanitorException {@link Reason#PERMISSION_DENIED} when pg_catalog cannot be read
     * @throws SQLException on other database errors
     */
    public static Found discover(Connection c) throws JanitorException, SQLException {
        List<String> withTable = new ArrayList<>();
        List<String> noUsage = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT n.nspname::text, pg_catalog.has_schema_privilege(n.oid, 'USAGE')"
                + " FROM pg_catalog.pg_class t JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace"
                + " WHERE t.relname = 'ducklake_metadata' AND t.relkind IN ('r', 'p', 'v', 'f') ORDER BY 1");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                (rs.getBoolean(2) ? withTable : noUsage).add(rs.getString(1));
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
        return new Found(out, noUsage);
    }

    /**
     * The schemas of {@link #discover} the role may use.
     *
     * @param c an open connection (autocommit)
     * @return the schema names; empty when the database holds no catalog the role may use
     * @throws JanitorException {@link Reason#PERMISSION_DENIED} when pg_catalog cannot be read
     * @throws SQLException on other database errors
     */
    public static List<String> catalogSchemas(Connection c) throws JanitorException, SQLException {
        return discover(c).schemas();
    }
}
