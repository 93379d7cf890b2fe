package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Execute runs with the heap-blocks emptiness proof ({@link ZeroBlockHeaps}): zero-block heaps are dropped
 * without the {@code SELECT … LIMIT 1} probe, everything else is probed, and no table holding a row is ever
 * dropped. Each orphan's inlined table is put into one of the states below before the run, in both the batched
 * path and the one-table-at-a-time path.
 */
class ZeroBlockProofTest {

    @Test
    void batchedPath() throws Exception {
        runScenario(500);
    }

    @Test
    void oneTableAtATimePath() throws Exception {
        // batches of one table go through the same lock, proof and probe as a chunk of one
        runScenario(1);
    }

    private static void runScenario(int batchSize) throws Exception {
        TestPostgres pg = TestPostgres.get();
        String schema = pg.freshSchema("zeroproof");
        long withRows;
        long deletedNotVacuumed;
        long truncated;
        long unloggedEmpty;
        long unloggedRows;
        long otherAmEmpty = -1;
        long otherAmRows = -1;
        boolean otherAm;
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
            long live = b.createTable("live", 1);
            b.insertRows(live, 3);
            b.bulkCreateAndDrop("leak_", 12, 2, 6);
            otherAm = ZeroBlockHeapsTest.createOtherAccessMethod(st);
            withRows = orphan(b, "with_rows", 2);
            deletedNotVacuumed = orphan(b, "deleted", 50);
            truncated = orphan(b, "truncated", 4);
            unloggedEmpty = orphan(b, "unlogged_empty", 0);
            unloggedRows = orphan(b, "unlogged_rows", 1);
            if (otherAm) {
                otherAmEmpty = orphan(b, "other_am_empty", 0);
                otherAmRows = orphan(b, "other_am_rows", 2);
            }
            b.expireBefore(b.snapshot());
            st.execute("DELETE FROM " + inlined(c, schema, deletedNotVacuumed));
            st.execute("TRUNCATE " + inlined(c, schema, truncated));
            st.execute("ALTER TABLE " + inlined(c, schema, unloggedEmpty) + " SET UNLOGGED");
            st.execute("ALTER TABLE " + inlined(c, schema, unloggedRows) + " SET UNLOGGED");
            if (otherAm) {
                toAccessMethod(st, c, schema, otherAmEmpty);
                toAccessMethod(st, c, schema, otherAmRows);
            }
            assertThat(blocks(c, schema, deletedNotVacuumed)).as("deleted rows leave blocks behind").isPositive();
            assertThat(blocks(c, schema, truncated)).as("TRUNCATE leaves zero blocks").isZero();
            assertThat(blocks(c, schema, unloggedEmpty)).isZero();
        }
        DropOrphanInlineTablesOptions opts = DropOrphanInlineTablesOptions.builder().metadataSchema(schema)
                .batchSize(batchSize).build();
        DropOrphanInlineTablesResult run = new DropOrphanInlineTables(pg.spec(), opts, ProgressListener.NONE).execute();

        List<Long> kept = new ArrayList<>(List.of(withRows, unloggedRows));
        if (otherAm) {
            kept.add(otherAmRows);
        }
        assertThat(run.nonEmptyTables()).extracting(DropOrphanInlineTablesResult.NonEmptyTable::tableId)
                .as("every table holding a row is kept, whatever its persistence or access method")
                .containsExactlyInAnyOrderElementsOf(kept);
        assertThat(run.skippedNonempty()).isEqualTo(kept.size());
        int expectedDropped = 12 + 3 + (otherAm ? 1 : 0); // leaked + deleted, truncated, unlogged empty (+ other AM, empty)
        assertThat(run.dropped()).as("zero-block heaps dropped; deleted-but-not-vacuumed and non-heap empties probed and dropped")
                .isEqualTo(expectedDropped);
        try (Connection c = pg.connect()) {
            for (long id : kept) {
                assertThat(rowCount(c, schema, id)).as("rows of table_id " + id + " untouched").isPositive();
            }
            for (long id : List.of(deletedNotVacuumed, truncated, unloggedEmpty)) {
                assertThat(exists(c, schema, id)).as("table_id " + id + " dropped").isFalse();
            }
            if (otherAm) {
                assertThat(exists(c, schema, otherAmEmpty)).as("an empty table of another access method, probed, is dropped").isFalse();
            }
        }
    }

    private static long orphan(CatalogBuilder b, String name, int rows) throws SQLException {
        long t = b.createTable(name, 1);
        if (rows > 0) {
            b.insertRows(t, rows);
        }
        b.dropTable(t);
        return t;
    }

    private static String inlined(Connection c, String schema, long tableId) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT max(schema_version) FROM \"" + schema
                + "\".ducklake_inlined_data_tables WHERE table_id = " + tableId)) {
            rs.next();
            return "\"" + schema + "\".\"" + InlinedTableName.dataTable(tableId, rs.getLong(1)) + "\"";
        }
    }

    /** Rebuilds the table under {@link ZeroBlockHeapsTest#OTHER_AM}, same name, columns and rows. */
    private static void toAccessMethod(Statement st, Connection c, String schema, long tableId) throws SQLException {
        String t = inlined(c, schema, tableId);
        String old = "\"" + schema + "\".janitor_old_" + tableId;
        st.execute("ALTER TABLE " + t + " RENAME TO janitor_old_" + tableId);
        st.execute("CREATE TABLE " + t + " (LIKE " + old + " INCLUDING ALL) USING " + ZeroBlockHeapsTest.OTHER_AM);
        st.execute("INSERT INTO " + t + " SELECT * FROM " + old);
        st.execute("DROP TABLE " + old);
    }

    private static long blocks(Connection c, String schema, long tableId) throws SQLException {
        return scalar(c, "SELECT pg_relation_size('" + inlined(c, schema, tableId).replace("'", "''") + "'::regclass)");
    }

    private static long rowCount(Connection c, String schema, long tableId) throws SQLException {
        return scalar(c, "SELECT count(*) FROM " + inlined(c, schema, tableId));
    }

    private static boolean exists(Connection c, String schema, long tableId) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_class c JOIN pg_namespace n"
                + " ON n.oid = c.relnamespace WHERE n.nspname = '" + schema + "' AND c.relname ~ '^ducklake_inlined_data_" + tableId + "_'")) {
            rs.next();
            return rs.getLong(1) > 0;
        }
    }

    private static long scalar(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
