package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 22 parts 3 and 4 on hand-expired catalogs: the dry run predicts every figure the execute run then reports (also
 * when no snapshot is selected but a hand-written expiry left removable tables: the table-only batch), names the tables and
 * the snapshot ranges that go, and the execute run deletes the dead inlined rows (rows whose [begin, end) holds no retained
 * snapshot) of live tables while keeping the visible ones.
 */
class ExpireDryRunTruthTest {

    private final TestPostgres pg = TestPostgres.get();

    /** Ids of the catalog built by {@link #handExpired}. */
    private record Built(String schema, long live, Set<Long> dropped, long liveVisibleRows) {
    }

    /**
     * Tables live and dead_1..3 with inlined rows; 2 of live's 5 rows deleted (end_snapshot set) inside the span that is then
     * expired by hand (every snapshot before {@code keepFrom} deleted, as a hand-written expiry does).
     */
    private Built handExpired(FormatVersion v) throws Exception {
        String s = pg.freshSchema("exp_truth");
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, s, v).create();
            long live = b.createTable("live", 1);
            b.insertRows(live, 5);
            long insertedAt = b.snapshot();
            Set<Long> dropped = new TreeSet<>();
            for (int i = 1; i <= 3; i++) {
                long d = b.createTable("dead_" + i, 1);
                b.insertRows(d, i);
                b.dropTable(d);
                dropped.add(d);
            }
            long deletedAt = b.snapshot();
            long version = Catalogs.scalar(c, "SELECT max(schema_version) FROM " + Sql.qualified(s, "ducklake_inlined_data_tables")
                    + " WHERE table_id = " + live);
            String inlined = Sql.qualified(s, "ducklake_inlined_data_" + live + "_" + version);
            // DuckLake's DELETE of inlined rows: only the end snapshot is set
            Catalogs.exec(c, "UPDATE " + inlined + " SET " + Sql.ident(v.inlinedSystemColumn("end_snapshot")) + " = " + deletedAt
                    + " WHERE " + Sql.ident(v.inlinedSystemColumn("row_id")) + " < 2");
            assertThat(deletedAt).isGreaterThan(insertedAt);
            b.insertRows(live, 1);
            b.insertRows(live, 1);
            b.expireBefore(deletedAt + 1);
            return new Built(s, live, dropped, 5);
        }
    }

    private ExpireSnapshotsResult run(String schema, boolean dryRun, UnaryOperator<ExpireSnapshotsOptions.Builder> o) throws Exception {
        return new ExpireSnapshots(pg.spec(), o.apply(ExpireSnapshotsOptions.builder().metadataSchema(schema)
                .minAge(java.time.Duration.ZERO).dryRun(dryRun)).build(), ProgressListener.NONE).execute();
    }

    @ParameterizedTest(name = "{0}, selection {1}")
    @CsvSource({"V1_0,nothing", "V1_0,all-but-newest", "V1_1_DEV1,nothing", "V1_1_DEV1,all-but-newest"})
    void theDryRunPredictsEveryFigureAndNamesWhatGoes(FormatVersion v, String selection) throws Exception {
        Built cat = handExpired(v);
        UnaryOperator<ExpireSnapshotsOptions.Builder> o = selection.equals("nothing")
                ? x -> x.retainLast(1000) : x -> x.retainLast(1);
        ExpireSnapshotsResult dry = run(cat.schema(), true, o);
        ExpireSnapshotsResult exec = run(cat.schema(), false, o);

        assertThat(exec.tablesRemoved()).as("the hand-expired dropped tables go").isEqualTo(3);
        assertThat(exec.inlinedTablesDropped()).isEqualTo(3);
        assertThat(exec.inlinedRowsDeleted()).as("live's two rows deleted inside the expired span").isEqualTo(2);
        assertThat(List.of(dry.snapshotsExpired(), dry.dataFilesScheduled(), dry.deleteFilesScheduled(), dry.tablesRemoved(),
                dry.inlinedTablesDropped(), dry.otherRowsDeleted(), dry.inlinedRowsDeleted(), (long) dry.batches(),
                (long) dry.batchList().size(), dry.oldestRetainedSnapshot()))
                .as("dry run = execute: snapshots, files, tables, inlined tables, other rows, inlined rows, batches, oldest")
                .containsExactly(exec.snapshotsExpired(), exec.dataFilesScheduled(), exec.deleteFilesScheduled(), exec.tablesRemoved(),
                        exec.inlinedTablesDropped(), exec.otherRowsDeleted(), exec.inlinedRowsDeleted(), (long) exec.batches(),
                        (long) exec.batchList().size(), exec.oldestRetainedSnapshot());
        if (selection.equals("nothing")) {
            assertThat(exec.snapshotsExpired()).isZero();
            assertThat(exec.batches()).as("one table-only batch").isEqualTo(1);
        } else {
            assertThat(exec.snapshotsExpired()).isPositive();
        }
        assertThat(dry.removedTables()).extracting(ExpireSnapshotsResult.RemovedTable::tableId)
                .containsExactlyElementsOf(cat.dropped());
        assertThat(dry.removedTables()).extracting(ExpireSnapshotsResult.RemovedTable::tableName)
                .containsExactly("dead_1", "dead_2", "dead_3");
        assertThat(dry.expiredRanges().stream().mapToLong(ExpireSnapshotsResult.SnapshotRange::snapshots).sum())
                .isEqualTo(exec.snapshotsExpired());
        if (selection.equals("all-but-newest")) {
            assertThat(dry.expiredRanges()).as("one range of consecutive catalog snapshots").hasSize(1);
            assertThat(dry.expiredRanges().get(0).last()).isLessThan(exec.newestSnapshot());
        }
        assertThat(exec.removedTables()).isNull();

        try (Connection c = pg.connect()) {
            long version = Catalogs.scalar(c, "SELECT max(schema_version) FROM " + Sql.qualified(cat.schema(),
                    "ducklake_inlined_data_tables") + " WHERE table_id = " + cat.live());
            String inlined = Sql.qualified(cat.schema(), "ducklake_inlined_data_" + cat.live() + "_" + version);
            assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + inlined)).as("3 visible of the first 5, plus 2 later")
                    .isEqualTo(5);
            assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + inlined + " WHERE "
                    + Sql.ident(v.inlinedSystemColumn("end_snapshot")) + " IS NOT NULL")).as("no dead row left").isZero();
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*) FROM "
                    + Sql.qualified(cat.schema(), "ducklake_table") + " WHERE table_name LIKE 'dead_%'")) {
                rs.next();
                assertThat(rs.getLong(1)).isZero();
            }
        }
        ExpireSnapshotsResult again = run(cat.schema(), false, o);
        assertThat(again.inlinedRowsDeleted() + again.tablesRemoved()).as("a rerun finds nothing more").isZero();
    }
}
