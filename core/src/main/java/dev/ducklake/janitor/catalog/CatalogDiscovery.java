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
import java.util.Map;
import java.util.TreeMap;

/**
 * Finds the DuckLake catalogs of one PostgreSQL database: the one place that knows what a DuckLake metadata schema is.
 * DuckLake's {@code METADATA_SCHEMA} ATTACH option puts each catalog in its own schema, so one database may hold many
 * (one per tenant). A schema holds a catalog when it has a relation {@code ducklake_metadata} (table, partitioned
 * table, view or foreign table) with a row of key {@code version} (DuckLake writes it when it creates the catalog,
 * {@code InitializeDuckLake}). Both views below find the candidate schemas with the same query
 * ({@link #METADATA_RELATIONS}, through {@code pg_class}/{@code pg_namespace}, which every role can read, so schemas
 * the role cannot use are seen too) and ask for the {@code version} row the same way ({@link #hasVersionRow}); they
 * differ on purpose in what they do with a schema the role cannot read:
 * <ul>
 *   <li>{@link #discover} (and {@link #catalogSchemas}): the schemas to <em>work on</em> ({@code --all-metadata-schemas}
 *       of the maintenance commands and {@code check}, {@code maintain}'s {@code all_metadata_schemas}, {@code metrics}
 *       and {@code serve}). A schema without USAGE is not a tenant of this role: it is returned apart, to be skipped
 *       with a note; one whose {@code ducklake_metadata} cannot be read is kept, so that the run on it reports the
 *       missing privilege instead of silently leaving a tenant out.</li>
 *   <li>{@link #access}: every schema that may hold a catalog, <em>to protect its files</em> (the storage operations'
 *       consulted-catalog survey, {@code delete-orphan-files}' passes): a schema the role cannot read (no USAGE
 *       included) is listed with the grants it lacks, so that the caller refuses to delete what such a catalog may
 *       reference.</li>
 * </ul>
 * Reads only.
 */
public final class CatalogDiscovery {

    /**
     * The candidate schemas: {@code FROM} and {@code WHERE} of a query over {@code t} (the {@code ducklake_metadata}
     * relation) and {@code n} (its schema), for {@link #discover} and {@link #access}.
     */
    private static final String METADATA_RELATIONS = " FROM pg_catalog.pg_class t JOIN pg_catalog.pg_namespace n"
            + " ON n.oid = t.relnamespace WHERE t.relname = 'ducklake_metadata' AND t.relkind IN ('r', 'p', 'v', 'f')";

    private CatalogDiscovery() {
    }

