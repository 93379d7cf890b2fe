package dev.ducklake.janitor.ops.purgestats;

import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.ops.check.OrphanedStatsRowsRule;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The work of one purge-orphan-stats batch, inside a transaction the caller opened (and commits): picks the next ids in
 * key order after the previous batch's last id, then deletes their orphaned stats rows, re-checking the predicate of
 * {@link OrphanedStatsRowsRule} in the DELETE itself (so a row that stopped being orphaned, or a table_id that gained a
 * {@code ducklake_table} row meanwhile, is never deleted). Takes a plain {@link Connection} so that a shared batch loop
 * can drive it.
 *
 * <p>Table level: the rows of a batch's table_ids are deleted from {@code ducklake_table_stats} first, then from
 * {@code ducklake_table_column_stats}, in the same transaction: DuckLake's commit path joins the two, and a reader must
 * never see table stats without their column stats (PostHog/millpond#102 found the opposite order crashing contended
 * commits). Per-file level: one table at a time, by data_file_id.
 *
 * <p>Each statement scans the stats table once with a hash semi-join on the batch's ids (no index on these tables).
 */
final class StatsPurgeBatch {

    /**
     * What one batch did.
     *
     * @param ids how many ids the batch took (0 = nothing left)
     * @param lastId the highest id taken (the keyset position of the next batch)
     * @param deleted rows deleted per catalog table
     */
    record Outcome(int ids, long lastId, Map<String, Long> deleted) {
    }

    private StatsPurgeBatch() {
    }

    /**
     * Purges the table-level stats of the next {@code limit} orphaned table_ids after {@code after}.
     *
     * @param c a connection inside an open transaction
     * @param schema the metadata schema
     * @param tables the table-level stats tables present, in deletion order ({@link OrphanedStatsRowsRule#tableLevelTables})
     * @param after the last table_id of the previous batch ({@link Long#MIN_VALUE} at first)
     * @param limit table_ids per batch
     * @return what was done
     * @throws SQLException on database errors (the caller rolls back)
     */
    static Outcome tableLevel(Connection c, String schema, List<String> tables, long after, int limit) throws SQLException {
        return purge(c, schema, tables, "table_id", OrphanedStatsRowsRule::tableLevelOrphan, after, limit);
    }

    /**
     * Purges the per-file stats of the next {@code limit} orphaned data_file_ids after {@code after} in one table.
     *
     * @param c a connection inside an open transaction
     * @param schema the metadata schema
     * @param table a per-file stats table ({@link OrphanedStatsRowsRule#fileLevelTables})
     * @param after the last data_file_id of the previous batch ({@link Long#MIN_VALUE} at first)
     * @param limit data_file_ids per batch
     * @return what was done
     * @throws SQLException on database errors (the caller rolls back)
     */
    static Outcome fileLevel(Connection c, String schema, String table, long after, int limit) throws SQLException {
        return purge(c, schema, List.of(table), "data_file_id", OrphanedStatsRowsRule::fileLevelOrphan, after, limit);
    }

    private interface Predicate {
        String sql(String schema, String alias);
    }

    private static Outcome purge(Connection c, String schema, List<String> tables, String idColumn, Predicate orphan, long after,
                                 int limit) throws SQLException {
        String id = Sql.ident(idColumn);
        StringBuilder pick = new StringBuilder("SELECT id FROM (");
        for (int i = 0; i < tables.size(); i++) {
            pick.append(i == 0 ? "" : " UNION ").append("SELECT s.").append(id).append(" AS id FROM ")
                .append(Sql.qualified(schema, tables.get(i))).append(" s WHERE s.").append(id).append(" > ? AND ")
                .append(orphan.sql(schema, "s"));
        }
        pick.append(") u ORDER BY id LIMIT ?");
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(pick.toString())) {
            for (int i = 0; i < tables.size(); i++) {
                ps.setLong(i + 1, after);
            }
            ps.setInt(tables.size() + 1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        Map<String, Long> deleted = new LinkedHashMap<>();
        if (ids.isEmpty()) {
            return new Outcome(0, after, deleted);
        }
        java.sql.Array batch = c.createArrayOf("bigint", ids.toArray());
        for (String table : tables) {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + Sql.qualified(schema, table) + " s WHERE s." + id
                    + " IN (SELECT unnest(?::bigint[])) AND " + orphan.sql(schema, "s"))) {
                ps.setArray(1, batch);
                deleted.put(table, (long) ps.executeUpdate());
            }
        }
        return new Outcome(ids.size(), ids.get(ids.size() - 1), deleted);
    }
}
