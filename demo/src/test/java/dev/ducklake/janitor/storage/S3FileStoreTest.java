package dev.ducklake.janitor.storage;

import dev.ducklake.janitor.testsupport.S3TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class S3FileStoreTest {

    static S3TestServer s3;

    @BeforeAll
    static void start() throws Exception {
        s3 = new S3TestServer();
    }

    @AfterAll
    static void stop() throws Exception {
        s3.close();
    }

    @Test
    void listsPageByPageInByteOrderAndSkipsFolderMarkers() throws Exception {
        s3.createBucket("list");
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 2_100; i++) {
            String key = "lake/main/t/" + String.format("%05d", i) + ".parquet";
            s3.put("list", key, 3);
            expected.add("s3://list/" + key);
        }
        s3.put("list", "lake/main/t/", 0); // folder marker
        s3.put("list", "lake2/x.parquet", 1); // sibling prefix, outside
        try (S3FileStore store = s3.store(); FileStore.Listing l = store.list(StorageLocation.parse("s3a://list/lake"))) {
            List<String> got = new ArrayList<>();
            String prev = null;
            while (l.hasNext()) {
                StoredObject o = l.next();
                if (prev != null) {
                    assertThat(StorageLocation.compareCodePoints(prev, o.location().canonical())).isNegative();
                }
                prev = o.location().canonical();
                got.add(o.address());
                assertThat(o.sizeBytes()).isEqualTo(3);
                assertThat(o.lastModified()).isNotNull();
            }
            assertThat(got).isEqualTo(expected);
        }
    }

    @Test
    void deletesInBatchesAndCountsMissingKeysAsDeleted() throws Exception {
        s3.createBucket("del");
        s3.put("del", "a.parquet", 5);
        s3.put("del", "b.parquet", 5);
        try (S3FileStore store = s3.store()) {
            assertThat(store.stat("s3://del/a.parquet")).get().extracting(StoredObject::sizeBytes).isEqualTo(5L);
            assertThat(store.stat("s3://del/none.parquet")).isEmpty();
            DeleteOutcome o = store.delete(List.of("s3://del/a.parquet", "s3://del/b.parquet", "s3://del/none.parquet"));
            assertThat(o.deleted()).containsExactlyInAnyOrder("s3://del/a.parquet", "s3://del/b.parquet", "s3://del/none.parquet");
            assertThat(o.failed()).isEmpty();
            assertThat(store.batchDeleteEnabled()).isTrue();
        }
        assertThat(s3.exists("del", "a.parquet")).isFalse();
    }

    @Test
    void aStoreWithoutBatchDeleteIsUsedOneKeyAtATimeForTheRestOfTheRun() throws Exception {
        s3.createBucket("nobatch");
        for (int i = 0; i < 6; i++) {
            s3.put("nobatch", "k" + i + ".parquet", 1);
        }
        s3.rejectBatchDelete = true;
        int singles = s3.singleDeletes.get();
        try (S3FileStore store = s3.faultyStore()) {
            DeleteOutcome o = store.delete(List.of("s3://nobatch/k0.parquet", "s3://nobatch/k1.parquet", "s3://nobatch/k2.parquet"));
            assertThat(o.deleted()).hasSize(3);
            assertThat(store.batchDeleteEnabled()).isFalse();
            int rejected = s3.requests.get();
            o = store.delete(List.of("s3://nobatch/k3.parquet", "s3://nobatch/k4.parquet"));
            assertThat(o.deleted()).hasSize(2);
            assertThat(s3.requests.get() - rejected).as("no second batch attempt: only the 2 single deletes").isEqualTo(2);
        } finally {
            s3.rejectBatchDelete = false;
        }
        assertThat(s3.singleDeletes.get() - singles).isEqualTo(5);
        assertThat(s3.exists("nobatch", "k4.parquet")).isFalse();
        assertThat(s3.exists("nobatch", "k5.parquet")).isTrue();
    }

    @Test
    void throttlingIsRetriedWithBackoffAndAccessProblemsAreClassified() throws Exception {
        s3.createBucket("slow");
        s3.put("slow", "x.parquet", 1);
        s3.throttleNext.set(5); // more than the SDK's own 3 attempts: our retry policy must carry it
        try (S3FileStore store = s3.faultyStore()) {
            DeleteOutcome o = store.delete(List.of("s3://slow/x.parquet"));
            assertThat(o.deleted()).containsExactly("s3://slow/x.parquet");
            assertThat(s3.throttleNext.get()).isZero();
        }
        assertThat(s3.exists("slow", "x.parquet")).isFalse();
        try (S3FileStore store = s3.store()) {
            assertThatThrownBy(() -> store.list(StorageLocation.parse("s3://no-such-bucket/lake/")))
                    .isInstanceOf(StorageException.class);
        }
    }

    @Test
    void aStatThroughTheFaultProxyGivesTheSize() throws Exception {
        // the proxy used to drop a HEAD answer's Content-Length: every stat through it came back unsized, and the S3
        // benchmark's bytes_deleted came out short whenever a size listing was cut and the files were stat-ed
        s3.createBucket("head");
        s3.put("head", "lake/a.parquet", 16);
        try (S3FileStore store = s3.faultyStore()) {
            assertThat(store.stat("s3://head/lake/a.parquet")).get().extracting(StoredObject::sizeBytes).isEqualTo(16L);
        }
    }

    /** Every object under the prefix, in the order the store's listing gives them. */
    private static List<StoredObject> listAll(S3FileStore store, String prefix) throws Exception {
        List<StoredObject> got = new ArrayList<>();
        try (FileStore.Listing l = store.list(StorageLocation.parse(prefix))) {
            while (l.hasNext()) {
                got.add(l.next());
            }
        }
        return got;
    }

    private static S3FileStore store(java.net.URI endpoint, int listConcurrency) {
        return new S3FileStore(new S3FileStore.Settings("us-east-1", endpoint, true), S3FileStore.Timeouts.DEFAULTS, listConcurrency);
    }

    @Test
    void aFolderParallelListingEqualsThePlainListingObjectForObject() throws Exception {
        s3.createBucket("par");
        List<String> keys = new ArrayList<>();
        keys.add("lake/root-file.parquet"); // objects directly in walked levels are passed through
        keys.add("lake/main.parquet"); // '.' sorts before '/': just before the main/ folder's keys
        keys.add("lake/main/schema-file.parquet");
        for (int t = 0; t < 40; t++) { // many near-empty table folders
            keys.add("lake/main/t" + String.format("%03d", t) + "/only.parquet");
        }
        for (int i = 0; i < 2_300; i++) { // one folder over several pages, with partition folders
            keys.add("lake/main/big/part=" + (i % 3) + "/f" + String.format("%05d", i) + ".parquet");
        }
        keys.add("lake/main/big.parquet");
        keys.add("lake/main/zé/ü.parquet"); // non-ASCII folder and file (UTF-8 byte order)
        keys.add("lake/other/t/a.parquet");
        keys.add("lake/other/t/sub/b.parquet");
        keys.add("lake/other/u/c.parquet");
        keys.add("lake/other/z.parquet");
        keys.add("lake/zz.parquet");
        for (String k : keys) {
            s3.put("par", k, 7);
        }
        s3.put("par", "lake/main/t000/", 0); // folder markers are no objects
        s3.put("par", "lake/main/", 0);
        s3.put("par", "lake2/outside.parquet", 1); // a sibling prefix
        List<StoredObject> plain;
        try (S3FileStore one = store(s3.endpoint(), 1)) {
            plain = listAll(one, "s3://par/lake");
        }
        assertThat(plain).extracting(StoredObject::address).as("the plain listing sees every object once")
                .containsExactlyInAnyOrderElementsOf(keys.stream().map(k -> "s3://par/" + k).toList());
        for (int concurrency : new int[] {2, 8}) {
            int before = s3.requests.get();
            List<StoredObject> parallel;
            try (S3FileStore store = store(s3.faultEndpoint(), concurrency)) {
                parallel = listAll(store, "s3://par/lake");
            }
            int requests = s3.requests.get() - before;
            assertThat(parallel).as("concurrency " + concurrency + ": same objects, same order, same sizes and times")
                    .isEqualTo(plain);
            // 3 pages of keys and 4 one-level listings at least; near-empty folders share ranges once sizes are known,
            // so the 40 small folders do not cost a request each
            assertThat(requests).as("requests at concurrency " + concurrency).isLessThan(40);
        }
        // the bucket's root as the listed prefix
        try (S3FileStore one = store(s3.endpoint(), 1); S3FileStore par = store(s3.endpoint(), 8)) {
            assertThat(listAll(par, "s3://par/")).isEqualTo(listAll(one, "s3://par/"));
        }
    }

    @Test
    void manyNearEmptyTableFoldersAreListedInSharedRanges() throws Exception {
        s3.createBucket("tiny");
        for (int t = 0; t < 3_000; t++) {
            s3.put("tiny", "lake/main/t" + String.format("%05d", t) + "/f.parquet", 1);
        }
        int before = s3.requests.get();
        List<StoredObject> parallel;
        try (S3FileStore store = store(s3.faultEndpoint(), 8)) {
            parallel = listAll(store, "s3://tiny/lake/");
        }
        int requests = s3.requests.get() - before;
        assertThat(parallel).hasSize(3_000);
        // a plain listing takes 3 pages; one-level listings of main/ take 3 more; ranges spanning one folder each
        // would take 3,000
        assertThat(requests).as("requests for 3,000 one-file folders").isLessThan(60);
    }

    @Test
    void aFailingFolderRangeFailsTheListingWhenItIsReached() throws Exception {
        s3.createBucket("failing");
        for (int t = 0; t < 5; t++) {
            s3.put("failing", "lake/main/t" + t + "/f.parquet", 1);
        }
        // the range of the last folder fails (the proxy refuses its listing): the folders before it are listed in order,
        // and the failure surfaces when the listing reaches that range, not earlier (it was a race against a bucket
        // deleted mid-listing, which a fast machine lost: every range had finished before the bucket went)
        s3.denyQueriesContaining = "t4";
        List<String> seen = new ArrayList<>();
        try (S3FileStore store = store(s3.faultEndpoint(), 4);
             FileStore.Listing l = store.list(StorageLocation.parse("s3://failing/lake/"))) {
            assertThatThrownBy(() -> {
                while (l.hasNext()) {
                    seen.add(l.next().address());
                }
            }).isInstanceOf(java.io.UncheckedIOException.class).hasCauseInstanceOf(StorageException.class);
        } finally {
            s3.denyQueriesContaining = null;
        }
        assertThat(seen).containsExactly("s3://failing/lake/main/t0/f.parquet", "s3://failing/lake/main/t1/f.parquet",
                "s3://failing/lake/main/t2/f.parquet", "s3://failing/lake/main/t3/f.parquet");
    }
}
