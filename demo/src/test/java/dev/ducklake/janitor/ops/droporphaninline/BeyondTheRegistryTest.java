package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;

import static dev.ducklake.janitor.testsupport.Catalogs.exec;
import static dev.ducklake.janitor.testsupport.Catalogs.exists;
import static dev.ducklake.janitor.testsupport.Catalogs.inlinedDeleteTable;
import static dev.ducklake.janitor.testsupport.Catalogs.run;
import static dev.ducklake.janitor.testsupport.Catalogs.scalar;
import static dev.ducklake.janitor.testsupport.Catalogs.unregister;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leaks the registry does not show (unregistered leftovers, inlined deletion tables) and non-empty orphans, on
 * real PostgreSQL; each test in its own schema.
 */
class BeyondTheRegistryTest {

    private final TestPostgres pg = TestPostgres.get();

    @Test
    void unregisteredLeftoverOfDeadIdIsDroppedOnlyWithTheFlagAndLiveOnesNever() throws Exception {
        String s = pg.freshSchema("unreg");
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, s, FormatVersion.V1_0).create();
            long live = b.createTable("live", 1);
            long liveUnregistered = b.createTable("live_but_unregistered", 1);
            long dead = b.createTable("dead", 1);
            b.dropTable(dead);
            b.expireBefore(b.snapshot());
            unregister(c, s, dead);              // leftover of an unreachable id
            unregister(c, s, liveUnregistered);  // leftover of a reachable id: an anomaly
            // decoys: LIKE 'ducklake_inlined_data_%_%' would match these; a wrong column layout for a dead id
            exec(c, "CREATE TABLE " + Sql.qualified(s, "ducklake_inlined_dataX" + dead + "_1") + " (x int)");
            exec(c, "CREATE TABLE " + Sql.qualified(s, "ducklake_inlined_data_0" + dead + "_1") + " (row_id bigint, begin_snapshot bigint, end_snapshot bigint)");
            exec(c, "CREATE TABLE " + Sql.qualified(s, "ducklake_inlined_data_" + dead + "_77") + " (a int)");
            String leftover = "ducklake_inlined_data_" + dead + "_3";
            String liveLeftover = "ducklake_inlined_data_" + liveUnregistered + "_2";
            assertThat(exists(c, s, leftover)).as("fixture: leftover exists").isTrue();

            DropOrphanInlineTablesResult dry = run(s, o -> o.dryRun(true));
            assertThat(dry.orphanRows()).as("no registry orphan: the dead id's row is gone").isZero();
            assertThat(dry.unregisteredOrphans()).as("the dry run always reports the leftover").isEqualTo(1);
            assertThat(dry.unregisteredTables()).containsExactly(leftover);
            assertThat(dry.unregisteredAnomalies()).as("live leftover, leading zero, wrong columns").isEqualTo(3);
            assertThat(dry.anomalyTables()).extracting(DropOrphanInlineTablesResult.Anomaly::tableName)
                    .containsExactlyInAnyOrder(liveLeftover, "ducklake_inlined_data_0" + dead + "_1", "ducklake_inlined_data_" + dead + "_77");
            assertThat(dry.wouldDrop()).as("without --include-unregistered nothing would be dropped").isZero();
            assertThat(run(s, o -> o.dryRun(true).includeUnregistered(true)).wouldDrop()).isEqualTo(1);

            DropOrphanInlineTablesResult plain = run(s, o -> o);
            assertThat(plain.droppedUnregistered()).isZero();
            assertThat(plain.remainingUnregistered()).isEqualTo(1);
            assertThat(exists(c, s, leftover)).as("kept without the flag").isTrue();

