package dev.ducklake.janitor.ops.purgestats;

import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunFigures;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 13: purge-orphan-stats deletes exactly the orphaned rows, in batches that resume, on every layout. */
class PurgeOrphanStatsTest {

    private final TestPostgres pg = TestPostgres.get();

    /** A catalog with a live table (stats kept) and {@code ids} orphaned table_ids of 3 column-stats rows each. */
    private String catalog(FormatVersion version, int ids) throws Exception {
        String schema = pg.freshSchema("purge_stats");
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, schema, version).create();
            long live = b.createTable("live", 1);
            String s = Sql.ident(schema);
            Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_table_stats VALUES (" + live + ", 1, 1, 1)");
            Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_table_column_stats (table_id, column_id) VALUES (" + live + ", 1)");
            Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_table_stats SELECT 1000 + g, 1, 1, 1 FROM generate_series(1, " + ids + ") g");
            Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_table_column_stats (table_id, column_id) SELECT 1000 + g / 3 + 1, g % 3"
                    + " FROM generate_series(0, " + (ids * 3 - 1) + ") g");
            String fcs = version.compareTo(FormatVersion.V0_3_DEV1) < 0 ? "ducklake_file_column_statistics" : "ducklake_file_column_stats";
            Catalogs.exec(c, "INSERT INTO " + s + "." + fcs + " (data_file_id, table_id, column_id) SELECT 5000 + g, 1, 1"
                    + " FROM generate_series(1, 7) g");
        }
        return schema;
    }

    @ParameterizedTest
    @EnumSource(value = FormatVersion.class, names = {"V0_1", "V0_3", "V1_0", "V1_1_DEV1"})
    void deletesExactlyTheOrphansOnEveryLayout(FormatVersion version) throws Exception {
        String schema = catalog(version, 10);
        PurgeOrphanStatsOptions o = PurgeOrphanStatsOptions.builder().metadataSchema(schema).batchSize(3).build();
        PurgeOrphanStatsResult dry = new PurgeOrphanStats(pg.spec(), o.toBuilder().dryRun(true).build(), ProgressListener.NONE).execute();
        assertThat(dry.orphanRowsTotal()).isEqualTo(10 + 30 + 7);
        assertThat(dry.rowsDeletedTotal()).isZero();
        PurgeOrphanStatsResult r = new PurgeOrphanStats(pg.spec(), o, ProgressListener.NONE).execute();
        assertThat(r.rowsDeletedTotal()).isEqualTo(47);
        assertThat(r.tableIdsPurged()).isEqualTo(10);
        assertThat(r.dataFileIdsPurged()).isEqualTo(7);
        assertThat(r.remaining()).isZero();
        assertThat(r.run().batches()).as("4 batches of table_ids, 3 of data_file_ids").isEqualTo(7);
        try (Connection c = pg.connect()) {
            String s = Sql.ident(schema);
            assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + s + ".ducklake_table_stats")).as("the live table's stats").isEqualTo(1);
            assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + s + ".ducklake_table_column_stats")).isEqualTo(1);
        }
    }

    @Test
    void maxBatchesStopsAndTheNextRunContinues() throws Exception {
        String schema = catalog(FormatVersion.V1_0, 10);
        PurgeOrphanStatsOptions o = PurgeOrphanStatsOptions.builder().metadataSchema(schema).batchSize(4).build();
        PurgeOrphanStatsResult first = new PurgeOrphanStats(pg.spec(), o.toBuilder().maxBatches(1).build(), ProgressListener.NONE)
                .execute();
        assertThat(first.tableIdsPurged()).isEqualTo(4);
        assertThat(first.rowsDeletedTotal()).as("4 table stats + their 12 column stats, together").isEqualTo(16);
        assertThat(first.run().stopReason()).isEqualTo(RunFigures.StopReason.MAX_BATCHES);
        assertThat(first.remaining()).isEqualTo(47 - 16);
        PurgeOrphanStatsResult second = new PurgeOrphanStats(pg.spec(), o, ProgressListener.NONE).execute();
        assertThat(second.rowsDeletedTotal()).isEqualTo(31);
        assertThat(second.remaining()).isZero();
    }

    @Test
    void aTableIdThatGainsATableRowIsNeverPurged() throws Exception {
        String schema = catalog(FormatVersion.V1_0, 2);
        try (Connection c = pg.connect()) {
            // table_id 1001 gets a ducklake_table row (even a closed one): its stats are DuckLake's to remove at expiry
            Catalogs.exec(c, "INSERT INTO " + Sql.qualified(schema, "ducklake_table") + " (table_id, begin_snapshot, end_snapshot,"
                    + " schema_id, table_name) VALUES (1001, 0, 1, 0, 'x')");
        }
        PurgeOrphanStatsResult r = new PurgeOrphanStats(pg.spec(), PurgeOrphanStatsOptions.builder().metadataSchema(schema).build(),
                ProgressListener.NONE).execute();
        assertThat(r.tableIdsPurged()).isEqualTo(1);
        try (Connection c = pg.connect()) {
            assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + Sql.qualified(schema, "ducklake_table_column_stats")
                    + " WHERE table_id = 1001")).isEqualTo(3);
        }
    }
}
