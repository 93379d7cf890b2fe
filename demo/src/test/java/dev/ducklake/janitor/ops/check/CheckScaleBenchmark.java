package dev.ducklake.janitor.ops.check;

import dev.ducklake.janitor.bench.BenchCatalog;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.interop.InteropCatalog;
import dev.ducklake.janitor.interop.RealDuckLake;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStats;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStatsOptions;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStatsResult;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 13 benchmarks (not part of the default run; they print numbers and assert only correctness):
 * <ul>
 *   <li>{@code check} on a leaked catalog of 230,000 inlined tables (BenchCatalog) with stats rows for every table and
 *       100,000 orphaned stats rows: wall time per run and per rule (target: under 10 s);</li>
 *   <li>{@code purge-orphan-stats} of 1,000,000 orphaned column-stats rows (100,000 table_ids) in a catalog written by the
 *       real DuckLake: per-batch times (flat?), heap, and the commit time of a small DuckLake INSERT before and after.</li>
 * </ul>
 * {@code mvn -B -q test -Dtest=CheckScaleBenchmark -Dducklake.bench=true [-Dducklake.bench.tables=230000]
 * [-Dducklake.bench.orphan.ids=100000]}
 */
@EnabledIfSystemProperty(named = "ducklake.bench", matches = "true")
class CheckScaleBenchmark {

    @Test
    void checkOnALeakedCatalog() throws Exception {
        int n = Integer.getInteger("ducklake.bench.tables", 230_000);
        TestPostgres pg = TestPostgres.get();
        String schema = pg.freshSchema("check_bench");
        long t0 = System.nanoTime();
        try (Connection c = pg.connect()) {
            BenchCatalog.build(c, schema, n, 500);
            String s = Sql.ident(schema);
            Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_table_stats SELECT DISTINCT table_id, 1, 1, 1 FROM " + s + ".ducklake_table");
            Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_table_column_stats (table_id, column_id) SELECT t.table_id, g FROM (SELECT DISTINCT"
                    + " table_id FROM " + s + ".ducklake_table) t, generate_series(1, 3) g");
            Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_table_column_stats (table_id, column_id) SELECT 50000000 + g / 10, g % 10"
                    + " FROM generate_series(0, 99999) g");
            Catalogs.exec(c, "ANALYZE");
        }
        System.out.printf(Locale.ROOT, "built %d leaked tables (+ stats) in %.1f s%n", n, (System.nanoTime() - t0) / 1e9);
        for (int i = 1; i <= 3; i++) {
            CheckResult r = new CatalogCheck(pg.spec(), CheckOptions.defaults().withMetadataSchema(schema)).execute();
            assertThat(r.errors()).isEmpty();
            assertThat(r.counts().get("unreachable_inlined_tables")).isEqualTo(n + BenchCatalog.NON_EMPTY_ORPHANS);
            assertThat(r.counts().get("orphaned_stats_rows")).isEqualTo(100_000);
            StringBuilder per = new StringBuilder();
            r.ruleSeconds().forEach((k, v) -> per.append(String.format(Locale.ROOT, " %s=%.2f", k, v)));
            System.out.printf(Locale.ROOT, "check run %d: %.2f s wall (%d tables); per rule:%s%n", i, r.elapsedSeconds(), n, per);
        }
    }

    @Test
    void purgeOfAMillionOrphanedColumnStatsRows() throws Exception {
        int ids = Integer.getInteger("ducklake.bench.orphan.ids", 100_000);
        InteropCatalog lake = InteropCatalog.fresh("purge_bench");
        try {
            lake.run(RealDuckLake.program().attach(lake.attach().inliningRowLimit(0))
                    .sql("CREATE TABLE lake.t(id INTEGER, v VARCHAR)", "INSERT INTO lake.t SELECT i, 'v' FROM range(1000) t(i)"));
            String s = Sql.ident(lake.schema());
            try (Connection c = lake.connect()) {
                Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_table_stats SELECT 50000000 + g, 10, 10, 1000 FROM generate_series(0, "
                        + (ids - 1) + ") g");
                Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_table_column_stats (table_id, column_id, contains_null, contains_nan,"
                        + " min_value, max_value) SELECT 50000000 + g / 10, g % 10, false, false, '0', '999' FROM generate_series(0, "
                        + (ids * 10L - 1) + ") g");
                Catalogs.exec(c, "ANALYZE " + s + ".ducklake_table_stats");
                Catalogs.exec(c, "ANALYZE " + s + ".ducklake_table_column_stats");
            }
            double before = insertMillis(lake);
            for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
                p.resetPeakUsage();
            }
            List<Double> batches = new ArrayList<>();
            PurgeOrphanStatsResult r = new PurgeOrphanStats(TestPostgres.get().spec(), PurgeOrphanStatsOptions.builder()
                    .metadataSchema(lake.schema()).build(), new dev.ducklake.janitor.ops.runtime.ProgressListener() {
                        @Override
                        public void batch(BatchProgress b) {
                            batches.add(b.batchSeconds());
                        }
                    }).execute();
            long heapPeak = 0;
            for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
                if (p.getType() == MemoryType.HEAP) {
                    heapPeak += p.getPeakUsage().getUsed();
                }
            }
            assertThat(r.rowsDeleted().get("ducklake_table_column_stats")).isEqualTo(ids * 10L);
            assertThat(r.rowsDeleted().get("ducklake_table_stats")).isEqualTo(ids);
            assertThat(r.remaining()).isZero();
            double after = insertMillis(lake);
            int k = Math.min(5, batches.size());
            System.out.printf(Locale.ROOT, "purge: %,d rows (%,d column stats) in %.1f s, %d batches; batch s median %.3f, max %.3f;"
                    + " first %d median %.3f, last %d median %.3f; heap peak (all pools, garbage included) %d MiB%n", r.rowsDeletedTotal(),
                    ids * 10L, r.run().elapsedSeconds(), r.run().batches(), r.batchSecondsMedian(), r.batchSecondsMax(), k,
                    median(batches.subList(0, k)), k, median(batches.subList(batches.size() - k, batches.size())), heapPeak >> 20);
            System.out.printf(Locale.ROOT, "DuckLake small INSERT commit: median %.1f ms before the purge, %.1f ms after%n", before, after);
        } finally {
            lake.deleteDataDir();
        }
    }

    /** Median wall time of 7 single-row DuckLake INSERTs (each its own commit) in one session, after one warm-up. */
    private static double insertMillis(InteropCatalog lake) {
        RealDuckLake.Program p = RealDuckLake.program().attach(lake.attach().inliningRowLimit(0)).sql("INSERT INTO lake.t VALUES (-1, 'w')");
        for (int i = 0; i < 7; i++) {
            p.named("ins" + i, "INSERT INTO lake.t VALUES (" + (10_000 + i) + ", 'x')");
        }
        RealDuckLake.Result r = lake.run(p);
        List<Double> ms = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            ms.add(r.step("ins" + i).path("elapsed_ms").asDouble());
        }
        return median(ms);
    }

    private static double median(List<Double> xs) {
        List<Double> s = new ArrayList<>(xs);
        s.sort(null);
        return s.isEmpty() ? 0 : s.get(s.size() / 2);
    }
}
