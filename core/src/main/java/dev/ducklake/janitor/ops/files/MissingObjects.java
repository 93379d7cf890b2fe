package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.catalog.OrphanPredicate;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.PathResolver;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.storage.StorageLocation;
import dev.ducklake.janitor.storage.StoredObject;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The missing-object direction of the storage sweep ({@code check --storage}): the data and delete file rows a reader can
 * still reach whose object is gone from the store, or whose object's size differs from the row's
 * {@code file_size_bytes}. Nothing is ever changed: DuckLake has no way to drop a file row without rewriting the
 * table, and the object may come back from a versioned bucket or a backup.
 *
 * <p>Which rows count: every {@code ducklake_data_file} and {@code ducklake_delete_file} row (paths resolved as
 * {@link KnownFiles} resolves them, the same query: {@link FileRows}) whose table is reachable
 * ({@link OrphanPredicate}) and that is part of a retained snapshot: live ({@code end_snapshot IS NULL}) or with a
 * {@code ducklake_snapshot} row in {@code [begin_snapshot, end_snapshot)} (DuckLake's rule for the files expiry keeps,
 * {@code DuckLakeMetadataManager::GetFilesForCleanup}). Rows whose location cannot be worked out (NULL
 * {@code path_is_relative}, a missing table or schema row) and rows outside the data path are counted but not checked.
 *
 * <p>Memory is bounded as in delete-orphan-files: the rows are streamed into a temporary table of the session, sorted by
 * PostgreSQL ({@code COLLATE "C"}) and merged with the store's listing (byte order) of the data path, listed once.
 */
public final class MissingObjects {

    private static final String TABLE = "pg_temp.ducklake_janitor_expected_files";
    private static final int CHUNK = 5000;

    private MissingObjects() {
    }

    /**
     * What the comparison found.
     *
     * @param dataPath the data path compared (after the override)
     * @param expected retained file rows under the data path that were compared
     * @param listed objects listed under the data path
     * @param missingData data file rows whose object is gone
     * @param missingDelete delete file rows whose object is gone
     * @param sizeMismatch rows whose object's size differs from file_size_bytes
     * @param notChecked retained rows outside the data path or with an unresolvable location (not compared)
     * @param missingDataExamples up to {@code maxExamples} examples (table, file, snapshot range)
     * @param missingDeleteExamples the same for delete files
     * @param sizeMismatchExamples the same, with both sizes
     */
    public record Result(String dataPath, long expected, long listed, long missingData, long missingDelete, long sizeMismatch,
                         long notChecked, List<String> missingDataExamples, List<String> missingDeleteExamples,
                         List<String> sizeMismatchExamples) {
    }

    /**
     * The storage comparison of {@code check --storage}, also the storage gauges' of {@code metrics}/{@code serve}: the
     * catalog's data path (or the override) is resolved once, the store opened for it, the catalog's retained file rows
     * compared with the store, and the store closed.
     *
     * @param c an open connection to the catalog database (schema already inspected; autocommit is switched off inside
     *          and restored; reads only)
     * @param schema the metadata schema
     * @param opener opens the store of the data path
     * @param dataPathOverride {@code --data-path}, or null for the catalog's data_path
     * @param maxExamples examples per finding kind
     * @param opened told the store once it is open (so that a caller bounding the comparison can close it early)
     * @return the counts and examples
     * @throws JanitorException STORAGE when the store cannot be opened or listed, or the listing comes out of order;
     *         BRAKE_ROOT_PATH for an unusable path
     * @throws SQLException on database errors
     */
    public static Result compare(Connection c, String schema, StoreOpener opener, String dataPathOverride, int maxExamples,
                                 Consumer<FileStore> opened) throws JanitorException, SQLException {
        PathResolver r = CatalogFiles.resolver(c, schema, dataPathOverride);
        try (FileStore store = opener.open(r.dataPath())) {
            opened.accept(store);
            return compare(c, schema, r, store, maxExamples);
        }
    }

    private static Result compare(Connection c, String schema, PathResolver r, FileStore store, int maxExamples)
            throws JanitorException, SQLException {
        boolean auto = c.getAutoCommit();
        StorageLocation root;
        StorageLocation listRoot;
        try {
            root = r.dataLocation();
            listRoot = r.listingLocation(); // listed as its keys are spelled, compared canonical
        } catch (IllegalArgumentException e) {
            throw new JanitorException(Reason.BRAKE_ROOT_PATH, "The data path " + CatalogInspector.printable(r.dataPath())
                    + " cannot be listed: " + e.getMessage());
        }
        String prefix = root.asPrefix().canonical();
        c.setAutoCommit(false);
        try {
            long[] load = load(c, schema, r, prefix);
            Merge m = merge(c, store, root, listRoot, prefix, maxExamples);
            c.commit();
            List<String> md = examples(c, schema, m.missingData);
            List<String> mdel = examples(c, schema, m.missingDelete);
            List<String> ms = examples(c, schema, m.sizes);
            c.commit();
            return new Result(r.dataPath(), load[0], m.listed, m.counts[0], m.counts[1], m.counts[2], load[1], md, mdel, ms);
        } finally {
            c.rollback();
            c.setAutoCommit(auto);
        }
    }

