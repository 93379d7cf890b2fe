package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.PathResolver;
import dev.ducklake.janitor.storage.StorageLocation;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
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

    private static final String TABLE = "pg_temp.ducklake_janitor_known_files";
    private static final String FOLDERS = "pg_temp.ducklake_janitor_known_folders";
    private static final int CHUNK = 5000;

    private final Connection c;
    private long rows;
    private long unresolved;
    /**
     * While the catalogs of {@link ConsultedCatalogs#reachOnly()} load: the swept prefix; only addresses under it are
     * kept, and a row whose location cannot be worked out is not counted (relative to a data path that does not
     * overlap, it cannot lie under the swept one). Null otherwise.
     */
    private String under;
    /** While loading: the consulted catalogs, for {@link ConsultedCatalogs#sweptSpelling}. */
    private ConsultedCatalogs consulted;
    /** The files' spellings with the links of their folders resolved (a row naming a swept file through a link). */
    private final RealSpellings realSpellings = new RealSpellings();
    /**
     * While {@link #under} is set: its {@link StorageLocation#pathsBelowAuthority path below the authority}; an address
     * of another scheme or authority whose path lies under it is kept too, so the near-match brake of
     * delete-orphan-files sees the files such a catalog names under another spelling of the swept store.
     */
    private String nearUnder;

    private KnownFiles(Connection c) {
        this.c = c;
    }

    /**
     * Loads the known set of several catalogs into the session's temporary table (replacing an earlier one).
     *
     * @param c the session (autocommit off; the temporary table lives until the session ends)
     * @param tenants the catalogs and their resolvers
     * @param includeQueue whether queued files count as known (delete-orphan-files: yes; cleanup-old-files: no)
     * @return the loaded set
     * @throws SQLException on database errors
     */
    public static KnownFiles load(Connection c, List<CatalogFiles.Tenant> tenants, boolean includeQueue) throws SQLException {
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
     * @throws SQLException on database errors
     */
    public static KnownFiles load(Connection c, ConsultedCatalogs catalogs, boolean includeQueue) throws SQLException {
        KnownFiles k = new KnownFiles(c);
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TEMPORARY TABLE IF NOT EXISTS ducklake_janitor_known_files (canon text NOT NULL)");
            st.execute("TRUNCATE " + TABLE);
            st.execute("CREATE TEMPORARY TABLE IF NOT EXISTS ducklake_janitor_known_folders (canon text NOT NULL)");
            st.execute("TRUNCATE " + FOLDERS);
        }
        k.consulted = catalogs;
        for (ConsultedCatalogs.Catalog t : catalogs.catalogs()) {
            Connection source = catalogs.connection(t);
            k.loadFiles(source, t.schema(), t.resolver());
            if (includeQueue) {
                k.loadQueue(source, t.schema(), t.resolver());
            }
            k.loadFolders(source, t.schema(), t.resolver());
            if (source != c) {
                source.commit();
            }
        }
        k.under = catalogs.sweptPrefix();
        k.nearUnder = k.under == null ? null : StorageLocation.pathsBelowAuthority(k.under).get(0);
        if (k.under != null) {
            for (ConsultedCatalogs.Catalog t : catalogs.reachOnly()) {
                Connection source = catalogs.connection(t);
                k.loadFiles(source, t.schema(), t.resolver());
                if (includeQueue) {
                    k.loadQueue(source, t.schema(), t.resolver());
                }
                if (source != c) {
                    source.commit();
                }
            }
        }
        k.under = null;
        k.nearUnder = null;
        k.consulted = null;
        try (Statement st = c.createStatement()) {
            st.execute("CREATE INDEX IF NOT EXISTS ducklake_janitor_known_files_canon ON " + TABLE + " (canon COLLATE \"C\")");
            st.execute("ANALYZE " + TABLE);
            st.execute("ANALYZE " + FOLDERS);
        }
        c.commit();
        return k;
    }

    private void loadFiles(Connection source, String schema, PathResolver r) throws SQLException {
        load(source, FileRows.sql(source, schema, ""), r, (rs, path) -> FileRows.resolve(rs, r, path), TABLE, true);
    }

    private void loadQueue(Connection source, String schema, PathResolver r) throws SQLException {
        load(source, "SELECT path, path_is_relative FROM " + Sql.qualified(schema, "ducklake_files_scheduled_for_deletion"),
                r, (rs, path) -> r.scheduled(path, true), TABLE, true);
    }

    /**
     * The table folders of a catalog: every {@code ducklake_table} row of any snapshot, its path resolved through its
     * schema row as DuckLake resolves it (a table path relative to its schema path, a schema path relative to the data
     * path; {@code src/storage/ducklake_metadata_manager.cpp}, {@code GetPathForTable}/{@code GetPathForSchema}).
     * A table whose location cannot be worked out is left out (the folder brake then errs on the side of stopping).
     */
    private void loadFolders(Connection source, String schema, PathResolver r) throws SQLException {
        if (!CatalogFiles.hasColumn(source, schema, "ducklake_table", "path")
                || !CatalogFiles.hasColumn(source, schema, "ducklake_schema", "path")) {
            // format 0.1 has no paths: files resolve against the data path itself (PathResolver)
            load(source, "SELECT ''::varchar, true", r, (rs, path) -> r.dataPath(), FOLDERS, false);
            return;
        }
        load(source, "SELECT t.path, t.path_is_relative, s.path, s.path_is_relative, s.schema_id IS NULL"
                + " FROM (SELECT DISTINCT schema_id, path, path_is_relative FROM " + Sql.qualified(schema, "ducklake_table") + ") t"
                + " LEFT JOIN (SELECT DISTINCT schema_id, path, path_is_relative FROM " + Sql.qualified(schema, "ducklake_schema")
                + ") s ON s.schema_id = t.schema_id", r,
                (rs, path) -> rs.getBoolean(5) ? null : PathResolver.table(r.schema(rs.getString(3), (Boolean) rs.getObject(4)),
                        path, true), FOLDERS, false);
    }

    /** Works out the full address of a relative path from the rest of its row; null when it cannot be worked out. */
    @FunctionalInterface
    private interface RelativeAddress {
        String resolve(ResultSet rs, String path) throws SQLException;
    }

    /**
     * Streams a query whose first two columns are a path and its path_is_relative flag into the table, in chunks of
     * {@link #CHUNK}: an absolute path is added as it is, a relative one as {@code relative} resolves it, and a path
     * whose flag is null both ways (it could be either). A null path or an unresolvable address counts as unresolved.
     * Every file address is also added as {@link PathResolver#rebase rebased} onto --data-path when it lies under the
     * catalog's stored data path (both spellings are known), and every address resolved from a relative path (files and
     * folders) also under the stored data path ({@link PathResolver#storedSpelling}): with --data-path, a relative path
     * names its file under the override and under the stored data path.
     */
    private void load(Connection source, String sql, PathResolver r, RelativeAddress relative, String table, boolean files)
            throws SQLException {
        List<String> buf = new ArrayList<>(CHUNK);
        try (PreparedStatement ps = source.prepareStatement(sql)) {
            ps.setFetchSize(CHUNK);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String path = rs.getString(1);
                    if (path == null) {
                        if (files && under == null) {
                            unresolved++;
                        }
                        continue;
                    }
                    Boolean rel = (Boolean) rs.getObject(2);
                    if (rel == null || !rel) {
                        add(buf, path, r, files, false);
                    }
                    if (rel == null || rel) {
                        String full = relative.resolve(rs, path);
                        if (full == null) {
                            if (files && under == null) {
                                unresolved++;
                            }
                        } else {
                            add(buf, full, r, files, true);
                        }
                    }
                    if (buf.size() >= CHUNK) {
                        flush(buf, table, files);
                    }
                }
            }
        }
        flush(buf, table, files);
    }

    private void add(List<String> buf, String address, PathResolver r, boolean files, boolean relative) {
        StorageLocation file = null;
        try {
            String canon;
            if (files) {
                file = StorageLocation.parseKnownFile(address);
                canon = file.canonical();
            } else {
                canon = StorageLocation.parse(address).asPrefix().canonical();
            }
            keep(buf, canon);
        } catch (IllegalArgumentException e) {
            if (files && under == null) {
                unresolved++;
            }
            return;
        }
        String rebased = files && r != null ? r.rebase(address) : null;
        if (rebased != null) {
            keep(buf, rebased);
        }
        String aka = files && r != null ? r.alias(address) : null;
        if (aka != null) {
            keep(buf, aka);
        }
        // under --data-path, a relative path also names its file under the stored data_path (PathResolver.storedSpelling)
        String stored = relative && r != null ? r.storedSpelling(address, !files) : null;
        if (stored != null) {
            keep(buf, stored);
        }
        // a local file named through a link (an absolute path or a table path through one): also by its real folder
        String real = file != null ? realSpellings.of(file) : null;
        if (real != null) {
            keep(buf, real);
        }
    }

    /**
     * Adds a canonical address when {@link #kept}, and its spelling under the swept data path as given when that is
     * reached through a symbolic link and the address names the real directory ({@link ConsultedCatalogs#sweptSpelling}):
     * the listing spells files under the link.
     */
    private void keep(List<String> buf, String canon) {
        if (kept(canon)) {
            buf.add(canon);
        }
        String swept = consulted == null ? null : consulted.sweptSpelling(canon);
        if (swept != null && kept(swept)) {
            buf.add(swept);
        }
    }

    /** Whether a canonical address enters the set: always, or while reach-only catalogs load, when under the swept prefix. */
    private boolean kept(String canon) {
        if (under == null || canon.startsWith(under)) {
            return true;
        }
        for (String p : StorageLocation.pathsBelowAuthority(canon)) {
            if (p.startsWith(nearUnder)) {
                return true;
            }
        }
        return false;
    }

    private void flush(List<String> buf, String table, boolean files) throws SQLException {
        if (buf.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (canon) SELECT unnest(?::text[])")) {
            Array a = c.createArrayOf("text", buf.toArray());
            ps.setArray(1, a);
            int n = ps.executeUpdate();
            if (files) {
                rows += n;
            }
        }
        buf.clear();
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

    /** A cursor over {@link Spelling}s. */
    public interface SpellingCursor extends Iterator<Spelling>, AutoCloseable {
        @Override
        void close() throws SQLException;
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
    public SpellingCursor byPathBelowAuthority(String belowAuthorityPrefix) throws SQLException {
        PreparedStatement ps = c.prepareStatement("SELECT near COLLATE \"C\", canon COLLATE \"C\" FROM ("
                + "SELECT " + BELOW_AUTHORITY_SQL + " AS near, canon FROM " + TABLE
                + " UNION SELECT " + BELOW_AUTHORITY_PATH_STYLE_SQL + ", canon FROM " + TABLE + ") n"
                + " WHERE near IS NOT NULL AND left(near, char_length(?)) = ? ORDER BY 1, 2");
        ps.setFetchSize(CHUNK);
        ps.setString(1, belowAuthorityPrefix);
        ps.setString(2, belowAuthorityPrefix);
        ResultSet rs = ps.executeQuery();
        return new SpellingCursor() {
            private Spelling next;
            private boolean done;

            @Override
            public boolean hasNext() {
                if (next == null && !done) {
                    try {
                        if (rs.next()) {
                            next = new Spelling(rs.getString(1), rs.getString(2));
                        } else {
                            done = true;
                        }
                    } catch (SQLException e) {
                        throw new IllegalStateException("reading the known files failed: " + e.getMessage(), e);
                    }
                }
                return next != null;
            }

            @Override
            public Spelling next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Spelling s = next;
                next = null;
                return s;
            }

            @Override
            public void close() throws SQLException {
                rs.close();
                ps.close();
            }
        };
    }

    /** A cursor over known canonical addresses in byte order. */
    public interface Cursor extends Iterator<String>, AutoCloseable {
        @Override
        void close() throws SQLException;
    }

    /**
     * Streams the known addresses under a prefix, without duplicates, in byte order ({@code COLLATE "C"}, the
     * order of {@link StorageLocation#BYTE_ORDER}); PostgreSQL sorts, the JVM holds one fetch of 5,000 rows.
     *
     * @param prefix the canonical prefix (ending in {@code /})
     * @return the cursor; close it
     * @throws SQLException on database errors
     */
    public Cursor ordered(String prefix) throws SQLException {
        PreparedStatement ps = c.prepareStatement("SELECT DISTINCT canon COLLATE \"C\" AS canon FROM " + TABLE
                + " WHERE left(canon, char_length(?)) = ? ORDER BY 1");
        ps.setFetchSize(CHUNK);
        ps.setString(1, prefix);
        ps.setString(2, prefix);
        ResultSet rs = ps.executeQuery();
        return new Cursor() {
            private String next;
            private boolean done;

            @Override
            public boolean hasNext() {
                if (next == null && !done) {
                    try {
                        if (rs.next()) {
                            next = rs.getString(1);
                        } else {
                            done = true;
                        }
                    } catch (SQLException e) {
                        throw new IllegalStateException("reading the known files failed: " + e.getMessage(), e);
                    }
                }
                return next != null;
            }

            @Override
            public String next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                String s = next;
                next = null;
                return s;
            }

            @Override
            public void close() throws SQLException {
                rs.close();
                ps.close();
            }
        };
    }
}
