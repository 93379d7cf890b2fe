package dev.ducklake.janitor.ops.expiresnapshots;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The rows an execute batch of expire-snapshots deletes or reads by {@code table_id} in the per-table catalog tables
 * ({@link ExpireBatch#PER_TABLE}: {@code ducklake_table}, {@code _column}, {@code _schema_versions},
 * {@code _inlined_data_tables}, …), found by their row addresses instead of a scan (issue 27): the same rows as the
 * per-table deletes of DuckLake 1.5.5's {@code DuckLakeMetadataManager::DeleteSnapshots}
 * ({@code src/storage/ducklake_metadata_manager.cpp}, extension commit d8a1881e), which {@link ExpireBatch} follows.
 * DuckLake's PostgreSQL catalog has no index on any {@code table_id} column (its only keys are the five primary keys; the
 * janitor adds none), so {@code DELETE … WHERE table_id IN (the batch's tables)} read the whole table in every batch: a
 * cost per batch that followed the number of tables in the catalog (100,000 at 10,000,000 snapshots in the benchmark),
 * not the batch.
 *
 * <p>The run's build ({@link RunCandidates#build}) records, in one pass per table, the address ({@code ctid}) of every row
 * of a table the run can remove ({@code dj_run_tables}), and of every {@code ducklake_table} row (where a batch resolves
 * its files' paths): {@code dj_run_rows(tab, table_id, row_ctid)}, {@code tab} the position in
 * {@link ExpireBatch#PER_TABLE}, indexed by (tab, table_id). A batch reads those addresses (a TID scan) with the same
 * {@code table_id} test as before. The rows of a removable table are closed at a snapshot the run never passes, and
 * DuckLake writes no row for a dropped table_id (ids come from {@code next_catalog_id}, never reused), so no row of such a
 * table appears during the run. A recorded address can go stale (a row updated, or moved by {@code VACUUM FULL},
 * {@code CLUSTER}, pg_repack; a live table's row closed by an {@code ALTER}, which DuckLake writes as an update of the open
 * row and a new row): every use compares the rows found with the addresses recorded for those tables and, on any
 * shortfall, falls back to the statement by {@code table_id} (a scan, exactly the earlier statement), so the rows read or
 * deleted are always those of the statement by {@code table_id}. Nothing is added to the catalog's schema: the addresses
 * live in a session temporary table.
 */
final class TableRows {

    /** The position of {@code ducklake_inlined_data_tables} in {@link ExpireBatch#PER_TABLE}. */
    static final int REGISTRY = ExpireBatch.PER_TABLE.indexOf("ducklake_inlined_data_tables");

    private TableRows() {
    }

    /**
     * Build step (one short transaction of the caller): records the row addresses, after {@code dj_run_tables} and
     * {@code dj_run_cand} are complete.
     */
    static void record(Connection c, ExpiryLayout layout) throws SQLException {
        exec(c, "CREATE TEMP TABLE dj_run_rows (tab smallint NOT NULL, table_id bigint NOT NULL, row_ctid tid NOT NULL)");
        List<String> tables = ExpireBatch.PER_TABLE;
        for (int k = 0; k < tables.size(); k++) {
            String t = tables.get(k);
            if (!layout.has(t, "table_id")) {
                continue;
            }
            // ducklake_table: every row (a batch resolves the paths of live tables' files there too; one row per table
            // version, a small table next to the list of candidate files)
            String which = k == 0 ? "x.table_id IS NOT NULL" : "x.table_id IN (SELECT table_id FROM pg_temp.dj_run_tables)";
            exec(c, "INSERT INTO pg_temp.dj_run_rows SELECT " + k + ", x.table_id, x.ctid FROM " + layout.q(t) + " x WHERE " + which);
        }
        exec(c, "CREATE INDEX ON pg_temp.dj_run_rows (tab, table_id)");
        exec(c, "ANALYZE pg_temp.dj_run_rows");
    }

    /**
     * The recorded addresses of table {@code tab}'s rows of the tables in {@code ids} (a relation of table_id).
     *
     * @param tab the position in {@link ExpireBatch#PER_TABLE}, or an SQL expression of it (a column of an outer query)
     */
    private static String refs(Object tab, String ids) {
        return "SELECT r.row_ctid FROM pg_temp.dj_run_rows r WHERE r.tab = " + tab + " AND r.table_id = ANY (ARRAY(SELECT table_id FROM "
                + ids + "))";
    }

    /** Rows of catalog table {@code tab} of the tables in {@code ids}, by their recorded addresses (alias {@code x}). */
    static String byAddress(ExpiryLayout layout, int tab, String ids) {
        return layout.q(ExpireBatch.PER_TABLE.get(tab)) + " x WHERE x.ctid = ANY (ARRAY(" + refs(tab, ids) + "))"
                + " AND x.table_id = ANY (ARRAY(SELECT table_id FROM " + ids + "))";
    }

    /** How many addresses are recorded for table {@code tab}'s rows of the tables in {@code ids}. */
    static long recorded(Connection c, int tab, String ids) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM (" + refs(tab, ids) + ") r")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * {@link #recorded} for every catalog table at once, in one statement (one round trip per batch, not one per catalog
     * table): for each position of {@link ExpireBatch#PER_TABLE}, the same count over the same index ({@code tab},
     * {@code table_id}) of {@code dj_run_rows}.
     *
     * @param ids a relation of table_id (the batch's {@code pg_temp.dj_exp_tables})
     * @return addresses recorded, indexed by position in {@link ExpireBatch#PER_TABLE} (0 for a catalog table without
     *     any, e.g. one without a {@code table_id} column); valid while {@code ids} and {@code dj_run_rows} are unchanged
     */
    static long[] recordedPerTable(Connection c, String ids) throws SQLException {
        long[] counts = new long[ExpireBatch.PER_TABLE.size()];
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(recordedPerTableSql(ids))) {
            while (rs.next()) {
                counts[rs.getInt(1)] = rs.getLong(2);
            }
        }
        return counts;
    }

    /** The statement of {@link #recordedPerTable}: (position, count) for each position of {@link ExpireBatch#PER_TABLE}. */
    static String recordedPerTableSql(String ids) {
        return "SELECT k.tab, (SELECT count(*) FROM (" + refs("k.tab", ids) + ") r) FROM generate_series(0, "
                + (ExpireBatch.PER_TABLE.size() - 1) + ") k(tab)";
    }

    /**
     * Deletes the rows of catalog table {@code tab} of the batch's tables ({@code pg_temp.dj_exp_tables}), as
     * {@code DELETE … WHERE table_id IN (…)} does.
     *
     * @param expected the addresses recorded for those rows: {@link #recordedPerTable}{@code (c, "pg_temp.dj_exp_tables")[tab]},
     *     taken in this transaction after the batch's tables were chosen; fewer rows at them than this falls back to the
     *     statement by table_id
     * @return rows deleted
     */
    static long delete(Connection c, ExpiryLayout layout, int tab, long expected) throws SQLException {
        String ids = "pg_temp.dj_exp_tables";
        long deleted = exec(c, "DELETE FROM " + byAddress(layout, tab, ids));
        if (deleted < expected) {
            // an address went stale: the statement by table_id finds what is left
            deleted += exec(c, "DELETE FROM " + layout.q(ExpireBatch.PER_TABLE.get(tab)) + " WHERE table_id IN (SELECT table_id FROM "
                    + ids + ")");
        }
        return deleted;
    }

    /**
     * Fills {@code pg_temp.dj_exp_reg} with the registry rows ({@code ducklake_inlined_data_tables}: table_id,
     * schema_version, table_name) of the removable tables ({@code pg_temp.dj_exp_removable}), which
     * {@link InlinedTableDrops} reads in place of the registry.
     *
     * @param byAddress whether the run's addresses are there (execute batches on the run's sets); else the registry is
     *     read by table_id
     */
    static void registryRows(Connection c, ExpiryLayout layout, boolean byAddress) throws SQLException {
        String ids = "pg_temp.dj_exp_removable";
        String insert = "INSERT INTO pg_temp.dj_exp_reg SELECT x.table_id, x.schema_version, x.table_name FROM ";
        if (byAddress) {
            long expected = recorded(c, REGISTRY, ids);
            if (exec(c, insert + byAddress(layout, REGISTRY, ids)) == expected) {
                return;
            }
            exec(c, "TRUNCATE pg_temp.dj_exp_reg");
        }
        exec(c, insert + layout.q("ducklake_inlined_data_tables") + " x WHERE x.table_id IN (SELECT table_id FROM " + ids + ")");
    }

    /**
     * The path resolution of {@link DeletionQueue#resolveTablePaths} by address: in one statement (one snapshot), fills
     * {@code pg_temp.dj_exp_tpath} from the {@code ducklake_table} rows of the batch's files' tables at their recorded
     * addresses, only when every recorded address still holds its row and every such table has addresses (an update of a
     * recorded row, as DuckLake's {@code ALTER} closes a table's open row, leaves the old version at its address, which
     * this statement no longer sees); else it inserts nothing.
     *
     * @param tablePath the table path expression over {@code t} and {@code sc}, with one bind: data_path
     * @return whether the addresses were used (false: the caller resolves by table_id)
     */
    static boolean resolvePaths(Connection c, ExpiryLayout layout, String tablePath, String dataPath) throws SQLException {
        String sql = "WITH ids AS MATERIALIZED (SELECT DISTINCT b.table_id FROM (SELECT table_id FROM pg_temp.dj_exp_data UNION ALL"
                + " SELECT table_id FROM pg_temp.dj_exp_del) b WHERE b.table_id IS NOT NULL),"
                + " refs AS MATERIALIZED (SELECT r.row_ctid FROM pg_temp.dj_run_rows r WHERE r.tab = 0"
                + " AND r.table_id = ANY (ARRAY(SELECT table_id FROM ids))),"
                + " trows AS MATERIALIZED (SELECT t.* FROM " + layout.q("ducklake_table") + " t WHERE t.ctid = ANY (ARRAY(SELECT row_ctid FROM refs))"
                + " AND t.table_id = ANY (ARRAY(SELECT table_id FROM ids))),"
                + " ok AS MATERIALIZED (SELECT (SELECT count(*) FROM trows) = (SELECT count(*) FROM refs) AND NOT EXISTS (SELECT 1 FROM ids"
                + " WHERE NOT EXISTS (SELECT 1 FROM pg_temp.dj_run_rows r WHERE r.tab = 0 AND r.table_id = ids.table_id)) AS v),"
                + " ins AS (INSERT INTO pg_temp.dj_exp_tpath SELECT DISTINCT ON (t.table_id) t.table_id, " + tablePath + " FROM trows t"
                + " JOIN " + layout.q("ducklake_schema") + " sc ON sc.schema_id = t.schema_id WHERE (SELECT v FROM ok)"
                + " ORDER BY t.table_id, (t.end_snapshot IS NULL) DESC, t.begin_snapshot DESC RETURNING 1)"
                + " SELECT v FROM ok";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, dataPath);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static int exec(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            return st.executeUpdate(sql);
        }
    }
}
