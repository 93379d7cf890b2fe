package dev.ducklake.janitor.ops.check;

import dev.ducklake.janitor.catalog.health.Finding;
import dev.ducklake.janitor.catalog.health.CheckRules;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStats;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStatsOptions;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStatsResult;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 13, proof: a catalog seeded with one instance of every finding kind reports each with the right count and
 * example; after the fixes (this tool's drop-orphan-inline-tables and purge-orphan-stats; the others emulated by the SQL
 * their fix runs) it reports clean. Also: every rule runs without error on every format version's layout.
 */
class CatalogCheckTest {

    private final TestPostgres pg = TestPostgres.get();

    static CheckResult check(String schema) throws Exception {
        return new CatalogCheck(TestPostgres.get().spec(), CheckOptions.defaults().withMetadataSchema(schema)
                .withBloatThresholds(Long.MAX_VALUE, 1)).execute();
    }

    @ParameterizedTest
    @EnumSource(value = FormatVersion.class, names = {"V1_0", "V1_1_DEV1", "V1_1"})
    void everyKindIsFoundWithItsCountAndExampleAndTheFixesMakeItClean(FormatVersion version) throws Exception {
        String schema = pg.freshSchema("check_all");
        DamagedCatalog cat;
        try (Connection c = pg.connect()) {
            cat = new DamagedCatalog(schema, version).build(c);
        }
        CheckResult r = check(schema);
        assertThat(r.errors()).as("every rule ran").isEmpty();
        Map<String, Long> expected = new LinkedHashMap<>();
        expected.put("unreachable_inlined_tables", 2L); // gone's row and the registry row without table of table_id 900
        expected.put("registry_rows_without_table", 1L);
        expected.put("registry_rows_without_table_of_reachable_tables", 1L);
        expected.put("unregistered_inlined_tables", 1L);
        expected.put("unreachable_inlined_delete_tables", 1L);
        expected.put("inlined_table_anomalies", 1L);
        expected.put("live_files_of_unreachable_tables", 1L);
        expected.put("live_files_of_dropped_tables", 1L);
        expected.put("orphaned_stats_rows", 6L);
        expected.put("duplicate_deletion_queue_rows", 1L);
        expected.put("queued_files_still_referenced", 1L);
        expected.put("dead_inlined_rows", 1L);
        expected.put("snapshot_changes_without_snapshot", 1L);
        expected.put("schema_versions_beyond_registry", 1L);
        expected.put("schema_versions_migration_duplicates", 1L);
        expected.put("rows_beyond_last_snapshot", 1L);
        expected.put("catalog_bloat", 0L);
        expected.put("interrupted_migration_tables", 1L);
        assertThat(r.counts()).as("one instance of each kind").containsExactlyEntriesOf(expected);
        assertThat(r.status()).isEqualTo(CheckResult.FINDINGS);
        assertThat(r.findings()).extracting(Finding::kind).containsExactlyElementsOf(
                expected.entrySet().stream().filter(e -> e.getValue() > 0).map(Map.Entry::getKey).toList());
        assertThat(example(r, "unreachable_inlined_tables")).contains(InlinedTableName.dataTable(cat.gone, 1)).contains("table_id=" + cat.gone);
        assertThat(example(r, "registry_rows_without_table")).contains(InlinedTableName.dataTable(DamagedCatalog.NO_TABLE, 1));
        assertThat(example(r, "registry_rows_without_table_of_reachable_tables")).contains(InlinedTableName.dataTable(cat.live, 99))
                .contains("table_id=" + cat.live);
        assertThat(example(r, "unregistered_inlined_tables")).contains(InlinedTableName.dataTable(DamagedCatalog.LEFTOVER, 1));
        assertThat(example(r, "unreachable_inlined_delete_tables")).contains(InlinedTableName.deleteTable(DamagedCatalog.DELETE_TABLE));
        assertThat(example(r, "inlined_table_anomalies")).contains("ducklake_inlined_data_0912_1");
        assertThat(example(r, "live_files_of_unreachable_tables")).contains("id=501").contains("table_id=" + cat.gone);
        assertThat(example(r, "live_files_of_dropped_tables")).contains("id=502").contains("table_id=" + cat.dropped);
        assertThat(r.finding("orphaned_stats_rows").orElseThrow().examples())
                .anyMatch(e -> e.startsWith("ducklake_table_stats: table_id=900 rows=1"))
                .anyMatch(e -> e.startsWith("ducklake_table_column_stats: table_id=900 rows=2"))
                .anyMatch(e -> e.startsWith("ducklake_file_column_stats: data_file_id=901 rows=1"));
        assertThat(example(r, "duplicate_deletion_queue_rows")).contains("data_file_id=600").contains("times=2");
        assertThat(example(r, "queued_files_still_referenced")).contains("data_file_id=503").contains("main/live/live-1.parquet");
        assertThat(example(r, "dead_inlined_rows")).startsWith(InlinedTableName.dataTable(cat.live, 0).replaceAll("_0$", "_"))
                .endsWith(": 1 dead rows");
        assertThat(example(r, "snapshot_changes_without_snapshot")).contains("snapshot_id=1");
        assertThat(example(r, "schema_versions_beyond_registry")).contains("table_id=900");
        assertThat(example(r, "schema_versions_migration_duplicates")).contains("table_id=" + cat.live).contains("rows=2");
        assertThat(example(r, "rows_beyond_last_snapshot")).startsWith("ducklake_column: 1 rows (column_id [99])");
        assertThat(example(r, "interrupted_migration_tables")).isEqualTo("'" + InlinedTableName.dataTable(cat.live, cat.liveVersion)
                + "_migrated' original='present'");
        assertThat(r.findings()).allSatisfy(f -> assertThat(f.fix()).isNotBlank());

        // first the damage every maintenance command refuses (exit 6 once the snapshot-consistency check is merged):
        // the missing snapshot rows are "restored" by removing the row that names them
        try (Connection c = pg.connect()) {
            Catalogs.exec(c, "DELETE FROM " + Sql.qualified(schema, "ducklake_column") + " WHERE column_id = 99");
        }

        // the fixes: purge-orphan-stats and drop-orphan-inline-tables for real ...
        PurgeOrphanStatsResult purged = new PurgeOrphanStats(pg.spec(), PurgeOrphanStatsOptions.builder().metadataSchema(schema).build(),
                dev.ducklake.janitor.ops.runtime.ProgressListener.NONE).execute();
        assertThat(purged.rowsDeletedTotal()).as("exactly the orphaned stats rows").isEqualTo(6);
        assertThat(purged.rowsDeleted()).containsEntry("ducklake_file_partition_value", 1L).containsEntry("ducklake_file_variant_stats", 1L);
        Catalogs.run(schema, o -> o.includeUnregistered(true).includeNonempty(true));
        try (Connection c = pg.connect()) {
            assertThat(Catalogs.exists(c, schema, InlinedTableName.dataTable(cat.live, cat.liveVersion) + "_migrated"))
                    .as("drop-orphan-inline-tables never drops an interrupted migration's copy").isTrue();
        }
        // ... and the others as the SQL their fix runs (expire-snapshots, cleanup-old-files, DuckLake's flush) or by hand
        String s = Sql.ident(schema);
        try (Connection c = pg.connect()) {
            Catalogs.exec(c, "DELETE FROM " + s + ".ducklake_inlined_data_tables WHERE schema_version = 99");
            Catalogs.exec(c, "DROP TABLE " + s + ".ducklake_inlined_data_0912_1");
            Catalogs.exec(c, "DELETE FROM " + s + ".ducklake_data_file WHERE data_file_id = 501");
            Catalogs.exec(c, "UPDATE " + s + ".ducklake_data_file SET end_snapshot = (SELECT end_snapshot FROM " + s
                    + ".ducklake_table WHERE table_id = " + cat.dropped + ") WHERE data_file_id = 502");
            Catalogs.exec(c, "DELETE FROM " + s + ".ducklake_files_scheduled_for_deletion");
            String p = version.prefixedInlinedColumns() ? "_ducklake_" : "";
            try (var rs = c.createStatement().executeQuery("SELECT table_name FROM " + s + ".ducklake_inlined_data_tables WHERE table_id = "
                    + cat.live)) {
                while (rs.next()) {
                    Catalogs.exec(c, "DELETE FROM " + Sql.qualified(schema, rs.getString(1)) + " WHERE " + p + "end_snapshot IS NOT NULL");
                }
            }
            Catalogs.exec(c, "DELETE FROM " + s + ".ducklake_snapshot_changes WHERE snapshot_id = 1");
            Catalogs.exec(c, "DROP TABLE " + Sql.qualified(schema, InlinedTableName.dataTable(cat.live, cat.liveVersion) + "_migrated"));
            Catalogs.exec(c, "DELETE FROM " + s + ".ducklake_schema_versions WHERE table_id = 900 OR schema_version = 77");
            assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + s + ".ducklake_table_stats WHERE table_id = " + cat.gone))
                    .as("stats of a table_id with a ducklake_table row are never purged").isEqualTo(1);
            assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + s + ".ducklake_file_column_stats WHERE data_file_id = 503"))
                    .as("stats of an existing data file stay").isEqualTo(1);
        }
        CheckResult after = check(schema);
        assertThat(after.errors()).isEmpty();
        assertThat(after.findings()).as("clean after the fixes").isEmpty();
        assertThat(after.status()).isEqualTo(CheckResult.CLEAN);
    }

    @ParameterizedTest
    @EnumSource(FormatVersion.class)
    void everyRuleRunsOnEveryLayoutAndAHealthyCatalogIsClean(FormatVersion version) throws Exception {
        String schema = pg.freshSchema("check_layout");
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, schema, version).create();
            long t1 = b.createTable("a", 2);
            b.insertRows(t1, 3);
            long t2 = b.createTable("b", 1);
            b.addColumn(t2);
            b.insertRows(t2, 2);
        }
        CheckResult r = check(schema);
        assertThat(r.errors()).as("no rule fails on the %s layout", version).isEmpty();
        assertThat(r.findings()).isEmpty();
        assertThat(r.status()).isEqualTo(CheckResult.CLEAN);
        assertThat(r.counts().keySet()).containsExactlyElementsOf(CheckRules.kinds());
    }

    private static String example(CheckResult r, String kind) {
        Finding f = r.finding(kind).orElseThrow(() -> new AssertionError("no finding " + kind));
        assertThat(f.examples()).as("examples of %s", kind).isNotEmpty();
        return f.examples().get(0);
    }
}
