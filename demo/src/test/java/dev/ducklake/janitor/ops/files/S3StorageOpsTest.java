package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.cleanupoldfiles.QueueSweep;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.ops.deleteorphanfiles.OrphanSweep;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesOptions;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesResult;
import dev.ducklake.janitor.storage.FaultyStore;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.S3TestServer;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Both storage commands against a real S3 API (S3Proxy in-process). */
class S3StorageOpsTest {

    static S3TestServer s3;

    static final String CLEANUP = S3TestServer.runBucket("cleanup");
    static final String ORPHANS = S3TestServer.runBucket("orphans");
    static final String STRAYS = S3TestServer.runBucket("strays");
    static final String NEARB = S3TestServer.runBucket("nearb");
    static final String PARALLEL = S3TestServer.runBucket("cofpar");
    static final String INVENTORY = S3TestServer.runBucket("inv");

    @BeforeAll
    static void start() throws Exception {
        s3 = new S3TestServer();
    }

    @AfterAll
    static void stop() throws Exception {
        s3.close();
    }

    private static final Duration OLD = Duration.ofDays(3);

    @Test
    void cleanupOldFilesOnS3WithBatchesFallbackAndAFailingObject() throws Exception {
        s3.createBucket(CLEANUP);
        // s3a spelling and no trailing slash in data_path
        FileCatalog cat = FileCatalog.create("s3_cof", "s3a://" + CLEANUP + "/lake");
        for (int i = 0; i < 30; i++) {
            s3.put(CLEANUP, "lake/main/test/q" + i + ".parquet", 10);
            cat.queue("main/test/q" + i + ".parquet", true, OLD);
        }
        s3.put(CLEANUP, "lake/main/test/live.parquet", 10);
        cat.queue("s3://" + CLEANUP + "/lake/main/test/live.parquet", false, OLD);
        cat.dataFile(1, "live.parquet", true);

        CleanupOldFilesResult dry;
        try (Connection c = TestPostgres.get().connect(); FileStore store = s3.store()) {
            dry = QueueSweep.run(c, store, CleanupOldFilesOptions.defaults(cat.schema), FileListener.NONE);
        }
        assertThat(dry.filesDeleted()).isEqualTo(30);
        assertThat(dry.bytes()).as("sizes from HeadObject").isEqualTo(300);

        s3.rejectBatchDelete = true;
        int singles = s3.singleDeletes.get();
        CleanupOldFilesResult r;
        try (Connection c = TestPostgres.get().connect();
             FileStore store = new FaultyStore(s3.faultyStore(), a -> a.endsWith("/q7.parquet"))) {
            r = QueueSweep.run(c, store, CleanupOldFilesOptions.builder(cat.schema).dryRun(false).batchSize(10).build(),
                    FileListener.NONE);
        } finally {
            s3.rejectBatchDelete = false;
        }
        assertThat(r.batchDeleteFallback()).isTrue();
        assertThat(s3.singleDeletes.get() - singles).isEqualTo(29);
        assertThat(r.filesDeleted()).isEqualTo(29);
        assertThat(r.failed()).isEqualTo(1);
        assertThat(r.keptLive()).isEqualTo(1);
        assertThat(cat.queueRows()).as("q7 and live stay").isEqualTo(2);
        assertThat(s3.exists(CLEANUP, "lake/main/test/q7.parquet")).isTrue();
        assertThat(s3.exists(CLEANUP, "lake/main/test/q8.parquet")).isFalse();
        assertThat(s3.exists(CLEANUP, "lake/main/test/live.parquet")).isTrue();
    }

