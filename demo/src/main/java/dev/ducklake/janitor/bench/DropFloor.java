package dev.ducklake.janitor.bench;

import dev.ducklake.janitor.pg.Sql;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * FLOOR, benchmark only: the given tables dropped with no checks at all (no registry rows locked or deleted,
 * no table lock, no emptiness probe), in transactions of the same batch size as the janitor. The fastest
 * anything that drops these tables can be.
 */
final class DropFloor {

    private DropFloor() {
    }

    /**
     * Drops the tables.
     *
     * @param c an open connection (autocommit on; left on)
     * @param schema the schema holding the tables
     * @param tables the table names, dropped in this order
     * @param batchSize tables per transaction
     * @param multiTable false: one {@code DROP TABLE t} statement (one round trip) per table (variant c);
     *     true: one {@code DROP TABLE t1, …, tn} per transaction (variant c′)
     * @param out receives one timing per committed batch
     * @return tables dropped
     * @throws SQLException on database errors
     */
    static long run(Connection c, String schema, List<String> tables, int batchSize, boolean multiTable,
                    List<BatchTiming> out) throws SQLException {
        c.setAutoCommit(false);
        int number = 0;
        try (Statement st = c.createStatement()) {
            for (int from = 0; from < tables.size(); from += batchSize) {
                List<String> batch = tables.subList(from, Math.min(tables.size(), from + batchSize));
                long t0 = System.nanoTime();
                if (multiTable) {
                    StringBuilder sql = new StringBuilder("DROP TABLE ");
                    for (int i = 0; i < batch.size(); i++) {
                        sql.append(i > 0 ? ", " : "").append(Sql.qualified(schema, batch.get(i)));
                    }
                    st.execute(sql.toString());
                } else {
                    for (String t : batch) {
                        st.execute("DROP TABLE " + Sql.qualified(schema, t));
                    }
                }
                c.commit();
                out.add(new BatchTiming(++number, batch.size(), (System.nanoTime() - t0) / 1e6));
            }
        } finally {
            c.rollback();
            c.setAutoCommit(true);
        }
        return tables.size();
    }
}
