package dev.ducklake.janitor.ops.cleanupoldfiles;

import dev.ducklake.janitor.storage.PathResolver;
import dev.ducklake.janitor.storage.StorageLocation;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The deletion queue ({@code ducklake_files_scheduled_for_deletion}) as cleanup-old-files reads and trims it: a cursor
 * over its distinct entries older than the cutoff, held across the batches' commits, and the exact delete of the rows
 * of the entries whose files are gone.
 */
final class QueueCursor {

    private final Connection c;
    private final String queue;
    private final Instant cutoff;
    private final PathResolver resolver;
    private final int batchSize;

    /**
     * @param c the run's session (not in autocommit)
     * @param queue the queue table, qualified and quoted
     * @param cutoff entries scheduled before this are read
     * @param resolver resolves the queued paths
     * @param batchSize entries per {@link #next()}
     */
    QueueCursor(Connection c, String queue, Instant cutoff, PathResolver resolver, int batchSize) {
        this.c = c;
        this.queue = queue;
        this.cutoff = cutoff;
        this.resolver = resolver;
        this.batchSize = batchSize;
    }

    /** One distinct queue entry (rows with equal id, path and path_is_relative). */
    record Entry(Long id, String path, Integer rel, long rows, String address, String canonical, String[] ctids) {
    }

    /**
     * The ctids of an entry's rows from their text forms joined by single spaces ({@code (0,1) (3,7)}: a tid's
     * text holds no space), read without the driver's array decoding: almost every entry has one row.
     */
    static String[] ctids(String joined) {
        int space = joined.indexOf(' ');
        if (space < 0) {
            return new String[] {joined};
        }
        List<String> out = new ArrayList<>();
        int from = 0;
        while (space >= 0) {
            out.add(joined.substring(from, space));
            from = space + 1;
            space = joined.indexOf(' ', from);
        }
        out.add(joined.substring(from));
        return out.toArray(new String[0]);
    }

