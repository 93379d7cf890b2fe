package dev.ducklake.janitor.catalog;

import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.check.CatalogCheck;
import dev.ducklake.janitor.ops.check.CheckOptions;
import dev.ducklake.janitor.ops.check.CheckResult;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 22 part 2: {@link OrphanPredicate} is DuckLake's exact visibility rule, tested against every retained snapshot
 * id, not against [min, max] of them. A hand-written expiry of snapshots in the middle of the history (the oldest and the
 * newest stay) makes a table that lived only in the gap unreachable; the boundary cases at both ends of a gap: a row
 * ending at a retained snapshot id is not visible there, a row beginning at one is. drop-orphan-inline-tables and check use
 * the predicate unchanged, so they drop and count exactly those tables.
 */
class ExactReachabilityTest {

    private final TestPostgres pg = TestPostgres.get();

    @ParameterizedTest
    @EnumSource(value = FormatVersion.class, names = {"V1_0", "V1_1_DEV1"})
    void aTableThatLivedOnlyInAGapIsUnreachableAndTheGapEndsAreExact(FormatVersion version) throws Exception {
        String schema = pg.freshSchema("exact_reach");
        long keep;
        long gap;
        long endsAtRetained;
        long beginsAtRetained;
        long spansGap;
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, schema, version).create();
            keep = b.createTable("keep", 1);                  // open: always reachable
            gap = b.createTable("gap", 1);                    // [g, g+3): every snapshot of its life expired
            b.insertRows(gap, 2);
            b.insertRows(gap, 1);
            long gapDropped = b.dropTable(gap);
            endsAtRetained = b.createTable("ends_at_retained", 1); // [e, e+2): e, e+1 expired, e+2 retained = its end
            b.insertRows(endsAtRetained, 1);
            long endsDropped = b.dropTable(endsAtRetained);
            beginsAtRetained = b.createTable("begins_at_retained", 1); // [r, r+2): r retained = its begin, r+1 expired
            b.insertRows(beginsAtRetained, 1);
            long beginsDropped = b.dropTable(beginsAtRetained);
            spansGap = b.createTable("spans_gap", 1);          // [p, p+3): only p+1 expired, p and p+2 retained
            b.insertRows(spansGap, 1);
            b.insertRows(spansGap, 1);
            b.dropTable(spansGap);
            b.insertRows(keep, 1);
            long oldest = 0;
            long newest = b.snapshot();
            // the hand-written expiry of middle snapshots: delete exactly these ids, keep the oldest and the newest
            Set<Long> expired = new TreeSet<>();
            for (long s = firstSnapshotOf(c, schema, gap); s < gapDropped; s++) {
                expired.add(s);
            }
            expired.add(gapDropped);
            for (long s = firstSnapshotOf(c, schema, endsAtRetained); s < endsDropped; s++) {
                expired.add(s);
            }
            expired.add(beginsDropped - 1);
            expired.add(firstSnapshotOf(c, schema, spansGap) + 1);
            assertThat(expired).doesNotContain(oldest, newest, endsDropped, beginsDropped - 2);
            Catalogs.exec(c, "DELETE FROM " + Sql.qualified(schema, "ducklake_snapshot") + " WHERE snapshot_id IN ("
                    + String.join(", ", expired.stream().map(String::valueOf).toList()) + ")");
            Catalogs.exec(c, "DELETE FROM " + Sql.qualified(schema, "ducklake_snapshot_changes") + " WHERE snapshot_id IN ("
                    + String.join(", ", expired.stream().map(String::valueOf).toList()) + ")");
            assertThat(Catalogs.scalar(c, "SELECT min(snapshot_id) FROM " + Sql.qualified(schema, "ducklake_snapshot")))
                    .as("the oldest snapshot is retained: a [min, max] test sees every table as reachable").isEqualTo(oldest);

            assertThat(unreachableIds(c, schema)).as("the gap table and the one ending at a retained snapshot id; not the one "
                    + "beginning at a retained id, not the one spanning the gap, not the live one").containsExactly(gap, endsAtRetained);
            assertThat(Catalogs.scalar(c, OrphanPredicate.countOrphanRegistryRows(schema))).isEqualTo(2);
        }

        CheckResult check = new CatalogCheck(pg.spec(), CheckOptions.defaults().withMetadataSchema(schema)
                .withBloatThresholds(Long.MAX_VALUE, 1)).execute();
        assertThat(check.counts().get("unreachable_inlined_tables")).as("check counts the same tables").isEqualTo(2);

        DropOrphanInlineTablesResult r = new DropOrphanInlineTables(pg.spec(), DropOrphanInlineTablesOptions.builder()
                .metadataSchema(schema).lockTimeout(Duration.ofSeconds(2)).includeNonempty(true).build(),
                ProgressListener.NONE).execute();
        assertThat(r.dropped()).as("drop-orphan-inline-tables drops exactly those").isEqualTo(2);
        try (Connection c = pg.connect()) {
            assertThat(registeredIds(c, schema)).containsExactlyInAnyOrder(keep, beginsAtRetained, spansGap);
        }
    }

    private static long firstSnapshotOf(Connection c, String schema, long tableId) throws Exception {
        return Catalogs.scalar(c, "SELECT min(begin_snapshot) FROM " + Sql.qualified(schema, "ducklake_table") + " WHERE table_id = "
                + tableId);
    }

    private static Set<Long> unreachableIds(Connection c, String schema) throws Exception {
        Set<Long> out = new TreeSet<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT DISTINCT r.table_id FROM "
                + Sql.qualified(schema, "ducklake_inlined_data_tables") + " r WHERE " + OrphanPredicate.unreachable(schema, "r.table_id"))) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }

    private static Set<Long> registeredIds(Connection c, String schema) throws Exception {
        Set<Long> out = new TreeSet<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT DISTINCT table_id FROM "
                + Sql.qualified(schema, "ducklake_inlined_data_tables"))) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }
}
