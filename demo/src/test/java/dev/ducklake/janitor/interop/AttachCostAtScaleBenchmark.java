package dev.ducklake.janitor.interop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.bench.BenchCatalog;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The headline figure: what a bloated catalog costs a real DuckDB + DuckLake 1.5.5 process, and what it
 * costs after the janitor. Not part of {@code mvn verify} (the class name matches none of Surefire's test
 * patterns); run it explicitly with the interop environment:
 *
 * <pre>
 * export DUCKLAKE_JANITOR_INTEROP_VENV=/work/main/.venv-interop
 * mvn -B test -Dtest=AttachCostAtScaleBenchmark -Dducklake.bench.n=230000 \
 *     -Dducklake.bench.limit.seconds=900 -Dducklake.bench.rss.limit.mib=12288
 * </pre>
 *
 * <p>The catalog is {@link BenchCatalog}'s (a DuckLake 1.0 layout with {@code n} leaked empty inlined-data
 * tables, live tables with several schema versions, three non-empty orphans), written over JDBC into a fresh
 * metadata schema of the test PostgreSQL (embedded, or {@code DUCKLAKE_JANITOR_TEST_PG_URL}), then
 * {@code ANALYZE}d and {@code CHECKPOINT}ed. Building it through DuckLake itself would cost one DuckDB
 * process per chunk whose own ATTACH grows with the leak; the layout is the same one DuckLake 1.5.5 ATTACHes
 * and queries (checked by the first query's row count).
 *
 * <p>Measured, per fresh DuckDB process (the Python driver; DuckDB runs in that process): ATTACH and first
 * query ({@code SELECT count(*) FROM lake.orders}) in milliseconds as the driver times them, the process's
 * wall time (start-up and extension loading included), and its peak resident set ({@code VmHWM} of
 * {@code /proc/<pid>/status}, polled every 100 ms while it runs, in MiB). A process still running after
 * {@code ducklake.bench.limit.seconds} (default 900) or whose resident set passes
 * {@code ducklake.bench.rss.limit.mib} (default 12288) is killed and reported as "&gt; limit". Before the
 * janitor: {@code ducklake.bench.repeats.before} processes (default 1), after: {@code ...after} (default 3);
 * the median is reported. Between them the janitor runs ({@code --batch-size 2000}; the lock budget may
 * cap it) and pg_class, pg_attribute and pg_type are vacuumed, as autovacuum would after the drops.
 *
 * <p>The report is printed and written to {@code target/attach-cost-N<n>.txt}.
 */
@Tag("benchmark")
class AttachCostAtScaleBenchmark {

    /** One DuckDB process: driver timings (ms; NaN when killed), process wall seconds, peak RSS MiB. */
    record Probe(double attachMs, double firstQueryMs, double wallSeconds, double peakRssMib, String killedBy) {
        boolean finished() {
            return killedBy == null;
        }

        String describe() {
            if (!finished()) {
                return String.format(Locale.ROOT, "killed (%s) after %.1f s wall, peak RSS %.0f MiB so far",
                        killedBy, wallSeconds, peakRssMib);
            }
            return String.format(Locale.ROOT, "ATTACH %.1f ms + first query %.1f ms = %.1f ms; process wall %.2f s; peak RSS %.0f MiB",
                    attachMs, firstQueryMs, attachMs + firstQueryMs, wallSeconds, peakRssMib);
        }
    }

    @Test
    void attachAndFirstQueryBeforeAndAfterTheJanitor() throws Exception {
        int n = Integer.getInteger("ducklake.bench.n", 230_000);
        int repeatsBefore = Integer.getInteger("ducklake.bench.repeats.before", 1);
        int repeatsAfter = Integer.getInteger("ducklake.bench.repeats.after", 3);
        long limitSeconds = Long.getLong("ducklake.bench.limit.seconds", 900);
        long rssLimitMib = Long.getLong("ducklake.bench.rss.limit.mib", 12_288);
        InteropCatalog lake = InteropCatalog.fresh("il_attach_scale");
        StringBuilder report = new StringBuilder();
        try {
            long t0 = System.nanoTime();
            try (Connection c = lake.connect()) {
                BenchCatalog.build(c, lake.schema(), n, 1000);
                try (Statement st = c.createStatement()) {
                    st.execute("ANALYZE");
                    st.execute("CHECKPOINT");
                }
            }
            double build = (System.nanoTime() - t0) / 1e9;
            long relBefore = lake.relationCount();
            line(report, String.format(Locale.ROOT, "ATTACH + first query, real DuckDB %s + DuckLake %s, %d leaked inlined tables "
                            + "(BenchCatalog, built in %.0f s; %d relations in the metadata schema)",
                    lake.duckLake().duckdbVersion(), lake.duckLake().ducklakeExtensionVersion(), n, build, relBefore));
            line(report, String.format(Locale.ROOT, "limits: %d s wall, %d MiB RSS per DuckDB process", limitSeconds, rssLimitMib));

            List<Probe> before = probes(lake, repeatsBefore, limitSeconds, rssLimitMib, report, "before");

            long j0 = System.nanoTime();
            InteropCatalog.JanitorRun exec = lake.janitorExecute("--batch-size", "2000");
            double janitor = (System.nanoTime() - j0) / 1e9;
            lake.execute("VACUUM ANALYZE pg_catalog.pg_class");
            lake.execute("VACUUM ANALYZE pg_catalog.pg_attribute");
            lake.execute("VACUUM ANALYZE pg_catalog.pg_type");
            long relAfter = lake.relationCount();
            line(report, String.format(Locale.ROOT, "janitor: dropped %d in %.1f s (engine elapsed %.1f s); relations %d -> %d",
                    exec.count("dropped"), janitor, exec.json().path("elapsed_seconds").asDouble(), relBefore, relAfter));

            List<Probe> after = probes(lake, repeatsAfter, limitSeconds, rssLimitMib, report, "after");
            line(report, "summary: before " + summary(before, limitSeconds) + " | after " + summary(after, limitSeconds));
            assertThat(exec.count("dropped")).isEqualTo(n);
            assertThat(after).allMatch(Probe::finished);
        } finally {

            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "attach-cost-N" + n + ".txt"), report.toString());
            try {
                lake.execute("DROP SCHEMA IF EXISTS \"" + lake.schema() + "\" CASCADE");
            } catch (java.sql.SQLException e) {
                System.out.println("could not drop the benchmark schema " + lake.schema() + ": " + e.getMessage());
            }
            lake.deleteDataDir();
        }
    }

    private static void line(StringBuilder report, String s) {
        report.append(s).append(System.lineSeparator());
        System.out.println(s);
    }

    private static String summary(List<Probe> probes, long limitSeconds) {
        List<Probe> done = probes.stream().filter(Probe::finished).sorted((a, b) -> Double.compare(
                a.attachMs() + a.firstQueryMs(), b.attachMs() + b.firstQueryMs())).toList();
        double rss = probes.stream().mapToDouble(Probe::peakRssMib).max().orElse(Double.NaN);
        if (done.isEmpty()) {
            return String.format(Locale.ROOT, "> %d s (killed: %s), peak RSS >= %.0f MiB", limitSeconds,
                    probes.get(0).killedBy(), rss);
        }
        Probe m = done.get(done.size() / 2);
        return String.format(Locale.ROOT, "median ATTACH+first query %.1f ms (process wall %.2f s), peak RSS %.0f MiB%s",
                m.attachMs() + m.firstQueryMs(), m.wallSeconds(), rss,
                done.size() < probes.size() ? " (" + (probes.size() - done.size()) + " killed)" : "");
    }

    private static List<Probe> probes(InteropCatalog lake, int repeats, long limitSeconds, long rssLimitMib,
                                      StringBuilder report, String label) throws Exception {
        List<Probe> out = new ArrayList<>();
        for (int i = 0; i < repeats; i++) {
            Probe p = probe(lake, limitSeconds, rssLimitMib);
            out.add(p);
            line(report, label + " #" + (i + 1) + ": " + p.describe());
        }
        return out;
    }

    /** Runs one fresh DuckDB process: ATTACH + first query, watched for wall time and resident set. */
    static Probe probe(InteropCatalog lake, long limitSeconds, long rssLimitMib) throws Exception {
        long start = System.nanoTime();
        RealDuckLake.Running running = lake.duckLake().start(RealDuckLake.program()
                .attachTimed("attach", lake.attach().overrideDataPath(), "SELECT count(*) FROM lake.orders"));
        Process proc = running.process();
        long pid = proc.pid();
        double[] peak = {0};
        String[] killed = {null};
        Thread watch = new Thread(() -> {
            while (proc.isAlive()) {
                double hwm = statusKib(pid, "VmHWM:") / 1024.0;
                double rss = statusKib(pid, "VmRSS:") / 1024.0;
                peak[0] = Math.max(peak[0], Math.max(hwm, rss));
                double secs = (System.nanoTime() - start) / 1e9;
                if (secs > limitSeconds) {
                    killed[0] = "wall > " + limitSeconds + " s";
                } else if (rss > rssLimitMib) {
                    killed[0] = "RSS > " + rssLimitMib + " MiB";
                }
                if (killed[0] != null) {
                    proc.destroyForcibly();
                    return;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "rss-watch");
        watch.setDaemon(true);
        watch.start();
        RealDuckLake.Result r = null;
        try {
            r = running.await(limitSeconds + 60);
        } catch (IllegalStateException e) {
            if (killed[0] == null) {
                throw e;
            }
        }
        proc.waitFor(30, TimeUnit.SECONDS);
        watch.join(5_000);
        double wall = (System.nanoTime() - start) / 1e9;
        if (killed[0] != null) {
            return new Probe(Double.NaN, Double.NaN, wall, peak[0], killed[0]);
        }
        JsonNode step = r.assertOk().step("attach");
        if (r.scalar("attach") != 6) {
            throw new AssertionError("first query read " + r.scalar("attach") + " rows of lake.orders, expected 6");
        }
        return new Probe(step.path("attach_ms").asDouble(), step.path("first_query_ms").asDouble(), wall, peak[0], null);
    }

    /** A kB figure of /proc/&lt;pid&gt;/status, or 0 when the process is gone. */
    private static long statusKib(long pid, String key) {
        try {
            for (String l : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (l.startsWith(key)) {
                    return Long.parseLong(l.substring(key.length()).replace("kB", "").strip());
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }
}
