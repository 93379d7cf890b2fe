package dev.ducklake.janitor.bench;

import dev.ducklake.janitor.interop.InteropCatalog;
import dev.ducklake.janitor.interop.RealDuckLake;
import dev.ducklake.janitor.ops.cleanupoldfiles.QueueSweep;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.ops.deleteorphanfiles.OrphanSweep;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesOptions;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesResult;
import dev.ducklake.janitor.ops.files.AgeThreshold;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.AbstractFileStore;
import dev.ducklake.janitor.storage.DeleteOutcome;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.storage.S3FileStore;
import dev.ducklake.janitor.storage.StorageLocation;
import dev.ducklake.janitor.storage.StoredObject;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.S3TestServer;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Storage benchmarks (issue 14), printed, never asserted on time. Run one at a time:
 * {@code mvn -B test -Dtest=StorageBenchmark#<method> -Dducklake.bench.storage=true [-Dducklake.bench.n=100000]
 * [-DargLine=-Xmx256m]}.
 */
class StorageBenchmark {

    private static int n(int def) {
        return Integer.getInteger("ducklake.bench.n", def);
    }

    private static void gate() {
        Assumptions.assumeTrue(Boolean.getBoolean("ducklake.bench.storage"), "set -Dducklake.bench.storage=true");
    }

    private static void makeFiles(Path dir, int n) throws IOException {
        Files.createDirectories(dir);
        byte[] b = new byte[16];
        for (int i = 0; i < n; i++) {
            Files.write(dir.resolve("f" + i + ".parquet"), b);
        }
    }

