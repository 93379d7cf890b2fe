package dev.ducklake.janitor.bench;

import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.demo.CatalogBuilder;

import java.sql.Connection;
import dev.ducklake.janitor.demo.DemoScenario;
import java.sql.ResultSet;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The catalog every benchmark variant starts from: a DuckLake 1.0 catalog in one schema holding
 * <ul>
 *   <li>{@code leaked} inlined-data tables of created-and-dropped sync tables whose snapshots were expired
 *       (empty orphans: the leak), written by {@link CatalogBuilder#bulkCreateAndDrop} in transactions of
 *       {@code perTransaction} tables, one multi-statement round trip each;</li>
 *   <li>live tables with several schema versions and inlined rows (reachable: must be kept);</li>
 *   <li>{@link #NON_EMPTY_ORPHANS} dropped tables whose inlined rows were never flushed (non-empty orphans:
 *       must be kept and reported).</li>
 * </ul>
 * Expected: {@code leaked + 3} orphan registry rows, {@code leaked} tables to drop, 3 non-empty skipped.
 */
public final class BenchCatalog {

    /** Non-empty orphan tables in every benchmark catalog. */
    public static final int NON_EMPTY_ORPHANS = 3;

    private BenchCatalog() {
    }

    /**
     * What was built.
     *
     * @param leakedTables the names of the leaked (empty, droppable) inlined-data tables, in table_id order
     * @param registryRows rows of ducklake_inlined_data_tables after the build
     */
    public record Built(List<String> leakedTables, long registryRows) {
    }

    /**
     * Writes the catalog and runs VACUUM (ANALYZE) on its catalog tables: what autovacuum has done to a real
     * catalog whose leak grew over weeks. The planner needs the statistics for the anti-joins, and the vacuum
     * removes the dead row versions the build's DROPs left in {@code ducklake_table} (each DROP is an UPDATE of
     * end_snapshot) and marks its pages all-visible, so that the janitor's per-batch re-check, a sequential
     * scan of {@code ducklake_table}, reads what it would read in production (half the tuples, no visibility
     * checks). Left unvacuumed, that scan took 2.8× as long at 230,000 tables (54 ms against 19 ms, PostgreSQL 15).
     *
     * @param c an open connection in autocommit mode to the database to write into
     * @param schema the metadata schema to create
     * @param leaked number of leaked inlined tables (≥ 1)
     * @param perTransaction tables created per transaction (each holds about 3 lock-table entries until commit)
     * @return what was built
     * @throws SQLException on database errors
     */
    public static Built build(Connection c, String schema, int leaked, int perTransaction) throws SQLException {
        CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
        long orders = DemoScenario.liveTables(b);
        b.insertRows(orders, 1);
        long events = b.createTable("events", 4);
        b.addColumn(events);
        b.insertRows(events, 10);
        List<Long> ids = b.bulkCreateAndDrop("sync_events_", leaked, 3, perTransaction);
        long leakedVersion = -1;
        for (int i = 0; i < NON_EMPTY_ORPHANS; i++) {
            long t = b.createTable("unflushed_" + i, 1);
            b.insertRows(t, 2 + i);
            b.dropTable(t);
        }
        b.expireBefore(b.snapshot());
        List<String> names = new ArrayList<>(ids.size());
        try (PreparedStatement ps = c.prepareStatement("SELECT table_id, schema_version FROM "
                + Sql.qualified(schema, "ducklake_inlined_data_tables") + " WHERE table_id BETWEEN ? AND ? ORDER BY table_id")) {
            ps.setLong(1, ids.get(0));
            ps.setLong(2, ids.get(ids.size() - 1));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(InlinedTableName.dataTable(rs.getLong(1), rs.getLong(2)));
                    leakedVersion = rs.getLong(2);
                }
            }
        }
        if (names.size() != leaked || leakedVersion < 0) {
            throw new IllegalStateException("benchmark catalog has " + names.size() + " leaked registry rows, expected " + leaked);
        }
        try (Statement st = c.createStatement()) {
            for (String t : List.of("ducklake_inlined_data_tables", "ducklake_table", "ducklake_snapshot", "ducklake_column",
                    "ducklake_schema_versions")) {
                st.execute("VACUUM (ANALYZE) " + Sql.qualified(schema, t));
            }
        }
        return new Built(List.copyOf(names), b.registryRows());
    }
}