            DropOrphanInlineTablesResult r = run(s, o -> o.includeUnregistered(true).includeNonempty(true));
            assertThat(r.droppedUnregistered()).isEqualTo(1);
            assertThat(r.remainingUnregistered()).isZero();
            assertThat(exists(c, s, leftover)).as("dropped with --include-unregistered").isFalse();
            assertThat(exists(c, s, liveLeftover)).as("a reachable id's table is never dropped").isTrue();
            assertThat(exists(c, s, "ducklake_inlined_data_" + live + "_1")).isTrue();
            assertThat(exists(c, s, "ducklake_inlined_data_tables")).as("the registry itself is never a candidate").isTrue();
            assertThat(exists(c, s, "ducklake_inlined_dataX" + dead + "_1")).isTrue();
            assertThat(exists(c, s, "ducklake_inlined_data_0" + dead + "_1")).isTrue();
            assertThat(exists(c, s, "ducklake_inlined_data_" + dead + "_77")).as("not DuckLake's columns: kept").isTrue();
            assertThat(scalar(c, "SELECT count(*) FROM " + Sql.qualified(s, "ducklake_inlined_data_tables")))
                    .as("registry rows of the live tables untouched").isEqualTo(1);
        }
    }

    @Test
    void inlinedDeleteTableOfDeadIdIsDroppedAndOfLiveIdKept() throws Exception {
        String s = pg.freshSchema("idel");
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, s, FormatVersion.V1_0).create();
            long live = b.createTable("live", 1);
            long dead = b.createTable("dead", 1);
            b.dropTable(dead);
            b.expireBefore(b.snapshot());
            inlinedDeleteTable(c, s, live, 2);
            inlinedDeleteTable(c, s, dead, 0);

            DropOrphanInlineTablesResult dry = run(s, o -> o.dryRun(true));
            assertThat(dry.inlinedDeleteOrphans()).isEqualTo(1);
            assertThat(dry.inlinedDeleteLive()).isEqualTo(1);
            assertThat(dry.unregisteredTables()).containsExactly("ducklake_inlined_delete_" + dead);
            assertThat(dry.orphanRows()).as("the dead id's registered data table").isEqualTo(1);

            assertThat(run(s, o -> o).droppedInlinedDelete()).as("not without the flag").isZero();
            assertThat(exists(c, s, "ducklake_inlined_delete_" + dead)).isTrue();

            DropOrphanInlineTablesResult r = run(s, o -> o.includeUnregistered(true));
            assertThat(r.droppedInlinedDelete()).isEqualTo(1);
            assertThat(r.inlinedDeleteLive()).isEqualTo(1);
            assertThat(exists(c, s, "ducklake_inlined_delete_" + dead)).isFalse();
            assertThat(exists(c, s, "ducklake_inlined_delete_" + live)).as("live table's deletions kept").isTrue();
            assertThat(scalar(c, "SELECT count(*) FROM " + Sql.qualified(s, "ducklake_inlined_delete_" + live))).isEqualTo(2);
        }
    }

    @Test
    void nonEmptyOrphanIsDroppedOnlyWithTheFlagAndListedWithItsRowCount() throws Exception {
        String s = pg.freshSchema("nonempty");
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, s, FormatVersion.V1_1_DEV1).create();
            long live = b.createTable("live", 1);
            b.insertRows(live, 3);
            long unflushed = b.createTable("unflushed", 2);
            b.insertRows(unflushed, 4);
            b.dropTable(unflushed);
            b.expireBefore(b.snapshot());
            inlinedDeleteTable(c, s, unflushed, 2);
            String data = "ducklake_inlined_data_" + unflushed + "_2";
            assertThat(exists(c, s, data)).isTrue();

            DropOrphanInlineTablesResult kept = run(s, o -> o.includeUnregistered(true));
            assertThat(kept.skippedNonempty()).as("default: skip and warn").isEqualTo(2);
            assertThat(kept.warnings()).anyMatch(w -> w.contains("skipping non-empty orphan " + data));
            assertThat(exists(c, s, data)).isTrue();

            DropOrphanInlineTablesResult dry = run(s, o -> o.dryRun(true).includeNonempty(true).includeUnregistered(true));
            assertThat(dry.nonEmptyTables()).as("listed with exact row counts")
                    .extracting(t -> t.tableName() + "=" + t.rows() + "/" + t.kind())
                    .containsExactlyInAnyOrder(data + "=4/registered", "ducklake_inlined_delete_" + unflushed + "=2/inlined_delete");
            assertThat(dry.wouldDrop()).isEqualTo(2);
            assertThat(exists(c, s, data)).as("dry run changes nothing").isTrue();

            DropOrphanInlineTablesResult r = run(s, o -> o.includeNonempty(true).includeUnregistered(true));
            assertThat(r.dropped()).isEqualTo(1);
            assertThat(r.droppedInlinedDelete()).isEqualTo(1);
            assertThat(r.droppedNonempty()).isEqualTo(2);
            assertThat(r.inlinedRowsDropped()).isEqualTo(6);
            assertThat(r.rowsDeleted()).as("its registry row goes with it").isEqualTo(1);
            assertThat(r.remaining()).isZero();
            assertThat(exists(c, s, data)).isFalse();
            assertThat(exists(c, s, "ducklake_inlined_data_" + live + "_1")).as("live table kept").isTrue();
            assertThat(scalar(c, "SELECT count(*) FROM " + Sql.qualified(s, "ducklake_inlined_data_" + live + "_1"))).isEqualTo(3);
        }
    }

    @Test
    void nonEmptyDeadLeftoverWithoutIncludeNonemptyIsKeptEvenWithIncludeUnregistered() throws Exception {
        String s = pg.freshSchema("unregfull");
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, s, FormatVersion.V1_0).create();
            b.createTable("live", 1);
            long dead = b.createTable("dead", 1);
            b.insertRows(dead, 5);
            b.dropTable(dead);
            b.expireBefore(b.snapshot());
            unregister(c, s, dead);
            String leftover = "ducklake_inlined_data_" + dead + "_2";
            DropOrphanInlineTablesResult r = run(s, o -> o.includeUnregistered(true));
            assertThat(r.unregisteredNonempty()).isEqualTo(1);
            assertThat(r.droppedUnregistered()).isZero();
            assertThat(exists(c, s, leftover)).isTrue();
            DropOrphanInlineTablesResult r2 = run(s, o -> o.includeUnregistered(true).includeNonempty(true));
            assertThat(r2.droppedUnregistered()).isEqualTo(1);
            assertThat(r2.inlinedRowsDropped()).isEqualTo(5);
            assertThat(exists(c, s, leftover)).isFalse();
        }
    }

    @Test
    void leftoverRegisteredAfterTheSurveyIsKeptByTheReCheckUnderTheLock() throws Exception {
        String s = pg.freshSchema("recheck");
        long dead;
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, s, FormatVersion.V1_0).create();
            b.createTable("live", 1);
            dead = b.createTable("dead", 1);
            b.dropTable(dead);
            b.expireBefore(b.snapshot());
            unregister(c, s, dead);
        }
        String leftover = "ducklake_inlined_data_" + dead + "_2";
        // between the survey and the batch, someone registers the table again
        ProgressListener registerAfterSurvey = new ProgressListener() {
            @Override
            public void info(String message) {
                if (message.startsWith("registry_rows=")) {
                    try (Connection other = pg.connect()) {
                        exec(other, "INSERT INTO " + Sql.qualified(s, "ducklake_inlined_data_tables") + " VALUES (" + dead + ", '"
                                + leftover + "', 2)");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        };
        DropOrphanInlineTablesResult r = new DropOrphanInlineTables(pg.spec(), DropOrphanInlineTablesOptions.builder()
                .metadataSchema(s).includeUnregistered(true).build(), registerAfterSurvey).execute();
        assertThat(r.unregisteredOrphans()).as("the survey saw it unregistered").isEqualTo(1);
        assertThat(r.droppedUnregistered()).as("the re-check under the lock saw the new row").isZero();
        assertThat(r.warnings()).anyMatch(w -> w.contains("kept " + leftover + ": on re-check under the lock"));
        try (Connection c = pg.connect()) {
            assertThat(exists(c, s, leftover)).isTrue();
        }
    }

    @Test
    void columnSpellingFollowsTheFormatVersion() throws Exception {
        String dev = pg.freshSchema("cols_dev");
        String v10 = pg.freshSchema("cols_v10");
        try (Connection c = pg.connect()) {
            for (String s : new String[] {dev, v10}) {
                CatalogBuilder b = new CatalogBuilder(c, s, s.equals(dev) ? FormatVersion.V1_1_DEV1 : FormatVersion.V1_0).create();
                b.createTable("live", 1);
                b.expireBefore(b.snapshot());
                // dead ids 50 and 51: a leftover with plain names (a pre-1.1 leftover), one with the 1.1 prefix
                exec(c, "CREATE TABLE " + Sql.qualified(s, "ducklake_inlined_data_50_1") + " (row_id bigint, begin_snapshot bigint, end_snapshot bigint, c1 int)");
                exec(c, "CREATE TABLE " + Sql.qualified(s, "ducklake_inlined_data_51_1") + " (_ducklake_row_id bigint, "
                        + "_ducklake_begin_snapshot bigint, _ducklake_end_snapshot bigint, c1 int)");
            }
        }
        DropOrphanInlineTablesResult rDev = run(dev, o -> o.includeUnregistered(true));
        assertThat(rDev.droppedUnregistered()).as("1.1-dev1 accepts both spellings (its migration renames only registered tables)")
                .isEqualTo(2);
        DropOrphanInlineTablesResult r10 = run(v10, o -> o.includeUnregistered(true));
        assertThat(r10.droppedUnregistered()).as("1.0 accepts only the plain spelling").isEqualTo(1);
        assertThat(r10.anomalyTables()).extracting(DropOrphanInlineTablesResult.Anomaly::tableName).containsExactly("ducklake_inlined_data_51_1");
        try (Connection c = pg.connect()) {
            assertThat(exists(c, v10, "ducklake_inlined_data_51_1")).isTrue();
        }
    }
}
