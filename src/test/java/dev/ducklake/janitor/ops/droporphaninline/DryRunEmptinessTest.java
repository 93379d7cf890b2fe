package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.ops.ProgressListener;
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
        DropOrphanInlineTablesOptions opts = DropOrphanInlineTablesOptions.defaults().withMetadataSchema(schema).withBatchSize(16);
        DropOrphanInlineTablesResult dry = new DropOrphanInlineTables(pg.spec(), opts.withDryRun(true), ProgressListener.NONE).execute();
        assertThat(dry.orphanRows()).as("40 leaked + full + emptied").isEqualTo(42);
        assertThat(dry.orphanNonempty()).as("only 'full' holds rows; 'emptied' has blocks but no live row").isEqualTo(1);
        assertThat(dry.nonEmptyTables()).extracting(DropOrphanInlineTablesResult.NonEmptyTable::tableId).containsExactly(full);

        DropOrphanInlineTablesResult run = new DropOrphanInlineTables(pg.spec(), opts, ProgressListener.NONE).execute();
        assertThat(run.skippedNonempty()).as("execute skips what the dry run called non-empty").isEqualTo(dry.orphanNonempty());
        assertThat(run.dropped()).as("40 leaked + emptied").isEqualTo(41);
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
