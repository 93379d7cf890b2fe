package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.storage.LookAhead;
import dev.ducklake.janitor.storage.PathResolver;
import dev.ducklake.janitor.storage.StorageLocation;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * The canonical addresses of every file a set of catalogs knows, kept in a PostgreSQL temporary table so that the
 * JVM never holds them all: every {@code ducklake_data_file} and {@code ducklake_delete_file} row of any snapshot
 * (paths resolved through table and schema, {@link PathResolver}) and, when asked, every
 * {@code ducklake_files_scheduled_for_deletion} row. This is DuckLake 1.5.5's (extension build d8a1881e) known-files set of
 * {@code GetOrphanFilesForCleanup} ({@code src/storage/ducklake_metadata_manager.cpp}), with four differences
 * that only ever keep more: paths are compared in canonical form ({@link StorageLocation}); a file row whose
 * table or schema row is missing is counted as unresolved instead of silently dropped by an inner join; a row
 * whose path_is_relative is NULL is known under both readings; with {@code --data-path}, a relative path is known
 * under the override and under the catalog's stored data_path ({@link PathResolver#storedSpelling}: an override that
 * contains the stored data path would otherwise sweep the catalog's own files there).
 *
 * <p>The connection must not be in autocommit mode while a {@link #ordered} cursor is open.
 */
public final class KnownFiles {

    /** The temporary table of known file addresses (column {@code canon}). */
    static final String TABLE = "pg_temp.ducklake_janitor_known_files";
    /** The temporary table of known table folders (column {@code canon}, prefixes ending in {@code /}). */
    static final String FOLDERS = "pg_temp.ducklake_janitor_known_folders";
    /** Rows per fetch and per insert: what the JVM holds at once. */
    static final int CHUNK = 5000;

    private final Connection c;
    private final long rows;
    private final long unresolved;

    private KnownFiles(Connection c, long rows, long unresolved) {
        this.c = c;
        this.rows = rows;
        this.unresolved = unresolved;
    }

    /**
     * Loads the known set of several catalogs into the session's temporary table (replacing an earlier one).
     *
     * @param c the session (autocommit off; the temporary table lives until the session ends)
     * @param tenants the catalogs and their resolvers
     * @param includeQueue whether queued files count as known (delete-orphan-files: yes; cleanup-old-files: no)
     * @return the loaded set
     * @throws JanitorException as {@link #load(Connection, ConsultedCatalogs, boolean)}
     * @throws SQLException on database errors
     */
    public static KnownFiles load(Connection c, List<CatalogFiles.Tenant> tenants, boolean includeQueue)
            throws JanitorException, SQLException {
        return load(c, ConsultedCatalogs.of(c, tenants), includeQueue);
    }

    /**
     * Loads the known set of the consulted catalogs into the session's temporary table (replacing an earlier one),
     * and the table folders they know into a second one ({@link #knownFoldersAmong}). A catalog of another database is
     * read through its own connection ({@link ConsultedCatalogs#connection}) and streamed, 5,000 rows at a time, into
     * the swept session's table, so memory does not grow with the number of files.
     *
     * @param c the swept session (autocommit off; the temporary tables live until the session ends)
     * @param catalogs the consulted catalogs
     * @param includeQueue whether queued files count as known (delete-orphan-files: yes; cleanup-old-files: no)
     * @return the loaded set
     * @throws JanitorException a catalog read that waited past the lock timeout, naming the catalog
     *     ({@link ConsultedCatalogs#lockWait})
     * @throws SQLException on other database errors
     */
    public static KnownFiles load(Connection c, ConsultedCatalogs catalogs, boolean includeQueue)
            throws JanitorException, SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TEMPORARY TABLE IF NOT EXISTS ducklake_janitor_known_files (canon text NOT NULL)");
            st.execute("TRUNCATE " + TABLE);
            st.execute("CREATE TEMPORARY TABLE IF NOT EXISTS ducklake_janitor_known_folders (canon text NOT NULL)");
            st.execute("TRUNCATE " + FOLDERS);
        }
        KnownFilesLoader loader = new KnownFilesLoader(c, catalogs);
        loader.loadAll(includeQueue);
        try (Statement st = c.createStatement()) {
            st.execute("CREATE INDEX IF NOT EXISTS ducklake_janitor_known_files_canon ON " + TABLE + " (canon COLLATE \"C\")");
            st.execute("ANALYZE " + TABLE);
            st.execute("ANALYZE " + FOLDERS);
        }
        c.commit();
        return new KnownFiles(c, loader.rows(), loader.unresolved());
    }

    /**
     * Which of some canonical folder prefixes (ending in {@code /}) are the table folder of a consulted catalog.
     *
     * @param folders canonical prefixes
     * @return the subset that is known
     * @throws SQLException on database errors
     */
    public Set<String> knownFoldersAmong(Collection<String> folders) throws SQLException {
        Set<String> out = new HashSet<>();
        if (folders.isEmpty()) {
            return out;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT canon FROM " + FOLDERS
                + " WHERE canon COLLATE \"C\" = ANY (?::text[])")) {
            ps.setArray(1, c.createArrayOf("text", folders.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    /** How many known addresses were loaded (a file known under two spellings counts twice). */
    public long rows() {
        return rows;
    }

    /** File rows whose address could not be worked out (relative path without its table or schema row, or an unparsable path). */
    public long unresolved() {
        return unresolved;
    }

    /**
     * Which of some canonical addresses are known.
     *
     * @param canonical canonical addresses ({@link StorageLocation#canonical()})
     * @return the subset that is known
     * @throws SQLException on database errors
     */
    public Set<String> knownAmong(Collection<String> canonical) throws SQLException {
        Set<String> out = new HashSet<>();
        if (canonical.isEmpty()) {
            return out;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT DISTINCT canon FROM " + TABLE
                + " WHERE canon COLLATE \"C\" = ANY (?::text[])")) {
            ps.setArray(1, c.createArrayOf("text", canonical.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    /**
     * The SQL twin of {@link StorageLocation#pathsBelowAuthority}: the plain path below {@code scheme://authority/} of a
     * canonical address, and (null for other schemes) the path-style one of an {@code http}/{@code https} address.
     */
    static final String BELOW_AUTHORITY_SQL = "regexp_replace(canon, '^[^:]*://[^/]*/', '')";
    static final String BELOW_AUTHORITY_PATH_STYLE_SQL = "substring(canon from '^https?://[^/]*/[^/]*/(.*)$')";

    /** A known address with the path below its authority that brought it up. */
    public record Spelling(String belowAuthority, String canonical) {
    }

    /**
     * Streams every known address whose {@link StorageLocation#pathsBelowAuthority path below the authority} starts with
     * a prefix, ordered by that path in byte order ({@code COLLATE "C"}) then by address, without duplicates (an address
     * with two such paths comes up twice, once under each). PostgreSQL sorts; the JVM holds one fetch of 5,000 rows.
     *
     * @param belowAuthorityPrefix the prefix of the path below the authority (e.g. {@code lake/} for the swept
     *     {@code s3://b/lake/}; empty for every address)
     * @return the cursor; close it
     * @throws SQLException on database errors
     */
    public Cursor<Spelling> byPathBelowAuthority(String belowAuthorityPrefix) throws SQLException {
        PreparedStatement ps = c.prepareStatement("SELECT near COLLATE \"C\", canon COLLATE \"C\" FROM ("
                + "SELECT " + BELOW_AUTHORITY_SQL + " AS near, canon FROM " + TABLE
                + " UNION SELECT " + BELOW_AUTHORITY_PATH_STYLE_SQL + ", canon FROM " + TABLE + ") n"
                + " WHERE near IS NOT NULL AND left(near, char_length(?)) = ? ORDER BY 1, 2");
        ps.setFetchSize(CHUNK);
        ps.setString(1, belowAuthorityPrefix);
        ps.setString(2, belowAuthorityPrefix);
        return new Rows<>(ps, rs -> new Spelling(rs.getString(1), rs.getString(2)));
    }

    /**
     * A cursor over rows of the known set, streamed from the server.
     *
     * @param <T> a row
     */
    public interface Cursor<T> extends Iterator<T>, AutoCloseable {
        /** Closes the result set and its statement. */
        @Override
        void close() throws SQLException;
    }

    /** A row of a result set, read. */
    @FunctionalInterface
    private interface Row<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** The one {@link Cursor}: a streamed query, a row at a time ({@link LookAhead}). */
    private static final class Rows<T> extends LookAhead<T> implements Cursor<T> {
        private final PreparedStatement ps;
        private final ResultSet rs;
        private final Row<T> row;

        /** Runs the query (its fetch size set) and streams its rows. */
        Rows(PreparedStatement ps, Row<T> row) throws SQLException {
            this.ps = ps;
            this.row = row;
            ResultSet r;
            try {
                r = ps.executeQuery();
            } catch (SQLException e) {
                ps.close();
                throw e;
            }
            this.rs = r;
        }

        @Override
        protected T fetch() {
            try {
                return rs.next() ? row.read(rs) : null;
            } catch (SQLException e) {
                throw new IllegalStateException("reading the known files failed: " + e.getMessage(), e);
            }
        }

        @Override
        public void close() throws SQLException {
            rs.close();
            ps.close();
        }
    }

    /**
     * Streams the known addresses under a prefix, without duplicates, in byte order ({@code COLLATE "C"}, the
     * order of {@link StorageLocation#BYTE_ORDER}); PostgreSQL sorts, the JVM holds one fetch of 5,000 rows.
     *
     * @param prefix the canonical prefix (ending in {@code /})
     * @return the cursor; close it
     * @throws SQLException on database errors
     */
    public Cursor<String> ordered(String prefix) throws SQLException {
        PreparedStatement ps = c.prepareStatement("SELECT DISTINCT canon COLLATE \"C\" AS canon FROM " + TABLE
                + " WHERE left(canon, char_length(?)) = ? ORDER BY 1");
        ps.setFetchSize(CHUNK);
        ps.setString(1, prefix);
        ps.setString(2, prefix);
        return new Rows<>(ps, rs -> rs.getString(1));
    }
}
