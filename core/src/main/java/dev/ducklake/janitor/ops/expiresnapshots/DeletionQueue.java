package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Queues the files an {@link ExpireBatch} removes in {@code ducklake_files_scheduled_for_deletion}, each path resolved
 * through its table and schema against the catalog's {@code data_path} as DuckLake's expiry does.
 *
 * <p>Runs inside the batch's transaction, on its temporary tables: {@code pg_temp.dj_exp_data} and
 * {@code pg_temp.dj_exp_del} (the removed files: id, table_id, path, rel) and {@code pg_temp.dj_exp_tpath} (filled here).
 */
final class DeletionQueue {

    private DeletionQueue() {
    }

    /**
     * Resolves the table paths of the batch's data and delete files into {@code pg_temp.dj_exp_tpath} (table_id, absolute
     * table path): the table's open row if any, else its newest row, joined to its schema, against data_path (DuckLake's
     * {@code FromRelativePath(table_id, …)}). One pass over {@code ducklake_table} (it has no index on table_id) for both
     * kinds of file, instead of one per statement; nothing between here and {@link #schedule} changes
     * {@code ducklake_table} or {@code ducklake_schema} (the batch's tables leave them afterwards). A table_id without a
     * row (or whose schema row is missing) gets no row here; {@link #schedule} refuses its files.
     *
     * @param byAddress execute batches on the run's sets: read the tables' rows at the addresses the run recorded
     *     ({@link TableRows#resolvePaths}: the same rows, without the pass over ducklake_table), by table_id when one
     *     went stale
     * @return the catalog's data_path
     * @throws JanitorException {@link Reason#UNSAFE_CATALOG_STATE} when ducklake_metadata has no data_path
     */
    static String resolveTablePaths(Connection c, ExpiryLayout layout, boolean byAddress) throws SQLException, JanitorException {
        String dataPath = layout.globalOption(c, "data_path");
        if (dataPath == null) {
            throw new JanitorException(Reason.UNSAFE_CATALOG_STATE, "ducklake_metadata has no data_path; DuckLake cannot "
                    + "resolve the paths of the files this expiry would queue for deletion. Nothing of this batch was committed.");
        }
        String tablePath;
        if (layout.hasPaths()) {
            tablePath = "CASE WHEN t.path_is_relative THEN (CASE WHEN sc.path_is_relative THEN ?::varchar || sc.path ELSE sc.path END)"
                    + " || t.path ELSE t.path END";
        } else {
            tablePath = "?::varchar";
        }
        if (byAddress && TableRows.resolvePaths(c, layout, tablePath, dataPath)) {
            return dataPath;
        }
        String sql = "INSERT INTO pg_temp.dj_exp_tpath SELECT DISTINCT ON (t.table_id) t.table_id, " + tablePath + " FROM "
                + layout.q("ducklake_table") + " t JOIN " + layout.q("ducklake_schema") + " sc ON sc.schema_id = t.schema_id"
                + " WHERE t.table_id IN (SELECT table_id FROM pg_temp.dj_exp_data UNION SELECT table_id FROM pg_temp.dj_exp_del)"
                + " ORDER BY t.table_id, (t.end_snapshot IS NULL) DESC, t.begin_snapshot DESC";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, dataPath);
            ps.executeUpdate();
        }
        return dataPath;
    }

    /**
     * Queues removed files in ducklake_files_scheduled_for_deletion: path resolved through the table path of
     * {@link #resolveTablePaths} (its open row if any, else its newest row, and schema, against data_path), stored
     * relative to data_path when it lies inside it (DuckLake's FromRelativePath(table_id, …) then GetRelativePath).
     *
     * @param files the temp table of files (id, table_id, path, rel)
     * @param dataPath the catalog's data_path, as {@link #resolveTablePaths} returned it
     * @throws JanitorException {@link Reason#UNSAFE_CATALOG_STATE} when a file's table has no path (DuckLake: "Failed to get
     *     path for table")
     */
    static void schedule(Connection c, ExpiryLayout layout, String files, String dataPath) throws SQLException, JanitorException {
        String resolved = "WITH dp AS (SELECT ?::varchar AS v),"
                + " x AS (SELECT f.id, tp.p AS tpath, CASE WHEN f.rel THEN tp.p || f.path ELSE f.path END AS full_path FROM "
                + files + " f LEFT JOIN pg_temp.dj_exp_tpath tp ON tp.table_id = f.table_id)";
        try (PreparedStatement ps = c.prepareStatement(resolved + " SELECT id FROM x WHERE tpath IS NULL LIMIT 1")) {
            ps.setString(1, dataPath);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    throw new JanitorException(Reason.UNSAFE_CATALOG_STATE, "file id " + rs.getLong(1) + " would be queued for "
                            + "deletion but its table has no ducklake_table/ducklake_schema row to resolve its path (DuckLake's "
                            + "own expiry fails on this catalog too: \"Failed to get path for table\"). Nothing of this batch was committed.");
                }
            }
        }
        String insert = resolved + " INSERT INTO " + layout.q("ducklake_files_scheduled_for_deletion")
                + " (data_file_id, path, path_is_relative, schedule_start)"
                + " SELECT x.id, CASE WHEN left(x.full_path, length(dp.v)) = dp.v THEN substr(x.full_path, length(dp.v) + 1)"
                + " ELSE x.full_path END, left(x.full_path, length(dp.v)) = dp.v, now() FROM x CROSS JOIN dp";
        try (PreparedStatement ps = c.prepareStatement(insert)) {
            ps.setString(1, dataPath);
            ps.executeUpdate();
        }
    }
}