    /**
     * Issue 27: concurrent DeleteObjects requests (8 in flight), sizes for bytes_deleted from a listing (no HeadObject
     * per file), a file whose delete fails keeps its queue row, one that is already gone loses its row and is counted.
     */
    @Test
    void cleanupOldFilesOnS3InParallelWithoutAHeadPerFile() throws Exception {
        s3.createBucket(PARALLEL);
        FileCatalog cat = FileCatalog.create("s3_cofpar", "s3://" + PARALLEL + "/lake/");
        try (Connection c = TestPostgres.get().connect(); var ps = c.prepareStatement("INSERT INTO "
                + dev.ducklake.janitor.pg.Sql.qualified(cat.schema, "ducklake_files_scheduled_for_deletion")
                + " SELECT 1000 + g, 'main/t/f' || lpad(g::text, 5, '0') || '.parquet', true, now() - interval '3 days'"
                + " FROM generate_series(0, 2999) g")) {
            ps.executeUpdate();
        }
        long expected = 0;
        for (int i = 0; i < 3_000; i++) {
            if (i == 1_500) {
                continue; // queued, already gone
            }
            int size = 1 + i % 5;
            s3.put(PARALLEL, String.format("lake/main/t/f%05d.parquet", i), size);
            if (i != 77) {
                expected += size;
            }
        }
        int heads = s3.heads.get();
        s3.maxInFlight.set(0);
        s3.latencyMillis = 5;
        CleanupOldFilesResult r;
        FaultyStore store = new FaultyStore(s3.faultyStore(), a -> a.endsWith("/f00077.parquet"));
        try (Connection c = TestPostgres.get().connect(); store) {
            r = QueueSweep.run(c, store, CleanupOldFilesOptions.builder(cat.schema).dryRun(false).batchSize(2_000)
                    .deleteConcurrency(8).build(), FileListener.NONE);
        } finally {
            s3.latencyMillis = 0;
        }
        assertThat(r.failed()).isEqualTo(1);
        assertThat(r.filesDeleted()).isEqualTo(2_999);
        assertThat(r.bytes()).as("exact bytes from the listing").isEqualTo(expected);
        assertThat(r.queueRowsDeleted()).isEqualTo(2_999);
        assertThat(r.filesNotFound()).as("the listing passed over f01500").isEqualTo(1);
        assertThat(cat.queueRows()).as("the failed file's row stays").isEqualTo(1);
        assertThat(s3.heads.get() - heads).as("no HeadObject: S3 does not say a key was missing, so the listing decides")
                .isZero();
        assertThat(s3.maxInFlight.get()).isGreaterThan(1);
        assertThat(store.deleteCalls).as("batches of 2,000 and 1,000, 8 requests each").hasSize(16).allMatch(n -> n <= 250);
        assertThat(s3.exists(PARALLEL, "lake/main/t/f00077.parquet")).isTrue();
        assertThat(s3.exists(PARALLEL, "lake/main/t/f00078.parquet")).isFalse();
    }

    /**
     * Issue 27: the queue is read in path order, not in data_file_id order, so that a batch's files are one key range
     * of their folder and its sizes take one listing page per 1,000 files (in id order, the random file names of a
     * batch spread over the whole folder, and every batch listed it again).
     */
    @Test
    void cleanupOldFilesOnS3ReadsTheQueueInPathOrderSoThatABatchIsOneKeyRange() throws Exception {
        String bucket = S3TestServer.runBucket("cofpath");
        s3.createBucket(bucket);
        FileCatalog cat = FileCatalog.create("s3_cofpath", "s3://" + bucket + "/lake/");
        try (Connection c = TestPostgres.get().connect(); var ps = c.prepareStatement("INSERT INTO "
                + dev.ducklake.janitor.pg.Sql.qualified(cat.schema, "ducklake_files_scheduled_for_deletion")
                // ids in an order unrelated to the paths (DuckLake's file names are random)
                + " SELECT 1000 + (g * 7919) % 3000, 'main/t/f' || lpad(g::text, 5, '0') || '.parquet', true,"
                + " now() - interval '3 days' FROM generate_series(0, 2999) g")) {
            ps.executeUpdate();
        }
        for (int i = 0; i < 3_000; i++) {
            s3.put(bucket, String.format("lake/main/t/f%05d.parquet", i), 4);
        }
        int requests = s3.requests.get();
        int deletes = s3.batchDeletes.get();
        int heads = s3.heads.get();
        CleanupOldFilesResult r;
        try (Connection c = TestPostgres.get().connect(); FileStore store = s3.faultyStore()) {
            r = QueueSweep.run(c, store, CleanupOldFilesOptions.builder(cat.schema).dryRun(false).batchSize(1_000)
                    .deleteConcurrency(8).build(), FileListener.NONE);
        }
        assertThat(r.filesDeleted()).isEqualTo(3_000);
        assertThat(r.bytes()).isEqualTo(12_000);
        assertThat(r.filesNotFound()).isZero();
        assertThat(cat.queueRows()).isZero();
        assertThat(s3.heads.get() - heads).isZero();
        int listings = s3.requests.get() - requests - (s3.batchDeletes.get() - deletes);
        assertThat(listings).as("one page per batch of 1,000 files (three batches)").isLessThanOrEqualTo(4);
    }

