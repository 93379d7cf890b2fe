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
 * {@code GetOrphanFilesForCleanup} ({@code src/storage/ducklake_metadata_manager.cpp}), with three differences
 * that only ever keep more: paths are compared in canonical form ({@link StorageLocation}); a file row whose
 * table or schema row is missing is counted as unresolved instead of silently dropped by an inner join; a row
 * whose path_is_relative is NULL is known under both readings.
 *
 * <p>The connection must not be in autocommit mode while a {@link #ordered} cursor is open.
 */
public final class KnownFiles {

    private static final String TABLE = "pg_temp.ducklake_janitor_known_files";
    private static final int CHUNK = 5000;

    private final Connection c;
    private long rows;
    private long unresolved;

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
        KnownFiles k = new KnownFiles(c);
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TEMPORARY TABLE IF NOT EXISTS ducklake_janitor_known_files (canon text NOT NULL)");
            st.execute("TRUNCATE " + TABLE);
        }
        for (CatalogFiles.Tenant t : tenants) {
            k.loadFiles(t.schema(), t.resolver());
            if (includeQueue) {
                k.loadQueue(t.schema(), t.resolver());
            }
        }
        try (Statement st = c.createStatement()) {
            st.execute("CREATE INDEX IF NOT EXISTS ducklake_janitor_known_files_canon ON " + TABLE + " (canon COLLATE \"C\")");
            st.execute("ANALYZE " + TABLE);
        }
        c.commit();
        return k;
    }

    private void loadFiles(String schema, PathResolver r) throws SQLException {
        load(fileRowsSql(c, schema, ""), r, (rs, path) -> resolveFileRow(rs, r, path));
    }

    /**
     * The one query of a catalog's data and delete file rows of any snapshot with their table's and schema's paths.
     * Columns: 1 file path, 2 its path_is_relative, 3 table path, 4 its path_is_relative, 5 schema path, 6 its
     * path_is_relative, 7 table row missing, 8 schema row missing; rows are resolved by {@link #resolveFileRow}.
     *
     * @param c an open connection (to read which path columns the format has)
     * @param schema the metadata schema
     * @param fileFilter a condition on the file rows' own columns with its WHERE (bind parameters allowed: it is
     *     applied to ducklake_data_file and ducklake_delete_file in that order), or "" for all rows
     * @return the SQL text
     * @throws SQLException on database errors
     */
    static String fileRowsSql(Connection c, String schema, String fileFilter) throws SQLException {
        String sp = CatalogFiles.hasColumn(c, schema, "ducklake_schema", "path") ? "path, path_is_relative"
                : "NULL::varchar AS path, NULL::boolean AS path_is_relative";
        String tp = CatalogFiles.hasColumn(c, schema, "ducklake_table", "path") ? "path, path_is_relative"
                : "NULL::varchar AS path, NULL::boolean AS path_is_relative";
        return "SELECT f.path, f.path_is_relative, t.path, t.path_is_relative, s.path, s.path_is_relative,"
                + " t.table_id IS NULL, s.schema_id IS NULL"
                + " FROM (SELECT table_id, path, path_is_relative FROM " + Sql.qualified(schema, "ducklake_data_file") + fileFilter
                + " UNION ALL SELECT table_id, path, path_is_relative FROM " + Sql.qualified(schema, "ducklake_delete_file")
                + fileFilter + ") f"
                + " LEFT JOIN (SELECT DISTINCT table_id, schema_id, " + tp + " FROM " + Sql.qualified(schema, "ducklake_table")
                + ") t ON t.table_id = f.table_id"
                + " LEFT JOIN (SELECT DISTINCT schema_id, " + sp + " FROM " + Sql.qualified(schema, "ducklake_schema")
                + ") s ON s.schema_id = t.schema_id";
    }

    /**
     * The full address of a relative file row of {@link #fileRowsSql} (through its table and schema paths), or null
     * when its table or schema row is missing.
     */
    static String resolveFileRow(ResultSet rs, PathResolver r, String path) throws SQLException {
        if (rs.getBoolean(7) || (rs.getObject(4) == null || (Boolean) rs.getObject(4)) && rs.getString(3) != null
                && rs.getBoolean(8)) {
            return null;
        }
        String schemaFull = r.schema(rs.getString(5), (Boolean) rs.getObject(6));
        String tableFull = PathResolver.table(schemaFull, rs.getString(3), (Boolean) rs.getObject(4));
        return PathResolver.file(tableFull, path, true);
    }

    private void loadQueue(String schema, PathResolver r) throws SQLException {
        load("SELECT path, path_is_relative FROM " + Sql.qualified(schema, "ducklake_files_scheduled_for_deletion"), r,
                (rs, path) -> r.scheduled(path, true));
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
     * Every address is also added as {@link PathResolver#rebase rebased} onto --data-path when it lies under the
     * catalog's stored data path (both spellings are known).
     */
    private void load(String sql, PathResolver r, RelativeAddress relative) throws SQLException {
        List<String> buf = new ArrayList<>(CHUNK);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setFetchSize(CHUNK);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String path = rs.getString(1);
                    if (path == null) {
                        unresolved++;
                        continue;
                    }
                    Boolean rel = (Boolean) rs.getObject(2);
                    if (rel == null || !rel) {
                        add(buf, path, r);
                    }
                    if (rel == null || rel) {
                        String full = relative.resolve(rs, path);
                        if (full == null) {
                            unresolved++;
                        } else {
                            add(buf, full, r);
                        }
                    }
                    if (buf.size() >= CHUNK) {
                        flush(buf);
                    }
                }
            }
        }
        flush(buf);
    }

    private void add(List<String> buf, String address, PathResolver r) {
        try {
            buf.add(StorageLocation.parseKnownFile(address).canonical());
        } catch (IllegalArgumentException e) {
            unresolved++;
            return;
        }
        String rebased = r.rebase(address);
        if (rebased != null) {
            buf.add(rebased);
        }
    }

    private void flush(List<String> buf) throws SQLException {
        if (buf.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (canon) SELECT unnest(?::text[])")) {
            Array a = c.createArrayOf("text", buf.toArray());
            ps.setArray(1, a);
            rows += ps.executeUpdate();
        }
        buf.clear();
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
