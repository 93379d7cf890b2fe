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
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks that a Postgres schema holds a DuckLake catalog this tool may work on, before anything else
 * touches it: the schema exists, the ducklake_* tables are there, the format version
 * ({@code ducklake_metadata} key {@code version}) is one of {@link FormatVersion},
 * {@code ducklake_snapshot} is not empty, and no catalog row refers to a snapshot the catalog does not have
 * ({@link SnapshotConsistency}). Reads only; takes no lock beyond what SELECT takes.
 *
 * <p>Every command calls {@link #inspect} before any work, dry runs included, so a new command gets the
 * consistency check for free; a command that reports damage instead of refusing (metrics, check) calls
 * {@link #inspect(Connection, String, boolean)} with {@code false} and reads {@link SnapshotConsistency} itself.
 */
public final class CatalogInspector {

    private static final List<String> REQUIRED = List.of("ducklake_metadata", "ducklake_snapshot", "ducklake_table");

    private CatalogInspector() {
    }

    /**
     * Inspects the catalog in a schema.
     *
     * @param c an open connection
     * @param schema the metadata schema
     * @return what was found
     * @throws JanitorException {@link Reason#NOT_A_CATALOG} when the schema or a required table is missing,
     *     {@link Reason#UNSUPPORTED_VERSION} when the version is missing or unknown,
     *     {@link Reason#UNSAFE_CATALOG_STATE} when ducklake_snapshot is empty or when rows refer to a snapshot
     *     beyond the newest one (the message names the tables and their first offending ids),
     *     {@link Reason#PERMISSION_DENIED} when the user may not read the catalog tables
     * @throws SQLException on other database errors
     */
    public static CatalogInfo inspect(Connection c, String schema) throws JanitorException, SQLException {
        return inspect(c, schema, true);
    }

    /**
     * Inspects the catalog in a schema, optionally without refusing a snapshot-inconsistent catalog.
     *
     * @param c an open connection
     * @param schema the metadata schema
     * @param requireSnapshotConsistency true to refuse (exit 6) a catalog with rows beyond the newest snapshot, as
     *     every maintenance command must; false for read-only reporters that export the damage instead
     * @return what was found
     * @throws JanitorException as {@link #inspect(Connection, String)}
     * @throws SQLException on other database errors
     */
    public static CatalogInfo inspect(Connection c, String schema, boolean requireSnapshotConsistency)
            throws JanitorException, SQLException {
        try {
            CatalogInfo info = doInspect(c, schema);
            if (requireSnapshotConsistency) {
                SnapshotConsistency.requireConsistent(c, schema);
            }
            return info;
        } catch (SQLException e) {
            if (SqlState.classify(e) == FailureKind.PERMISSION_DENIED) {
                throw new JanitorException(Reason.PERMISSION_DENIED, "The catalog user may not read the DuckLake tables in schema "
                        + printable(schema) + ": " + e.getMessage(), e);
            }
            throw e;
        }
    }

    private static CatalogInfo doInspect(Connection c, String schema) throws JanitorException, SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = ?")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new JanitorException(Reason.NOT_A_CATALOG, "The metadata schema " + printable(schema)
                            + " does not exist in " + describeServer(c) + ".");
                }
            }
        }
        Set<String> present = presentTables(c, schema, List.of("ducklake_metadata", "ducklake_snapshot", "ducklake_table",
                "ducklake_inlined_data_tables"));
        String missing = firstMissing(present);
        if (missing != null) {
            throw new JanitorException(Reason.NOT_A_CATALOG, missingTableMessage(schema, missing));
        }
        List<String> versions = new java.util.ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT value FROM " + Sql.qualified(schema, "ducklake_metadata")
                + " WHERE key = ?")) {
            ps.setString(1, "version");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    versions.add(rs.getString(1));
                }
            }
        }
        if (versions.isEmpty()) {
            throw new JanitorException(Reason.UNSUPPORTED_VERSION, "The DuckLake catalog in schema " + printable(schema)
                    + " has no format version (no 'version' key in ducklake_metadata); refusing to work on it.");
        }
        if (new HashSet<>(versions).size() > 1) {
            throw new JanitorException(Reason.UNSUPPORTED_VERSION, "The DuckLake catalog in schema " + printable(schema)
                    + " has several different format versions in ducklake_metadata; refusing to work on it.");
        }
        String text = versions.get(0);
        FormatVersion version = FormatVersion.of(text).orElseThrow(() -> new JanitorException(Reason.UNSUPPORTED_VERSION,
                "The DuckLake catalog in schema " + printable(schema) + " has format version " + printable(text)
                        + ", which this ducklake-janitor does not know (known: " + String.join(", ", FormatVersion.knownTexts())
                        + "); refusing to work on it."));
        long count;
        long min;
        long max;
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*), min(snapshot_id), max(snapshot_id) FROM "
                + Sql.qualified(schema, "ducklake_snapshot"));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            count = rs.getLong(1);
            min = rs.getLong(2);
            max = rs.getLong(3);
        }
        if (count == 0) {
            throw new JanitorException(Reason.UNSAFE_CATALOG_STATE, "ducklake_snapshot in schema " + printable(schema)
                    + " is empty: without a retained snapshot range every table would look unreachable, so nothing is done.");
        }
        return new CatalogInfo(schema, version, present.contains("ducklake_inlined_data_tables"), count, min, max);
    }

    /**
     * The first table every DuckLake catalog has that the schema lacks, checked before anything queries the catalog's
     * tables (as {@link #inspect} does): a schema holding only a {@code ducklake_metadata} is no catalog.
     *
     * @param c an open connection
     * @param schema the metadata schema (that exists)
     * @return the missing table's name, or null when the schema has them all
     * @throws SQLException on database errors
     */
    public static String missingTable(Connection c, String schema) throws SQLException {
        return firstMissing(presentTables(c, schema, REQUIRED));
    }

    /** @return the first of {@link #REQUIRED} not in {@code present}, or null */
    private static String firstMissing(Set<String> present) {
        return REQUIRED.stream().filter(t -> !present.contains(t)).findFirst().orElse(null);
    }

    /**
     * @param names table names to look for
     * @return those of {@code names} that the schema holds as a table, partitioned table, view or foreign table
     */
    private static Set<String> presentTables(Connection c, String schema, List<String> names) throws SQLException {
        Set<String> present = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT c.relname FROM pg_catalog.pg_class c"
                + " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = ? AND c.relkind IN ('r', 'p', 'v', 'f') AND c.relname = ANY (?)")) {
            ps.setString(1, schema);
            ps.setArray(2, c.createArrayOf("text", names.toArray(new String[0])));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    present.add(rs.getString(1));
                }
            }
        }
        return present;
    }

    /**
     * The message of a schema that lacks one of a catalog's tables ({@link Reason#NOT_A_CATALOG}).
     *
     * @param schema the metadata schema
     * @param table the missing table
     * @return the message
     */
    public static String missingTableMessage(String schema, String table) {
        return "Schema " + printable(schema) + " holds no DuckLake catalog: table " + table + " is missing.";
    }

    /**
     * Names the database and server of a session for messages, e.g. {@code database 'lake' on db.internal:5432}
     * (from the session itself; never a password).
     *
     * @param c an open connection
     * @return the description
     * @throws SQLException when the session cannot answer
     */
    public static String describeServer(Connection c) throws SQLException {
        String db;
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.current_database()"); ResultSet rs = ps.executeQuery()) {
            rs.next();
            db = rs.getString(1);
        }
        String url = c.getMetaData().getURL();
        String server = "";
        int start = url == null ? -1 : url.indexOf("//");
        if (start >= 0) {
            int end = url.indexOf('/', start + 2);
            server = " on " + url.substring(start + 2, end < 0 ? url.length() : end);
        }
        return "database " + printable(db) + server;
    }

    /**
     * Renders a catalog-supplied string for a message; see {@link Sql#printable(String)}.
     *
     * @param s any string, may be null
     * @return a printable form
     */
    public static String printable(String s) {
        return Sql.printable(s);
    }
}
