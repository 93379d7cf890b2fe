package dev.ducklake.janitor.ops.purgestats;

import dev.ducklake.janitor.catalog.OrphanedStatsPredicate;
import dev.ducklake.janitor.ops.runtime.BatchOutcome;
import dev.ducklake.janitor.ops.runtime.KeysetSource;
import dev.ducklake.janitor.ops.runtime.MaintenanceRun;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.pg.Transactions;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The work of purge-orphan-stats, for one group of stats tables keyed by the same id: the table-level stats by table_id
 * ({@code ducklake_table_stats} then {@code ducklake_table_column_stats}) or one per-file stats table by data_file_id.
 *
 * <p>{@link #nextIds} lists the next orphaned ids in key order, the page query of the group's {@link #source} (a
 * read-only query; the run keeps at most {@link PurgeOrphanStats#ID_CHUNK} ids read ahead). {@link #attempt} is one batch
 * inside the transaction the shared {@link dev.ducklake.janitor.ops.runtime.BatchLoop} opened (through {@link StatsPurgeWork}): it deletes the rows of the slice's ids from each table of the group,
 * in order, re-checking the predicate of {@link OrphanedStatsPredicate} in the DELETE itself, so a row that stopped being
 * orphaned (a table_id that gained a {@code ducklake_table} row) is never deleted. Table stats first, then their column
 * stats, in one transaction: DuckLake's commit path joins the two, and a reader must never see table stats without their
 * column stats (PostHog/millpond#102 found the opposite order crashing contended commits).
 *
 * <p>Each DELETE scans its stats table once with a hash semi-join on the slice's ids (no index on these tables;
 * {@code enable_nestloop} and {@code jit} are off for the transaction: {@link Transactions#setLocalHashJoins}).
 */
final class StatsPurgeBatch {

    /** What one attempt deleted. */
    record Done(int consumed, Map<String, Long> deleted, long rows, double seconds) implements BatchOutcome {
        @Override
        public int handled() {
            return consumed;
        }

        @Override
        public boolean truncated() {
            return false;
        }

        @Override
        public int acted() {
            return (int) Math.min(Integer.MAX_VALUE, rows);
        }

        @Override
        public int skipped() {
            return 0;
        }

        @Override
        public int missing() {
            return 0;
        }
    }

    private interface Predicate {
        String sql(String schema, String alias);
    }

    private final String schema;
    private final List<String> tables;
    private final String idColumn;
    private final Predicate orphan;
    final Map<String, Long> deleted = new LinkedHashMap<>();
    final List<Double> batchSeconds = new ArrayList<>();
    long ids;

    private StatsPurgeBatch(String schema, List<String> tables, String idColumn, Predicate orphan) {
        this.schema = schema;
        this.tables = List.copyOf(tables);
        this.idColumn = idColumn;
        this.orphan = orphan;
        tables.forEach(t -> deleted.put(t, 0L));
    }

    /** The table-level group: table stats then column stats, by table_id. */
    static StatsPurgeBatch tableLevel(String schema, List<String> tables) {
        return new StatsPurgeBatch(schema, tables, "table_id", OrphanedStatsPredicate::tableLevelOrphan);
    }

    /** One per-file stats table, by data_file_id. */
    static StatsPurgeBatch fileLevel(String schema, String table) {
        return new StatsPurgeBatch(schema, List.of(table), "data_file_id", OrphanedStatsPredicate::fileLevelOrphan);
    }

    /**
     * The group's orphaned ids, page by page in key order ({@link #nextIds}).
     *
     * @param run the run whose read-only path reads the pages
     * @return the source, of ids tagged with this group
     */
    KeysetSource<StatsPurgeWork.OrphanId> source(MaintenanceRun run) {
        return run.keyset("listing orphaned ids", PurgeOrphanStats.ID_CHUNK, (c, last, limit) -> nextIds(c,
                last == null ? Long.MIN_VALUE : last.id(), limit).stream().map(id -> new StatsPurgeWork.OrphanId(this, id)).toList());
    }

    /**
     * The next orphaned ids after {@code after}, in key order (read-only; one scan of each table of the group).
     *
     * @param c a connection inside a read-only transaction
     * @param after the last id already taken ({@link Long#MIN_VALUE} at first)
     * @param limit how many ids at most
     * @return the ids
     * @throws SQLException on database errors
     */
    List<Long> nextIds(Connection c, long after, int limit) throws SQLException {
        String id = Sql.ident(idColumn);
        StringBuilder pick = new StringBuilder("SELECT id FROM (");
        for (int i = 0; i < tables.size(); i++) {
            pick.append(i == 0 ? "" : " UNION ").append("SELECT s.").append(id).append(" AS id FROM ")
                .append(Sql.qualified(schema, tables.get(i))).append(" s WHERE s.").append(id).append(" > ? AND ")
                .append(orphan.sql(schema, "s"));
        }
        pick.append(") u ORDER BY id LIMIT ?");
        Transactions.setLocalHashJoins(c);
        List<Long> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(pick.toString())) {
            for (int i = 0; i < tables.size(); i++) {
                ps.setLong(i + 1, after);
            }
            ps.setInt(tables.size() + 1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getLong(1));
                }
            }
        }
        return out;
    }

    /**
     * One batch: deletes the orphaned rows of these ids from each table of the group, in order.
     *
     * @param c the session's connection, in the batch's transaction
     * @param slice the ids of this batch
     * @return what it deleted (not yet committed)
     * @throws SQLException classified by the retry policy
     */
    Done attempt(Connection c, List<Long> slice) throws SQLException {
        long t0 = System.nanoTime();
        Transactions.setLocalHashJoins(c);
        java.sql.Array batch = c.createArrayOf("bigint", slice.toArray());
        Map<String, Long> n = new LinkedHashMap<>();
        long rows = 0;
        for (String table : tables) {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + Sql.qualified(schema, table) + " s WHERE s."
                    + Sql.ident(idColumn) + " IN (SELECT unnest(?::bigint[])) AND " + orphan.sql(schema, "s"))) {
                ps.setArray(1, batch);
                long d = ps.executeUpdate();
                n.put(table, d);
                rows += d;
            }
        }
        return new Done(slice.size(), n, rows, (System.nanoTime() - t0) / 1e9);
    }

    /** @param d a committed batch's counts, taken over into the group's */
    void committed(Done d) {
        d.deleted().forEach((t, v) -> deleted.merge(t, v, Long::sum));
        ids += d.consumed();
        batchSeconds.add(d.seconds());
    }

    /** @return what the group needs privileges for, as {@link dev.ducklake.janitor.ops.runtime.BatchWork#privilegeNeeded()} */
    String privilegeNeeded() {
        return "to delete rows of " + String.join(" and ", tables);
    }

    /** @return the plural noun of the group's id, e.g. "table_ids" */
    String units() {
        return idColumn + "s";
    }

}
