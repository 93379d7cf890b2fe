package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.storage.CallBounds;
import dev.ducklake.janitor.storage.FaultyStore;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.storage.S3FileStore;
import dev.ducklake.janitor.testsupport.S3TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** The delete worker pool against a real local file system and a real S3 API (S3Proxy behind the fault proxy). */
class ParallelDeletesTest {

    static S3TestServer s3;
    static final String BUCKET = S3TestServer.runBucket("pardel");

    @BeforeAll
    static void start() throws Exception {
        s3 = new S3TestServer();
        s3.createBucket(BUCKET);
    }

    @AfterAll
    static void stop() throws Exception {
        s3.close();
    }

    @TempDir
    Path dir;

    private List<String> localFiles(String sub, int n) throws Exception {
        Path d = Files.createDirectories(dir.resolve(sub));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Path p = d.resolve("f" + i + ".parquet");
            Files.write(p, new byte[i % 7]);
            out.add(p.toString());
        }
        return out;
    }

    private static List<String> s3Keys(String prefix, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            s3.put(BUCKET, prefix + "/f" + String.format("%05d", i) + ".parquet", 3);
            out.add("s3://" + BUCKET + "/" + prefix + "/f" + String.format("%05d", i) + ".parquet");
        }
        return out;
    }

    @Test
    void localDeletesInParallelWithExactOutcomesAndSizes() throws Exception {
        List<String> files = localFiles("a", 2_500);
        FaultyStore store = new FaultyStore(new LocalFileStore(), a -> a.endsWith("/f17.parquet") || a.endsWith("/f2400.parquet"));
        ParallelDeletes.Round r;
        try (ParallelDeletes pd = new ParallelDeletes(store, 0, CallBounds.NONE)) {
            assertThat(pd.concurrency()).as("the local default").isEqualTo(LocalFileStore.DELETE_CONCURRENCY).isEqualTo(4);
        }
        try (ParallelDeletes pd = new ParallelDeletes(store, 4, CallBounds.NONE)) {
            r = pd.delete(files, Map.of(), true);
        }
        assertThat(r.failed().keySet()).containsExactlyInAnyOrder(dir.resolve("a/f17.parquet").toString(),
                dir.resolve("a/f2400.parquet").toString());
        assertThat(r.deleted()).hasSize(2_498);
        assertThat(r.stopped()).isNull();
        assertThat(r.failure()).isNull();
        assertThat(store.deleteCalls).as("4 pieces of 625").hasSize(4).allMatch(n -> n == 625);
        long expected = 0;
        for (int i = 0; i < 2_500; i++) {
            if (i != 17 && i != 2400) {
                expected += i % 7;
            }
        }
        assertThat(r.sizes().values().stream().mapToLong(Long::longValue).sum()).as("sizes stat-ed before each delete")
                .isEqualTo(expected);
        assertThat(Files.exists(dir.resolve("a/f17.parquet"))).isTrue();
        assertThat(Files.exists(dir.resolve("a/f18.parquet"))).isFalse();
    }

    @Test
    void concurrencyOneIsOneCallAtATimeOfUpToABatch() throws Exception {
        List<String> files = localFiles("b", 2_100);
        FaultyStore store = new FaultyStore(new LocalFileStore(), a -> false);
        try (ParallelDeletes pd = new ParallelDeletes(store, 1, CallBounds.NONE)) {
            ParallelDeletes.Round r = pd.delete(files, Map.of(), false);
            assertThat(r.deleted()).hasSize(2_100);
            assertThat(r.sizes()).isEmpty();
        }
        assertThat(store.deleteCalls).containsExactly(1000, 1000, 100);
    }

    @Test
    void noPieceStartsOnceTheRunIsStopped() throws Exception {
        List<String> files = localFiles("c", 50);
        AtomicBoolean stop = new AtomicBoolean(true);
        CallBounds bounds = new CallBounds() {
            @Override
            public Duration remaining() {
                return null;
            }

            @Override
            public boolean stopRequested() {
                return stop.get();
            }
        };
        try (ParallelDeletes pd = new ParallelDeletes(new LocalFileStore(), 4, bounds)) {
            ParallelDeletes.Round r = pd.delete(files, Map.of(), false);
            assertThat(r.stopped()).isNotNull();
            assertThat(r.deleted()).isEmpty();
            assertThat(r.failed()).isEmpty();
            assertThat(r.unsettled(files.size())).isEqualTo(50);
        }
        assertThat(Files.exists(Path.of(files.get(0)))).isTrue();
    }

    @Test
    void s3DeleteObjectsRequestsAreInFlightTogetherAndNeverAboveAThousandKeys() throws Exception {
        List<String> keys = s3Keys("conc", 6_000);
        s3.latencyMillis = 20;
        s3.maxInFlight.set(0);
        s3.maxBatchKeys.set(0);
        int batches = s3.batchDeletes.get();
        ParallelDeletes.Round r;
        try (S3FileStore store = s3.faultyStore(); ParallelDeletes pd = new ParallelDeletes(store, 0, CallBounds.NONE)) {
            assertThat(pd.concurrency()).isEqualTo(8);
            r = pd.delete(keys, Map.of(), false);
        } finally {
            s3.latencyMillis = 0;
        }
        assertThat(r.deleted()).hasSize(6_000);
        assertThat(r.failed()).isEmpty();
        assertThat(s3.batchDeletes.get() - batches).as("8 requests of 750 keys").isEqualTo(8);
        assertThat(s3.maxBatchKeys.get()).isEqualTo(750);
        assertThat(s3.maxInFlight.get()).as("requests in flight at once").isGreaterThan(1);
        assertThat(s3.exists(BUCKET, "conc/f00000.parquet")).isFalse();
        assertThat(s3.exists(BUCKET, "conc/f05999.parquet")).isFalse();

        List<String> big = s3Keys("big", 9_000);
        s3.maxBatchKeys.set(0);
        try (S3FileStore store = s3.faultyStore(); ParallelDeletes pd = new ParallelDeletes(store, 2, CallBounds.NONE)) {
            r = pd.delete(big, Map.of(), false);
        }
        assertThat(r.deleted()).hasSize(9_000);
        assertThat(s3.maxBatchKeys.get()).as("S3's limit of 1,000 keys per DeleteObjects").isEqualTo(1000);
    }

    @Test
    void perKeySlowDownIsRetriedInTheOneRetryLoopAndLowersTheConcurrency() throws Exception {
        List<String> keys = s3Keys("slow", 4_000);
        s3.slowDownKeysNext.set(3);
        ParallelDeletes.Round r;
        long throttles;
        int lowest;
        try (S3FileStore store = s3.faultyStore(); ParallelDeletes pd = new ParallelDeletes(store, 4, CallBounds.NONE)) {
            r = pd.delete(keys, Map.of(), false);
            throttles = store.throttleEvents();
            lowest = pd.lowestLimit();
            assertThat(pd.throttledPieces()).isPositive();
        } finally {
            s3.slowDownKeysNext.set(0);
        }
        assertThat(r.deleted()).as("every key deleted once the store stopped answering SlowDown").hasSize(4_000);
        assertThat(r.failed()).isEmpty();
        assertThat(throttles).isEqualTo(3);
        assertThat(lowest).as("the limit went down").isLessThan(4);
        assertThat(s3.exists(BUCKET, "slow/f00001.parquet")).isFalse();
    }

    @Test
    void http503ThrottlingIsRetriedAndAFailingKeyIsReportedAlone() throws Exception {
        List<String> keys = s3Keys("thr", 3_000);
        s3.throttleNext.set(2);
        ParallelDeletes.Round r;
        FaultyStore store = new FaultyStore(s3.faultyStore(), a -> a.endsWith("/f01234.parquet"));
        try (store; ParallelDeletes pd = new ParallelDeletes(store, 3, CallBounds.NONE)) {
            r = pd.delete(keys, Map.of(), false);
            assertThat(store.throttleEvents()).as("each 503 answer counted").isGreaterThanOrEqualTo(2);
            assertThat(pd.lowestLimit()).isLessThan(3);
        } finally {
            s3.throttleNext.set(0);
        }
        assertThat(r.failed().keySet()).containsExactly("s3://" + BUCKET + "/thr/f01234.parquet");
        assertThat(r.deleted()).hasSize(2_999);
        assertThat(s3.exists(BUCKET, "thr/f01234.parquet")).isTrue();
    }

    @Test
    void s3SizesComeFromABoundedListingNotAHeadPerKey() throws Exception {
        List<String> keys = s3Keys("sizes", 1_500);
        // a folder the keys do not fill: other files after the range are not listed
        for (int i = 0; i < 5; i++) {
            s3.put(BUCKET, "sizes/g" + i + ".parquet", 9);
        }
        List<String> asked = new ArrayList<>(keys.subList(100, 1_400));
        asked.add("s3://" + BUCKET + "/sizes/missing.parquet");
        int heads = s3.heads.get();
        Map<String, Long> sizes;
        try (FileStore store = s3.faultyStore()) {
            sizes = store.listedSizes(asked);
        }
        assertThat(s3.heads.get()).isEqualTo(heads);
        assertThat(sizes).as("1,300 listed, the missing one passed over").hasSize(1_301).containsEntry(keys.get(100), 3L).containsEntry(keys.get(1_399), 3L)
                .containsEntry("s3://" + BUCKET + "/sizes/missing.parquet", -1L);
    }

    /**
     * Issue 27: keys that fill their folder's range (cleanup-old-files' batches in path order) are sized by one
     * ListObjectsV2 page per 1,000 keys, not one partial page per concurrent run; sparse keys still get every size
     * from a few pages, and a key the listing passed over is missing.
     */
    @Test
    void s3SizesOfDenseKeysTakeOnePagePerThousandKeys() throws Exception {
        List<String> dense = s3Keys("dense", 2_000);
        int requests = s3.requests.get();
        Map<String, Long> sizes;
        try (FileStore store = s3.faultyStore()) {
            sizes = store.listedSizes(dense);
        }
        assertThat(sizes).hasSize(2_000).allSatisfy((a, n) -> assertThat(n).isEqualTo(3L));
        assertThat(s3.requests.get() - requests).as("two pages, not eight partial ones").isEqualTo(2);

        List<String> all = s3Keys("sparse", 5_000);
        List<String> asked = new ArrayList<>();
        for (int i = 3; i < all.size(); i += 10) {
            asked.add(all.get(i));
        }
        asked.add("s3://" + BUCKET + "/sparse/f02500x.parquet"); // between listed keys, not there
        requests = s3.requests.get();
        int heads = s3.heads.get();
        try (FileStore store = s3.faultyStore()) {
            sizes = store.listedSizes(asked);
        }
        assertThat(s3.heads.get()).isEqualTo(heads);
        assertThat(sizes).hasSize(501).containsEntry(all.get(3), 3L).containsEntry(all.get(4_993), 3L)
                .containsEntry("s3://" + BUCKET + "/sparse/f02500x.parquet", -1L);
        assertThat(sizes.values().stream().filter(n -> n == 3L).count()).isEqualTo(500);
        assertThat(s3.requests.get() - requests).as("the 5 pages the keys span, a page a run").isLessThanOrEqualTo(10);
    }
}