    /** Streams the retained rows into the temporary table: {compared, not checked}. */
    private static long[] load(Connection c, String schema, PathResolver r, String prefix) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TEMPORARY TABLE IF NOT EXISTS ducklake_janitor_expected_files (canon text NOT NULL, kind text,"
                    + " file_id bigint, table_id bigint, begin_snapshot bigint, end_snapshot bigint, size bigint)");
            st.execute("TRUNCATE " + TABLE);
        }
        String retained = " WHERE (end_snapshot IS NULL OR EXISTS (SELECT 1 FROM " + Sql.qualified(schema, "ducklake_snapshot")
                + " s WHERE s.snapshot_id >= begin_snapshot AND s.snapshot_id < end_snapshot))"
                + " AND table_id NOT IN (SELECT u2.table_id FROM unreachable u2)";
        String sql = "WITH file_tables AS (SELECT table_id FROM " + Sql.qualified(schema, "ducklake_data_file")
                + " UNION SELECT table_id FROM " + Sql.qualified(schema, "ducklake_delete_file") + "), "
                + OrphanPredicate.unreachableCte(schema, "file_tables") + " "
                + FileRows.sql(c, schema, retained, true);
        long compared = 0;
        long notChecked = 0;
        List<Object[]> buf = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setFetchSize(CHUNK);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String path = rs.getString(1);
                    Boolean rel = (Boolean) rs.getObject(2);
                    String full = path == null || rel == null ? null : rel ? FileRows.resolve(rs, r, path) : path;
                    String canon = null;
                    if (full != null) {
                        try {
                            canon = StorageLocation.parseKnownFile(full).canonical();
                        } catch (IllegalArgumentException e) {
                            canon = null;
                        }
                    }
                    if (canon == null || !canon.startsWith(prefix)) {
                        notChecked++;
                        continue;
                    }
                    compared++;
                    buf.add(new Object[] {canon, rs.getString(9), rs.getObject(10), rs.getObject(11), rs.getObject(12),
                        rs.getObject(13), rs.getObject(14)});
                    if (buf.size() >= CHUNK) {
                        flush(c, buf);
                    }
                }
            }
        }
        flush(c, buf);
        try (Statement st = c.createStatement()) {
            st.execute("ANALYZE " + TABLE);
        }
        return new long[] {compared, notChecked};
    }

    private static void flush(Connection c, List<Object[]> buf) throws SQLException {
        if (buf.isEmpty()) {
            return;
        }
        String[] canon = new String[buf.size()];
        String[] kind = new String[buf.size()];
        Long[][] nums = new Long[5][buf.size()];
        for (int i = 0; i < buf.size(); i++) {
            Object[] row = buf.get(i);
            canon[i] = (String) row[0];
            kind[i] = (String) row[1];
            for (int j = 0; j < 5; j++) {
                nums[j][i] = row[j + 2] == null ? null : ((Number) row[j + 2]).longValue();
            }
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " SELECT * FROM unnest(?::text[], ?::text[],"
                + " ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[])")) {
            ps.setArray(1, c.createArrayOf("text", canon));
            ps.setArray(2, c.createArrayOf("text", kind));
            for (int j = 0; j < 5; j++) {
                Array a = c.createArrayOf("bigint", nums[j]);
                ps.setArray(3 + j, a);
            }
            ps.executeUpdate();
        }
        buf.clear();
    }

    /** One expected row met in the merge. */
    private record Row(String canon, String kind, Long fileId, Long tableId, Long begin, Long end, Long size) {
    }

    private static final class Merge {
        long listed;
        final long[] counts = new long[3];
        final List<String[]> missingData = new ArrayList<>();
        final List<String[]> missingDelete = new ArrayList<>();
        final List<String[]> sizes = new ArrayList<>();
    }

    private static Merge merge(Connection c, FileStore store, StorageLocation root, StorageLocation listRoot, String prefix,
                               int maxExamples)
            throws JanitorException, SQLException {
        Merge m = new Merge();
        String spelled = listRoot.spelling();
        try (PreparedStatement ps = c.prepareStatement("SELECT canon COLLATE \"C\", kind, file_id, table_id, begin_snapshot,"
                + " end_snapshot, size FROM " + TABLE + " ORDER BY 1")) {
            ps.setFetchSize(CHUNK);
            try (ResultSet rs = ps.executeQuery(); FileStore.Listing listing = store.list(listRoot)) {
                StoredObject obj = null;
                String cur = null;
                String prev = null;
                while (rs.next()) {
                    Row row = new Row(rs.getString(1), rs.getString(2), (Long) rs.getObject(3), (Long) rs.getObject(4),
                            (Long) rs.getObject(5), (Long) rs.getObject(6), (Long) rs.getObject(7));
                    while (cur == null || StorageLocation.compareCodePoints(cur, row.canon()) < 0) {
                        if (!listing.hasNext()) {
                            cur = null;
                            break;
                        }
                        obj = listing.next();
                        String next = obj.location().canonical();
                        if (!next.startsWith(prefix) || !obj.canonicalBelow(spelled, prefix)) {
                            continue;
                        }
                        m.listed++;
                        if (prev != null && StorageLocation.compareCodePoints(next, prev) < 0) {
                            throw new JanitorException(Reason.STORAGE, "The store listed " + obj.address() + " after " + prev
                                    + ", out of canonical byte order; the comparison would be unsafe.");
                        }
                        prev = next;
                        cur = next;
                    }
                    if (cur != null && cur.equals(row.canon())) {
                        if (row.size() != null && obj.sizeBytes() >= 0 && obj.sizeBytes() != row.size()) {
                            m.counts[2]++;
                            add(m.sizes, maxExamples, row, "object " + obj.sizeBytes() + " bytes, file_size_bytes " + row.size());
                        }
                    } else if ("delete".equals(row.kind())) {
                        m.counts[1]++;
                        add(m.missingDelete, maxExamples, row, null);
                    } else {
                        m.counts[0]++;
                        add(m.missingData, maxExamples, row, null);
                    }
                }
                while (listing.hasNext()) {
                    StoredObject o = listing.next();
                    if (o.location().canonical().startsWith(prefix) && o.canonicalBelow(spelled, prefix)) {
                        m.listed++;
                    }
                }
            } catch (UncheckedIOException e) {
                if (e.getCause() instanceof StorageException se) {
                    throw listingFailed(root, listRoot, se);
                }
                throw e;
            } catch (StorageException se) {
                throw listingFailed(root, listRoot, se);
            }
        }
        return m;
    }

    /** The failure of the listing, naming the data path as spelled (a local one canonical), as the orphan sweep does. */
    private static JanitorException listingFailed(StorageLocation root, StorageLocation listRoot, StorageException se) {
        String shown = "file".equals(listRoot.scheme()) ? root.asPrefix().canonical() : listRoot.spelling();
        return new JanitorException(Reason.STORAGE, "Listing " + shown + " failed (" + se.kind() + "): "
                + se.getMessage() + ".", se);
    }

    private static void add(List<String[]> out, int max, Row row, String extra) {
        if (out.size() < max) {
            out.add(new String[] {String.valueOf(row.tableId()), row.kind(), String.valueOf(row.fileId()), row.canon(),
                String.valueOf(row.begin()), row.end() == null ? null : String.valueOf(row.end()), extra});
        }
    }

    /** Example lines with the table's name: {@code table 3 (main.t): data file 12 <address>, snapshots [2, live)}. */
    private static List<String> examples(Connection c, String schema, List<String[]> rows) throws SQLException {
        List<String> out = new ArrayList<>();
        for (String[] e : rows) {
            String name = null;
            try (PreparedStatement ps = c.prepareStatement("SELECT sc.schema_name, t.table_name FROM "
                    + Sql.qualified(schema, "ducklake_table") + " t LEFT JOIN " + Sql.qualified(schema, "ducklake_schema")
                    + " sc ON sc.schema_id = t.schema_id WHERE t.table_id = ? ORDER BY t.begin_snapshot DESC, sc.begin_snapshot DESC"
                    + " LIMIT 1")) {
                ps.setLong(1, Long.parseLong(e[0]));
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        name = rs.getString(1) + "." + rs.getString(2);
                    }
                }
            }
            out.add("table " + e[0] + (name == null ? "" : " (" + CatalogInspector.printable(name) + ")") + ": " + e[1] + " file "
                    + e[2] + " " + CatalogInspector.printable(e[3]) + ", snapshots [" + e[4] + ", " + (e[5] == null ? "live" : e[5])
                    + ")" + (e[6] == null ? "" : ", " + e[6]));
        }
        return out;
    }
}
