package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dry run probes only tables with heap blocks and counts zero-block tables as empty: its count of
 * non-empty orphans must still match what an execute run skips, including a table whose rows were deleted
 * (blocks, no rows) and one whose rows are all dead but not vacuumed.
 */
class DryRunEmptinessTest {

    @Test
    void dryRunCountsExactlyTheOrphansThatHoldRows() throws Exception {
        TestPostgres pg = TestPostgres.get();
        String schema = pg.freshSchema("dryempty");
        long full;
        long emptied;
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
            long live = b.createTable("live", 1);
            b.insertRows(live, 3);
            b.bulkCreateAndDrop("leak_", 40, 2, 15);
            full = b.createTable("full", 1);
            b.insertRows(full, 2);
            b.dropTable(full);
            emptied = b.createTable("emptied", 1);
            b.insertRows(emptied, 5);
            b.dropTable(emptied);
            b.expireBefore(b.snapshot());
            try (Statement st = c.createStatement()) {
                st.execute("DELETE FROM " + Sql.qualified(schema, InlinedTableName.dataTable(emptied, emptiedVersion(c, schema, emptied))));
            }
        }
        DropOrphanInlineTablesOptions opts = DropOrphanInlineTablesOptions.builder().metadataSchema(schema).batchSize(16).build();
        DropOrphanInlineTablesResult dry = new DropOrphanInlineTables(pg.spec(), opts.toBuilder().dryRun(true).build(),
                ProgressListener.NONE).execute();
        assertThat(dry.orphanRows()).as("40 leaked + full + emptied").isEqualTo(42);
        assertThat(dry.orphanNonempty()).as("only 'full' holds rows; 'emptied' has blocks but no live row").isEqualTo(1);
        assertThat(dry.nonEmptyTables()).extracting(DropOrphanInlineTablesResult.NonEmptyTable::tableId).containsExactly(full);

        DropOrphanInlineTablesResult run = new DropOrphanInlineTables(pg.spec(), opts, ProgressListener.NONE).execute();
        assertThat(run.skippedNonempty()).as("execute skips what the dry run called non-empty").isEqualTo(dry.orphanNonempty());
        assertThat(run.dropped()).as("40 leaked + emptied").isEqualTo(41);
        assertThat(dry.wouldDrop()).as("the dry run announced what the execute run dropped").isEqualTo(run.dropped());
    }

    /**
     * The dry run's would_drop and non-empty figures on the cases where counting by registry row and counting by
     * table differ: two registry rows naming one table, a row whose table is gone, a row kept by the name guard
     * whose table holds rows, a non-empty orphan with and without --include-nonempty, and an unregistered
     * leftover with rows with and without --include-unregistered. Each dry run must announce exactly what the
     * execute run with the same options then does, on a twin of the catalog.
     */
    @Test
    void wouldDropMatchesTheExecuteRunTableForTable() throws Exception {
        TestPostgres pg = TestPostgres.get();
        for (boolean includeNonempty : new boolean[] {false, true}) {
            for (boolean includeUnregistered : new boolean[] {false, true}) {
                String schema = pg.freshSchema("dryfig");
                try (Connection c = pg.connect()) {
                    CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
                    long live = b.createTable("live", 1);
                    b.insertRows(live, 2);
                    java.util.List<Long> leaked = b.bulkCreateAndDrop("leak_", 12, 1, 5);
                    long full = b.createTable("full", 1);
                    b.insertRows(full, 3);
                    b.dropTable(full);
                    long gone = b.createTable("gone", 1);
                    b.dropTable(gone);
                    long leftover = b.createTable("leftover", 1);
                    b.insertRows(leftover, 1);
                    b.dropTable(leftover);
                    b.expireBefore(b.snapshot());
                    String registry = Sql.qualified(schema, "ducklake_inlined_data_tables");
                    try (Statement st = c.createStatement()) {
                        // a second registry row naming the first leaked table
                        st.execute("INSERT INTO " + registry + " SELECT * FROM " + registry + " WHERE table_id = " + leaked.get(0));
                        // the table of 'gone' is already dropped; its row stays
                        st.execute("DROP TABLE " + Sql.qualified(schema, InlinedTableName.dataTable(gone, emptiedVersion(c, schema, gone))));
                        // a row naming a table with rows under a name that is not DuckLake's for its ids: kept by the guard
                        st.execute("CREATE TABLE " + Sql.qualified(schema, "ducklake_inlined_data_999999_1")
                                + " (row_id bigint, begin_snapshot bigint, end_snapshot bigint)");
                        st.execute("INSERT INTO " + Sql.qualified(schema, "ducklake_inlined_data_999999_1") + " VALUES (1, 1, NULL)");
                        st.execute("INSERT INTO " + registry + " (table_id, table_name, schema_version) VALUES (999998, "
                                + "'ducklake_inlined_data_999999_1', 1)");
                        // 'leftover' loses its registry row but keeps its table and its row (an unregistered leftover)
                        st.execute("DELETE FROM " + registry + " WHERE table_id = " + leftover);
                    }
                }
                DropOrphanInlineTablesOptions opts = DropOrphanInlineTablesOptions.builder().metadataSchema(schema)
                        .batchSize(4).includeNonempty(includeNonempty).includeUnregistered(includeUnregistered).build();
                String label = "include-nonempty " + includeNonempty + ", include-unregistered " + includeUnregistered;
                DropOrphanInlineTablesResult dry = new DropOrphanInlineTables(pg.spec(), opts.toBuilder().dryRun(true).build(),
                        ProgressListener.NONE).execute();
                assertThat(dry.orphanNonempty()).as(label + ": 'full' is the one registered candidate holding rows").isEqualTo(1);
                assertThat(dry.unregisteredNonempty()).as(label + ": 'leftover'").isEqualTo(1);
                long expected = 12 + (includeNonempty ? 1 : 0) + (includeUnregistered && includeNonempty ? 1 : 0);
                assertThat(dry.wouldDrop()).as(label + ": 12 leaked tables (one named twice), 'full' with --include-nonempty,"
                        + " 'leftover' with both flags; never the guarded table nor the gone one").isEqualTo(expected);
                DropOrphanInlineTablesResult run = new DropOrphanInlineTables(pg.spec(), opts, ProgressListener.NONE).execute();
                assertThat(run.dropped() + run.droppedUnregistered() + run.droppedInlinedDelete())
                        .as(label + ": the execute run drops what the dry run announced").isEqualTo(dry.wouldDrop());
                try (Connection c = pg.connect(); Statement st = c.createStatement();
                     var rs = st.executeQuery("SELECT count(*) FROM " + Sql.qualified(schema, "ducklake_inlined_data_999999_1"))) {
                    rs.next();
                    assertThat(rs.getLong(1)).as(label + ": the guarded table keeps its row").isEqualTo(1);
                }
            }
        }
    }

    private static long emptiedVersion(Connection c, String schema, long tableId) throws Exception {
        try (Statement st = c.createStatement();
             var rs = st.executeQuery("SELECT max(schema_version) FROM " + Sql.qualified(schema, "ducklake_inlined_data_tables")
                     + " WHERE table_id = " + tableId)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
