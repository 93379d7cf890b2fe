package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.pg.Transactions;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * The rows an execute run of expire-snapshots can remove, found by one pass over each versioned file table per run
 * (issue 27), and the snapshot whose expiry releases each of them. Kept in session temporary tables of the run's
 * connection ({@code pg_temp.dj_run_*}, never in the catalog schema, never in the JVM), so that each batch finds its rows
 * through indexes instead of scanning {@code ducklake_data_file} / {@code ducklake_delete_file} again (DuckLake's
 * PostgreSQL catalog has no index on {@code begin_snapshot}/{@code end_snapshot}; the janitor creates none in it).
 *
 * <p>Why the set is fixed for the run. A batch removes a row when its interval {@code [begin_snapshot, end_snapshot)}
 * holds no remaining snapshot (DuckLake's {@code DeleteSnapshots}, {@code src/storage/ducklake_metadata_manager.cpp}).
 * The run never expires the newest snapshot at its start ({@code newest}), nor any snapshot its selection does not
 * allow ({@code dj_run_kept}: every snapshot id up to {@code newest} that the selection refuses, {@code newest}
 * included). DuckLake writers close rows only at the snapshot they commit, which is newer than {@code newest}, and never
 * re-open a row. So a row this run can remove is closed with {@code end_snapshot <= newest} and holds no kept snapshot
 * (a "candidate"); nothing a writer does during the run adds a candidate; and a candidate becomes removable exactly in the
 * batch that deletes the newest remaining snapshot of its interval, its <em>release</em> snapshot ({@code rel}; -1 when
 * no remaining snapshot holds it any more: an earlier interrupted or hand-written expiry left it, and the run's first
 * batch removes it). Taking snapshots oldest first, a batch whose newest id is {@code b} removes every candidate with
 * {@code rel <= b}: the rows a full liveness pass over the catalog would remove after that batch, no more, no fewer.
 *
 * <ul>
 *   <li>{@code dj_run_tables(table_id, rel)}: table_ids all of whose {@code ducklake_table} rows are candidates; rel is
 *       the newest release of its rows (the table is removable from then on).</li>
 *   <li>{@code dj_run_cand(kind, id, table_id, data_file_id, rel)}: kind 0 = data files that are candidates or belong to
 *       a table of {@code dj_run_tables} (also open ones, duckdb/ducklake#956); kind 1 = delete files that are
 *       candidates, belong to such a table, or point to a data file of kind 0. {@code rel} is null for rows that go only
 *       with their table or data file.</li>
 *   <li>{@code dj_run_tabfile(kind, id, table_id)}: the entries of {@code dj_run_cand} whose table_id is in
 *       {@code dj_run_tables}, where a batch finds the files of the tables it removes. Looked up in the whole list, the
 *       planner guessed the rows per table_id from the list's statistics (where one live table may own every candidate),
 *       flattened the lookup into a hash join and read all entries of a kind in every batch that removed a table (issue
 *       27: 1,000,000 entries per batch at N = 1,000,000); this set holds only files that go with their tables.</li>
 *   <li>{@code dj_run_rows(tab, table_id, row_ctid)}: the addresses of the per-table catalog rows of those tables, and of
 *       the {@code ducklake_table} rows of the candidates' tables ({@link TableRows}), where a batch deletes and reads
 *       them instead of a pass over each such table.</li>
 * </ul>
 * The file tables are read in keyset chunks over their primary key, {@value #CHUNK} ids per statement, so that no
 * statement of the build runs long on a catalog of tens of millions of files. Each batch deletes the entries it used in
 * its own transaction (temporary tables are transactional), so a rolled-back batch leaves them as they were. A lost
 * connection loses them with the session; {@link #ready} then says false and the run builds them again from the catalog
 * as it is (the same rules, judged against the snapshots left).
 */
final class RunCandidates {

    /** File ids per statement of the build. */
    static final int CHUNK = 200_000;

    private final Connection c;
    private final Duration statementTimeout;
    private final Duration lockTimeout;

    /**
     * @param c the run's connection, in autocommit
     * @param statementTimeout statement_timeout of each of this class's transactions (one statement or chunk each)
     * @param lockTimeout lock_timeout of each of them
     */
    RunCandidates(Connection c, Duration statementTimeout, Duration lockTimeout) {
        this.c = c;
        this.statementTimeout = statementTimeout;
        this.lockTimeout = lockTimeout;
    }

    /** One unit of SQL work. */
    private interface Work<T> {
        T run() throws SQLException;
    }

    /** Runs one short transaction with the run's timeouts. */
    private <T> T tx(Work<T> w) throws SQLException {
        c.setAutoCommit(false);
        try {
            Transactions.setLocalTimeouts(c, statementTimeout, lockTimeout);
            T out = w.run();
            c.commit();
            return out;
        } catch (SQLException | RuntimeException e) {
            Transactions.rollbackQuietly(c);
            throw e;
        } finally {
            Transactions.restoreAutoCommit(c);
        }
    }

    /** Whether this session holds a complete build (false after a reconnect or a failed build). */
    static boolean ready(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT to_regclass('pg_temp.dj_run_done') IS NOT NULL")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    /** Drops the run's temporary tables (end of run). */
    static void drop(Connection c) throws SQLException {
        exec(c, "DROP TABLE IF EXISTS pg_temp.dj_run_done, pg_temp.dj_run_rows, pg_temp.dj_run_tabfile, pg_temp.dj_run_cand, pg_temp.dj_run_tables,"
                + " pg_temp.dj_run_kept");
    }

    /** The candidate test of a versioned row (alias {@code x}; binds: newest). */
    private static String candidate(String alias) {
        return alias + ".end_snapshot IS NOT NULL AND " + alias + ".end_snapshot <= ? AND NOT EXISTS (SELECT 1 FROM pg_temp.dj_run_kept k"
                + " WHERE k.snapshot_id >= " + alias + ".begin_snapshot AND k.snapshot_id < " + alias + ".end_snapshot)";
    }

    /** The release snapshot of a row (alias {@code x}): its newest remaining snapshot, -1 when none. */
    private static String release(ExpiryLayout layout, String alias) {
        return "coalesce((SELECT max(s.snapshot_id) FROM " + layout.q("ducklake_snapshot") + " s WHERE s.snapshot_id >= " + alias
                + ".begin_snapshot AND s.snapshot_id < " + alias + ".end_snapshot), -1)";
    }

    /**
     * Builds the run's sets on this connection, each step a short transaction of its own (the temporary tables
     * outlive them: they are session tables, not {@code ON COMMIT DROP}).
     *
     * @param sel the run's selection (its newest snapshot at the start and its predicate)
     */
    void build(ExpiryLayout layout, Selection sel) throws SQLException {
        drop(c);
        long newest = sel.newestAtStart();
        tx(() -> {
            exec(c, "CREATE TEMP TABLE dj_run_kept (snapshot_id bigint PRIMARY KEY)");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO pg_temp.dj_run_kept SELECT snapshot_id FROM "
                    + layout.q("ducklake_snapshot") + " WHERE snapshot_id <= ? AND (" + sel.predicate() + ") IS NOT TRUE")) {
                ps.setLong(1, newest);
                sel.bind(c, ps, 2);
                ps.executeUpdate();
            }
            exec(c, "ANALYZE pg_temp.dj_run_kept");
            return null;
        });
        tx(() -> {
            exec(c, "CREATE TEMP TABLE dj_run_tables (table_id bigint PRIMARY KEY, rel bigint NOT NULL)");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO pg_temp.dj_run_tables SELECT t.table_id, max(" + release(layout, "t")
                    + ") FROM " + layout.q("ducklake_table") + " t WHERE t.table_id IS NOT NULL GROUP BY t.table_id HAVING bool_and("
                    + candidate("t") + ")")) {
                ps.setLong(1, newest);
                ps.executeUpdate();
            }
            // a batch takes the tables released up to its newest snapshot: a range of this index, not a pass over the list
            exec(c, "CREATE INDEX ON pg_temp.dj_run_tables (rel)");
            exec(c, "ANALYZE pg_temp.dj_run_tables");
            exec(c, "CREATE TEMP TABLE dj_run_cand (kind smallint, id bigint, table_id bigint, data_file_id bigint, rel bigint,"
                    + " PRIMARY KEY (kind, id))");
            return null;
        });
        fill(layout, newest, "ducklake_data_file", "data_file_id", 0,
                "NULL::bigint", "f.table_id IN (SELECT table_id FROM pg_temp.dj_run_tables)");
        tx(() -> {
            exec(c, "CREATE INDEX ON pg_temp.dj_run_cand (kind, data_file_id)");
            exec(c, "ANALYZE pg_temp.dj_run_cand");
            return null;
        });
        fill(layout, newest, "ducklake_delete_file", "delete_file_id", 1, "f.data_file_id",
                "f.table_id IN (SELECT table_id FROM pg_temp.dj_run_tables)"
                + " OR EXISTS (SELECT 1 FROM pg_temp.dj_run_cand d WHERE d.kind = 0 AND d.id = f.data_file_id)");
        tx(() -> {
            exec(c, "CREATE INDEX ON pg_temp.dj_run_cand (kind, rel)");
            exec(c, "ANALYZE pg_temp.dj_run_cand");
            // the entries of removable tables, apart: a batch looks its tables' files up here, never in the whole list
            exec(c, "CREATE TEMP TABLE dj_run_tabfile AS SELECT x.kind, x.id, x.table_id FROM pg_temp.dj_run_cand x"
                    + " WHERE x.table_id IN (SELECT table_id FROM pg_temp.dj_run_tables)");
            exec(c, "CREATE INDEX ON pg_temp.dj_run_tabfile (kind, table_id)");
            exec(c, "ANALYZE pg_temp.dj_run_tabfile");
            return null;
        });
        tx(() -> {
            TableRows.record(c, layout);
            exec(c, "CREATE TEMP TABLE dj_run_done ()");
            return null;
        });
    }

    /** One keyset pass over a file table: rows that are candidates or that {@code alsoWhen} ties to one. */
    private void fill(ExpiryLayout layout, long newest, String table, String key, int kind, String dataFileId,
                             String alsoWhen) throws SQLException {
        String next = "SELECT max(" + key + ") FROM (SELECT " + key + " FROM " + layout.q(table) + " WHERE " + key + " > ? ORDER BY "
                + key + " LIMIT ?) x";
        String insert = "INSERT INTO pg_temp.dj_run_cand SELECT " + kind + ", y.id, y.table_id, y.dfid, CASE WHEN y.cand THEN "
                + release(layout, "y") + " END FROM (SELECT f." + key + " AS id, f.table_id, " + dataFileId + " AS dfid, f.begin_snapshot,"
                + " f.end_snapshot, (" + candidate("f") + ") IS TRUE AS cand, (" + alsoWhen + ") IS TRUE AS tied FROM "
                + layout.q(table) + " f WHERE f." + key + " > ? AND f." + key + " <= ?) y WHERE y.cand OR y.tied";
        long after = Long.MIN_VALUE;
        try (PreparedStatement pn = c.prepareStatement(next); PreparedStatement pi = c.prepareStatement(insert)) {
            while (true) {
                final long from = after;
                Long upTo = tx(() -> {
                    pn.setLong(1, from);
                    pn.setInt(2, CHUNK);
                    long last;
                    try (ResultSet rs = pn.executeQuery()) {
                        rs.next();
                        last = rs.getLong(1);
                        if (rs.wasNull()) {
                            return null;
                        }
                    }
                    pi.setLong(1, newest);
                    pi.setLong(2, from);
                    pi.setLong(3, last);
                    pi.executeUpdate();
                    return last;
                });
                if (upTo == null) {
                    return;
                }
                after = upTo;
            }
        }
    }

    /**
     * @param layout the catalog's layout
     * @return the per-file tables of this catalog keyed by {@code data_file_id} (column stats, variant stats, partition
     *     values, as the format has them) whose rows {@link #deleteDangling} removes after the batches
     */
    static java.util.List<String> perFileTables(ExpiryLayout layout) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (String t : new String[] {layout.fileColumnStats(), "ducklake_file_variant_stats", "ducklake_file_partition_value"}) {
            if (t != null && layout.has(t, "data_file_id")) {
                out.add(t);
            }
        }
        return out;
    }

    /** Blocks of a per-file table per transaction of {@link #deleteDangling}. */
    static final int BLOCKS = 8192;

    /**
     * The closing pass of an execute run: deletes the rows of {@code ducklake_file_column_stats} (or
     * {@code _statistics}), {@code _file_variant_stats} and {@code _file_partition_value} whose {@code data_file_id} has no
     * {@code ducklake_data_file} row any more. DuckLake deletes them in the same statement group as their data file
     * ({@code DeleteSnapshots}); these tables have no index on {@code data_file_id}, so a batch that deleted them would
     * scan them whole, and the run defers them to this one anti-join per run instead. Until then they are unreachable:
     * DuckLake reads them only through a data file ({@code ReadFileColumnStatsForTableSql}: data file LEFT JOIN stats;
     * the filter-pushdown CTEs of {@code GenerateFileColumnStatsCTEBody} are probed by the scanned files' ids; partition
     * values are joined to data files), and no data file id is ever reused. State-based, so a run stopped before it
     * leaves the rows to the next run. Walks each table in ranges of {@value #BLOCKS} heap blocks, one autocommit
     * statement each (a TID range scan from PostgreSQL 14 on; older servers get one statement per table), so no
     * transaction runs long.
     *
     * @return rows deleted
     */
    long deleteDangling(ExpiryLayout layout) throws SQLException {
        long total = 0;
        int serverVersion;
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT current_setting('server_version_num')::int")) {
            rs.next();
            serverVersion = rs.getInt(1);
        }
        for (String t : perFileTables(layout)) {
            String sql = "DELETE FROM " + layout.q(t) + " x WHERE x.data_file_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "
                    + layout.q("ducklake_data_file") + " f WHERE f.data_file_id = x.data_file_id)";
            if (serverVersion < 140000) {
                total += tx(() -> {
                    try (Statement st = c.createStatement()) {
                        return (long) st.executeUpdate(sql);
                    }
                });
                continue;
            }
            long blocks;
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.pg_relation_size(?::regclass)"
                    + " / current_setting('block_size')::bigint")) {
                ps.setString(1, layout.q(t));
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    blocks = rs.getLong(1);
                }
            }
            try (PreparedStatement ps = c.prepareStatement(sql + " AND x.ctid >= ?::tid AND x.ctid < ?::tid")) {
                for (long lo = 0; lo < blocks; lo += BLOCKS) {
                    final long first = lo;
                    total += tx(() -> {
                        ps.setString(1, "(" + first + ",0)");
                        ps.setString(2, "(" + (first + BLOCKS) + ",0)");
                        return (long) ps.executeUpdate();
                    });
                }
            }
        }
        return total;
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