    /**
     * Issue 27: the next batch's sizes are listed while this batch's deletes are in flight; a file this batch deletes
     * that the next batch names again (another spelling) is listed again after the delete: counted once in
     * bytes_deleted, then not found, as when nothing was listed ahead.
     */
    @Test
    void aSizeListedAheadOfAFileTheBatchBeforeDeletesIsNotCountedTwice() throws Exception {
        String bucket = S3TestServer.runBucket("cofahead");
        s3.createBucket(bucket);
        FileCatalog cat = FileCatalog.create("s3_cofahead", "s3://" + bucket + "/lake/");
        s3.put(bucket, "lake/main/t/x.parquet", 7);
        s3.put(bucket, "lake/main/t/y.parquet", 5);
        s3.put(bucket, "lake/main/t/z.parquet", 3);
        // batches of 2 in path order: the absolute spellings (x, y), then the relative ones (x again, z)
        cat.queue("s3://" + bucket + "/lake/main/t/x.parquet", false, OLD);
        cat.queue("s3://" + bucket + "/lake/main/t/y.parquet", false, OLD);
        cat.queue("main/t/x.parquet", true, OLD);
        cat.queue("main/t/z.parquet", true, OLD);
        String x = "s3://" + bucket + "/lake/main/t/x.parquet";
        java.util.concurrent.CountDownLatch listedAhead = new java.util.concurrent.CountDownLatch(2);
        FileStore store = new dev.ducklake.janitor.storage.ForwardingStore(s3.faultyStore()) {
            @Override
            public java.util.Map<String, Long> listedSizes(List<String> addresses) throws dev.ducklake.janitor.storage.StorageException {
                try {
                    return super.listedSizes(addresses);
                } finally {
                    if (addresses.contains(x)) {
                        listedAhead.countDown();
                    }
                }
            }

            @Override
            public dev.ducklake.janitor.storage.DeleteOutcome delete(List<String> addresses)
                    throws dev.ducklake.janitor.storage.StorageException {
                if (addresses.contains(x)) {
                    try {
                        // x's first delete waits for the next batch's listing (which names x) to have seen it
                        listedAhead.await(5, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return super.delete(addresses);
            }
        };
        CleanupOldFilesResult r;
        try (Connection c = TestPostgres.get().connect(); store) {
            r = QueueSweep.run(c, store, CleanupOldFilesOptions.builder(cat.schema).dryRun(false).batchSize(2)
                    .deleteConcurrency(8).build(), FileListener.NONE);
        }
        assertThat(r.bytes()).as("x counted once").isEqualTo(15);
        assertThat(r.filesNotFound()).as("x the second time").isEqualTo(1);
        assertThat(cat.queueRows()).isZero();
    }

    @Test
    void orphanSweepOnS3AndTheBucketRootBrake() throws Exception {
        s3.createBucket(ORPHANS);
        FileCatalog cat = FileCatalog.create("s3_dof", "s3://" + ORPHANS + "/lake/");
        for (int i = 0; i < 6; i++) {
            s3.put(ORPHANS, "lake/main/test/k" + i + ".parquet", 10);
            cat.dataFile(1, "k" + i + ".parquet", true);
        }
        s3.put(ORPHANS, "lake/main/test/stray.parquet", 10);
        s3.put(ORPHANS, "lake/main/test/stray-delete.puffin", 10);
        s3.put(ORPHANS, "lake/metadata.ducklake", 10);
        s3.put(ORPHANS, "lake2/main/test/sibling.parquet", 10);
        cat.deleteFile(1, "s3a://" + ORPHANS + "/lake//main/test/k0.parquet", false); // second spelling of a known file
        Thread.sleep(20);
        DeleteOrphanFilesOptions o = DeleteOrphanFilesOptions.builder(cat.schema).minAge(Duration.ZERO).allowShortRetention(true)
                .olderThan(AgeThreshold.parse("0s")).dryRun(false).build();
        DeleteOrphanFilesResult r;
        try (Connection c = TestPostgres.get().connect(); FileStore store = s3.store()) {
            r = OrphanSweep.run(c, store, o, FileListener.NONE);
        }
        assertThat(r.listed()).isEqualTo(9);
        assertThat(r.candidates()).isEqualTo(1);
        assertThat(r.deleted()).isEqualTo(1);
        assertThat(r.candidateBytes()).isEqualTo(10);
        assertThat(s3.exists(ORPHANS, "lake/main/test/stray-delete.puffin")).as("1.5.5 rule: .parquet only").isTrue();
        assertThat(s3.exists(ORPHANS, "lake/main/test/stray.parquet")).isFalse();
        assertThat(s3.exists(ORPHANS, "lake/main/test/k0.parquet")).isTrue();
        assertThat(s3.exists(ORPHANS, "lake/metadata.ducklake")).isTrue();
        assertThat(s3.exists(ORPHANS, "lake2/main/test/sibling.parquet")).isTrue();

        assertThatThrownBy(() -> {
            try (Connection c = TestPostgres.get().connect(); FileStore store = s3.store()) {
                OrphanSweep.run(c, store, o.toBuilder().dataPath("s3://" + ORPHANS).build(), FileListener.NONE);
            }
        }).isInstanceOfSatisfying(JanitorException.class, e -> assertThat(e.reason()).isEqualTo(Reason.BRAKE_ROOT_PATH));
        assertThat(s3.exists(ORPHANS, "lake2/main/test/sibling.parquet")).isTrue();
    }

    /**
     * Issue 27: the orphan sweep from an S3 Inventory (manifest with a gzip'd CSV listing, keys URL-encoded) instead of a
     * LIST: the addresses the inventory yields are the ones the S3 store stats and deletes; an orphan the inventory
     * lists but that is gone since is skipped, not failed; the known files and the keys outside the data path stay.
     */
    @Test
    void orphanSweepOnS3FromAnInventoryManifest(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
        s3.createBucket(INVENTORY);
        FileCatalog cat = FileCatalog.create("s3_inv", "s3://" + INVENTORY + "/lake/");
        StringBuilder csv = new StringBuilder();
        for (int i = 0; i < 6; i++) {
            s3.put(INVENTORY, "lake/main/test/k" + i + ".parquet", 10);
            cat.dataFile(1, "k" + i + ".parquet", true);
            csv.append('"').append(INVENTORY).append("\",\"lake/main/test/k").append(i).append(".parquet\",\"10\",\"2026-01-01T00:00:00.000Z\"\n");
        }
        s3.put(INVENTORY, "lake/main/test/stray one.parquet", 10);
        s3.put(INVENTORY, "lake2/main/test/sibling.parquet", 10);
        csv.append('"').append(INVENTORY).append("\",\"lake/main/test/stray%20one.parquet\",\"10\",\"2026-01-01T00:00:00.000Z\"\n");
        csv.append('"').append(INVENTORY).append("\",\"lake/main/test/gone.parquet\",\"10\",\"2026-01-01T00:00:00.000Z\"\n");
        csv.append('"').append(INVENTORY).append("\",\"lake2/main/test/sibling.parquet\",\"10\",\"2026-01-01T00:00:00.000Z\"\n");
        java.nio.file.Path data = tmp.resolve("inv/" + INVENTORY + "/cfg/data");
        java.nio.file.Files.createDirectories(data);
        try (var out = new java.util.zip.GZIPOutputStream(java.nio.file.Files.newOutputStream(data.resolve("a.csv.gz")))) {
            out.write(csv.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        java.nio.file.Path manifest = tmp.resolve("inv/" + INVENTORY + "/cfg/2026-12-01T00-00Z/manifest.json");
        java.nio.file.Files.createDirectories(manifest.getParent());
        java.nio.file.Files.writeString(manifest, "{\"sourceBucket\":\"" + INVENTORY + "\",\"fileFormat\":\"CSV\","
                + "\"fileSchema\":\"Bucket, Key, Size, LastModifiedDate\",\"files\":[{\"key\":\"" + INVENTORY + "/cfg/data/a.csv.gz\"}]}");
        Thread.sleep(20);
        DeleteOrphanFilesOptions o = DeleteOrphanFilesOptions.builder(cat.schema).minAge(Duration.ZERO).allowShortRetention(true)
                .olderThan(AgeThreshold.parse("0s")).dryRun(false).inventory(manifest).build();
        DeleteOrphanFilesResult r;
        try (Connection c = TestPostgres.get().connect(); FileStore store = s3.store()) {
            r = OrphanSweep.run(c, store, o, FileListener.NONE);
        }
        assertThat(r.listingSource()).isEqualTo("inventory");
        assertThat(r.listed()).isEqualTo(8);
        assertThat(r.candidates()).isEqualTo(2);
        assertThat(r.deleted()).isEqualTo(1);
        assertThat(r.inventoryGone()).isEqualTo(1);
        assertThat(r.failed()).isZero();
        assertThat(s3.exists(INVENTORY, "lake/main/test/stray one.parquet")).isFalse();
        assertThat(s3.exists(INVENTORY, "lake/main/test/k3.parquet")).isTrue();
        assertThat(s3.exists(INVENTORY, "lake2/main/test/sibling.parquet")).isTrue();
    }

    /**
     * Issue 28 item 5: stray keys with a doubled slash, a '.' segment or a %XX escape of an unreserved character sort
     * elsewhere than their canonical form; every sweep used to stop with exit 13. They are kept and counted.
     */
    @Test
    void strayKeysThatAreNotCanonicalAreKeptAndCountedNotAnError() throws Exception {
        s3.createBucket(STRAYS);
        FileCatalog cat = FileCatalog.create("s3_strays", "s3://" + STRAYS + "/lake/");
        for (int i = 0; i < 6; i++) {
            s3.put(STRAYS, "lake/main/test/k" + i + ".parquet", 10);
            cat.dataFile(1, "k" + i + ".parquet", true);
        }
        List<String> strays = List.of("lake/main//test/k1.parquet", "lake/main/test/%6B2.parquet", "lake/main/./test/z.parquet",
                "lake/main/te%73t/zz.parquet");
        for (String k : strays) {
            s3.put(STRAYS, k, 10);
        }
        s3.put(STRAYS, "lake/main/test/stray.parquet", 10);
        Thread.sleep(20);
        DeleteOrphanFilesOptions o = DeleteOrphanFilesOptions.builder(cat.schema).minAge(Duration.ZERO).allowShortRetention(true)
                .olderThan(AgeThreshold.parse("0s")).dryRun(false).build();
        DeleteOrphanFilesResult r;
        try (Connection c = TestPostgres.get().connect(); FileStore store = s3.store()) {
            r = OrphanSweep.run(c, store, o, FileListener.NONE);
        }
        assertThat(r.keptNonCanonical()).isEqualTo(strays.size());
        assertThat(r.deleted()).isEqualTo(1);
        for (String k : strays) {
            assertThat(s3.exists(STRAYS, k)).as(k).isTrue();
        }
        assertThat(s3.exists(STRAYS, "lake/main/test/stray.parquet")).isFalse();
    }

    /**
     * Issue 21 item 4 on S3: candidates whose key a catalog names under another scheme (r2://), a virtual-hosted or a
     * path-style https URL of the same bucket stop the sweep (exit 18) with both spellings, in dry runs too; nothing is
     * deleted. Bucket case is no near match: the bucket is lower-cased in canonical form, so that file is known.
     */
    @Test
    void nearMatchesUnderAnotherSchemeOrHostStopTheSweep() throws Exception {
        s3.createBucket(NEARB);
        FileCatalog cat = FileCatalog.create("s3_near", "s3://" + NEARB + "/lake/");
        for (int i = 0; i < 8; i++) {
            s3.put(NEARB, "lake/main/test/k" + i + ".parquet", 10);
            cat.dataFile(1, "k" + i + ".parquet", true);
        }
        List<String> spellings = List.of("r2://" + NEARB + "/lake/main/test/r2.parquet",
                "https://" + NEARB + ".s3.amazonaws.com/lake/main/test/vhost.parquet",
                "https://s3.us-east-1.amazonaws.com/" + NEARB + "/lake/main/test/pathstyle.parquet");
        for (String sp : spellings) {
            s3.put(NEARB, "lake/main/test/" + sp.substring(sp.lastIndexOf('/') + 1), 10);
            cat.dataFile(1, sp, false);
        }
        s3.put(NEARB, "lake/main/test/case.parquet", 10);
        cat.dataFile(1, "s3://" + NEARB.toUpperCase() + "/lake/main/test/case.parquet", false);
        s3.put(NEARB, "lake/main/test/stray.parquet", 10);
        Thread.sleep(20);
        DeleteOrphanFilesOptions o = DeleteOrphanFilesOptions.builder(cat.schema).minAge(Duration.ZERO)
                .allowShortRetention(true).olderThan(AgeThreshold.parse("0s")).build();
        for (boolean dry : List.of(true, false)) {
            assertThatThrownBy(() -> {
                try (Connection c = TestPostgres.get().connect(); FileStore store = s3.store()) {
                    OrphanSweep.run(c, store, o.withDryRun(dry), FileListener.NONE);
                }
            }).isInstanceOfSatisfying(JanitorException.class, e -> {
                assertThat(e.reason()).as(e.getMessage()).isEqualTo(Reason.BRAKE_NEAR_MATCH);
                assertThat(e.getMessage()).startsWith("3 orphan candidate(s) under s3://" + NEARB + "/lake/")
                        .contains("listed 's3://" + NEARB + "/lake/main/test/r2.parquet', a catalog names '" + spellings.get(0) + "'")
                        .contains(spellings.get(1)).contains(spellings.get(2)).doesNotContain("case.parquet");
            });
        }
        for (String k : List.of("r2", "vhost", "pathstyle", "case", "stray")) {
            assertThat(s3.exists(NEARB, "lake/main/test/" + k + ".parquet")).as(k).isTrue();
        }
        // the catalog rows spelled as the store lists them: only the stray is an orphan
        try (Connection c = TestPostgres.get().connect()) {
            dev.ducklake.janitor.testsupport.Catalogs.exec(c, "UPDATE " + dev.ducklake.janitor.pg.Sql.qualified(cat.schema,
                    "ducklake_data_file") + " SET path = 's3://" + NEARB + "/lake/main/test/' || regexp_replace(path, '^.*/', '')"
                    + " WHERE path LIKE '%://%'");
        }
        DeleteOrphanFilesResult r;
        try (Connection c = TestPostgres.get().connect(); FileStore store = s3.store()) {
            r = OrphanSweep.run(c, store, o.withDryRun(false), FileListener.NONE);
        }
        assertThat(r.deleted()).isEqualTo(1);
        assertThat(s3.exists(NEARB, "lake/main/test/stray.parquet")).isFalse();
        assertThat(s3.exists(NEARB, "lake/main/test/r2.parquet")).isTrue();
    }
}
