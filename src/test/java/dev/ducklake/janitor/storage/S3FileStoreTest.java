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
}
