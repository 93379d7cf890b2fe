package dev.ducklake.janitor.demo;

import dev.ducklake.janitor.catalog.FormatVersion;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The leaked catalog of the demo: what a DROP + CREATE sync workload leaves in a DuckLake 1.0 catalog.
 *
 * <ul>
 *   <li>live {@code customers} (one schema version, 5 inlined rows) and {@code orders} (three schema versions:
 *       the superseded ones must be kept);</li>
 *   <li>{@code leaked} sync tables created and dropped, whose snapshots were expired: their empty inlined
 *       tables are the leak;</li>
 *   <li>one dropped table whose inlined rows were never flushed (a non-empty orphan: kept and reported);</li>
 *   <li>one table_id with no ducklake_table row left at all (an orphan);</li>
 *   <li>one table dropped after the oldest retained snapshot (still reachable by time travel: kept).</li>
 * </ul>
 * Expected orphan registry rows: {@code leaked + 2}; non-empty orphans: 1; kept: 5 registry rows.
 */
public final class DemoScenario {

    private DemoScenario() {
    }

    /**
     * Writes the scenario into a schema.
     *
     * @param c an open connection (autocommit)
     * @param schema the metadata schema to create
     * @param leaked number of leaked sync tables (≥ 0)
     * @return the builder, positioned after the last snapshot
     * @throws SQLException on database errors
     */
    public static CatalogBuilder build(Connection c, String schema, int leaked) throws SQLException {
        CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
        liveTables(b);
        if (leaked > 0) {
            b.bulkCreateAndDrop("sync_events_", leaked, 3, 500);
        }
        long stale = b.createTable("unflushed_dropped", 1);
        b.insertRows(stale, 4);
        b.dropTable(stale);
        long legacy = b.createTable("legacy_forgotten", 1);
        b.dropTable(legacy);
        b.forgetTable(legacy);
        b.expireBefore(b.snapshot());
        long recent = b.createTable("recently_dropped", 1);
        b.insertRows(recent, 2);
        b.dropTable(recent);
        return b;
    }

    /**
     * The live tables of the scenario: {@code customers} (one schema version, 5 inlined rows) and {@code orders}
     * (three schema versions, rows in the first two; the superseded inlined tables must be kept).
     *
     * @param b a builder on a freshly created catalog
     * @return the table_id of {@code orders}
     * @throws SQLException on database errors
     */
    public static long liveTables(CatalogBuilder b) throws SQLException {
        long customers = b.createTable("customers", 2);
        b.insertRows(customers, 5);
        long orders = b.createTable("orders", 2);
        b.insertRows(orders, 3);
        b.addColumn(orders);
        b.insertRows(orders, 2);
        b.addColumn(orders);
        return orders;
    }
}
