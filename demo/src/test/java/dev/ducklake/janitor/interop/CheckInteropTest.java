package dev.ducklake.janitor.interop;

import dev.ducklake.janitor.ops.check.CatalogCheck;
import dev.ducklake.janitor.ops.check.CheckOptions;
import dev.ducklake.janitor.ops.check.CheckResult;
import dev.ducklake.janitor.catalog.health.Finding;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStats;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStatsOptions;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStatsResult;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 13, no false positives: catalogs written and maintained by the real DuckLake 1.5.5 (churn with inlined and Parquet
 * inserts, updates, deletes, ALTER, DROP + CREATE, a partitioned table; then expire, flush, merge, cleanup, CHECKPOINT)
 * are checked after every step. The only finding is DuckLake 1.5.5's own defect duckdb/ducklake#1390: after
 * {@code ducklake_expire_snapshots} the deleted inlined rows of live tables stay until a flush ({@code dead_inlined_rows}).
 * And purge-orphan-stats on a DuckLake catalog whose table rows were expired the old way: DuckLake re-attaches, commits and
 * reads afterwards.
 */
class CheckInteropTest {

    private InteropCatalog lake;

    @AfterEach
    void cleanup() {
        if (lake != null) {
            lake.deleteDataDir();
        }
    }

    private CheckResult check() throws Exception {
        return new CatalogCheck(TestPostgres.get().spec(), CheckOptions.defaults().withMetadataSchema(lake.schema())
                .withBloatThresholds(Long.MAX_VALUE, 1)).withStorage(p -> new LocalFileStore(), null).execute();
    }

    private static List<String> kinds(CheckResult r) {
        assertThat(r.errors()).as("every rule ran").isEmpty();
        return r.findings().stream().map(Finding::kind).toList();
    }

    @Test
    void catalogsWrittenAndMaintainedByDuckLakeAreClean() throws Exception {
        lake = InteropCatalog.fresh("chk_interop");
        RealDuckLake.Program churn = RealDuckLake.program().attach(lake.attach().inliningRowLimit(10))
                .sql("CREATE TABLE lake.a(id INTEGER, v VARCHAR)",
                        "INSERT INTO lake.a VALUES (1, 'one'), (2, 'two'), (3, 'three')",
                        "INSERT INTO lake.a SELECT i + 100, 'bulk' FROM range(1000) t(i)",
                        "UPDATE lake.a SET v = 'uno' WHERE id = 1",
                        "DELETE FROM lake.a WHERE id = 2",
                        "DELETE FROM lake.a WHERE id BETWEEN 500 AND 503",
                        "DELETE FROM lake.a WHERE id BETWEEN 600 AND 700",
                        "ALTER TABLE lake.a ADD COLUMN w INTEGER",
                        "INSERT INTO lake.a VALUES (4, 'four', 4)",
                        "CREATE TABLE lake.p(id INTEGER, part INTEGER)",
                        "ALTER TABLE lake.p SET PARTITIONED BY (part)",
                        "INSERT INTO lake.p SELECT i, i % 3 FROM range(300) t(i)",
                        "INSERT INTO lake.p SELECT i, i % 3 FROM range(300, 600) t(i)",
                        "INSERT INTO lake.p VALUES (1000, 1)");
        for (int r = 0; r < 3; r++) {
            churn.sql("DROP TABLE IF EXISTS lake.s", "CREATE TABLE lake.s(id INTEGER, v VARCHAR)",
                    "INSERT INTO lake.s VALUES (" + r + ", 'small')",
                    "INSERT INTO lake.s SELECT i, 'big' FROM range(200) t(i)",
                    "DELETE FROM lake.s WHERE id = 5");
        }
        lake.run(churn);
        assertThat(kinds(check())).as("after the churn, every snapshot retained").isEmpty();

        lake.run(RealDuckLake.program().attach(lake.attach()).sql("CALL ducklake_expire_snapshots('lake', older_than => now())"));
        CheckResult expired = check();
        assertThat(kinds(expired)).as("after DuckLake's expiry: only DuckLake 1.5.5's own defect #1390").containsOnly("dead_inlined_rows");
        assertThat(expired.finding("dead_inlined_rows").orElseThrow().count()).as("the old versions of rows 1 and 2").isEqualTo(2);

        lake.run(RealDuckLake.program().attach(lake.attach()).sql("CALL ducklake_flush_inlined_data('lake')"));
        assertThat(kinds(check())).as("after flush").isEmpty();
        lake.run(RealDuckLake.program().attach(lake.attach()).sql("CALL ducklake_merge_adjacent_files('lake')"));
        assertThat(kinds(check())).as("after merge_adjacent_files").isEmpty();
        lake.run(RealDuckLake.program().attach(lake.attach()).sql("CALL ducklake_cleanup_old_files('lake', cleanup_all => true)"));
        assertThat(kinds(check())).as("after cleanup_old_files").isEmpty();
        lake.run(RealDuckLake.program().attach(lake.attach()).sql("INSERT INTO lake.a VALUES (5, 'five', 5)",
                "DELETE FROM lake.a WHERE id = 5", "CHECKPOINT lake"));
        assertThat(kinds(check())).as("after CHECKPOINT").isEmpty();
        lake.run(RealDuckLake.program().attach(lake.attach()).sql("DROP TABLE lake.p",
                "CALL ducklake_expire_snapshots('lake', older_than => now())", "CALL ducklake_cleanup_old_files('lake', cleanup_all => true)"));
        CheckResult last = check();
        assertThat(kinds(last)).as("after dropping and expiring the partitioned table").isEmpty();
        // issue 21 item 6: every check above also compared the data path with the retained file rows (check --storage)
        assertThat(last.storage().expected()).as("retained rows compared").isPositive();
        assertThat(last.storage().notChecked()).isZero();

        // an object deleted out of band is reported, with its table and snapshot range
        java.nio.file.Path victim;
        try (var walk = java.nio.file.Files.walk(lake.dataDir().resolve("main/a"))) {
            victim = walk.filter(f -> f.getFileName().toString().endsWith(".parquet")
                    && !f.getFileName().toString().contains("-delete")).findFirst().orElseThrow();
        }
        java.nio.file.Files.delete(victim);
        CheckResult gone = check();
        assertThat(kinds(gone)).as(gone.toString()).contains(CatalogCheck.MISSING_DATA);
        Finding missing = gone.finding(CatalogCheck.MISSING_DATA).orElseThrow();
        assertThat(missing.severity()).isEqualTo("damage");
        assertThat(missing.examples().get(0)).contains("main.a").contains(victim.getFileName().toString()).contains("snapshots [");
        assertThat(missing.fix()).contains("versioned bucket").contains("never deletes catalog rows");
    }

