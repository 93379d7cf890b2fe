package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * One batch of snapshot expiry: the work of DuckLake 1.5.5's {@code DuckLakeMetadataManager::DeleteSnapshots}
 * ({@code src/storage/ducklake_metadata_manager.cpp} at extension commit d8a1881e; plus
 * {@code ducklake_view_column_tag} for 1.1-dev1 catalogs as in later sources), written as our own
 * set-based PostgreSQL statements over temporary tables ({@code ON COMMIT DROP}); nothing is loaded into the JVM
 * except the names of the inlined tables to drop (bounded by the lock budget).
 *
 * <p>Runs inside a transaction the caller opened and commits (execute) or on a read-only pass (dry run).
 * Liveness is always judged against the snapshots that remain in {@code ducklake_snapshot} at that moment
 * ({@code R}); "a row covers R" means some remaining snapshot id {@code s} has
 * {@code begin_snapshot <= s < end_snapshot} (a point test, not min/max bounds). Which rows go:
 * <ol>
 *   <li>{@code ducklake_snapshot}, {@code ducklake_snapshot_changes}: the batch's snapshot ids.</li>
 *   <li>Removable tables: table_ids all of whose {@code ducklake_table} rows are closed and cover nothing in R
 *       (a table_id without any ducklake_table row is never removable, as in DuckLake).</li>
 *   <li>{@code ducklake_data_file} (+ {@code ducklake_file_column_stats}, {@code ducklake_file_variant_stats},
 *       {@code ducklake_file_partition_value} by data_file_id; in an execute run these three wait for the run's
 *       closing anti-join, {@link RunCandidates#deleteDangling}): files of removable tables, and closed files
 *       covering nothing in R. Each is queued in {@code ducklake_files_scheduled_for_deletion} ({@link DeletionQueue})
 *       with its path resolved through table and schema to a path relative to the catalog's {@code data_path}
 *       (absolute when outside it) and {@code schedule_start = now()}.</li>
 *   <li>{@code ducklake_delete_file}: files of removable tables, files of the data files removed in 3, and closed
 *       files covering nothing in R; queued the same way (their delete_file_id goes into the queue's
 *       {@code data_file_id} column).</li>
 *   <li>For removable tables, by table_id: {@code ducklake_table}, {@code _table_stats},
 *       {@code _table_column_stats}, {@code _partition_info}, {@code _partition_column}, {@code _column},
 *       {@code _column_tag}, {@code _sort_info}, {@code _sort_expression}, {@code _schema_versions},
 *       {@code _inlined_data_tables}, {@code _column_mapping}; then their registered inlined-data tables and
 *       {@code ducklake_inlined_delete_<table_id>} are dropped.</li>
 *   <li>Closed rows covering nothing in R of {@code ducklake_schema}, {@code _view}, ({@code _view_column_tag}
 *       in 1.1-dev1), {@code _tag}, {@code _macro}; then {@code _macro_impl} / {@code _macro_parameters} rows
 *       without a macro and {@code _name_mapping} rows without a column mapping.</li>
 * </ol>
 * Left alone, as by DuckLake: closed columns, partitions, sort keys and column tags of live tables; registry rows (and
 * inlined tables) of table_ids without any ducklake_table row. Dead inlined rows (end_snapshot set, no remaining snapshot
 * in their interval) are deleted after the last batch by {@link InlinedRowSweep}, as DuckLake's expiry does after 1.5.5.
 *
 * <p>Lock budget ({@link InlinedTableDrops}): the inlined tables dropped by one batch are limited to {@code tableBudget}
 * relations (the lock arithmetic of drop-orphan-inline-tables, {@link dev.ducklake.janitor.pg.LockBudget}). When more
 * tables are removable, the rest (with their files) waits for the next batch, and step 6 waits too (a later
 * batch still needs the schema rows to resolve the waiting tables' file paths). Every rule is monotone in R,
 * so the end state after the last batch equals DuckLake's single transaction over the same snapshots.
 *
 * <p>Guard beyond DuckLake: a registry name that is not exactly {@code ducklake_inlined_data_<table_id>_<v>}
 * or not a plain table of the schema is never dropped (its registry row still goes, as in DuckLake).
 */
final class ExpireBatch {

    /**
     * Catalog tables cleaned by table_id for removable tables (step 5), in DuckLake's order; execute batches on the run's
     * sets find these rows at the addresses the run recorded ({@link TableRows}).
     */
    static final List<String> PER_TABLE = List.of("ducklake_table", "ducklake_table_stats", "ducklake_table_column_stats",
            "ducklake_partition_info", "ducklake_partition_column", "ducklake_column", "ducklake_column_tag",
            "ducklake_sort_info", "ducklake_sort_expression", "ducklake_schema_versions", "ducklake_inlined_data_tables",
            "ducklake_column_mapping");

    /** What one batch did (execute) or would do (dry run: cumulative up to this batch). */
    record Figures(long snapshots, long firstSnapshot, long lastSnapshot, long dataFiles, long deleteFiles, long tables,
                   long inlinedTables, long otherRows, boolean tablesPending, List<String> warnings) {
    }

    private final ExpiryLayout layout;
    private final Connection c;
    /** The relation of remaining snapshots: the catalog's ducklake_snapshot, or the dry run's temp copy. */
    private final String remaining;
    /** Whether this batch reads its rows from the run's candidate sets ({@link #useRunSets}). */
    private boolean runSets;
    /** With {@link #runSets}: the newest snapshot id this run has expired, up to this batch included. */
    private long upTo = -1;
    /** With {@link #runSets}: rows released up to this id went in earlier batches of this list. */
    private long releasedAfter = Long.MIN_VALUE;

    ExpireBatch(Connection c, ExpiryLayout layout, boolean dryRun) {
        this.c = c;
        this.layout = layout;
        this.remaining = dryRun ? "pg_temp.dj_exp_remaining" : layout.q("ducklake_snapshot");
    }

    private String covers(String alias) {
        return "EXISTS (SELECT 1 FROM " + remaining + " s WHERE s.snapshot_id >= " + alias + ".begin_snapshot AND s.snapshot_id < "
                + alias + ".end_snapshot)";
    }

    private String closedUncovered(String alias) {
        return alias + ".end_snapshot IS NOT NULL AND NOT " + covers(alias);
    }

    /**
     * The rows this batch must judge: closed and uncovered (full pass: dry run). An execute batch reads them from the run's
     * candidate sets instead ({@link #useRunSets}).
     */
    private String expiring(String alias) {
        return closedUncovered(alias);
    }

    /**
     * Execute runs: this batch takes its removable tables and files from the run's candidate sets ({@link RunCandidates}):
     * those released by a snapshot up to {@code upTo} (the batch's newest expired id, or the previous batch's when this one
     * expires none). Exactly what a full liveness pass after the batch removes, found through indexes of the session's
     * temporary tables and the catalog's primary keys instead of a scan of the versioned file tables.
     *
     * @param releasedAfter the {@code upTo} of the run's last committed batch since the list was built
     *     ({@link Long#MIN_VALUE} for the first batch on a fresh list: it takes the rows no remaining snapshot holds)
     * @param upTo the newest snapshot id expired so far by this run, this batch included; -1 before any
     */
    void useRunSets(long releasedAfter, long upTo) {
        this.runSets = true;
        this.releasedAfter = releasedAfter;
        this.upTo = upTo;
    }

    /** Creates this transaction's temporary work tables (dropped at commit or rollback). */
    void createTempTables() throws SQLException {
        exec("CREATE TEMP TABLE dj_exp_snap (snapshot_id bigint PRIMARY KEY) ON COMMIT DROP");
        exec("CREATE TEMP TABLE dj_exp_removable (table_id bigint PRIMARY KEY) ON COMMIT DROP");
        exec("CREATE TEMP TABLE dj_exp_tables (table_id bigint PRIMARY KEY) ON COMMIT DROP");
        exec("CREATE TEMP TABLE dj_exp_data (id bigint PRIMARY KEY, table_id bigint, path varchar, rel boolean) ON COMMIT DROP");
        exec("CREATE TEMP TABLE dj_exp_del (id bigint PRIMARY KEY, table_id bigint, path varchar, rel boolean) ON COMMIT DROP");
        exec("CREATE TEMP TABLE dj_exp_tpath (table_id bigint PRIMARY KEY, p varchar) ON COMMIT DROP");
        exec("CREATE TEMP TABLE dj_exp_reg (table_id bigint, schema_version bigint, table_name varchar) ON COMMIT DROP");
    }

    /** Dry run: a private copy of the snapshot ids, from which each simulated batch removes its ids. */
    void createDryRunCopy() throws SQLException {
        exec("CREATE TEMP TABLE dj_exp_remaining ON COMMIT DROP AS SELECT snapshot_id FROM " + layout.q("ducklake_snapshot"));
        exec("ALTER TABLE pg_temp.dj_exp_remaining ADD PRIMARY KEY (snapshot_id)");
        exec("ANALYZE pg_temp.dj_exp_remaining");
    }

    /**
     * Picks the next batch: up to {@code size} ids above {@code after} that the selection allows, oldest first,
     * never the current newest. Execute: deletes them from ducklake_snapshot and ducklake_snapshot_changes.
     * Dry run: removes them from the private copy only.
     *
     * @return {count, first id, last id} (ids -1 when none)
     */
    long[] takeSnapshots(Selection sel, long after, int size, boolean dryRun) throws SQLException {
        String snap = layout.q("ducklake_snapshot");
        String pick = "SELECT snapshot_id FROM " + snap + " WHERE snapshot_id > ? AND " + sel.predicate()
                + " AND snapshot_id < (SELECT max(snapshot_id) FROM " + snap + ") ORDER BY snapshot_id LIMIT ?";
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO pg_temp.dj_exp_snap " + pick)) {
            ps.setLong(1, after);
            int i = sel.bind(c, ps, 2);
            ps.setInt(i, size);
            ps.executeUpdate();
        }
        if (dryRun) {
            exec("DELETE FROM pg_temp.dj_exp_remaining r USING pg_temp.dj_exp_snap b WHERE r.snapshot_id = b.snapshot_id");
        } else {
            // = ANY (ARRAY(…)): the batch's ids probe the primary keys, whatever the planner guesses of the temp table
            exec("DELETE FROM " + snap + " WHERE snapshot_id = ANY (ARRAY(SELECT snapshot_id FROM pg_temp.dj_exp_snap))");
            exec("DELETE FROM " + layout.q("ducklake_snapshot_changes")
                    + " WHERE snapshot_id = ANY (ARRAY(SELECT snapshot_id FROM pg_temp.dj_exp_snap))");
        }
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*), coalesce(min(snapshot_id), -1), coalesce(max(snapshot_id), -1) FROM pg_temp.dj_exp_snap")) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
        }
    }

    /**
     * Steps 2 to 6 against the snapshots remaining now.
     *
     * @param snapshots {count, first, last} from {@link #takeSnapshots}
     * @param tableBudget most inlined relations to drop in this transaction (execute only; at least one
     *     table's worth always goes)
     * @param dryRun count only
     * @throws JanitorException {@link Reason#UNSAFE_CATALOG_STATE} when a file to queue has no resolvable table
     *     path (DuckLake fails on the same catalog with "Failed to get path for table")
     */
    Figures clean(long[] snapshots, int tableBudget, boolean dryRun) throws SQLException, JanitorException {
        List<String> warnings = new ArrayList<>();
        long removable = collectRemovable();
        boolean registry = layout.has("ducklake_inlined_data_tables", "table_id", "table_name");
        if (registry && removable > 0) {
            TableRows.registryRows(c, layout, runSets);
        }
        if (dryRun || removable == 0) {
            exec("INSERT INTO pg_temp.dj_exp_tables SELECT table_id FROM pg_temp.dj_exp_removable");
        } else {
            InlinedTableDrops.chooseWithinBudget(c, layout, registry, tableBudget);
        }
        long tables = count("pg_temp.dj_exp_tables");
        boolean pending = tables < removable;

        if (runSets) {
            execUpTo(runDataFilesSql(), releasedAfter, upTo);
            execUpTo(runDeleteFilesSql(), releasedAfter, upTo);
        } else {
            exec("INSERT INTO pg_temp.dj_exp_data SELECT f.data_file_id, f.table_id, f.path, f.path_is_relative FROM "
                    + layout.q("ducklake_data_file") + " f WHERE f.table_id IN (SELECT table_id FROM pg_temp.dj_exp_tables) OR ("
                    + expiring("f") + ")");
            exec("INSERT INTO pg_temp.dj_exp_del SELECT d.delete_file_id, d.table_id, d.path, d.path_is_relative FROM "
                    + layout.q("ducklake_delete_file") + " d WHERE d.table_id IN (SELECT table_id FROM pg_temp.dj_exp_tables)"
                    + " OR d.data_file_id IN (SELECT id FROM pg_temp.dj_exp_data) OR (" + expiring("d") + ")");
        }
        long dataFiles = count("pg_temp.dj_exp_data");
        long deleteFiles = count("pg_temp.dj_exp_del");
        List<String> drops = InlinedTableDrops.inlinedTablesToDrop(c, layout, registry, warnings);
        long otherRows = 0;
        if (dryRun) {
            if (!pending) {
                for (String t : closedVersioned()) {
                    otherRows += scalar("SELECT count(*) FROM " + layout.q(t) + " x WHERE " + closedUncovered("x"));
                }
            }
            return new Figures(snapshots[0], snapshots[1], snapshots[2], dataFiles, deleteFiles, tables, drops.size(),
                    otherRows, pending, warnings);
        }
        // ---- execute ----
        String dataPath = null;
        if (dataFiles > 0 || deleteFiles > 0) {
            dataPath = DeletionQueue.resolveTablePaths(c, layout, runSets);
        }
        if (dataFiles > 0) {
            exec("DELETE FROM " + layout.q("ducklake_data_file") + " WHERE data_file_id = ANY (ARRAY(SELECT id FROM pg_temp.dj_exp_data))");
            // with the run's sets, the per-file rows (no index on data_file_id) wait for the run's closing anti-join
            // (RunCandidates.deleteDangling); DuckLake reads them only through their data file, which is gone now
            for (String t : new String[] {layout.fileColumnStats(), "ducklake_file_variant_stats", "ducklake_file_partition_value"}) {
                if (!runSets && t != null && layout.has(t, "data_file_id")) {
                    exec("DELETE FROM " + layout.q(t) + " WHERE data_file_id IN (SELECT id FROM pg_temp.dj_exp_data)");
                }
            }
            DeletionQueue.schedule(c, layout, "pg_temp.dj_exp_data", dataPath);
        }
        if (deleteFiles > 0) {
            exec("DELETE FROM " + layout.q("ducklake_delete_file") + " WHERE delete_file_id = ANY (ARRAY(SELECT id FROM pg_temp.dj_exp_del))");
            DeletionQueue.schedule(c, layout, "pg_temp.dj_exp_del", dataPath);
        }
        if (tables > 0) {
            // the addresses recorded for each catalog table's rows of the batch's tables, asked once for all of them
            long[] recorded = runSets ? TableRows.recordedPerTable(c, "pg_temp.dj_exp_tables") : null;
            for (int k = 0; k < PER_TABLE.size(); k++) {
                if (!layout.has(PER_TABLE.get(k), "table_id")) {
                    continue;
                }
                if (runSets) {
                    // at the addresses the run recorded (no pass over a table sized by the catalog's tables: issue 27)
                    TableRows.delete(c, layout, k, recorded[k]);
                } else {
                    exec("DELETE FROM " + layout.q(PER_TABLE.get(k)) + " WHERE table_id IN (SELECT table_id FROM pg_temp.dj_exp_tables)");
                }
            }
            if (!drops.isEmpty()) {
                StringBuilder sql = new StringBuilder("DROP TABLE IF EXISTS ");
                for (int i = 0; i < drops.size(); i++) {
                    sql.append(i == 0 ? "" : ", ").append(layout.q(drops.get(i)));
                }
                exec(sql.toString());
            }
        }
        if (runSets) {
            // removed tables leave the run's list in this transaction (files need not: the next batch's release range
            // starts above this one's, and a file tied to a table or data file goes with it, once)
            exec("DELETE FROM pg_temp.dj_run_tables WHERE table_id = ANY (ARRAY(SELECT table_id FROM pg_temp.dj_exp_tables))");
        }
        if (!pending) {
            for (String t : closedVersioned()) {
                otherRows += exec("DELETE FROM " + layout.q(t) + " x WHERE " + expiring("x"));
            }
            if (layout.has("ducklake_macro", "macro_id")) {
                for (String t : new String[] {"ducklake_macro_impl", "ducklake_macro_parameters"}) {
                    if (layout.has(t, "macro_id")) {
                        exec("DELETE FROM " + layout.q(t) + " x WHERE NOT EXISTS (SELECT 1 FROM " + layout.q("ducklake_macro")
                                + " m WHERE m.macro_id = x.macro_id)");
                    }
                }
            }
            if (layout.has("ducklake_name_mapping", "mapping_id") && layout.has("ducklake_column_mapping", "mapping_id")) {
                exec("DELETE FROM " + layout.q("ducklake_name_mapping") + " x WHERE NOT EXISTS (SELECT 1 FROM "
                        + layout.q("ducklake_column_mapping") + " m WHERE m.mapping_id = x.mapping_id)");
            }
        }
        return new Figures(snapshots[0], snapshots[1], snapshots[2], dataFiles, deleteFiles, tables, drops.size(), otherRows,
                pending, warnings);
    }

    /**
     * Execute batches on the run's sets: fills {@code dj_exp_data} with the data files released by this batch's snapshots
     * ({@code rel} in {@code (releasedAfter, upTo]}, binds 1 and 2: a range, so that the estimate from the list's statistics
     * stays right as the run advances) and those of the tables it removes ({@code dj_run_tabfile}, which holds only files
     * of removable tables: PostgreSQL flattens the LATERAL into a join, and over the whole list a guess of many rows per
     * table_id made it read every entry in each batch). Then the catalog's primary key, through {@code = ANY (ARRAY(…))}:
     * index probes whatever the planner guesses of the temporary tables, never a scan of a file table.
     */
    String runDataFilesSql() {
        return "INSERT INTO pg_temp.dj_exp_data SELECT f.data_file_id, f.table_id, f.path, f.path_is_relative FROM "
                + layout.q("ducklake_data_file") + " f WHERE f.data_file_id = ANY (ARRAY(SELECT x.id FROM pg_temp.dj_run_cand x"
                + " WHERE x.kind = 0 AND x.rel > ? AND x.rel <= ? UNION SELECT y.id FROM pg_temp.dj_exp_tables e CROSS JOIN LATERAL"
                + " (SELECT x.id FROM pg_temp.dj_run_tabfile x WHERE x.kind = 0 AND x.table_id = e.table_id) y))";
    }

    /**
     * As {@link #runDataFilesSql} for {@code dj_exp_del}: delete files released by this batch, of the tables it removes, and
     * of the data files it removes. The last ones by one probe of the list's (kind, data_file_id) index per removed data
     * file: a correlated {@code ARRAY(…)} subquery, which PostgreSQL runs per row and never turns into a join (as a LATERAL
     * join, the planner found a scan of every delete-file entry of the list cheaper than the batch's probes, and read
     * them all in every batch: issue 27).
     */
    String runDeleteFilesSql() {
        return "INSERT INTO pg_temp.dj_exp_del SELECT d.delete_file_id, d.table_id, d.path, d.path_is_relative FROM "
                + layout.q("ducklake_delete_file") + " d WHERE d.delete_file_id = ANY (ARRAY(SELECT x.id FROM pg_temp.dj_run_cand x"
                + " WHERE x.kind = 1 AND x.rel > ? AND x.rel <= ? UNION SELECT y.id FROM pg_temp.dj_exp_tables e CROSS JOIN LATERAL"
                + " (SELECT x.id FROM pg_temp.dj_run_tabfile x WHERE x.kind = 1 AND x.table_id = e.table_id) y UNION SELECT"
                + " unnest(ARRAY(SELECT x.id FROM pg_temp.dj_run_cand x WHERE x.kind = 1 AND x.data_file_id = e.id))"
                + " FROM pg_temp.dj_exp_data e))";
    }

    /** Step 2: fills dj_exp_removable with the table_ids removable against the remaining snapshots; returns their number. */
    long collectRemovable() throws SQLException {
        execUpTo("INSERT INTO pg_temp.dj_exp_removable " + removableQuery(), runSets ? upTo : null);
        return count("pg_temp.dj_exp_removable");
    }

    private String removableQuery() {
        if (runSets) {
            return "SELECT table_id FROM pg_temp.dj_run_tables WHERE rel <= ?";
        }
        return "SELECT t.table_id FROM " + layout.q("ducklake_table") + " t WHERE t.table_id IS NOT NULL"
                + " GROUP BY t.table_id HAVING bool_and(" + closedUncovered("t") + ")";
    }

    /**
     * Whether any table is removable against the remaining snapshots (tables left by a hand-written expiry or an
     * interrupted run: a run that selects no snapshot still removes them).
     */
    boolean removableTablesExist() throws SQLException {
        String sql = "SELECT EXISTS (" + removableQuery() + ")";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bindUpTo(ps, runSets ? new long[] {upTo} : new long[0]);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /**
     * The tables of dj_exp_removable (after {@link #collectRemovable}) with the names of their newest rows, by table_id.
     * Dry run: what the simulated expiry removes.
     */
    List<ExpireSnapshotsResult.RemovedTable> removedTables() throws SQLException {
        String schemaName = layout.has("ducklake_schema", "schema_id", "schema_name")
                ? "(SELECT sc.schema_name FROM " + layout.q("ducklake_schema") + " sc WHERE sc.schema_id = n.schema_id LIMIT 1)" : "NULL";
        String sql = "WITH n AS (SELECT DISTINCT ON (t.table_id) t.table_id, t.schema_id, t.table_name FROM " + layout.q("ducklake_table")
                + " t WHERE t.table_id IN (SELECT table_id FROM pg_temp.dj_exp_removable) ORDER BY t.table_id, t.begin_snapshot DESC),"
                + " b AS (SELECT t.table_id, min(t.begin_snapshot) AS b, max(t.end_snapshot) AS e FROM " + layout.q("ducklake_table")
                + " t WHERE t.table_id IN (SELECT table_id FROM pg_temp.dj_exp_removable) GROUP BY t.table_id)"
                + " SELECT n.table_id, " + schemaName + ", n.table_name, b.b, b.e FROM n JOIN b USING (table_id) ORDER BY n.table_id";
        List<ExpireSnapshotsResult.RemovedTable> out = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                out.add(new ExpireSnapshotsResult.RemovedTable(rs.getLong(1), rs.getString(2), rs.getString(3),
                        rs.getObject(4, Long.class), rs.getObject(5, Long.class)));
            }
        }
        return out;
    }

    /**
     * Dry run: the snapshots of {@code ducklake_snapshot} that the simulation removed from its private copy, as ranges of
     * consecutive ids of the catalog (consecutive among the snapshots it has, so an earlier expiry's holes do not split a
     * range), oldest first.
     */
    List<ExpireSnapshotsResult.SnapshotRange> expiredRanges() throws SQLException {
        String sql = "SELECT min(snapshot_id), max(snapshot_id), count(*) FROM (SELECT s.snapshot_id, r.snapshot_id IS NULL AS gone,"
                + " row_number() OVER (ORDER BY s.snapshot_id) - row_number() OVER (PARTITION BY r.snapshot_id IS NULL"
                + " ORDER BY s.snapshot_id) AS grp FROM " + layout.q("ducklake_snapshot") + " s LEFT JOIN " + remaining
                + " r ON r.snapshot_id = s.snapshot_id) x WHERE gone GROUP BY grp ORDER BY 1";
        List<ExpireSnapshotsResult.SnapshotRange> out = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                out.add(new ExpireSnapshotsResult.SnapshotRange(rs.getLong(1), rs.getLong(2), rs.getLong(3)));
            }
        }
        return out;
    }

    /** The relation of remaining snapshots this batch judges against. */
    String remaining() {
        return remaining;
    }

    /** Versioned tables whose closed, uncovered rows step 6 deletes (those present in this layout). */
    private List<String> closedVersioned() {
        List<String> out = new ArrayList<>();
        for (String t : new String[] {"ducklake_schema", "ducklake_view", "ducklake_view_column_tag", "ducklake_tag", "ducklake_macro"}) {
            if (layout.has(t, "begin_snapshot", "end_snapshot")) {
                out.add(t);
            }
        }
        return out;
    }

    private long count(String temp) throws SQLException {
        return scalar("SELECT count(*) FROM " + temp);
    }

    private long scalar(String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private int exec(String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            return st.executeUpdate(sql);
        }
    }

    /** Runs a statement with these bigint parameters (none when null). */
    private int execUpTo(String sql, Long... values) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            long[] v = new long[values.length == 1 && values[0] == null ? 0 : values.length];
            for (int i = 0; i < v.length; i++) {
                v[i] = values[i];
            }
            bindUpTo(ps, v);
            return ps.executeUpdate();
        }
    }

    private static void bindUpTo(PreparedStatement ps, long[] values) throws SQLException {
        for (int i = 0; i < values.length; i++) {
            ps.setLong(i + 1, values[i]);
        }
    }

    /** Empties the per-batch temp tables (dry run keeps one transaction for all batches). */
    void resetForNextBatch() throws SQLException {
        exec("TRUNCATE pg_temp.dj_exp_snap, pg_temp.dj_exp_removable, pg_temp.dj_exp_tables, pg_temp.dj_exp_data, pg_temp.dj_exp_del,"
                + " pg_temp.dj_exp_tpath, pg_temp.dj_exp_reg");
    }
}
