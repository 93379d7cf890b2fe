package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.StorageLocation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.io.BufferedWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27: reading an inventory of up to 10,000,000 entries (a plain list in random order, S3-shaped addresses under
 * 1,000 table folders; half under the swept data path) into the sorted listing the orphan merge reads. Prints, per size,
 * the time, the time per entry and the largest heap right after a collection (sampled every 100 ms); asserts only that
 * every entry under the root came out once, in byte order.
 * <pre>
 * nice mvn -B -o test -Dtest=InventoryBenchmark -Dducklake.bench=true -Dducklake.bench.sizes=1000000,10000000 -DargLine=-Xmx128m
 * </pre>
 */
@EnabledIfSystemProperty(named = "ducklake.bench", matches = "true")
class InventoryBenchmark {

    @Test
    void sortAnInventory() throws Exception {
        Path dir = Files.createTempDirectory("bench-inventory-");
        for (String size : System.getProperty("ducklake.bench.sizes", "1000000,10000000").split(",")) {
            int n = Integer.parseInt(size.strip());
            Path inv = dir.resolve("inventory-" + n + ".tsv");
            try (BufferedWriter w = Files.newBufferedWriter(inv)) {
                long x = 88172645463325252L;
                for (int i = 0; i < n; i++) {
                    x ^= x << 13;
                    x ^= x >>> 7;
                    x ^= x << 17;
                    long r = x & Long.MAX_VALUE;
                    String base = (i % 2 == 0) ? "s3://bucket/lake/" : "s3://bucket/other/";
                    w.write(base + "main/t" + (r % 1000) + "/ducklake-" + Long.toHexString(r) + "-" + i + ".parquet\t1048576\t2026-11-01T00:00:00Z\n");
                }
            }
            AtomicLong maxAfterGc = new AtomicLong();
            AtomicBoolean done = new AtomicBoolean();
            Thread sampler = new Thread(() -> {
                while (!done.get()) {
                    long used = 0;
                    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
                        if (p.getType() == MemoryType.HEAP && p.getCollectionUsage() != null) {
                            used += p.getCollectionUsage().getUsed();
                        }
                    }
                    maxAfterGc.accumulateAndGet(used, Math::max);
                    try {
                        Thread.sleep(100);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
            sampler.setDaemon(true);
            System.gc();
            sampler.start();
            long t0 = System.nanoTime();
            Inventory.Counts counts = new Inventory.Counts();
            long out = 0;
            String prev = null;
            try (FileStore.Listing l = Inventory.open(inv, StorageLocation.parse("s3://bucket/lake/"), dir, counts)) {
                while (l.hasNext()) {
                    String c = l.next().location().canonical();
                    if (prev != null && StorageLocation.compareCodePoints(prev, c) >= 0) {
                        throw new AssertionError("out of order: " + prev + " then " + c);
                    }
                    prev = c;
                    out++;
                }
            }
            double s = (System.nanoTime() - t0) / 1e9;
            done.set(true);
            sampler.join();
            assertThat(out).isEqualTo((n + 1) / 2);
            System.out.printf(Locale.ROOT, "inventory %,d entries (%,d under the root): %.1f s, %.2f us/entry, heap after GC max %.1f MiB, -Xmx %d MiB%n",
                    n, out, s, s * 1e6 / n, maxAfterGc.get() / 1048576.0, Runtime.getRuntime().maxMemory() / 1048576);
            Files.delete(inv);
        }
    }
}