    /**
     * duckdb/ducklake#1354 reproduced on DuckLake 1.5.5: one Parquet file registered for two tables; dropping and expiring
     * one queues the path the other still reads. check reports it (paths resolved as DuckLake resolves them) before
     * ducklake_cleanup_old_files would delete the file.
     */
    @Test
    void aQueuedFileThatAnotherTableStillReadsIsReported() throws Exception {
        lake = InteropCatalog.fresh("chk_shared");
        String file = lake.dataDir().resolve("shared.parquet").toString();
        lake.run(RealDuckLake.program().attach(lake.attach().inliningRowLimit(0))
                .sql("COPY (SELECT 42::INTEGER AS id) TO '" + file + "' (FORMAT parquet)",
                        "CREATE TABLE lake.t1(id INTEGER)", "CREATE TABLE lake.t2(id INTEGER)",
                        "CALL ducklake_add_data_files('lake', 't1', '" + file + "')",
                        "CALL ducklake_add_data_files('lake', 't2', '" + file + "')"));
        assertThat(kinds(check())).as("two tables share a file; nothing queued yet").isEmpty();
        lake.run(RealDuckLake.program().attach(lake.attach()).sql("DROP TABLE lake.t1",
                "CALL ducklake_expire_snapshots('lake', older_than => now())"));
        CheckResult r = check();
        assertThat(kinds(r)).as("DuckLake 1.5.5 queued a file t2 still reads (#1354)").containsExactly("queued_files_still_referenced");
        assertThat(r.finding("queued_files_still_referenced").orElseThrow().examples().get(0)).contains("shared.parquet");
    }

    @Test
    void duckLakeCommitsAndReadsAfterPurgeOrphanStats() throws Exception {
        lake = InteropCatalog.fresh("chk_purge");
        RealDuckLake.Program p = RealDuckLake.program().attach(lake.attach().inliningRowLimit(0))
                .sql("CREATE TABLE lake.keep(id INTEGER, v VARCHAR)", "INSERT INTO lake.keep SELECT i, 'k' || i FROM range(100) t(i)");
        for (int i = 0; i < 5; i++) {
            p.sql("CREATE TABLE lake.gone" + i + "(id INTEGER, a INTEGER, b VARCHAR)",
                    "INSERT INTO lake.gone" + i + " SELECT i, i, 'x' FROM range(50) t(i)", "DROP TABLE lake.gone" + i);
        }
        lake.run(p);
        // an expiry done the old way: the table rows of the dropped tables go, their stats stay (orphaned)
        try (Connection c = lake.connect()) {
            Catalogs.exec(c, "DELETE FROM \"" + lake.schema() + "\".ducklake_table WHERE end_snapshot IS NOT NULL");
        }
        CheckResult before = check();
        assertThat(before.finding("orphaned_stats_rows")).as("stats of the five removed tables").isPresent();
        long orphaned = before.finding("orphaned_stats_rows").orElseThrow().count();
        assertThat(orphaned).isGreaterThanOrEqualTo(5 + 5 * 3);
        PurgeOrphanStatsResult purged = new PurgeOrphanStats(TestPostgres.get().spec(), PurgeOrphanStatsOptions.builder()
                .metadataSchema(lake.schema()).batchSize(2).build(), dev.ducklake.janitor.ops.runtime.ProgressListener.NONE).execute();
        assertThat(purged.rowsDeletedTotal()).isEqualTo(purged.orphanRowsTotal());
        assertThat(purged.remaining()).isZero();
        assertThat(check().finding("orphaned_stats_rows")).isEmpty();
        RealDuckLake.Result after = lake.run(RealDuckLake.program().attach(lake.attach())
                .sql("INSERT INTO lake.keep VALUES (1000, 'new')")
                .query("count", "SELECT count(*) FROM lake.keep")
                .query("filtered", "SELECT count(*) FROM lake.keep WHERE id >= 50")
                .query("minmax", "SELECT min(id), max(id) FROM lake.keep")
                .sql("CREATE TABLE lake.fresh(id INTEGER)", "INSERT INTO lake.fresh VALUES (1), (2)")
                .query("fresh", "SELECT count(*) FROM lake.fresh"));
        assertThat(after.scalar("count")).isEqualTo(101);
        assertThat(after.scalar("filtered")).isEqualTo(51);
        assertThat(after.rows("minmax").get(0)).containsExactly("0", "1000");
        assertThat(after.scalar("fresh")).isEqualTo(2);
    }
}
