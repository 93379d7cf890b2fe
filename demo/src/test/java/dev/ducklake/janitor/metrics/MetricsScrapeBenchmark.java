package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * How long one collection of the catalog-health gauges takes on a catalog with many leaked inlined tables.
 * Not part of the default run; prints numbers, asserts only correctness:
 * {@code mvn -B -q test -Dtest=MetricsScrapeBenchmark -Dducklake.bench=true [-Dducklake.bench.tables=50000]
 * [-Dducklake.bench.noanalyze=true]} (the last one measures with the statistics autovacuum has, or has not, gathered).
 */
@EnabledIfSystemProperty(named = "ducklake.bench", matches = "true")
class MetricsScrapeBenchmark {

    @Test
    void scrapeDurationOnAManyTableCatalog() throws Exception {
        int tables = Integer.getInteger("ducklake.bench.tables", 50_000);
        TestPostgres pg = TestPostgres.get();
        String schema = pg.freshSchema("metrics_bench");
        long t0 = System.nanoTime();
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
            b.bulkCreateAndDrop("sync_", tables, 3, 500);
            b.expireBefore(b.snapshot());
            if (!Boolean.getBoolean("ducklake.bench.noanalyze")) {
                try (Statement st = c.createStatement()) {
                    st.execute("ANALYZE");
                }
            }
        }
        System.out.printf(Locale.ROOT, "built %d inlined tables in %.1f s%n", tables, (System.nanoTime() - t0) / 1e9);
        try (Connection c = pg.connect()) {
            for (int i = 1; i <= 5; i++) {
                CollectResult r = new CatalogHealthCollector(c, schema, "bench", Duration.ofSeconds(120), List.of()).collect();
                if (!r.errors().isEmpty()) {
                    throw new AssertionError(r.errors().toString());
                }
                if (r.family(CatalogHealthCollector.UNREACHABLE).valueFor("bench") != tables) {
                    throw new AssertionError("unreachable " + r.family(CatalogHealthCollector.UNREACHABLE).valueFor("bench"));
                }
                System.out.printf(Locale.ROOT, "scrape %d: %.3f s (%d tables, pg_attribute rows %.0f)%n", i, r.seconds(), tables,
                        r.family(CatalogHealthCollector.PG_ATTRIBUTE).valueFor("bench"));
                StringBuilder per = new StringBuilder("  per query:");
                r.durations().forEach((q, s) -> per.append(String.format(Locale.ROOT, " %s=%.3f", q, s)));
                System.out.println(per);
            }
        }
    }
}
