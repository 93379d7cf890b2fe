package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.ops.ProgressListener;
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
 * trip: a non-empty table probed by a later statement must still be found and kept.
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
        }
        DropOrphanInlineTablesOptions opts = DropOrphanInlineTablesOptions.defaults().withMetadataSchema(schema).withBatchSize(400);
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
