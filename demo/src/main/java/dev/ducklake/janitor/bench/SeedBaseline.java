package dev.ducklake.janitor.bench;

import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.catalog.OrphanPredicate;
import dev.ducklake.janitor.pg.Sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * BASELINE, benchmark only, never used by the janitor: the seed design of drop-orphan-inline-tables, kept
 * to measure what the janitor's design saves.
 *
 * <p>Per batch, one transaction that
 * <ol>
 *   <li>selects the next keyset page by re-running the full orphan anti-join over the whole registry
 *       ({@code WHERE (table_id, schema_version) > last AND <unreachable> ORDER BY table_id, schema_version
 *       LIMIT batch FOR UPDATE OF r SKIP LOCKED}): a scan and sort of the whole registry per batch;</li>
 *   <li>for each table, one round trip each: {@code LOCK TABLE … IN ACCESS EXCLUSIVE MODE},
 *       {@code SELECT 1 … LIMIT 1} (emptiness), {@code DROP TABLE};</li>
 *   <li>deletes the dropped tables' registry rows in one statement by (table_id, schema_version) — kinder
 *       than a per-row {@code DELETE … WHERE table_name = …}, which is quadratic on the unindexed registry
 *       and would not finish at 230,000 tables — and commits.</li>
 * </ol>
 * Same safety steps as the janitor (row locks, orphan predicate, name guard, table lock, emptiness probe),
 * without its retries; the bench catalog needs none.
 */
final class SeedBaseline {

    private SeedBaseline() {
    }

    /**
     * Runs the baseline to the end.
     *
     * @param c an open connection (autocommit on; left on)
     * @param schema the metadata schema
     * @param batchSize tables per transaction
     * @param out receives one timing per committed batch
     * @return tables dropped
     * @throws SQLException on database errors
     */
    static long run(Connection c, String schema, int batchSize, List<BatchTiming> out) throws SQLException {
        String registry = Sql.qualified(schema, "ducklake_inlined_data_tables");
        String page = "SELECT r.table_id, r.schema_version, r.table_name FROM " + registry + " r"
                + " WHERE (r.table_id, r.schema_version) > (?, ?) AND " + OrphanPredicate.unreachable(schema, "r.table_id")
                + " ORDER BY r.table_id, r.schema_version LIMIT ? FOR UPDATE OF r SKIP LOCKED";
        String delete = "DELETE FROM " + registry + " WHERE (table_id, schema_version) IN"
                + " (SELECT * FROM unnest(?::bigint[], ?::bigint[]))";
        long lastId = Long.MIN_VALUE;
        long lastVersion = Long.MIN_VALUE;
        long dropped = 0;
        int number = 0;
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            while (true) {
                long t0 = System.nanoTime();
                st.execute("SET LOCAL statement_timeout = '120s'; SET LOCAL lock_timeout = '5s'");
                List<long[]> rows = new ArrayList<>();
                List<String> names = new ArrayList<>();
                try (PreparedStatement ps = c.prepareStatement(page)) {
                    ps.setLong(1, lastId);
                    ps.setLong(2, lastVersion);
                    ps.setInt(3, batchSize);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            rows.add(new long[] {rs.getLong(1), rs.getLong(2)});
                            names.add(rs.getString(3));
                        }
                    }
                }
                if (rows.isEmpty()) {
                    c.commit();
                    break;
                }
                List<Long> delIds = new ArrayList<>();
                List<Long> delVersions = new ArrayList<>();
                for (int i = 0; i < rows.size(); i++) {
                    long id = rows.get(i)[0];
                    long version = rows.get(i)[1];
                    String name = names.get(i);
                    if (!InlinedTableName.guardAllows(name, id, version)) {
                        continue;
                    }
                    String q = Sql.qualified(schema, name);
                    st.execute("LOCK TABLE " + q + " IN ACCESS EXCLUSIVE MODE");
                    boolean empty;
                    try (ResultSet rs = st.executeQuery("SELECT 1 FROM " + q + " LIMIT 1")) {
                        empty = !rs.next();
                    }
                    if (!empty) {
                        continue;
                    }
                    st.execute("DROP TABLE " + q);
                    delIds.add(id);
                    delVersions.add(version);
                }
                if (!delIds.isEmpty()) {
                    try (PreparedStatement ps = c.prepareStatement(delete)) {
                        ps.setArray(1, c.createArrayOf("bigint", delIds.toArray()));
                        ps.setArray(2, c.createArrayOf("bigint", delVersions.toArray()));
                        ps.executeUpdate();
                    }
                }
                c.commit();
                dropped += delIds.size();
                lastId = rows.get(rows.size() - 1)[0];
                lastVersion = rows.get(rows.size() - 1)[1];
                out.add(new BatchTiming(++number, rows.size(), (System.nanoTime() - t0) / 1e6));
            }
        } finally {
            c.rollback();
            c.setAutoCommit(true);
        }
        return dropped;
    }
}
