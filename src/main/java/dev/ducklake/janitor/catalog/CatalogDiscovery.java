package dev.ducklake.janitor.catalog;

import dev.ducklake.janitor.retry.FailureKind;
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
                if (SqlState.classify(e) != FailureKind.PERMISSION_DENIED) {
                    throw e;
                }
                out.add(schema);
            }
        }
        return new Found(out, noUsage);
    }

    /**
     * Who may read one schema holding a {@code ducklake_metadata} relation.
     *
     * @param schema the schema
     * @param missing the grants the current role lacks to read the tables asked for, as SQL a superuser or the owner
     *     can run ({@code GRANT USAGE ON SCHEMA …}, {@code GRANT SELECT ON …}); empty when everything can be read
     * @param isCatalog whether it holds a DuckLake catalog: its {@code ducklake_metadata} has a {@code version} row, or
     *     it cannot be read (then it must be assumed to be one)
     */
    public record Access(String schema, List<String> missing, boolean isCatalog) {
        /** @return whether the role can read every table asked for */
        public boolean readable() {
            return missing.isEmpty();
        }
    }

    /**
     * Every schema of the database holding a relation named {@code ducklake_metadata} (found through
     * {@code pg_class}/{@code pg_namespace}, which every role can read, so a schema the role has no USAGE on is still
     * seen), with the privileges the current role lacks to read {@code ducklake_metadata} and the given tables. A table
     * that does not exist is not a missing grant (older formats lack some tables). Sorted by schema name. Reads only.
     *
     * @param c an open connection (autocommit or in a transaction)
     * @param tables the catalog tables a caller must read, e.g. {@code ducklake_data_file}
     * @return one entry per schema
     * @throws SQLException on database errors
     */
    public static List<Access> access(Connection c, List<String> tables) throws SQLException {
        List<String> all = new ArrayList<>();
        all.add("ducklake_metadata");
        for (String t : tables) {
            if (!all.contains(t)) {
                all.add(t);
            }
        }
        List<Access> out = new ArrayList<>();
        List<String[]> rows = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT n.nspname::text, pg_catalog.has_schema_privilege(n.oid, 'USAGE'),"
                + " ARRAY(SELECT x.t FROM unnest(?::text[]) WITH ORDINALITY AS x(t, o) JOIN pg_catalog.pg_class r"
                + " ON r.relnamespace = n.oid AND r.relname = x.t"
                + " WHERE NOT pg_catalog.has_table_privilege(r.oid, 'SELECT') ORDER BY x.o)::text[]"
                + " FROM pg_catalog.pg_class t JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace"
                + " WHERE t.relname = 'ducklake_metadata' AND t.relkind IN ('r', 'p', 'v', 'f') ORDER BY 1")) {
            ps.setArray(1, c.createArrayOf("text", all.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String[] noSelect = (String[]) rs.getArray(3).getArray();
                    String[] row = new String[noSelect.length + 2];
                    row[0] = rs.getString(1);
                    row[1] = Boolean.toString(rs.getBoolean(2));
                    System.arraycopy(noSelect, 0, row, 2, noSelect.length);
                    rows.add(row);
                }
            }
        }
        for (String[] row : rows) {
            String schema = row[0];
            List<String> missing = new ArrayList<>();
            if (!Boolean.parseBoolean(row[1])) {
                missing.add("GRANT USAGE ON SCHEMA " + Sql.ident(schema));
            }
            for (int i = 2; i < row.length; i++) {
                missing.add("GRANT SELECT ON " + Sql.qualified(schema, row[i]));
            }
            boolean isCatalog = true;
            if (missing.isEmpty()) {
                try (PreparedStatement ps = c.prepareStatement("SELECT EXISTS (SELECT 1 FROM "
                        + Sql.qualified(schema, "ducklake_metadata") + " WHERE key = 'version')");
                     ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    isCatalog = rs.getBoolean(1);
                }
            }
            out.add(new Access(schema, List.copyOf(missing), isCatalog));
        }
        return out;
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