    /**
     * The schemas holding a {@code ducklake_metadata} relation now, whatever the role may read there (the candidates
     * of {@link #access}, without its privilege checks): one probe of {@code pg_class}'s name index.
     *
     * @param c a connection to the database (its transaction state is left as it was)
     * @return the schema names
     * @throws SQLException on database errors
     */
    public static java.util.Set<String> metadataSchemas(Connection c) throws SQLException {
        java.util.Set<String> out = new java.util.HashSet<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT n.nspname::text" + METADATA_RELATIONS);
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /**
     * Whether a schema's {@code ducklake_metadata} has the row of key {@code version} (the schema holds a DuckLake
     * catalog, not a table of that name by chance).
     *
     * @param c an open connection
     * @param schema the schema
     * @return true when the row is there
     * @throws SQLException on database errors, a missing privilege included (each caller decides what that means)
     */
    private static boolean hasVersionRow(Connection c, String schema) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT EXISTS (SELECT 1 FROM "
                + Sql.qualified(schema, "ducklake_metadata") + " WHERE key = 'version')");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    /**
     * The note on a schema {@link #discover} returned in {@link Found#noUsage()} (every caller of
     * {@code --all-metadata-schemas} words it the same).
     *
     * @param schema the schema
     * @param role the role the janitor logged in as
     * @return e.g. {@code schema tenant_a has a ducklake_metadata table but the role janitor has no USAGE privilege on
     *     it; skipped}
     */
    public static String skippedNote(String schema, String role) {
        return "schema " + Sql.printable(schema) + " has a ducklake_metadata table but the role " + role
                + " has no USAGE privilege on it; skipped";
    }

    /**
     * The error of a database in which {@link #discover} found no catalog to work on (every caller of
     * {@code --all-metadata-schemas} words it the same).
     *
     * @param database the database's name
     * @return {@link Reason#NOT_A_CATALOG}
     */
    public static JanitorException noCatalog(String database) {
        return new JanitorException(Reason.NOT_A_CATALOG, "No schema of database " + database
                + " holds a DuckLake catalog (a ducklake_metadata table with a 'version' key).");
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
                + METADATA_RELATIONS + " ORDER BY 1");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                (rs.getBoolean(2) ? withTable : noUsage).add(rs.getString(1));
            }
        }
        List<String> out = new ArrayList<>();
        for (String schema : withTable) {
            try {
                if (hasVersionRow(c, schema)) {
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
     * @param absent the tables asked for that the schema does not hold at all (a catalog half created or half dropped,
     *     or a schema holding only a stray {@code ducklake_metadata}), in the order asked, then the columns asked for
     *     that an existing table lacks, as {@code table.column} (a layout no DuckLake format has); empty when all exist
     */
    public record Access(String schema, List<String> missing, boolean isCatalog, List<String> absent) {
        /** @return whether the role can read every table asked for */
        public boolean readable() {
            return missing.isEmpty();
        }

        /** @return whether it is a catalog lacking some of the tables asked for: it cannot be read as a whole */
        public boolean incomplete() {
            return isCatalog && !absent.isEmpty();
        }
    }

    /**
     * Every schema of the database holding a relation named {@code ducklake_metadata} (found through
     * {@code pg_class}/{@code pg_namespace}, which every role can read, so a schema the role has no USAGE on is still
     * seen), with the privileges the current role lacks to read {@code ducklake_metadata} and the given tables, and
     * which of those tables do not exist. A table that does not exist is not a missing grant; whether its absence makes
     * the catalog unreadable is the caller's to say (ask only for tables every format has). Sorted by schema name.
     * Reads only.
     *
     * @param c an open connection (autocommit or in a transaction)
     * @param tables the catalog tables a caller must read, e.g. {@code ducklake_data_file}
     * @return one entry per schema
     * @throws SQLException on database errors
     */
    public static List<Access> access(Connection c, List<String> tables) throws SQLException {
        return access(c, tables, Map.of());
    }

    /**
     * {@link #access(Connection, List)}, and which of the given columns an existing table lacks (in
     * {@link Access#absent()} as {@code table.column}, after the absent tables): ask only for columns every format
     * version has, so that a catalog whose reads would fail on a missing column (SQLSTATE 42703) is told apart before.
     *
     * @param c an open connection (autocommit or in a transaction)
     * @param tables the catalog tables a caller must read
     * @param columns the columns a caller reads, by table (tables not in {@code tables} are asked for too)
     * @return one entry per schema
     * @throws SQLException on database errors
     */
    public static List<Access> access(Connection c, List<String> tables, Map<String, List<String>> columns) throws SQLException {
        List<String> colTables = new ArrayList<>();
        List<String> colNames = new ArrayList<>();
        for (Map.Entry<String, List<String>> e : new TreeMap<>(columns).entrySet()) {
            for (String col : e.getValue()) {
                colTables.add(e.getKey());
                colNames.add(col);
            }
        }
        List<String> all = new ArrayList<>();
        all.add("ducklake_metadata");
        for (String t : tables) {
            if (!all.contains(t)) {
                all.add(t);
            }
        }
        List<Access> out = new ArrayList<>();
        List<String[]> rows = new ArrayList<>();
        List<List<String>> absentBySchema = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT n.nspname::text, pg_catalog.has_schema_privilege(n.oid, 'USAGE'),"
                + " ARRAY(SELECT x.t FROM unnest(?::text[]) WITH ORDINALITY AS x(t, o) JOIN pg_catalog.pg_class r"
                + " ON r.relnamespace = n.oid AND r.relname = x.t"
                + " WHERE NOT pg_catalog.has_table_privilege(r.oid, 'SELECT') ORDER BY x.o)::text[],"
                + " ARRAY(SELECT x.t FROM unnest(?::text[]) WITH ORDINALITY AS x(t, o) WHERE NOT EXISTS (SELECT 1"
                + " FROM pg_catalog.pg_class r WHERE r.relnamespace = n.oid AND r.relname = x.t) ORDER BY x.o)::text[],"
                + " ARRAY(SELECT x.t || '.' || x.col FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS x(t, col, o)"
                + " JOIN pg_catalog.pg_class r ON r.relnamespace = n.oid AND r.relname = x.t WHERE NOT EXISTS (SELECT 1"
                + " FROM pg_catalog.pg_attribute a WHERE a.attrelid = r.oid AND a.attname = x.col AND a.attnum > 0"
                + " AND NOT a.attisdropped) ORDER BY x.o)::text[]"
                + METADATA_RELATIONS + " ORDER BY 1")) {
            ps.setArray(1, c.createArrayOf("text", all.toArray()));
            ps.setArray(2, c.createArrayOf("text", all.toArray()));
            ps.setArray(3, c.createArrayOf("text", colTables.toArray()));
            ps.setArray(4, c.createArrayOf("text", colNames.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String[] noSelect = (String[]) rs.getArray(3).getArray();
                    String[] row = new String[noSelect.length + 2];
                    row[0] = rs.getString(1);
                    row[1] = Boolean.toString(rs.getBoolean(2));
                    System.arraycopy(noSelect, 0, row, 2, noSelect.length);
                    rows.add(row);
                    List<String> absent = new ArrayList<>(List.of((String[]) rs.getArray(4).getArray()));
                    absent.addAll(List.of((String[]) rs.getArray(5).getArray()));
                    absentBySchema.add(List.copyOf(absent));
                }
            }
        }
        for (int r = 0; r < rows.size(); r++) {
            String[] row = rows.get(r);
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
                isCatalog = hasVersionRow(c, schema);
            }
            out.add(new Access(schema, List.copyOf(missing), isCatalog, absentBySchema.get(r)));
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
