package dev.ducklake.janitor.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21: the {@code delete-orphan-files} sweep (the CLI, in process: dry run, then execute) over real local files,
 * 1,000,000 by default, under {@code -Xmx256m}, against {@code find} listing the same tree (size, mtime, path of every
 * file: what the sweep's listing reads) in the same run. Prints numbers, asserts only correctness (every listed file
 * seen, exactly the orphans deleted, every known file kept). The sizes are grown in one tree, so the heap figures of
 * each size come from the same JVM:
 * <pre>
 * nice mvn -B -o test -Dtest=OrphanSweepLocalBenchmark -Dducklake.bench=true -Dducklake.bench.sizes=100000,1000000 \
 *     -DargLine=-Xmx256m
 * </pre>
 * Layout: table folder {@code main/test/} with partition folders {@code part=NNNN/} of {@code ducklake.bench.perdir} files
 * (default 1,000; the local listing holds one directory's entries at a time); one file in 1,000 is an orphan, the rest
 * are live data file rows; every file is 10 days old. "Heap after GC" is the largest used heap right after a collection
 * ({@link MemoryPoolMXBean#getCollectionUsage()}, summed over the heap pools) sampled every 100 ms during the command.
 */
@EnabledIfSystemProperty(named = "ducklake.bench", matches = "true")
class OrphanSweepLocalBenchmark {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void sweepLocalFiles() throws Exception {
        List<Integer> sizes = new ArrayList<>();
        for (String s : System.getProperty("ducklake.bench.sizes", "100000,1000000").split(",")) {
            sizes.add(Integer.parseInt(s.strip()));
        }
        int perDir = Integer.getInteger("ducklake.bench.perdir", 1000);
        Path lake = Files.createTempDirectory("bench-dofl-");
        FileCatalog cat = FileCatalog.create("bench_dofl", lake + "/");
        Path table = lake.resolve("main/test");
        FileTime old = FileTime.from(Instant.now().minus(Duration.ofDays(10)));
        byte[] body = new byte[16];
        int made = 0;
        long orphansLeft = 0;
        long deletedSoFar = 0;
        System.out.printf(Locale.ROOT, "BENCH dofl max heap %d MiB, %d files per folder, lake %s%n",
                Runtime.getRuntime().maxMemory() >> 20, perDir, lake);
        for (int n : sizes) {
            long t0 = System.nanoTime();
            for (int i = made; i < n; i++) {
                Path dir = table.resolve(String.format(Locale.ROOT, "part=%05d", i / perDir));
                if (i % perDir == 0 || i == made) {
                    Files.createDirectories(dir);
                }
                Path f = dir.resolve(String.format(Locale.ROOT, "f%08d.parquet", i));
                Files.write(f, body);
                Files.setLastModifiedTime(f, old);
                if (i % 1000 == 7) {
                    orphansLeft++;
                }
            }
            try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
                st.executeUpdate("INSERT INTO " + Sql.qualified(cat.schema, "ducklake_data_file")
                        + " (data_file_id, table_id, begin_snapshot, path, path_is_relative, file_format, file_size_bytes)"
                        + " SELECT 10000000 + g, 1, 1, 'part=' || lpad((g / " + perDir + ")::text, 5, '0') || '/f'"
                        + " || lpad(g::text, 8, '0') || '.parquet', true, 'parquet', 16 FROM generate_series(" + made + ", "
                        + (n - 1) + ") g WHERE g % 1000 <> 7");
                st.execute("ANALYZE " + Sql.qualified(cat.schema, "ducklake_data_file"));
            }
            made = n;
            System.out.printf(Locale.ROOT, "BENCH dofl n=%d: tree and catalog rows built in %.1f s%n", n, (System.nanoTime() - t0) / 1e9);

            find(lake); // warm the dentry and inode caches for both
            double findSecs = find(lake);
            String[] base = {"delete-orphan-files", "--catalog", TestPostgres.get().url(), "--metadata-schema", cat.schema,
                "--older-than", "2d", "--output", "json", "--no-consult-server"};
            Measured dry = measure(concat(base, "--dry-run"));
            JsonNode d = dry.doc;
            assertThat(dry.exit).as(dry.err).isZero();
            assertThat(d.path("listed").asLong()).isEqualTo(n - deletedSoFar);
            assertThat(d.path("candidates").asLong()).isEqualTo(orphansLeft);
            Measured exec = measure(concat(base, "--yes"));
            JsonNode e = exec.doc;
            assertThat(exec.exit).as(exec.err).isZero();
            assertThat(e.path("files_deleted").asLong()).isEqualTo(orphansLeft);
            try (var files = Files.walk(table)) {
                assertThat(files.filter(Files::isRegularFile).count()).isEqualTo(n - countOrphans(n));
            }
            deletedSoFar += orphansLeft;
            orphansLeft = 0;
            System.out.printf(Locale.ROOT, "BENCH dofl n=%d: find %.2f s; dry run %.2f s (%.1fx find), heap after GC max %d MiB,"
                    + " %d GCs; execute %.2f s (%.1fx find), %d deleted, heap after GC max %d MiB, %d GCs%n", n, findSecs,
                    dry.seconds, dry.seconds / findSecs, dry.maxAfterGc >> 20, dry.gcs, exec.seconds, exec.seconds / findSecs,
                    e.path("files_deleted").asLong(), exec.maxAfterGc >> 20, exec.gcs);
        }
        // the tree holds up to a million files: rm is faster than a walk from Java
        new ProcessBuilder("rm", "-rf", lake.toString()).inheritIO().start().waitFor();
    }

    private static long countOrphans(int n) {
        return n / 1000 + (n % 1000 > 7 ? 1 : 0);
    }

    private record Measured(int exit, String err, JsonNode doc, double seconds, long maxAfterGc, long gcs) {
    }

    private static Measured measure(String[] args) throws Exception {
        System.gc();
        AtomicBoolean done = new AtomicBoolean();
        AtomicLong max = new AtomicLong();
        List<MemoryPoolMXBean> pools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP && p.getCollectionUsage() != null).toList();
        long gc0 = gcCount();
        Thread sampler = new Thread(() -> {
            while (!done.get()) {
                long used = 0;
                for (MemoryPoolMXBean p : pools) {
                    MemoryUsage u = p.getCollectionUsage();
                    used += u == null ? 0 : u.getUsed();
                }
                max.accumulateAndGet(used, Math::max);
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }, "bench-heap-sampler");
        sampler.setDaemon(true);
        sampler.start();
        long t0 = System.nanoTime();
        CliRun r = CliRun.run(args);
        double secs = (System.nanoTime() - t0) / 1e9;
        done.set(true);
        sampler.join();
        JsonNode doc = JSON.readTree(r.out());
        return new Measured(r.exitCode(), r.err(), doc, secs, max.get(), gcCount() - gc0);
    }

    private static long gcCount() {
        long n = 0;
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, b.getCollectionCount());
        }
        return n;
    }

    /** {@code find DIR -type f -printf '%s %T@ %p\n'}, output discarded: the plain listing of the same tree, seconds. */
    private static double find(Path dir) throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder("find", dir.toString(), "-type", "f", "-printf", "%s %T@ %p\\n")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start();
        assertThat(p.waitFor()).isZero();
        return (System.nanoTime() - t0) / 1e9;
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