    /**
     * @return the queue rows older than the cutoff whose path is NULL (kept: no file can be named)
     * @throws SQLException on database errors
     */
    long countNullPaths() throws SQLException {
        long n;
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + queue
                + " WHERE schedule_start < ? AND path IS NULL")) {
            ps.setTimestamp(1, Timestamp.from(cutoff));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                n = rs.getLong(1);
            }
        }
        c.commit();
        return n;
    }

    /**
     * Opens the queue cursor: the distinct (data_file_id, path, path_is_relative) entries older than the cutoff,
     * with the ctids of their rows, in path order (absolute paths, then relative ones: the files of a batch are then
     * one key range of their folder, which an object store sizes by one listing page per 1,000 files; in id order,
     * DuckLake's random file names spread every batch over its whole folder), sorted once by PostgreSQL and held
     * across the batches' commits ({@code WITH HOLD}); the JVM fetches one batch at a time. The cutoff travels through a
     * temporary table because DECLARE takes no bind parameters.
     */
    void open() throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TEMPORARY TABLE IF NOT EXISTS ducklake_janitor_cutoff (cutoff timestamptz)");
            st.execute("TRUNCATE pg_temp.ducklake_janitor_cutoff");
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO pg_temp.ducklake_janitor_cutoff VALUES (?)")) {
            ps.setTimestamp(1, Timestamp.from(cutoff));
            ps.executeUpdate();
        }
        try (Statement st = c.createStatement()) {
            st.execute("DECLARE ducklake_janitor_queue NO SCROLL CURSOR WITH HOLD FOR"
                    + " SELECT data_file_id, path, coalesce(path_is_relative::int, 2), count(*), string_agg(ctid::text, ' ')"
                    + " FROM " + queue + " WHERE schedule_start < (SELECT cutoff FROM pg_temp.ducklake_janitor_cutoff)"
                    + " AND path IS NOT NULL GROUP BY data_file_id, path, path_is_relative"
                    + " ORDER BY coalesce(path_is_relative::int, 2), path COLLATE \"C\", coalesce(data_file_id, -1)");
        }
        c.commit();
    }

    /** Closes the cursor (the session may be gone already). */
    void close() {
        try (Statement st = c.createStatement()) {
            st.execute("CLOSE ducklake_janitor_queue");
            c.commit();
        } catch (SQLException ignored) {
            // the session may be gone; its cursor went with it
        }
    }

    /** Rows one FETCH statement asks for: a structural constant of at most 2 digits (the SQL scan's rule). */
    private static final int FETCH_ROWS = 50;

    /**
     * The next batch of entries from the cursor, in one round trip: the batch's FETCH statements (up to
     * {@value #FETCH_ROWS} rows each) go to the server together and their results are read in order.
     */
    List<Entry> next() throws SQLException {
        List<Entry> out = new ArrayList<>();
        StringBuilder fetches = new StringBuilder();
        for (int left = batchSize; left > 0; left -= FETCH_ROWS) {
            fetches.append(fetches.length() == 0 ? "" : "; ").append("FETCH FORWARD ").append(Math.min(FETCH_ROWS, left))
                    .append(" FROM ducklake_janitor_queue");
        }
        try (Statement st = c.createStatement()) {
            boolean results = st.execute(fetches.toString());
            while (true) {
                if (results) {
                    try (ResultSet rs = st.getResultSet()) {
                        while (rs.next()) {
                            out.add(entry(rs));
                        }
                    }
                } else if (st.getUpdateCount() == -1) {
                    break;
                }
                results = st.getMoreResults();
            }
        }
        return out;
    }

    private Entry entry(ResultSet rs) throws SQLException {
        long id = rs.getLong(1);
        Long idv = rs.wasNull() ? null : id;
        String path = rs.getString(2);
        int rel = rs.getInt(3);
        String address = rel == 2 ? null : resolver.scheduled(path, rel == 1);
        String canon = null;
        if (address != null) {
            try {
                canon = StorageLocation.parseFile(address).canonical();
            } catch (IllegalArgumentException e) {
                address = null;
            }
        }
        return new Entry(idv, path, rel, rs.getLong(4), address, canon, ctids(rs.getString(5)));
    }

    /**
     * Deletes exactly the queue rows of these entries: found by the ctids the cursor saw (a TID scan, no scan of
     * the queue), and deleted only when all their values still match and they are still older than the cutoff.
     * A row that moved meanwhile stays; the next run removes it (its file is then missing, which counts as gone).
     *
     * @return the rows deleted
     */
    int deleteRows(List<Entry> rows) throws SQLException {
        if (rows.isEmpty()) {
            return 0;
        }
        List<String> ctids = new ArrayList<>();
        Long[] ids = new Long[rows.size()];
        String[] paths = new String[rows.size()];
        Integer[] rels = new Integer[rows.size()];
        for (int i = 0; i < rows.size(); i++) {
            ids[i] = rows.get(i).id() == null ? -1L : rows.get(i).id();
            paths[i] = rows.get(i).path();
            rels[i] = rows.get(i).rel();
            ctids.addAll(List.of(rows.get(i).ctids()));
        }
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + queue + " q WHERE q.ctid = ANY (?::tid[])"
                + " AND (coalesce(q.data_file_id, -1), q.path COLLATE \"C\", coalesce(q.path_is_relative::int, 2))"
                + " IN (SELECT * FROM unnest(?::bigint[], ?::text[], ?::int[])) AND q.schedule_start < ?")) {
            ps.setArray(1, c.createArrayOf("text", ctids.toArray()));
            ps.setArray(2, c.createArrayOf("bigint", ids));
            ps.setArray(3, c.createArrayOf("text", paths));
            ps.setArray(4, c.createArrayOf("int4", rels));
            ps.setTimestamp(5, Timestamp.from(cutoff));
            return ps.executeUpdate();
        }
    }
}
