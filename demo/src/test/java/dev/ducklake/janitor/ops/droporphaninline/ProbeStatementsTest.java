package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The emptiness probe of a batch is sent as several UNION ALL statements of at most 250 tables in one round
 * trip: a non-empty table probed by a later statement must still be found and kept. Every table has a heap block
 * here (rows inserted and deleted), so none is settled by the zero-block proof and all 302 are probed.
 */
class ProbeStatementsTest {

    @Test
    void nonEmptyTablesInEveryProbeStatementAreKept() throws Exception {
        TestPostgres pg = TestPostgres.get();
        String schema = pg.freshSchema("probestmt");
        long early;
        long late;
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
            early = b.createTable("early", 1);
            b.insertRows(early, 1);
            b.dropTable(early);
            b.bulkCreateAndDrop("leak_", 300, 2, 100);
            late = b.createTable("late", 1);
            b.insertRows(late, 3);
            b.dropTable(late);
            b.expireBefore(b.snapshot());
            // give every inlined table a block without a row (insert, then delete): zero-block heaps would be
            // proven empty without a probe (ZeroBlockHeaps), and this test is about the probe statements
            try (Statement st = c.createStatement()) {
                st.execute("DO $$ DECLARE r record; t tid; BEGIN FOR r IN SELECT c.relname FROM pg_catalog.pg_class c"
                        + " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '" + schema + "'"
                        + " AND c.relname ~ '^ducklake_inlined_data_' LOOP"
                        + " EXECUTE format('INSERT INTO %I.%I DEFAULT VALUES RETURNING ctid', '" + schema + "', r.relname) INTO t;"
                        + " EXECUTE format('DELETE FROM %I.%I WHERE ctid = $1', '" + schema + "', r.relname) USING t;"
                        + " END LOOP; END $$");
            }
        }
        DropOrphanInlineTablesOptions opts = DropOrphanInlineTablesOptions.builder().metadataSchema(schema).batchSize(400).build();
        DropOrphanInlineTablesResult run = new DropOrphanInlineTables(pg.spec(), opts, ProgressListener.NONE).execute();
        assertThat(run.batchSizeStart()).as("one batch of 302 candidates: three probe statements").isGreaterThanOrEqualTo(302);
        assertThat(run.batches()).isEqualTo(1);
        assertThat(run.skippedNonempty()).as("first and last table of the batch hold rows").isEqualTo(2);
        assertThat(run.nonEmptyTables()).extracting(DropOrphanInlineTablesResult.NonEmptyTable::tableId).containsExactlyInAnyOrder(early, late);
        assertThat(run.dropped()).isEqualTo(300);
        try (Connection c = pg.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM " + Sql.qualified(schema, "ducklake_inlined_data_tables"))) {
            rs.next();
            assertThat(rs.getLong(1)).as("registry rows of the two non-empty orphans stay").isEqualTo(2);
        }
    }
}