    private static void queue(Connection c, String schema, int n) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified(schema, "ducklake_files_scheduled_for_deletion")
                + " SELECT 100000000 + g, 'main/q/f' || g || '.parquet', true, now() - interval '3 days' FROM generate_series(0, ? - 1) g")) {
            ps.setInt(1, n);
            ps.executeUpdate();
        }
    }

    /** 100,000 queued local files: ours vs DuckLake's ducklake_cleanup_old_files vs plain unlink (the floor). */
    @Test
    void cleanupLocal() throws Exception {
        gate();
        int n = n(100_000);
        // ours
        Path lake = Files.createTempDirectory("bench-cof-");
        FileCatalog cat = FileCatalog.create("bench_cof", lake + "/");
        makeFiles(lake.resolve("main/q"), n);
        try (Connection c = TestPostgres.get().connect()) {
            queue(c, cat.schema, n);
        }
        long t0 = System.nanoTime();
        CleanupOldFilesResult r;
        try (Connection c = TestPostgres.get().connect()) {
            r = QueueSweep.run(c, new LocalFileStore(), CleanupOldFilesOptions.builder(cat.schema).dryRun(false)
                    .batchSize(2000).build(), FileListener.NONE);
        }
        double ours = (System.nanoTime() - t0) / 1e9;
        assertThat(r.filesDeleted()).isEqualTo(n);
        // floor: unlink of the same number of files
        makeFiles(lake.resolve("floor"), n);
        t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            Files.delete(lake.resolve("floor/f" + i + ".parquet"));
        }
        double floor = (System.nanoTime() - t0) / 1e9;
        // DuckLake's own on a catalog it created
        InteropCatalog dl = InteropCatalog.fresh("bench_cof_dl");
        dl.run(RealDuckLake.program().attach(dl.attach()).sql("CREATE TABLE lake.t(i INTEGER)"));
        makeFiles(dl.dataDir().resolve("main/q"), n);
        try (Connection c = dl.connect()) {
            queue(c, dl.schema(), n);
        }
        // wall time of DuckLake's run minus an identical run without the cleanup (process start, ATTACH)
        t0 = System.nanoTime();
        dl.run(RealDuckLake.program().attach(dl.attach()).query("baseline", "SELECT 1"));
        double baseline = (System.nanoTime() - t0) / 1e9;
        t0 = System.nanoTime();
        RealDuckLake.Result res = dl.run(RealDuckLake.program().attach(dl.attach())
                .query("cleanup", "SELECT count(*) FROM ducklake_cleanup_old_files('lake', cleanup_all => true)"));
        double duck = (System.nanoTime() - t0) / 1e9 - baseline;
        try (Connection c = dl.connect()) {
            assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + Sql.qualified(dl.schema(), "ducklake_files_scheduled_for_deletion"))).isZero();
        }
        System.out.printf("BENCH cleanup-old-files local n=%d: ours %.2f s, DuckLake %.2f s (wall minus ATTACH baseline), unlink floor %.2f s; "
                + "ours/DuckLake %.2f, ours/floor %.2f%n", n, ours, duck, floor, duck > 0 ? ours / duck : Double.NaN, ours / floor);
        System.out.println("BENCH DuckLake step doc: " + res.step("cleanup"));
    }

    /** Wall seconds of {@code find DIR -type f -delete} (the unlink floor). */
    private static double findDelete(Path dir) throws Exception {
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder("find", dir.toString(), "-type", "f", "-delete").inheritIO().start();
        assertThat(p.waitFor()).isZero();
        return (System.nanoTime() - t0) / 1e9;
    }

    /** Wall seconds of DuckLake's function on its own catalog, minus an identical run without it (start-up, ATTACH). */
    private static double duckLake(InteropCatalog dl, String sql) {
        long t0 = System.nanoTime();
        dl.run(RealDuckLake.program().attach(dl.attach()).query("baseline", "SELECT 1"));
        double baseline = (System.nanoTime() - t0) / 1e9;
        t0 = System.nanoTime();
        dl.run(RealDuckLake.program().attach(dl.attach()).query("step", sql));
        return (System.nanoTime() - t0) / 1e9 - baseline;
    }

    private static double cleanupOurs(int n, int concurrency) throws Exception {
        Path lake = Files.createTempDirectory("bench-pcof-");
        FileCatalog cat = FileCatalog.create("bench_pcof", lake + "/");
        makeFiles(lake.resolve("main/q"), n);
        try (Connection c = TestPostgres.get().connect()) {
            queue(c, cat.schema, n);
        }
        long t0 = System.nanoTime();
        CleanupOldFilesResult r;
        try (Connection c = TestPostgres.get().connect()) {
            r = QueueSweep.run(c, new LocalFileStore(), CleanupOldFilesOptions.builder(cat.schema).dryRun(false)
                    .batchSize(2000).deleteConcurrency(concurrency).build(), FileListener.NONE);
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        assertThat(r.filesDeleted()).isEqualTo(n);
        assertThat(r.bytes()).isEqualTo(16L * n);
        return secs;
    }

    private static double orphansOurs(int n, int concurrency) throws Exception {
        Path lake = Files.createTempDirectory("bench-pdof-");
        FileCatalog cat = FileCatalog.create("bench_pdof", lake + "/");
        makeFiles(lake.resolve("main/o"), n);
        FileCatalog.file(lake.resolve("main/test/known.parquet"), Duration.ofDays(3)); // table 1 of fixture 0.4 lives at main/test/
        cat.dataFile(1, "known.parquet", true);
        Thread.sleep(20);
        long t0 = System.nanoTime();
        DeleteOrphanFilesResult r;
        try (Connection c = TestPostgres.get().connect()) {
            r = OrphanSweep.run(c, new LocalFileStore(), DeleteOrphanFilesOptions.builder(cat.schema).dryRun(false)
                    .minAge(Duration.ZERO).allowShortRetention(true).olderThan(AgeThreshold.parse("0s"))
                    .maxOrphanRatio(1.0).deleteConcurrency(concurrency).build(), FileListener.NONE);
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        assertThat(r.deleted()).isEqualTo(n);
        return secs;
    }

    /**
     * Issue 27: cleanup-old-files and delete-orphan-files over local files at each size of {@code -Dducklake.bench.sizes}
     * (default 50000,100000): ours at --delete-concurrency 4 and at 1 (the local default), after one warm-up run of each
     * command at 2,000 files so that neither pays the cold JVM; DuckLake's own function on an identical copy (its wall
     * time minus an ATTACH-only run), and {@code find -delete} of an identical directory.
     */
    @Test
    void parallelDeletesLocal() throws Exception {
        gate();
        cleanupOurs(2000, 1);
        orphansOurs(2000, 1);
        for (String size : System.getProperty("ducklake.bench.sizes", "50000,100000").split(",")) {
            int n = Integer.parseInt(size.trim());
            double oursDefault = cleanupOurs(n, 4);
            double oursOne = cleanupOurs(n, 1);
            InteropCatalog dl = InteropCatalog.fresh("bench_pcof_dl");
            dl.run(RealDuckLake.program().attach(dl.attach()).sql("CREATE TABLE lake.t(i INTEGER)"));
            makeFiles(dl.dataDir().resolve("main/q"), n);
            try (Connection c = dl.connect()) {
                queue(c, dl.schema(), n);
            }
            double duck = duckLake(dl, "SELECT count(*) FROM ducklake_cleanup_old_files('lake', cleanup_all => true)");
            try (Connection c = dl.connect()) {
                assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + Sql.qualified(dl.schema(), "ducklake_files_scheduled_for_deletion"))).isZero();
            }
            Path floorDir = Files.createTempDirectory("bench-floor-");
            makeFiles(floorDir, n);
            double floor = findDelete(floorDir);
            System.out.printf(java.util.Locale.ROOT, "BENCH issue27 cleanup-old-files local n=%d: ours(4) %.2f s, ours(1) %.2f s,"
                    + " DuckLake %.2f s, find -delete %.2f s; DuckLake/ours(4) %.2fx, floor/ours(4) %.2fx, ours(4)/ours(1) speed-up %.2fx%n", n,
                    oursDefault, oursOne, duck, floor, duck / oursDefault, floor / oursDefault,
                    oursOne / oursDefault);

            double oDefault = orphansOurs(n, 4);
            double oOne = orphansOurs(n, 1);
            InteropCatalog dl2 = InteropCatalog.fresh("bench_pdof_dl");
            dl2.run(RealDuckLake.program().attach(dl2.attach()).sql("CREATE TABLE lake.t(i INTEGER)"));
            makeFiles(dl2.dataDir().resolve("main/o"), n);
            double duck2 = duckLake(dl2, "SELECT count(*) FROM ducklake_delete_orphaned_files('lake', cleanup_all => true)");
            try (var files = Files.walk(dl2.dataDir().resolve("main/o"))) {
                assertThat(files.filter(Files::isRegularFile).count()).as("DuckLake deleted the orphans").isZero();
            }
            Path floorDir2 = Files.createTempDirectory("bench-floor-");
            makeFiles(floorDir2, n);
            double floor2 = findDelete(floorDir2);
            System.out.printf(java.util.Locale.ROOT, "BENCH issue27 delete-orphan-files local n=%d: ours(4) %.2f s, ours(1) %.2f s,"
                    + " DuckLake %.2f s, find -delete %.2f s; DuckLake/ours(4) %.2fx, floor/ours(4) %.2fx, ours(4)/ours(1) speed-up %.2fx%n", n,
                    oDefault, oOne, duck2, floor2, duck2 / oDefault, floor2 / oDefault,
                    oOne / oDefault);
        }
    }

    /** One timed S3 run: seconds, and the requests it sent through the fault proxy by kind. */
    private record S3Run(double secs, int lists, int deletes, int heads) {
        @Override
        public String toString() {
            return String.format(java.util.Locale.ROOT, "%.2f s (%d list, %d DeleteObjects, %d HEAD requests)", secs, lists, deletes, heads);
        }
    }

    /** A store that gives no size (no listing, no HeadObject): what cleanup-old-files costs without bytes_deleted. */
    private static FileStore unsized(FileStore inner) {
        return new dev.ducklake.janitor.storage.ForwardingStore(inner) {
            @Override
            public java.util.Map<String, Long> listedSizes(List<String> addresses) {
                return java.util.Map.of();
            }

            @Override
            public Optional<StoredObject> stat(String address) {
                return Optional.empty();
            }
        };
    }

    /** cleanup-old-files of {@code n} queued S3 objects of one folder, in batches of 2,000. */
    private static S3Run cleanupS3(S3TestServer s3, String bucket, String name, int n, int latency, int concurrency,
                                   boolean sizes) throws Exception {
        FileCatalog cat = FileCatalog.create(name, "s3://" + bucket + "/" + name + "/");
        for (int i = 0; i < n; i++) {
            s3.put(bucket, name + "/main/q/f" + i + ".parquet", 16);
        }
        try (Connection c = TestPostgres.get().connect()) {
            queue(c, cat.schema, n);
        }
        s3.latencyMillis = latency;
        int rq = s3.requests.get();
        int dl = s3.batchDeletes.get();
        int hd = s3.heads.get();
        long t0 = System.nanoTime();
        CleanupOldFilesResult r;
        try (Connection c = TestPostgres.get().connect(); FileStore store = sizes ? s3.faultyStore() : unsized(s3.faultyStore())) {
            r = QueueSweep.run(c, store, CleanupOldFilesOptions.builder(cat.schema).dryRun(false)
                    .batchSize(2000).deleteConcurrency(concurrency).build(), FileListener.NONE);
        } finally {
            s3.latencyMillis = 0;
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        assertThat(r.filesDeleted()).isEqualTo(n);
        assertThat(r.bytes()).isEqualTo(sizes ? 16L * n : 0);
        int deletes = s3.batchDeletes.get() - dl;
        int heads = s3.heads.get() - hd;
        return new S3Run(secs, s3.requests.get() - rq - deletes - heads, deletes, heads);
    }

    /** delete-orphan-files of {@code n} orphan S3 objects of one folder (and one known file). */
    private static S3Run orphansS3(S3TestServer s3, String bucket, String name, int n, int latency, int concurrency) throws Exception {
        FileCatalog cat = FileCatalog.create(name, "s3://" + bucket + "/" + name + "/");
        for (int i = 0; i < n; i++) {
            s3.put(bucket, name + "/main/o/f" + i + ".parquet", 16);
        }
        s3.put(bucket, name + "/main/test/known.parquet", 16); // table 1 of fixture 0.4 lives at main/test/
        cat.dataFile(1, "known.parquet", true);
        Thread.sleep(1100); // S3 times are whole seconds
        s3.latencyMillis = latency;
        int rq = s3.requests.get();
        int dl = s3.batchDeletes.get();
        int hd = s3.heads.get();
        long t0 = System.nanoTime();
        DeleteOrphanFilesResult o;
        try (Connection c = TestPostgres.get().connect(); FileStore store = s3.faultyStore()) {
            o = OrphanSweep.run(c, store, DeleteOrphanFilesOptions.builder(cat.schema).dryRun(false)
                    .minAge(Duration.ZERO).allowShortRetention(true).olderThan(AgeThreshold.parse("0s"))
                    .maxOrphanRatio(1.0).deleteConcurrency(concurrency).build(), FileListener.NONE);
        } finally {
            s3.latencyMillis = 0;
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        assertThat(o.deleted()).isEqualTo(n);
        int deletes = s3.batchDeletes.get() - dl;
        int heads = s3.heads.get() - hd;
        return new S3Run(secs, s3.requests.get() - rq - deletes - heads, deletes, heads);
    }

    /**
     * Issue 27: both commands on S3 (S3Proxy behind the fault proxy, {@code -Dducklake.bench.latency} ms per request,
     * default 20) at concurrency 1 and at the default (8), {@code -Dducklake.bench.n} files (default 20,000), after a
     * warm-up run of each at 1,000 files (so that the first measured run does not pay the cold JVM); each run in a
     * bucket of its own. Also cleanup-old-files at 8 against a store that gives no sizes (no bytes_deleted: what the
     * catalog side and the deletes cost alone), and the floor: the same DeleteObjects requests from a plain client.
     */
    @Test
    void parallelDeletesS3() throws Exception {
        gate();
        int n = n(20_000);
        int latency = Integer.getInteger("ducklake.bench.latency", 20);
        try (S3TestServer s3 = new S3TestServer()) {
            String warm = S3TestServer.runBucket("benchpw");
            s3.createBucket(warm);
            cleanupS3(s3, warm, "bench_s3cofw", 1000, latency, 0, true);
            orphansS3(s3, warm, "bench_s3dofw", 1000, latency, 0);
            S3Run[] cof = new S3Run[2];
            S3Run[] dof = new S3Run[2];
            int[] conc = {1, 0};
            for (int k = 0; k < 2; k++) {
                String bucket = S3TestServer.runBucket("benchp" + k);
                s3.createBucket(bucket);
                cof[k] = cleanupS3(s3, bucket, "bench_s3cof", n, latency, conc[k], true);
                String bucket2 = S3TestServer.runBucket("benchq" + k);
                s3.createBucket(bucket2);
                dof[k] = orphansS3(s3, bucket2, "bench_s3dof", n, latency, conc[k]);
            }
            String bucket3 = S3TestServer.runBucket("benchns");
            s3.createBucket(bucket3);
            S3Run noSizes = cleanupS3(s3, bucket3, "bench_s3cofns", n, latency, 0, false);
            double[] floor = {deleteFloor(s3, n, latency, 1), deleteFloor(s3, n, latency, AbstractFileStore.OBJECT_STORE_DELETE_CONCURRENCY)};
            System.out.printf(java.util.Locale.ROOT, "BENCH issue27 S3 (%d ms per request) n=%d cleanup-old-files: 1 in flight %s,"
                    + " 8 in flight %s; %.2fx; at 8 without sizes %s%n", latency, n, cof[0], cof[1], cof[0].secs() / cof[1].secs(), noSizes);
            System.out.printf(java.util.Locale.ROOT, "BENCH issue27 S3 (%d ms per request) n=%d delete-orphan-files: 1 in flight %s,"
                    + " 8 in flight %s; %.2fx%n", latency, n, dof[0], dof[1], dof[0].secs() / dof[1].secs());
            System.out.printf(java.util.Locale.ROOT, "BENCH issue27 S3 (%d ms per request) n=%d floor (plain SDK client, the same"
                    + " DeleteObjects of 1,000 keys): 1 in flight %.2f s, 8 in flight %.2f s; at 8 over the floor at 8: cleanup-old-files"
                    + " %.2fx (without sizes %.2fx), delete-orphan-files %.2fx; 1 in flight over 8: cleanup %.2fx, orphans %.2fx%n",
                    latency, n, floor[0], floor[1], cof[1].secs() / floor[1], noSizes.secs() / floor[1], dof[1].secs() / floor[1],
                    cof[0].secs() / cof[1].secs(), dof[0].secs() / dof[1].secs());
        }
    }

    /**
     * The concurrency floor of an S3 delete: {@code n} fresh keys deleted by a plain SDK client in DeleteObjects requests
     * of 1,000 keys, {@code concurrency} requests in flight, through the same fault proxy and latency.
     *
     * @return seconds
     */
    private static double deleteFloor(S3TestServer s3, int n, int latency, int concurrency) throws Exception {
        String bucket = S3TestServer.runBucket("floor" + concurrency);
        s3.createBucket(bucket);
        List<List<software.amazon.awssdk.services.s3.model.ObjectIdentifier>> batches = new ArrayList<>();
        for (int i = 0; i < n; i += 1000) {
            List<software.amazon.awssdk.services.s3.model.ObjectIdentifier> ids = new ArrayList<>();
            for (int j = i; j < Math.min(n, i + 1000); j++) {
                s3.put(bucket, "lake/main/q/f" + j + ".parquet", 16);
                ids.add(software.amazon.awssdk.services.s3.model.ObjectIdentifier.builder().key("lake/main/q/f" + j + ".parquet").build());
            }
            batches.add(ids);
        }
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(concurrency);
        try (software.amazon.awssdk.services.s3.S3Client client = software.amazon.awssdk.services.s3.S3Client.builder()
                .endpointOverride(s3.faultEndpoint()).forcePathStyle(true).region(software.amazon.awssdk.regions.Region.US_EAST_1)
                .httpClientBuilder(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.builder())
                .requestChecksumCalculation(software.amazon.awssdk.core.checksums.RequestChecksumCalculation.WHEN_REQUIRED)
                .build()) {
            s3.latencyMillis = latency;
            long t0 = System.nanoTime();
            List<java.util.concurrent.Future<?>> fs = new ArrayList<>();
            for (List<software.amazon.awssdk.services.s3.model.ObjectIdentifier> ids : batches) {
                fs.add(pool.submit(() -> client.deleteObjects(r -> r.bucket(bucket)
                        .delete(d -> d.objects(ids).quiet(true)))));
            }
            for (java.util.concurrent.Future<?> f : fs) {
                f.get();
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            s3.latencyMillis = 0;
            assertThat(s3.exists(bucket, "lake/main/q/f0.parquet")).isFalse();
            return secs;
        } finally {
            s3.latencyMillis = 0;
            pool.shutdownNow();
        }
    }

    /** Query plans of the cleanup's statements on a 100,000-row queue (for tuning). */
    @Test
    void cleanupPlans() throws Exception {
        gate();
        int n = n(100_000);
        FileCatalog cat = FileCatalog.create("bench_plan", "/nowhere/");
        try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
            queue(c, cat.schema, n);
            String q = Sql.qualified(cat.schema, "ducklake_files_scheduled_for_deletion");
            for (String sql : List.of(
                    "EXPLAIN ANALYZE SELECT data_file_id, path, coalesce(path_is_relative::int, 2), count(*) FROM " + q
                            + " WHERE schedule_start < now() AND path IS NOT NULL AND (coalesce(data_file_id, -1), path COLLATE \"C\","
                            + " coalesce(path_is_relative::int, 2)) > (100050000, '', 0) GROUP BY data_file_id, path, path_is_relative"
                            + " ORDER BY coalesce(data_file_id, -1), path COLLATE \"C\", coalesce(path_is_relative::int, 2) LIMIT 2000",
                    "BEGIN",
                    "EXPLAIN ANALYZE DELETE FROM " + q + " q USING (SELECT 100000000 + g AS id, 'main/q/f' || g || '.parquet' AS p, 1 AS r"
                            + " FROM generate_series(0, 1999) g) d WHERE q.data_file_id IS NOT DISTINCT FROM d.id AND q.path COLLATE \"C\" = d.p"
                            + " AND coalesce(q.path_is_relative::int, 2) = d.r AND q.schedule_start < now()",
                    "ROLLBACK")) {
                boolean rs = st.execute(sql);
                if (rs) {
                    try (var r = st.getResultSet()) {
                        while (r.next()) {
                            System.out.println("PLAN " + r.getString(1));
                        }
                    }
                }
            }
        }
    }

    /** S3Proxy: batch (DeleteObjects, 1,000 keys) vs single deletes. */
    @Test
    void s3BatchVsSingle() throws Exception {
        gate();
        int n = n(5_000);
        try (S3TestServer s3 = new S3TestServer()) {
            s3.createBucket("bench");
            for (int i = 0; i < n; i++) {
                s3.put("bench", "a/f" + i + ".parquet", 1);
                s3.put("bench", "b/f" + i + ".parquet", 1);
            }
            List<String> a = new ArrayList<>();
            List<String> b = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                a.add("s3://bench/a/f" + i + ".parquet");
                b.add("s3://bench/b/f" + i + ".parquet");
            }
            double batch;
            double single;
            try (S3FileStore store = s3.store()) {
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i += 1000) {
                    DeleteOutcome o = store.delete(a.subList(i, Math.min(n, i + 1000)));
                    assertThat(o.failed()).isEmpty();
                }
                batch = (System.nanoTime() - t0) / 1e9;
                store.disableBatchDelete();
                t0 = System.nanoTime();
                for (int i = 0; i < n; i += 1000) {
                    store.delete(b.subList(i, Math.min(n, i + 1000)));
                }
                single = (System.nanoTime() - t0) / 1e9;
            }
            System.out.printf("BENCH S3Proxy deletes n=%d: batch %.2f s (%.0f/s), single %.2f s (%.0f/s), ratio %.1fx%n", n, batch,
                    n / batch, single, n / single, single / batch);
        }
    }

    /**
     * Issue 27: listing a data path on S3 page after page against its table folders listed concurrently
     * ({@link S3FileStore#LIST_CONCURRENCY}), S3Proxy behind the fault proxy's {@code -Dducklake.bench.latency} ms per
     * request; {@code -Dducklake.bench.n} objects spread over {@code -Dducklake.bench.tables} table folders of one
     * schema. Both listings must give the same objects in the same order.
     */
    @Test
    void listingS3() throws Exception {
        gate();
        int n = n(50_000);
        int tables = Integer.getInteger("ducklake.bench.tables", 50);
        int latency = Integer.getInteger("ducklake.bench.latency", 20);
        try (S3TestServer s3 = new S3TestServer()) {
            s3.createBucket("listing");
            for (int i = 0; i < n; i++) {
                s3.put("listing", String.format(java.util.Locale.ROOT, "lake/main/t%04d/f%07d.parquet", i % tables, i), 1);
            }
            s3.latencyMillis = latency;
            double[] secs = new double[2];
            int[] requests = new int[2];
            List<List<String>> got = new ArrayList<>();
            int[] concurrency = {1, S3FileStore.LIST_CONCURRENCY};
            for (int round = 0; round < 2; round++) { // the first round warms up
                for (int k = 0; k < 2; k++) {
                    try (S3FileStore store = new S3FileStore(new S3FileStore.Settings("us-east-1", s3.faultEndpoint(), true),
                            S3FileStore.Timeouts.DEFAULTS, concurrency[k])) {
                        int r0 = s3.requests.get();
                        long t0 = System.nanoTime();
                        List<String> addresses = new ArrayList<>(n);
                        try (FileStore.Listing l = store.list(StorageLocation.parse("s3://listing/lake/"))) {
                            while (l.hasNext()) {
                                addresses.add(l.next().address());
                            }
                        }
                        secs[k] = (System.nanoTime() - t0) / 1e9;
                        requests[k] = s3.requests.get() - r0;
                        if (round == 1) {
                            got.add(addresses);
                        }
                    }
                }
            }
            assertThat(got.get(0)).hasSize(n);
            assertThat(got.get(1)).isEqualTo(got.get(0));
            System.out.printf(java.util.Locale.ROOT, "BENCH issue27 S3 listing (%d ms per request) n=%d in %d table folders: one page at a"
                    + " time %.2f s (%d requests, %.0f objects/s), %d folder ranges at once %.2f s (%d requests, %.0f objects/s), %.2fx%n",
                    latency, n, tables, secs[0], requests[0], n / secs[0], concurrency[1], secs[1], requests[1], n / secs[1], secs[0] / secs[1]);
        }
    }

    /** An orphan sweep over 1,000,000 listed objects (synthetic listing, real known set in PostgreSQL); run with -Xmx256m. */
    @Test
    void orphanSweepMillion() throws Exception {
        gate();
        int n = n(1_000_000);
        FileCatalog cat = FileCatalog.create("bench_dof", "/bench-lake/");
        try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
            // every listed file but 1 in 1,000 is known
            st.executeUpdate("INSERT INTO " + Sql.qualified(cat.schema, "ducklake_data_file")
                    + " (data_file_id, table_id, begin_snapshot, path, path_is_relative) SELECT 10000000 + g, 1, 1,"
                    + " 'f' || lpad(g::text, 8, '0') || '.parquet', true FROM generate_series(0, " + (n - 1) + ") g WHERE g % 1000 <> 7");
        }
        Instant old = Instant.now().minus(Duration.ofDays(10));
        FileStore synthetic = new FileStore() {
            @Override
            public Listing list(StorageLocation prefix) {
                return new Listing() {
                    int i;

                    @Override
                    public boolean hasNext() {
                        return i < n;
                    }

                    @Override
                    public StoredObject next() {
                        if (i >= n) {
                            throw new NoSuchElementException();
                        }
                        String a = String.format("/bench-lake/main/test/f%08d.parquet", i++);
                        return new StoredObject(StorageLocation.parse(a), a, 1000, old);
                    }

                    @Override
                    public void close() {
                    }
                };
            }

            @Override
            public DeleteOutcome delete(List<String> addresses) {
                return new DeleteOutcome(new java.util.HashSet<>(addresses), java.util.Set.of(), java.util.Map.of());
            }

            @Override
            public Optional<StoredObject> stat(String address) {
                return Optional.empty();
            }

            @Override
            public int maxDeleteBatch() {
                return 1000;
            }

            @Override
            public void disableBatchDelete() {
            }

            @Override
            public boolean batchDeleteEnabled() {
                return true;
            }

            @Override
            public void close() {
            }
        };
        long t0 = System.nanoTime();
        DeleteOrphanFilesResult r;
        try (Connection c = TestPostgres.get().connect()) {
            r = OrphanSweep.run(c, synthetic, DeleteOrphanFilesOptions.builder(cat.schema).dryRun(false)
                    .olderThan(AgeThreshold.parse("2d")).build(), FileListener.NONE);
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        assertThat(r.listed()).isEqualTo(n);
        assertThat(r.candidates()).isEqualTo(n / 1000);
        Runtime rt = Runtime.getRuntime();
        System.gc();
        System.out.printf("BENCH orphan sweep n=%d: %.1f s, %d candidates deleted, max heap %d MiB, used after GC %d MiB%n", n, secs,
                r.deleted(), rt.maxMemory() >> 20, (rt.totalMemory() - rt.freeMemory()) >> 20);
    }
}
