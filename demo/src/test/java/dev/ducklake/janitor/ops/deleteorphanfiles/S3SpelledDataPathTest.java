package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.ops.files.AgeThreshold;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.ops.files.MissingObjects;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.S3TestServer;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An S3 data path spelled otherwise than its canonical form ({@code s3://b/p%7Eq/}, {@code s3://b/d//q/},
 * {@code s3://BKT/lake/}): DuckDB writes the keys under the prefix exactly as spelled, so the orphan sweep lists that
 * prefix, not the canonical one ({@code p~q/}, {@code d/q/}, bucket {@code bkt}), which may be another lake's. The other
 * lake's files survive even when this catalog knows one of them (a file added with {@code ducklake_add_data_files}); this
 * catalog's own orphan under the spelled prefix is found and deleted, its known file kept. Against S3Proxy in-process.
 */
class S3SpelledDataPathTest {

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
    void aPercentEscapeOfAnUnreservedCharacterIsListedAsSpelled() throws Exception {
        String b = S3TestServer.runBucket("spell-tilde");
        s3.createBucket(b);
        sweepLeavesTheOtherPrefix("s3_sp_tilde", b, "p%7Eq/", b, "p~q/");
    }

    @Test
    void aDoubledSlashIsListedAsSpelled() throws Exception {
        String b = S3TestServer.runBucket("spell-slash");
        s3.createBucket(b);
        sweepLeavesTheOtherPrefix("s3_sp_slash", b, "d//q/", b, "d/q/");
    }

    @Test
    void anUpperCaseBucketIsListedAsSpelled() throws Exception {
        String lower = S3TestServer.runBucket("spell-case");
        String upper = lower.toUpperCase(Locale.ROOT);
        s3.createBucket(lower);
        try {
            s3.createBucket(upper);
            s3.put(upper, "probe", 1);
            s3.client().listObjectsV2(r -> r.bucket(upper));
        } catch (RuntimeException e) {
            Assumptions.abort("S3Proxy does not serve an upper-case bucket name: " + e);
        }
        Assumptions.assumeTrue(s3.exists(upper, "probe") && !s3.exists(lower, "probe"),
                "S3Proxy folds bucket names: no second bucket differing by case");
        sweepLeavesTheOtherPrefix("s3_sp_case", upper, "lake/", lower, "lake/");
    }

    /** The storage comparison ({@code check --storage}) lists the same prefix: the catalog's file there is not missing. */
    @Test
    void theStorageCheckFindsTheFilesUnderTheSpelledPrefix() throws Exception {
        String b = S3TestServer.runBucket("spell-check");
        s3.createBucket(b);
        FileCatalog a = FileCatalog.create("s3_sp_check", "s3://" + b + "/p%7Eq/");
        a.dataFile(1, "k0.parquet", true);
        s3.put(b, "p%7Eq/main/test/k0.parquet", 10);
        s3.put(b, "p~q/main/test/b1.parquet", 10);
        MissingObjects.Result r;
        try (Connection c = TestPostgres.get().connect()) {
            r = MissingObjects.compare(c, a.schema, dataPath -> s3.store(), null, 5, st -> { });
        }
        assertThat(r.missingData()).as(String.valueOf(r.missingDataExamples())).isZero();
        assertThat(r.listed()).isEqualTo(1);
    }

    /**
     * From an inventory, which lists the whole bucket: the other lake's keys share the canonical prefix but not the
     * spelled one, so they are kept (counted non-canonical), never candidates.
     */
    @Test
    void anInventoryEntryUnderTheCanonicalSpellingIsNeverACandidate(@TempDir Path tmp) throws Exception {
        String b = S3TestServer.runBucket("spell-inv");
        s3.createBucket(b);
        FileCatalog a = FileCatalog.create("s3_sp_inv", "s3://" + b + "/p%7Eq/");
        a.dataFile(1, "k0.parquet", true);
        StringBuilder lines = new StringBuilder();
        for (String key : new String[] {"p%7Eq/main/test/k0.parquet", "p%7Eq/main/test/orphan.parquet",
                "p~q/main/test/b1.parquet", "p~q/main/test/k0.parquet"}) {
            s3.put(b, key, 10);
            lines.append("s3://").append(b).append('/').append(key).append("\t10\t2026-01-01T00:00:00Z\n");
        }
        Path inventory = tmp.resolve("inventory.txt");
        Files.writeString(inventory, lines.toString());
        Thread.sleep(20);
        DeleteOrphanFilesResult r;
        try (Connection c = TestPostgres.get().connect(); FileStore store = s3.store()) {
            r = OrphanSweep.run(c, store, DeleteOrphanFilesOptions.builder(a.schema).minAge(Duration.ZERO)
                    .allowShortRetention(true).olderThan(AgeThreshold.parse("0s")).maxOrphanRatio(1.0).dryRun(false)
                    .inventory(inventory).build(), FileListener.NONE);
        }
        assertThat(s3.exists(b, "p~q/main/test/b1.parquet")).as("the other lake's file").isTrue();
        assertThat(s3.exists(b, "p~q/main/test/k0.parquet")).isTrue();
        assertThat(s3.exists(b, "p%7Eq/main/test/k0.parquet")).isTrue();
        assertThat(s3.exists(b, "p%7Eq/main/test/orphan.parquet")).isFalse();
        assertThat(r.keptNonCanonical()).as("the other spelling's entries").isEqualTo(2);
        assertThat(r.candidates()).isEqualTo(1);
        assertThat(r.deleted()).isEqualTo(1);
    }

    /**
     * The sweep's messages name the data path as the catalog spells it ({@code s3://b/p%7Eq/}), the prefix it lists and
     * operators grep for, never its canonical form ({@code p~q/}, another prefix): the no-known-files brake, the
     * orphan-ratio brake and the unknown-table-folders brake (its folders too, in the message and the result).
     */
    @Test
    void theSweepsMessagesNameTheDataPathAsSpelled() throws Exception {
        String b = S3TestServer.runBucket("spell-msg");
        s3.createBucket(b);
        String spelled = "s3://" + b + "/p%7Eq/";
        String canonical = "s3://" + b + "/p~q/";
        String orphan = "ducklake-01234567-89ab-cdef-0123-456789abcdef.parquet";

        // brake 15: no listed file is known (the known one is not there)
        FileCatalog none = FileCatalog.create("s3_sp_msg_none", spelled);
        none.dataFile(1, "k0.parquet", true);
        s3.put(b, "p%7Eq/main/test/" + orphan, 10);
        assertThat(refusal(none, 1.0).getMessage()).contains("listed under " + spelled).doesNotContain(canonical);

        // the orphan ratio: the known file and two orphans, at most a third may go
        s3.put(b, "p%7Eq/main/test/k0.parquet", 10);
        s3.put(b, "p%7Eq/main/test/other.parquet", 10);
        assertThat(refusal(none, 0.3).getMessage()).contains("files under " + spelled).doesNotContain(canonical);

        // a folder of DuckLake files no consulted catalog has as a table folder
        String c2 = S3TestServer.runBucket("spell-msg2");
        s3.createBucket(c2);
        FileCatalog folders = FileCatalog.create("s3_sp_msg_fold", "s3://" + c2 + "/p%7Eq/");
        folders.dataFile(1, "k0.parquet", true);
        s3.put(c2, "p%7Eq/main/test/k0.parquet", 10);
        s3.put(c2, "p%7Eq/main/gone/" + orphan, 10);
        dev.ducklake.janitor.JanitorException e = refusal(folders, 1.0);
        assertThat(e.reason()).isEqualTo(dev.ducklake.janitor.JanitorException.Reason.BRAKE_UNKNOWN_TABLE_FOLDERS);
        assertThat(e.getMessage()).contains("under s3://" + c2 + "/p%7Eq/").contains("s3://" + c2 + "/p%7Eq/main/gone/")
                .doesNotContain("p~q");
        DeleteOrphanFilesResult dry;
        try (Connection c = TestPostgres.get().connect(); FileStore store = s3.store()) {
            dry = OrphanSweep.run(c, store, options(folders, 1.0).toBuilder().allowUnknownTableFolders(true).dryRun(true).build(),
                    FileListener.NONE);
        }
        assertThat(dry.unknownTableFolders()).containsExactly("s3://" + c2 + "/p%7Eq/main/gone/");
    }

    private static DeleteOrphanFilesOptions options(FileCatalog cat, double ratio) {
        return DeleteOrphanFilesOptions.builder(cat.schema).minAge(Duration.ZERO).allowShortRetention(true)
                .olderThan(AgeThreshold.parse("0s")).maxOrphanRatio(ratio).dryRun(false).build();
    }

    private static dev.ducklake.janitor.JanitorException refusal(FileCatalog cat, double ratio) throws Exception {
        Thread.sleep(20);
        try (Connection c = TestPostgres.get().connect(); FileStore store = s3.store()) {
            OrphanSweep.run(c, store, options(cat, ratio), FileListener.NONE);
        } catch (dev.ducklake.janitor.JanitorException e) {
            return e;
        }
        throw new AssertionError("the sweep was not refused");
    }

    /**
     * Catalog A's data path is {@code s3://aBucket/aKeys}; another lake's files are under {@code s3://otherBucket/otherKeys},
     * the canonical form of A's. A knows one of the other lake's files by its absolute path.
     */
    private static void sweepLeavesTheOtherPrefix(String name, String aBucket, String aKeys, String otherBucket, String otherKeys)
            throws Exception {
        FileCatalog a = FileCatalog.create(name, "s3://" + aBucket + "/" + aKeys);
        s3.put(aBucket, aKeys + "main/test/k0.parquet", 10);
        a.dataFile(1, "k0.parquet", true);
        s3.put(aBucket, aKeys + "main/test/orphan.parquet", 10);
        for (String f : new String[] {"k0", "b1", "b2", "shared"}) {
            s3.put(otherBucket, otherKeys + "main/test/" + f + ".parquet", 10);
        }
        a.dataFile(1, "s3://" + otherBucket + "/" + otherKeys + "main/test/shared.parquet", false);
        Thread.sleep(20);
        DeleteOrphanFilesOptions o = DeleteOrphanFilesOptions.builder(a.schema).minAge(Duration.ZERO).allowShortRetention(true)
                .olderThan(AgeThreshold.parse("0s")).maxOrphanRatio(1.0).dryRun(false).build();
        DeleteOrphanFilesResult r;
        try (Connection c = TestPostgres.get().connect(); FileStore store = s3.store()) {
            r = OrphanSweep.run(c, store, o, FileListener.NONE);
        }
        for (String f : new String[] {"k0", "b1", "b2", "shared"}) {
            assertThat(s3.exists(otherBucket, otherKeys + "main/test/" + f + ".parquet")).as("the other lake's " + f).isTrue();
        }
        assertThat(s3.exists(aBucket, aKeys + "main/test/k0.parquet")).as("A's known file").isTrue();
        assertThat(s3.exists(aBucket, aKeys + "main/test/orphan.parquet")).as("A's orphan").isFalse();
        assertThat(r.listed()).as("A's two files, under the prefix as spelled").isEqualTo(2);
        assertThat(r.keptKnown()).isEqualTo(1);
        assertThat(r.candidates()).isEqualTo(1);
        assertThat(r.deleted()).isEqualTo(1);
    }
}
