package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Selection rules and guards of expire-snapshots on catalogs written by {@link CatalogBuilder}: each criterion, their
 * combination, the newest-snapshot and min-age guards, the catalog option, an empty selection, unknown versions, and
 * the removal of a dropped table in every known format version. (Equality with DuckLake itself is proven by the
 * interop differential tests.)
 */
class ExpireSnapshotsTest {

    private final TestPostgres pg = TestPostgres.get();

    /**
     * A catalog with snapshots 0..n where snapshot i is (n - i) hours old, except the two newest: 10 and 30 minutes
     * old. One table dropped at the newest-but-two snapshot.
     */
    private String catalog(FormatVersion v) throws SQLException {
        String s = pg.freshSchema("exp_" + v.text().replaceAll("[^0-9a-z]", ""));
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, s, v).create();
            long live = b.createTable("live", 1);
            b.insertRows(live, 2);
            long dead = b.createTable("dead", 2);
            b.insertRows(dead, 3);
            b.addColumn(dead);
            b.dropTable(dead);
            b.insertRows(live, 1);
            b.insertRows(live, 1);
            long n = b.snapshot();
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + Sql.qualified(s, "ducklake_snapshot")
                    + " SET snapshot_time = now() - make_interval(hours => (? - snapshot_id)::int)"
                    + " - CASE WHEN snapshot_id = ? THEN interval '10 minutes' WHEN snapshot_id = ? - 1 THEN interval '30 minutes'"
                    + " ELSE interval '0' END + CASE WHEN snapshot_id >= ? - 1 THEN make_interval(hours => (? - snapshot_id)::int) ELSE interval '0' END")) {
                ps.setLong(1, n);
                ps.setLong(2, n);
                ps.setLong(3, n);
                ps.setLong(4, n);
                ps.setLong(5, n);
                ps.executeUpdate();
            }
        }
        return s;
    }

    private ExpireSnapshotsResult run(String schema, UnaryOperator<ExpireSnapshotsOptions.Builder> o) throws JanitorException {
        return new ExpireSnapshots(pg.spec(), o.apply(ExpireSnapshotsOptions.builder().metadataSchema(schema)).build(),
                dev.ducklake.janitor.ops.runtime.ProgressListener.NONE).execute();
    }

    private List<Long> snapshots(String schema) throws SQLException {
        List<Long> out = new ArrayList<>();
        try (Connection c = pg.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT snapshot_id FROM " + Sql.qualified(schema, "ducklake_snapshot") + " ORDER BY 1")) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }

    private long count(String schema, String sql) throws SQLException {
        try (Connection c = pg.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(sql.replace("$s", Sql.ident(schema)))) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static final Instant FUTURE = Instant.parse("2999-01-01T00:00:00Z");

    @Test
    void olderThanExpiresStrictlyOlderSnapshotsButNeverTheNewest() throws Exception {
        String s = catalog(FormatVersion.V1_0);
        List<Long> before = snapshots(s);
        long newest = before.get(before.size() - 1);
        ExpireSnapshotsResult r = run(s, o -> o.olderThan(new OlderThan(FUTURE, null)).minAge(Duration.ZERO));
        assertThat(snapshots(s)).containsExactly(newest);
        assertThat(r.snapshotsExpired()).isEqualTo(before.size() - 1);
        assertThat(r.oldestRetainedSnapshot()).isEqualTo(newest);
        assertThat(r.tablesRemoved()).as("the dropped table").isEqualTo(1);
        assertThat(r.inlinedTablesDropped()).as("its two inlined tables").isEqualTo(2);
        assertThat(count(s, "SELECT count(*) FROM $s.ducklake_table")).isEqualTo(1);
        assertThat(count(s, "SELECT count(*) FROM $s.ducklake_snapshot_changes")).isEqualTo(1);
    }

    @Test
    void durationIsCountedBackFromTheServersNow() throws Exception {
        String s = catalog(FormatVersion.V1_0);
        List<Long> before = snapshots(s);
        int n = before.size() - 1;
        // snapshots 0..n-2 are (n - i) hours old: older than 150 minutes are those with n - i >= 3
        ExpireSnapshotsResult r = run(s, o -> o.olderThan(new OlderThan(null, Duration.ofMinutes(150))));
        assertThat(r.snapshotsExpired()).isEqualTo(n - 2);
        assertThat(snapshots(s).get(0)).isEqualTo((long) n - 2);
        assertThat(r.criterion()).isEqualTo("older_than");
    }

    @Test
    void minAgeProtectsYoungSnapshotsWhateverTheCriteria() throws Exception {
        String s = catalog(FormatVersion.V1_0);
        List<Long> before = snapshots(s);
        long newest = before.get(before.size() - 1);
        ExpireSnapshotsResult r = run(s, o -> o.olderThan(new OlderThan(FUTURE, null)));
        assertThat(snapshots(s)).as("the 30-minute-old snapshot is kept by the default 1h min-age").containsExactly(newest - 1, newest);
        assertThat(r.minAgeCutoff()).isNotNull();
        String s2 = catalog(FormatVersion.V1_0);
        run(s2, o -> o.versions(List.of(newest - 1, newest, 1L)));
        assertThat(snapshots(s2)).as("listed young and newest snapshots stay; 1 goes").contains(newest - 1, newest).doesNotContain(1L);
    }

    @Test
    void retainLastKeepsTheNewestNAndCombinesWithOlderThan() throws Exception {
        String s = catalog(FormatVersion.V1_0);
        List<Long> before = snapshots(s);
        long newest = before.get(before.size() - 1);
        run(s, o -> o.retainLast(4).minAge(Duration.ZERO));
        assertThat(snapshots(s)).containsExactly(newest - 3, newest - 2, newest - 1, newest);
        String s2 = catalog(FormatVersion.V1_0);
        // older-than allows 0..n-3 (>= 3 hours old); retain-last 6 allows 0..n-6: both must allow
        ExpireSnapshotsResult r = run(s2, o -> o.retainLast(6).olderThan(new OlderThan(null, Duration.ofMinutes(150))));
        assertThat(snapshots(s2).get(0)).isEqualTo(newest - 5);
        assertThat(r.criterion()).isEqualTo("older_than+retain_last");
        String s3 = catalog(FormatVersion.V1_0);
        run(s3, o -> o.retainLast(2).olderThan(new OlderThan(null, Duration.ofMinutes(150))));
        assertThat(snapshots(s3).get(0)).as("here older-than is the tighter one").isEqualTo(newest - 2);
    }

    @Test
    void versionsExpireExactlyTheListedIds() throws Exception {
        String s = catalog(FormatVersion.V1_0);
        List<Long> before = snapshots(s);
        ExpireSnapshotsResult r = run(s, o -> o.versions(List.of(2L, 4L, 999L)));
        List<Long> expected = new ArrayList<>(before);
        expected.removeAll(List.of(2L, 4L));
        assertThat(snapshots(s)).isEqualTo(expected);
        assertThat(r.snapshotsExpired()).isEqualTo(2);
        assertThat(r.criterion()).isEqualTo("versions");
        // the trial of 2026-12-06: an id with no snapshot (and the newest, never expired) passed without a word
        assertThat(r.run().warnings()).anySatisfy(w -> assertThat(w).contains("names no snapshot").contains("[999]"));
        long newest = before.get(before.size() - 1);
        String s2 = catalog(FormatVersion.V1_0);
        ExpireSnapshotsResult r2 = run(s2, o -> o.versions(List.of(2L, newest)));
        assertThat(r2.run().warnings()).anySatisfy(w -> assertThat(w).contains("newest snapshot [" + newest + "]"))
                .noneSatisfy(w -> assertThat(w).contains("names no snapshot"));
    }

    @Test
    void versionsExcludeTheOtherCriteria() {
        assertThatThrownBy(() -> run("public", o -> o.versions(List.of(1L)).retainLast(2)))
                .isInstanceOf(JanitorException.class).hasMessageContaining("--versions")
                .satisfies(e -> assertThat(((JanitorException) e).reason()).isEqualTo(Reason.USAGE));
        assertThatThrownBy(() -> run("public", o -> o.versions(List.of(1L)).olderThan(new OlderThan(FUTURE, null))))
                .isInstanceOf(JanitorException.class);
        assertThatThrownBy(() -> run("public", o -> o.retainLast(0))).hasMessageContaining("--retain-last");
    }

    @Test
    void withoutCriterionTheCatalogOptionIsUsedElseAUsageError() throws Exception {
        String s = catalog(FormatVersion.V1_0);
        List<Long> before = snapshots(s);
        assertThatThrownBy(() -> run(s, o -> o)).isInstanceOf(JanitorException.class)
                .hasMessageContaining("--older-than").hasMessageContaining("--retain-last").hasMessageContaining("--versions")
                .hasMessageContaining("expire_older_than")
                .satisfies(e -> assertThat(((JanitorException) e).reason()).isEqualTo(Reason.USAGE));
        assertThat(snapshots(s)).isEqualTo(before);
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("INSERT INTO " + Sql.qualified(s, "ducklake_metadata") + " (key, value, scope, scope_id) VALUES"
                    + " ('expire_older_than', '150 minutes', NULL, NULL), ('expire_older_than', '1 minute', 'table', 1)");
        }
        ExpireSnapshotsResult r = run(s, o -> o);
        assertThat(r.criterion()).isEqualTo("catalog_option");
        assertThat(r.snapshotsExpired()).as("the global option, not the table-scoped one").isEqualTo(before.size() - 3);
    }

    @Test
    void anEmptySelectionChangesNothing() throws Exception {
        String s = catalog(FormatVersion.V1_0);
        List<Long> before = snapshots(s);
        long tables = count(s, "SELECT count(*) FROM $s.ducklake_table");
        ExpireSnapshotsResult r = run(s, o -> o.olderThan(new OlderThan(Instant.parse("2000-01-01T00:00:00Z"), null)));
        assertThat(r.snapshotsExpired()).isZero();
        assertThat(r.batches()).isZero();
        assertThat(snapshots(s)).isEqualTo(before);
        assertThat(count(s, "SELECT count(*) FROM $s.ducklake_table")).isEqualTo(tables);
        ExpireSnapshotsResult dry = run(s, o -> o.olderThan(new OlderThan(Instant.parse("2000-01-01T00:00:00Z"), null)).dryRun(true));
        assertThat(dry.snapshotsExpired()).isZero();
    }

    @Test
    void anUnknownFormatVersionIsRefused() throws Exception {
        String s = catalog(FormatVersion.V1_0);
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("UPDATE " + Sql.qualified(s, "ducklake_metadata") + " SET value = '9.9' WHERE key = 'version'");
        }
        List<Long> before = snapshots(s);
        assertThatThrownBy(() -> run(s, o -> o.olderThan(new OlderThan(FUTURE, null))))
                .isInstanceOf(JanitorException.class).hasMessageContaining("9.9")
                .satisfies(e -> assertThat(((JanitorException) e).reason()).isEqualTo(Reason.UNSUPPORTED_VERSION));
        assertThat(snapshots(s)).isEqualTo(before);
    }

    @ParameterizedTest
    @EnumSource(FormatVersion.class)
    void everyKnownFormatVersionExpiresAndRemovesTheDroppedTable(FormatVersion v) throws Exception {
        String s = catalog(v);
        ExpireSnapshotsResult dry = run(s, o -> o.olderThan(new OlderThan(FUTURE, null)).minAge(Duration.ZERO).dryRun(true));
        ExpireSnapshotsResult r = run(s, o -> o.olderThan(new OlderThan(FUTURE, null)).minAge(Duration.ZERO).batchSize(2));
        assertThat(r.formatVersion()).isEqualTo(v.text());
        assertThat(r.tablesRemoved()).isEqualTo(1);
        assertThat(r.inlinedTablesDropped()).isEqualTo(2);
        assertThat(dry.tablesRemoved()).isEqualTo(1);
        assertThat(dry.inlinedTablesDropped()).isEqualTo(2);
        assertThat(dry.snapshotsExpired()).isEqualTo(r.snapshotsExpired());
        assertThat(count(s, "SELECT count(*) FROM $s.ducklake_inlined_data_tables")).as("the live table's inlined table stays").isEqualTo(1);
        assertThat(count(s, "SELECT count(*) FROM $s.ducklake_column WHERE table_id = 2")).isZero();
        assertThat(snapshots(s)).hasSize(1);
    }

    @Test
    void olderThanParsing() throws Exception {
        assertThat(OlderThan.parse("2026-11-30T12:00:00Z", "--older-than").at()).isEqualTo(Instant.parse("2026-11-30T12:00:00Z"));
        assertThat(OlderThan.parse("2026-11-30T12:00:00.123456+01:00", "--older-than").at())
                .isEqualTo(Instant.parse("2026-11-30T11:00:00.123456Z"));
        assertThat(OlderThan.parse("2026-11-30 12:00:00.5+00", "--older-than").at()).isEqualTo(Instant.parse("2026-11-30T12:00:00.5Z"));
        assertThat(OlderThan.parse("45s", "x").ago()).isEqualTo(Duration.ofSeconds(45));
        assertThat(OlderThan.parse("90m", "x").ago()).isEqualTo(Duration.ofMinutes(90));
        assertThat(OlderThan.parse("36h", "x").ago()).isEqualTo(Duration.ofHours(36));
        assertThat(OlderThan.parse("7d", "x").ago()).isEqualTo(Duration.ofDays(7));
        for (String bad : List.of("", "7", "7x", "-5m", "2026-11-30T12:00:00", "yesterday")) {
            assertThatThrownBy(() -> OlderThan.parse(bad, "--older-than")).as(bad).isInstanceOf(JanitorException.class)
                    .hasMessageContaining("--older-than");
        }
    }

    @Test
    void tablesBeyondTheLockBudgetWaitForTheNextBatchAndTheEndStateIsTheSame() throws Exception {
        String small = pg.freshSchema("exp_budget_small");
        String big = pg.freshSchema("exp_budget_big");
        for (String s : List.of(small, big)) {
            try (Connection c = pg.connect()) {
                CatalogBuilder b = new CatalogBuilder(c, s, FormatVersion.V1_0).create();
                b.createTable("keep", 1);
                for (int i = 0; i < 9; i++) {
                    long t = b.createTable("t" + i, 1);
                    b.addColumn(t);
                    b.dropTable(t);
                }
                b.createTable("last", 1);
            }
        }
        ExpireSnapshots op = new ExpireSnapshots(pg.spec(), ExpireSnapshotsOptions.builder().metadataSchema(small)
                .olderThan(new OlderThan(FUTURE, null)).minAge(Duration.ZERO).build(), dev.ducklake.janitor.ops.runtime.ProgressListener.NONE);
        op.tableBudgetCap = 5;
        ExpireSnapshotsResult r = op.execute();
        ExpireSnapshotsResult all = run(big, o -> o.olderThan(new OlderThan(FUTURE, null)).minAge(Duration.ZERO));
        assertThat(all.batches()).isEqualTo(1);
        assertThat(r.tableBudget()).isEqualTo(5);
        assertThat(r.batches()).as("9 tables of 2 inlined tables each, at most 5 relations per batch: 2 tables per batch").isEqualTo(5);
        assertThat(r.batchList()).allSatisfy(b -> assertThat(b.inlinedTables()).isLessThanOrEqualTo(5));
        assertThat(r.tablesRemoved()).isEqualTo(9).isEqualTo(all.tablesRemoved());
        assertThat(r.inlinedTablesDropped()).isEqualTo(18).isEqualTo(all.inlinedTablesDropped());
        for (String t : List.of("ducklake_table", "ducklake_column", "ducklake_inlined_data_tables", "ducklake_schema_versions",
                "ducklake_snapshot")) {
            assertThat(count(small, "SELECT count(*) FROM $s." + t)).as(t).isEqualTo(count(big, "SELECT count(*) FROM $s." + t));
        }
        assertThat(count(small, "SELECT count(*) FROM pg_tables WHERE schemaname = '" + small + "'"))
                .isEqualTo(count(big, "SELECT count(*) FROM pg_tables WHERE schemaname = '" + big + "'"));
    }

    /**
     * Issue 27: after the run's first batch, each batch re-checks only the rows whose interval can hold one of its
     * snapshots (ExpireBatch.narrowToBatch). Files closed in the middle of later batches (interval [i, i + 2), and a
     * long-lived one [1, n - 2)) and a table created, renamed and dropped mid-run must go exactly as in one batch holding every
     * snapshot, and the narrowed batches must be the ones that remove them.
     */
    @Test
    void narrowedBatchesRemoveExactlyWhatOneFullPassRemoves() throws Exception {
        String narrow = pg.freshSchema("exp_narrow");
        String full = pg.freshSchema("exp_full");
        for (String s : List.of(narrow, full)) {
            try (Connection c = pg.connect()) {
                CatalogBuilder b = new CatalogBuilder(c, s, FormatVersion.V1_0).create();
                long t = b.createTable("t", 1);
                long gone = -1;
                for (int i = 0; i < 20; i++) {
                    b.insertRows(t, 1);
                    if (i == 2) {
                        gone = b.createTable("gone", 1);
                    } else if (i == 4) {
                        // a rename as DuckLake writes it: the table's row closes, a row with the new name opens
                        b.addColumn(gone);
                        try (PreparedStatement ps = c.prepareStatement("WITH closed AS (UPDATE " + Sql.qualified(s, "ducklake_table")
                                + " SET end_snapshot = ? WHERE table_id = ? AND end_snapshot IS NULL RETURNING *) INSERT INTO "
                                + Sql.qualified(s, "ducklake_table") + " SELECT table_id, table_uuid, end_snapshot, NULL, schema_id,"
                                + " 'gone2', path, path_is_relative FROM closed")) {
                            ps.setLong(1, b.snapshot());
                            ps.setLong(2, gone);
                            ps.executeUpdate();
                        }
                    } else if (i == 12) {
                        b.dropTable(gone);
                    }
                }
                long n = b.snapshot();
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified(s, "ducklake_data_file")
                        + " (data_file_id, table_id, begin_snapshot, end_snapshot, path, path_is_relative, file_format)"
                        + " SELECT 900000 + g, ?, g, CASE WHEN g = 1 THEN ? - 2 ELSE g + 2 END, 'narrow-' || g || '.parquet', true,"
                        + " 'parquet' FROM generate_series(1, ? - 3) g")) {
                    ps.setLong(1, t);
                    ps.setLong(2, n);
                    ps.setLong(3, n);
                    ps.executeUpdate();
                }
            }
        }
        ExpireSnapshotsResult r = run(narrow, o -> o.olderThan(new OlderThan(FUTURE, null)).minAge(Duration.ZERO).batchSize(3));
        ExpireSnapshotsResult all = run(full, o -> o.olderThan(new OlderThan(FUTURE, null)).minAge(Duration.ZERO)
                .batchSize(1_000_000));
        assertThat(all.batches()).isEqualTo(1);
        assertThat(r.batches()).isGreaterThan(5);
        assertThat(r.batchList().stream().skip(1).mapToLong(ExpireSnapshotsResult.Batch::dataFiles).sum())
                .as("files removed by the narrowed batches").isGreaterThan(10);
        assertThat(r.batchList().stream().skip(1).mapToLong(ExpireSnapshotsResult.Batch::tables).sum())
                .as("the table dropped mid-run, removed by a narrowed batch").isEqualTo(1);
        assertThat(r.batchList()).as("every batch expired snapshots: the closing full pass found nothing the narrowed"
                + " batches missed, so it is not listed").allSatisfy(b -> assertThat(b.snapshots()).isPositive());
        assertThat(r.tablesRemoved()).isEqualTo(all.tablesRemoved()).isEqualTo(1);
        String tables = "SELECT string_agg(table_id || ':' || begin_snapshot, ',' ORDER BY table_id, begin_snapshot) FROM $s.ducklake_table";
        assertThat(text(narrow, tables)).isEqualTo(text(full, tables));
        String columns = "SELECT string_agg(column_id || ':' || table_id, ',' ORDER BY column_id, table_id) FROM $s.ducklake_column";
        assertThat(text(narrow, columns)).isEqualTo(text(full, columns));
        String files = "SELECT coalesce(string_agg(data_file_id::text, ',' ORDER BY data_file_id), '') FROM $s.ducklake_data_file";
        String queued = "SELECT coalesce(string_agg(path, ',' ORDER BY path), '') FROM $s.ducklake_files_scheduled_for_deletion";
        assertThat(text(narrow, files)).isEqualTo(text(full, files));
        assertThat(text(narrow, queued)).isEqualTo(text(full, queued)).contains("narrow-1.parquet");
        assertThat(r.dataFilesScheduled()).isEqualTo(all.dataFilesScheduled()).isPositive();
    }

    /**
     * Issue 27, N = 1,000,000: a batch that removed a table looked up that table's files in the whole candidate list;
     * PostgreSQL flattened the LATERAL lookup into a hash join and, guessing from the list's statistics that a table_id
     * owns every candidate (one live table rewrites its file at each snapshot), read every data-file entry of the list
     * in each batch. Here: 20,000 candidate files of a live table, a dropped table removable in the first batch of 100
     * snapshots. The batch's two statements, run under EXPLAIN ANALYZE, read from the run's lists about what the batch
     * releases, not the whole list.
     */
    @Test
    void aBatchThatRemovesATableReadsItsOwnEntriesOfTheCandidateListNotAllOfThem() throws Exception {
        String s = pg.freshSchema("exp_tabfile");
        int files = 20_000;
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, s, FormatVersion.V1_0).create();
            long live = b.createTable("live", 1);
            long gone = b.createTable("gone", 1);
            b.dropTable(gone);
            long n = b.snapshot();
            try (Statement st = c.createStatement()) {
                // snapshots n+1 .. n+files: at each one the live table's file is replaced
                st.execute("INSERT INTO " + Sql.qualified(s, "ducklake_snapshot") + " SELECT g, x.snapshot_time, x.schema_version,"
                        + " x.next_catalog_id, x.next_file_id FROM " + Sql.qualified(s, "ducklake_snapshot") + " x"
                        + " CROSS JOIN generate_series(" + (n + 1) + ", " + (n + files) + ") g WHERE x.snapshot_id = " + n);
                st.execute("INSERT INTO " + Sql.qualified(s, "ducklake_data_file") + " (data_file_id, table_id, begin_snapshot,"
                        + " end_snapshot, path, path_is_relative, file_format) SELECT 700000 + g, " + live + ", g, g + 1,"
                        + " 'f-' || g || '.parquet', true, 'parquet' FROM generate_series(" + n + ", " + (n + files - 1) + ") g");
                st.execute("INSERT INTO " + Sql.qualified(s, "ducklake_delete_file") + " (delete_file_id, table_id, begin_snapshot,"
                        + " end_snapshot, data_file_id, path, path_is_relative, format) SELECT 800000 + g, " + live + ", g, g + 1,"
                        + " 700000 + g, 'd-' || g || '.parquet', true, 'parquet' FROM generate_series(" + n + ", " + (n + files - 1) + ") g");
                st.execute("ANALYZE " + Sql.qualified(s, "ducklake_data_file"));
            }
            long newest = n + files;
            ExpiryLayout layout = ExpiryLayout.read(c, s, FormatVersion.V1_0);
            Selection sel = new Selection(newest, null, null, null, null, "older_than");
            new RunCandidates(c, Duration.ofMinutes(5), Duration.ofSeconds(30)).build(layout, sel);
            c.setAutoCommit(false);
            try {
                ExpireBatch batch = new ExpireBatch(c, layout, false);
                batch.createTempTables();
                long[] taken = batch.takeSnapshots(sel, -1, 100, false);
                assertThat(taken[0]).isEqualTo(100);
                batch.useRunSets(Long.MIN_VALUE, taken[2]);
                assertThat(batch.collectRemovable()).as("the dropped table goes in this batch").isEqualTo(1);
                try (Statement st = c.createStatement()) {
                    st.execute("INSERT INTO pg_temp.dj_exp_tables SELECT table_id FROM pg_temp.dj_exp_removable");
                }
                long listed = count(c, "SELECT count(*) FROM pg_temp.dj_run_cand WHERE kind = 0");
                assertThat(listed).as("the run's data-file entries").isGreaterThanOrEqualTo(files);
                long dataRead = entriesRead(c, batch.runDataFilesSql(), taken[2]);
                long data = count(c, "SELECT count(*) FROM pg_temp.dj_exp_data");
                long delRead = entriesRead(c, batch.runDeleteFilesSql(), taken[2]);
                long del = count(c, "SELECT count(*) FROM pg_temp.dj_exp_del");
                assertThat(data).as("data files released by the batch: [g, g + 1) for g in n .. 99").isEqualTo(100 - n);
                assertThat(del).as("their delete files").isEqualTo(data);
                assertThat(dataRead).as("entries read for the data files, of %d listed", listed).isLessThan(1_000);
                assertThat(delRead).as("entries read for the delete files, of %d listed", listed).isLessThan(1_000);
            } finally {
                c.rollback();
                c.setAutoCommit(true);
                RunCandidates.drop(c);
            }
        }
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * Runs a batch statement (binds: released after, up to) under {@code EXPLAIN (ANALYZE, FORMAT JSON)} and returns the
     * rows its plan read from the run's lists ({@code dj_run_*}): rows returned plus rows removed by filters, times loops.
     */
    private static long entriesRead(Connection c, String sql, long upTo) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("EXPLAIN (ANALYZE, FORMAT JSON) " + sql)) {
            ps.setLong(1, Long.MIN_VALUE);
            ps.setLong(2, upTo);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                com.fasterxml.jackson.databind.JsonNode plan = new com.fasterxml.jackson.databind.ObjectMapper().readTree(rs.getString(1));
                return read(plan.get(0).get("Plan"));
            }
        }
    }

    private static long read(com.fasterxml.jackson.databind.JsonNode node) {
        long own = 0;
        if (node.path("Relation Name").asText("").startsWith("dj_run_")) {
            own = (node.path("Actual Rows").asLong() + node.path("Rows Removed by Filter").asLong()
                    + node.path("Rows Removed by Index Recheck").asLong()) * Math.max(1, node.path("Actual Loops").asLong());
        }
        for (com.fasterxml.jackson.databind.JsonNode child : node.path("Plans")) {
            own += read(child);
        }
        return own;
    }

    /**
     * Issue 27: an execute run keeps its candidate list in temporary tables of its session. When the backend is
     * terminated between batches, the run reconnects, lists its candidates again from the catalog as it is, and ends in
     * the state of one batch holding every snapshot.
     */
    @Test
    void aLostSessionRebuildsTheCandidateListAndTheEndStateIsTheSame() throws Exception {
        String killed = catalog(FormatVersion.V1_0);
        String whole = catalog(FormatVersion.V1_0);
        List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        dev.ducklake.janitor.ops.runtime.ProgressListener killer = new dev.ducklake.janitor.ops.runtime.ProgressListener() {
            @Override
            public void info(String message) {
                lines.add(message);
                if (message.startsWith("expired, batch 2:")) {
                    // the run's backend holds the advisory lock; terminate it between batches
                    try (Connection c = pg.connect(); Statement st = c.createStatement();
                         ResultSet rs = st.executeQuery("SELECT count(pg_terminate_backend(x.pid)) FROM (SELECT DISTINCT l.pid"
                                 + " FROM pg_locks l WHERE l.locktype = 'advisory' AND l.pid <> pg_backend_pid()"
                                 + " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())) x")) {
                        rs.next();
                        assertThat(rs.getLong(1)).as("the run's backend").isEqualTo(1);
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        };
        ExpireSnapshotsResult r = new ExpireSnapshots(pg.spec(), ExpireSnapshotsOptions.builder().metadataSchema(killed)
                .olderThan(new OlderThan(FUTURE, null)).minAge(Duration.ZERO).batchSize(2).build(), killer).execute();
        ExpireSnapshotsResult all = run(whole, o -> o.olderThan(new OlderThan(FUTURE, null)).minAge(Duration.ZERO)
                .batchSize(1_000_000));
        assertThat(r.run().reconnects()).as("the run lost its session").isPositive();
        assertThat(lines.stream().filter(l -> l.startsWith("candidate rows of the run listed")).count())
                .as("listed at the start and again after the reconnect").isEqualTo(2);
        assertThat(r.batches()).isGreaterThan(3);
        assertThat(r.tablesRemoved()).isEqualTo(all.tablesRemoved()).isEqualTo(1);
        assertThat(r.snapshotsExpired()).isEqualTo(all.snapshotsExpired());
        assertThat(r.dataFilesScheduled()).isEqualTo(all.dataFilesScheduled());
        for (String q : List.of("SELECT string_agg(table_id || ':' || begin_snapshot, ',' ORDER BY 1) FROM $s.ducklake_table",
                "SELECT string_agg(column_id || ':' || table_id, ',' ORDER BY 1) FROM $s.ducklake_column",
                "SELECT coalesce(string_agg(data_file_id::text, ',' ORDER BY data_file_id), '') FROM $s.ducklake_data_file",
                "SELECT coalesce(string_agg(path, ',' ORDER BY path), '') FROM $s.ducklake_files_scheduled_for_deletion",
                "SELECT count(*)::text FROM $s.ducklake_file_column_stats",
                "SELECT string_agg(snapshot_id::text, ',' ORDER BY 1) FROM $s.ducklake_snapshot")) {
            assertThat(text(killed, q)).as(q).isEqualTo(text(whole, q));
        }
    }

    private String text(String schema, String sql) throws SQLException {
        try (Connection c = pg.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(sql.replace("$s", Sql.ident(schema)))) {
            rs.next();
            return rs.getString(1);
        }
    }
}
