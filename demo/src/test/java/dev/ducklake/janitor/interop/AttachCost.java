package dev.ducklake.janitor.interop;

import dev.ducklake.janitor.interop.InteropCatalog.JanitorRun;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Scenario 6: what leaked inlined tables cost DuckDB's ATTACH. Real DuckLake creates {@code n} tables and
 * drops them again (each leaves its inlined table behind), the retained window moves past them the
 * Postgres-native way, then a fresh DuckDB process ATTACHes the catalog and runs its first query, before and
 * after the janitor. Each figure is the median of {@code repeats} fresh processes.
 */
final class AttachCost {

    /** Measured figures, in milliseconds. */
    record Figures(int leaked, long relationsBefore, long relationsAfter, double attachBefore, double firstQueryBefore,
                   double attachAfter, double firstQueryAfter, long dropped, double janitorSeconds, double setupSeconds) {

        double totalBefore() {
            return attachBefore + firstQueryBefore;
        }

        double totalAfter() {
            return attachAfter + firstQueryAfter;
        }

        double ratio() {
            return totalBefore() / totalAfter();
        }

        String report() {
            return String.format(Locale.ROOT,
                    "ATTACH cost with %d leaked inlined tables (DuckDB %s):%n"
                            + "  relations in metadata schema: %d before, %d after (janitor dropped %d in %.1f s)%n"
                            + "  before janitor: ATTACH %.1f ms + first query %.1f ms = %.1f ms%n"
                            + "  after janitor:  ATTACH %.1f ms + first query %.1f ms = %.1f ms%n"
                            + "  ratio before/after: %.2fx  (setup %.1f s)",
                    leaked, RealDuckLake.require().duckdbVersion(), relationsBefore, relationsAfter, dropped, janitorSeconds,
                    attachBefore, firstQueryBefore, totalBefore(), attachAfter, firstQueryAfter, totalAfter(), ratio(),
                    setupSeconds);
        }
    }

    private AttachCost() {
    }

    static Figures measure(InteropCatalog lake, int n, int repeats) throws Exception {
        long t0 = System.nanoTime();
        lake.run(RealDuckLake.program()
                .attach(lake.attach().inliningRowLimit(10))
                .sql("CREATE TABLE lake.live(id INTEGER, v VARCHAR)", "INSERT INTO lake.live VALUES (1, 'a'), (2, 'b')"));
        int chunk = 1000;
        for (int start = 0; start < n; start += chunk) {
            int size = Math.min(chunk, n - start);
            List<String> create = new ArrayList<>();
            List<String> drop = new ArrayList<>();
            create.add("BEGIN");
            drop.add("BEGIN");
            for (int i = start; i < start + size; i++) {
                create.add("CREATE TABLE lake.sync_" + i + "(id INTEGER, name VARCHAR, amount DOUBLE, updated_at TIMESTAMP)");
                drop.add("DROP TABLE lake.sync_" + i);
            }
            create.add("COMMIT");
            drop.add("COMMIT");
            lake.run(RealDuckLake.program().attach(lake.attach().inliningRowLimit(10))
                    .sql(create.toArray(new String[0])).sql(drop.toArray(new String[0])));
        }
        lake.pgNativeExpireBelow(lake.snapshotBounds()[1]);
        lake.execute("ANALYZE");
        double setup = (System.nanoTime() - t0) / 1e9;
        long relBefore = lake.relationCount();

        double[] before = attachTimes(lake, repeats);
        JanitorRun exec = lake.janitorExecute("--batch-size", "2000");
        lake.execute("VACUUM ANALYZE pg_catalog.pg_class");
        lake.execute("VACUUM ANALYZE pg_catalog.pg_attribute");
        lake.execute("VACUUM ANALYZE pg_catalog.pg_type");
        long relAfter = lake.relationCount();
        double[] after = attachTimes(lake, repeats);
        return new Figures(n, relBefore, relAfter, before[0], before[1], after[0], after[1], exec.count("dropped"),
                exec.json().path("elapsed_seconds").asDouble(), setup);
    }

    /** Median ATTACH and first-query milliseconds over fresh DuckDB processes. */
    static double[] attachTimes(InteropCatalog lake, int repeats) {
        double[] attach = new double[repeats];
        double[] first = new double[repeats];
        for (int i = 0; i < repeats; i++) {
            RealDuckLake.Result r = lake.run(RealDuckLake.program()
                    .attachTimed("attach", lake.attach(), "SELECT count(*) FROM lake.live"));
            attach[i] = r.step("attach").path("attach_ms").asDouble();
            first[i] = r.step("attach").path("first_query_ms").asDouble();
            if (r.scalar("attach") != 2) {
                throw new AssertionError("first query read " + r.scalar("attach") + " rows, expected 2");
            }
        }
        return new double[] {median(attach), median(first)};
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
