package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunRecorder;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.PathResolver;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static dev.ducklake.janitor.catalog.CatalogInspector.printable;

/**
 * What the storage commands read from {@code ducklake_metadata}: the data path, options, and which other catalogs
 * of the same database store files under an overlapping location. Reads only.
 */
public final class CatalogFiles {

    private CatalogFiles() {
    }

    /**
     * A global option of the catalog ({@code ducklake_metadata} row with scope NULL or {@code global}).
     *
     * @param c an open connection
     * @param schema the metadata schema
     * @param key the option key, e.g. {@code data_path}, {@code delete_older_than}
     * @return the value, or null when unset
     * @throws SQLException on database errors
     */
    public static String option(Connection c, String schema, String key) throws SQLException {
        boolean scoped = hasColumn(c, schema, "ducklake_metadata", "scope");
        try (PreparedStatement ps = c.prepareStatement("SELECT value FROM " + Sql.qualified(schema, "ducklake_metadata")
                + " WHERE key = ?" + (scoped ? " AND (scope IS NULL OR scope = ?)" : "") + " LIMIT 1")) {
            ps.setString(1, key);
            if (scoped) {
                ps.setString(2, "global");
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /**
     * The path resolver of a catalog: its {@code data_path}, or the override (absolute paths under the stored
     * {@code data_path} then rebased onto it, {@link PathResolver#rebase}).
     *
     * @param c an open connection
     * @param schema the metadata schema
     * @param override {@code --data-path}, or null
     * @return the resolver
     * @throws JanitorException {@link Reason#BRAKE_ROOT_PATH} when the catalog has no data path and none was given
     * @throws SQLException on database errors
     */
    public static PathResolver resolver(Connection c, String schema, String override) throws JanitorException, SQLException {
        String stored = option(c, schema, "data_path");
        String p = override != null ? override : stored;
        if (p == null || p.isBlank()) {
            throw new JanitorException(Reason.BRAKE_ROOT_PATH, "The catalog in schema " + printable(schema)
                    + " has no data_path in ducklake_metadata and no --data-path was given; nothing was done.");
        }
        return new PathResolver(p, override != null ? stored : null);
    }

    /** Whether a catalog table has a column (older formats lack some). */
    static boolean hasColumn(Connection c, String schema, String table, String column) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_catalog.pg_attribute a"
                + " JOIN pg_catalog.pg_class t ON t.oid = a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace"
                + " WHERE n.nspname = ? AND t.relname = ? AND a.attname = ? AND NOT a.attisdropped")) {
            ps.setString(1, schema);
            ps.setString(2, table);
            ps.setString(3, column);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** A catalog whose files must be known when sweeping a location. */
    public record Tenant(String schema, PathResolver resolver) {
    }

    /**
     * This catalog plus every other DuckLake catalog of the session's database whose data path overlaps this one (one
     * contains the other): tenants sharing a bucket must not delete each other's files. The discovery and its refusal
     * are {@link ConsultedCatalogs#find}'s (other databases not consulted here); sweeps hold a {@link ConsultedCatalogs}.
     *
     * @param c an open connection
     * @param own this catalog's schema
     * @param ownResolver this catalog's resolver (with the override applied)
     * @return this catalog first, then the others by schema name
     * @throws JanitorException PERMISSION_DENIED when a catalog of the database cannot be read
     * @throws SQLException on database errors
     */
    public static List<Tenant> tenants(Connection c, String own, PathResolver ownResolver) throws JanitorException, SQLException {
        List<Tenant> out = new ArrayList<>();
        try (ConsultedCatalogs cc = ConsultedCatalogs.find(c, own, ownResolver, ConsultOptions.defaults().withConsultServer(false),
                new RunRecorder(ProgressListener.NONE))) {
            for (ConsultedCatalogs.Catalog cat : cc.catalogs()) {
                out.add(new Tenant(cat.schema(), cat.resolver()));
            }
        }
        return out;
    }
}
