package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.files.AgeThreshold;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.StorageLocation;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.JanitorProcess;
import dev.ducklake.janitor.testsupport.S3TestServer;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * delete-orphan-files --inventory s3://… (issue 27): an S3 Inventory manifest read from the store (the in-process S3
 * API), its CSV or Parquet listing files fetched from the destination bucket and checked against the manifest's size
 * and MD5, keys decoded as S3 Inventory writes each format. A refused inventory deletes nothing.
 */
class InventoryS3Test {

    static S3TestServer s3;

    @TempDir
    Path tmp;

    @BeforeAll
    static void start() throws Exception {
        s3 = new S3TestServer();
    }

    @AfterAll
    static void stop() throws Exception {
        s3.close();
    }

    /** Live files (the catalog knows them) and orphans whose names need encoding: a space, '+', '%', non-ASCII. */
    static final List<String> KNOWN = List.of("k 1.parquet", "k+2.parquet", "k%3.parquet", "k_é4.parquet", "t 5.parquet");
    static final List<String> ORPHANS = List.of("o 1.parquet", "o+2.parquet", "o%3.parquet", "o_é4.parquet", "t+5.parquet");

    /** A lake in its own bucket: 10 plain known files, {@link #KNOWN} and {@link #ORPHANS}, all in the store. */
    private FileCatalog lake(String bucket) throws Exception {
        s3.createBucket(bucket);
        FileCatalog cat = FileCatalog.create(bucket.replaceAll("[^a-z0-9]", "_"), "s3://" + bucket + "/lake/");
        List<String> known = new ArrayList<>(KNOWN);
        for (int i = 0; i < 10; i++) {
            known.add("k" + i + ".parquet");
        }
        for (String k : known) {
            s3.put(bucket, "lake/main/test/" + k, 10);
            cat.dataFile(1, k, true);
        }
        for (String o : ORPHANS) {
            s3.put(bucket, "lake/main/test/" + o, 10);
        }
        return cat;
    }

    /** Every key of the lake (under lake/), from the bucket's listing. */
    private static List<String> keys(String bucket) {
        List<String> out = new ArrayList<>();
        for (var m : s3.blobs().list(bucket, org.jclouds.blobstore.options.ListContainerOptions.Builder.recursive())) {
            if (m.getName().startsWith("lake/")) {
                out.add(m.getName());
            }
        }
        return out;
    }

    private static void putBytes(String bucket, String key, byte[] bytes) {
        s3.blobs().putBlob(bucket, s3.blobs().blobBuilder(key).payload(bytes).contentLength(bytes.length).build());
    }

    private static String md5(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(b));
    }

    /** Every object of the lake as one S3 Inventory CSV row (Bucket, Key, Size, LastModifiedDate), the key URL-encoded. */
    private static String csvRows(String bucket) {
        StringBuilder sb = new StringBuilder();
        for (String k : keys(bucket)) {
            String enc = URLEncoder.encode(k, StandardCharsets.UTF_8).replace("%2F", "/");
            sb.append('"').append(bucket).append("\",\"").append(enc).append("\",\"10\",\"2026-01-01T00:00:00.000Z\"\n");
        }
        return sb.toString();
    }

    private static byte[] gzip(String s) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (GZIPOutputStream g = new GZIPOutputStream(b)) {
            g.write(s.getBytes(StandardCharsets.UTF_8));
        }
        return b.toByteArray();
    }

    /** Puts listing files and their manifest into the destination bucket, as S3 Inventory lays them out; returns its address. */
    private static String publish(String source, String dest, String format, List<byte[]> listings, boolean checksums,
                                  String ext) throws Exception {
        StringBuilder files = new StringBuilder();
        for (int i = 0; i < listings.size(); i++) {
            String key = "inv/" + source + "/cfg/data/part-" + i + ext;
            putBytes(dest, key, listings.get(i));
            files.append(i == 0 ? "" : ",").append("{\"key\":\"").append(key).append("\",\"size\":").append(listings.get(i).length)
                    .append(checksums ? ",\"MD5checksum\":\"" + md5(listings.get(i)) + "\"" : "").append('}');
        }
        String schema = format.equals("CSV") ? "Bucket, Key, Size, LastModifiedDate"
                : "message s3.inventory { required binary bucket (UTF8); required binary key (UTF8); optional int64 size;"
                + " optional int64 last_modified_date (TIMESTAMP_MILLIS);}";
        String manifest = "{\"sourceBucket\":\"" + source + "\",\"destinationBucket\":\"arn:aws:s3:::" + dest + "\","
                + "\"version\":\"2016-11-30\",\"creationTimestamp\":\"1764896400000\",\"fileFormat\":\"" + format + "\","
                + "\"fileSchema\":\"" + schema + "\",\"files\":[" + files + "]}";
        String key = "inv/" + source + "/cfg/2026-12-05T01-00Z/manifest.json";
        putBytes(dest, key, manifest.getBytes(StandardCharsets.UTF_8));
        return "s3://" + dest + "/" + key;
    }

    private static DeleteOrphanFilesResult run(FileCatalog cat, String inventory) throws Exception {
        DeleteOrphanFilesOptions o = DeleteOrphanFilesOptions.builder(cat.schema).minAge(Duration.ZERO)
                .allowShortRetention(true).olderThan(AgeThreshold.parse("0s")).dryRun(false).inventory(inventory).build();
        try (Connection c = TestPostgres.get().connect(); FileStore store = s3.store()) {
            return OrphanSweep.run(c, store, o, FileListener.NONE);
        }
    }

    private static void assertOnlyOrphansGone(String bucket, DeleteOrphanFilesResult r) {
        assertThat(r.listingSource()).isEqualTo("inventory");
        assertThat(r.deleted()).as("each orphan, spelled as the store has it").isEqualTo(ORPHANS.size());
        assertThat(r.inventoryGone()).as("no entry decoded into a key the store does not have").isZero();
        List<String> left = keys(bucket);
        for (String k : KNOWN) {
            assertThat(left).as("live file kept").contains("lake/main/test/" + k);
        }
        for (String o : ORPHANS) {
            assertThat(left).as("orphan deleted").doesNotContain("lake/main/test/" + o);
        }
        assertThat(left).hasSize(10 + KNOWN.size());
    }

    @Test
    void anS3ManifestWithGzipCsvListingsInTheDestinationBucketDecodesKeysAndDeletesTheOrphans() throws Exception {
        String lake = S3TestServer.runBucket("invcsv");
        String dest = S3TestServer.runBucket("invdest");
        FileCatalog cat = lake(lake);
        s3.createBucket(dest);
        String rows = csvRows(lake);
        assertThat(rows).as("encoded as S3 Inventory writes CSV keys").contains("o+1.parquet", "o%2B2.parquet", "o%253.parquet",
                "o_%C3%A94.parquet");
        int half = rows.indexOf('\n', rows.length() / 2) + 1;
        String manifest = publish(lake, dest, "CSV", List.of(gzip(rows.substring(0, half)), gzip(rows.substring(half))), true, ".csv.gz");
        Thread.sleep(20);

        assertOnlyOrphansGone(lake, run(cat, manifest));
    }

    @Test
    void aPlainListAtAnS3KeyIsRead() throws Exception {
        String lake = S3TestServer.runBucket("invplain");
        FileCatalog cat = lake(lake);
        StringBuilder list = new StringBuilder();
        for (String k : keys(lake)) {
            list.append("s3://").append(lake).append('/').append(k).append("\t10\t2026-01-01T00:00:00Z\n");
        }
        putBytes(lake, "lists/all.tsv", list.toString().getBytes(StandardCharsets.UTF_8));
        Thread.sleep(20);

        assertOnlyOrphansGone(lake, run(cat, "s3://" + lake + "/lists/all.tsv"));
    }

    /** A listing file other than the manifest says (MD5), or missing: exit 2 and nothing deleted. */
    @Test
    void aListingFileThatIsNotTheManifestsOrIsMissingRefusesTheRunAndDeletesNothing() throws Exception {
        String lake = S3TestServer.runBucket("invbad");
        String dest = S3TestServer.runBucket("invbaddest");
        FileCatalog cat = lake(lake);
        s3.createBucket(dest);
        String rows = csvRows(lake);
        String manifest = publish(lake, dest, "CSV", List.of(rows.getBytes(StandardCharsets.UTF_8)), true, ".csv");
        // the listing rewritten after the manifest: same length, other bytes, every entry still parses
        byte[] other = rows.replace("2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.001Z").getBytes(StandardCharsets.UTF_8);
        assertThat(other).hasSameSizeAs(rows.getBytes(StandardCharsets.UTF_8));
        putBytes(dest, "inv/" + lake + "/cfg/data/part-0.csv", other);
        List<String> before = keys(lake);
        Thread.sleep(20);

        assertThatThrownBy(() -> run(cat, manifest)).isInstanceOfSatisfying(JanitorException.class, e -> {
            assertThat(e.reason()).isEqualTo(Reason.USAGE);
            assertThat(e.getMessage()).contains("part-0.csv").contains("has the MD5").contains("Nothing was deleted");
        });
        assertThat(keys(lake)).as("nothing deleted").containsExactlyInAnyOrderElementsOf(before);

        s3.blobs().removeBlob(dest, "inv/" + lake + "/cfg/data/part-0.csv");
        assertThatThrownBy(() -> run(cat, manifest)).isInstanceOfSatisfying(JanitorException.class, e -> {
            assertThat(e.reason().exitCode()).isEqualTo(2);
            assertThat(e.getMessage()).contains("s3://" + dest + "/inv/" + lake + "/cfg/data/part-0.csv").contains("not in the store");
        });
        assertThat(keys(lake)).as("nothing deleted").containsExactlyInAnyOrderElementsOf(before);

        assertThatThrownBy(() -> run(cat, "s3://" + dest + "/no/such/manifest.json"))
                .isInstanceOfSatisfying(JanitorException.class, e -> assertThat(e.reason()).isEqualTo(Reason.USAGE));
        assertThat(keys(lake)).containsExactlyInAnyOrderElementsOf(before);
    }

    /** A truncated listing (shorter than the manifest's size, no MD5 given) is refused too. */
    @Test
    void aListingShorterThanTheManifestSaysIsRefused() throws Exception {
        String lake = S3TestServer.runBucket("invshort");
        String dest = S3TestServer.runBucket("invshortdest");
        FileCatalog cat = lake(lake);
        s3.createBucket(dest);
        String rows = csvRows(lake);
        String manifest = publish(lake, dest, "CSV", List.of(rows.getBytes(StandardCharsets.UTF_8)), false, ".csv");
        // cut at a line's end: every entry left parses, only the length tells
        putBytes(dest, "inv/" + lake + "/cfg/data/part-0.csv", rows.substring(0, rows.indexOf('\n', rows.length() / 2) + 1)
                .getBytes(StandardCharsets.UTF_8));
        List<String> before = keys(lake);
        assertThatThrownBy(() -> run(cat, manifest)).isInstanceOfSatisfying(JanitorException.class, e -> {
            assertThat(e.reason()).isEqualTo(Reason.USAGE);
            assertThat(e.getMessage()).contains("bytes long, the manifest says");
        });
        assertThat(keys(lake)).containsExactlyInAnyOrderElementsOf(before);
    }

    /**
     * Writes an S3 Inventory Parquet listing with real DuckDB: bucket and key required strings, size int64,
     * last_modified_date int64 TIMESTAMP_MILLIS (or, {@code tz}, a timestamp with time zone), keys as they are.
     */
    private Path parquet(String bucket, List<String> keys, boolean tz) throws Exception {
        Path out = tmp.resolve("listing-" + System.nanoTime() + ".parquet");
        try (Connection d = DriverManager.getConnection("jdbc:duckdb:"); Statement st = d.createStatement()) {
            st.execute("CREATE TABLE inv (bucket VARCHAR NOT NULL, key VARCHAR NOT NULL, version_id VARCHAR, is_latest BOOLEAN,"
                    + " size BIGINT, last_modified_date " + (tz ? "TIMESTAMPTZ" : "TIMESTAMP_MS") + ", e_tag VARCHAR,"
                    + " storage_class VARCHAR)");
            try (PreparedStatement ps = d.prepareStatement("INSERT INTO inv VALUES (?, ?, NULL, true, 10, "
                    + (tz ? "'2026-01-01 00:00:00+00'::TIMESTAMPTZ" : "'2026-01-01 00:00:00'::TIMESTAMP_MS") + ", 'e', 'STANDARD')")) {
                for (String k : keys) {
                    ps.setString(1, bucket);
                    ps.setString(2, k);
                    ps.executeUpdate();
                }
            }
            st.execute("COPY inv TO '" + out + "' (FORMAT parquet)");
        }
        return out;
    }

    @Test
    void aParquetManifestIsReadWithDuckDbAndItsKeysAreNotDecoded() throws Exception {
        String lake = S3TestServer.runBucket("invpq");
        String dest = S3TestServer.runBucket("invpqdest");
        FileCatalog cat = lake(lake);
        s3.createBucket(dest);
        List<String> all = keys(lake);
        int half = all.size() / 2;
        byte[] a = Files.readAllBytes(parquet(lake, all.subList(0, half), false));
        byte[] b = Files.readAllBytes(parquet(lake, all.subList(half, all.size()), true));
        String manifest = publish(lake, dest, "Parquet", List.of(a, b), true, ".parquet");
        Thread.sleep(20);

        Inventory.Counts counts = new Inventory.Counts();
        try (FileStore store = s3.store(); FileStore.Listing l = Inventory.open(manifest, store,
                StorageLocation.parse("s3://" + lake + "/lake/"), tmp, counts)) {
            List<String> got = new ArrayList<>();
            l.forEachRemaining(o -> {
                got.add(o.address());
                assertThat(o.lastModified()).as("TIMESTAMP_MILLIS and TIMESTAMPTZ, both UTC")
                        .isEqualTo(java.time.Instant.parse("2026-01-01T00:00:00Z"));
                assertThat(o.sizeBytes()).isEqualTo(10);
            });
            assertThat(got).containsExactlyInAnyOrderElementsOf(all.stream().map(k -> "s3://" + lake + "/" + k).toList());
        }
        assertOnlyOrphansGone(lake, run(cat, manifest));
    }

    @Test
    void withoutDuckDbsDriverAParquetManifestIsExit21BeforeAnyListingIsFetchedAndOrcIsRefused() throws Exception {
        String lake = S3TestServer.runBucket("invnodrv");
        String dest = S3TestServer.runBucket("invnodrvdest");
        lake(lake);
        s3.createBucket(dest);
        List<String> all = keys(lake);
        String manifest = publish(lake, dest, "Parquet", List.of(Files.readAllBytes(parquet(lake, all, false))), true, ".parquet");
        // the listing removed: a reader that fetched it first would fail with exit 2, not 21
        s3.blobs().removeBlob(dest, "inv/" + lake + "/cfg/data/part-0.parquet");
        try (FileStore store = s3.store()) {
            assertThatThrownBy(() -> Inventory.open(manifest, store, StorageLocation.parse("s3://" + lake + "/lake/"), tmp,
                    new Inventory.Counts(), "org.duckdb.NoSuchDriver")).isInstanceOfSatisfying(JanitorException.class, e -> {
                        assertThat(e.reason().exitCode()).isEqualTo(21);
                        assertThat(e.getMessage()).contains("org.duckdb:duckdb_jdbc:1.5.5.0").contains("Parquet");
                    });
        }
        assertThat(keys(lake)).containsExactlyInAnyOrderElementsOf(all);

        String orc = "s3://" + dest + "/orc/manifest.json";
        putBytes(dest, "orc/manifest.json", ("{\"sourceBucket\":\"" + lake + "\",\"fileFormat\":\"ORC\",\"fileSchema\":\"struct<bucket:string>\","
                + "\"files\":[{\"key\":\"x.orc\"}]}").getBytes(StandardCharsets.UTF_8));
        try (FileStore store = s3.store()) {
            assertThatThrownBy(() -> Inventory.open(orc, store, StorageLocation.parse("s3://" + lake + "/lake/"), tmp,
                    new Inventory.Counts())).isInstanceOfSatisfying(JanitorException.class, e -> {
                        assertThat(e.reason()).isEqualTo(Reason.USAGE);
                        assertThat(e.getMessage()).contains("'ORC'").contains("CSV or Parquet");
                    });
        }
    }

    /**
     * The command line on a host without DuckDB's JDBC driver (a real JVM whose classpath lacks {@code duckdb_jdbc}),
     * with the S3 flags every storage command takes: a Parquet manifest is exit 21 naming the jar and deletes nothing;
     * a CSV manifest sweeps.
     */
    @Test
    void withoutDuckDbTheCliRefusesAParquetManifestWithExit21AndStillSweepsFromACsvOne() throws Exception {
        String lake = S3TestServer.runBucket("invcli");
        String dest = S3TestServer.runBucket("invclidest");
        FileCatalog cat = lake(lake);
        s3.createBucket(dest);
        List<String> all = keys(lake);
        String pq = publish(lake, dest, "Parquet", List.of(Files.readAllBytes(parquet(lake, all, false))), true, ".parquet");
        Thread.sleep(20);

        JanitorProcess p = cli(cat, pq);
        try {
            assertThat(p.waitFor(120)).as("stderr: %s", p.err()).isEqualTo(21);
            assertThat(p.err() + p.out()).contains("duckdb_jdbc-1.5.5.0.jar").contains("Parquet");
        } finally {
            p.cleanup();
        }
        assertThat(keys(lake)).as("nothing deleted").containsExactlyInAnyOrderElementsOf(all);

        String csv = publish(lake, dest, "CSV", List.of(gzip(csvRows(lake))), true, ".csv.gz");
        JanitorProcess q = cli(cat, csv);
        try {
            assertThat(q.waitFor(120)).as("stderr: %s", q.err()).isZero();
        } finally {
            q.cleanup();
        }
        List<String> left = keys(lake);
        assertThat(left).hasSize(10 + KNOWN.size());
        for (String o : ORPHANS) {
            assertThat(left).doesNotContain("lake/main/test/" + o);
        }
    }

    private static JanitorProcess cli(FileCatalog cat, String inventory) throws Exception {
        return JanitorProcess.startWithout("duckdb_jdbc", Map.of("LC_ALL", "C.UTF-8", "AWS_ACCESS_KEY_ID", "janitor-test",
                        "AWS_SECRET_ACCESS_KEY", "janitor-test-secret"), "delete-orphan-files", "--catalog", TestPostgres.get().url(),
                "--metadata-schema", cat.schema, "--inventory", inventory, "--s3-endpoint", s3.endpoint().toString(),
                "--s3-path-style", "--s3-region", "us-east-1", "--older-than", "0s", "--min-age", "0s", "--allow-short-retention",
                "--yes");
    }

    /**
     * Memory: listings of more entries than a sort chunk, in random order, a gzip'd CSV and a Parquet file from the
     * store, come out complete and in byte order (streamed, sorted chunk by chunk and merged).
     */
    @Test
    void listingsOfMoreEntriesThanAChunkAreStreamedAndComeOutInByteOrder() throws Exception {
        String dest = S3TestServer.runBucket("invbig");
        s3.createBucket(dest);
        int n = Inventory.CHUNK * 2 + 17;
        StringBuilder rows = new StringBuilder();
        for (int i = 0; i < n; i++) {
            rows.append("\"src\",\"lake/main/t/f%20").append((i * 7919L) % n).append(".parquet\",\"1\",\"2026-01-01T00:00:00.000Z\"\n");
        }
        Path pq = tmp.resolve("big.parquet");
        try (Connection d = DriverManager.getConnection("jdbc:duckdb:"); Statement st = d.createStatement()) {
            st.execute("COPY (SELECT 'src' AS bucket, 'lake/main/t/g+' || ((i * 7919) % " + n + ") || '.parquet' AS key,"
                    + " 1::BIGINT AS size, TIMESTAMP_MS '2026-01-01 00:00:00' AS last_modified_date FROM range(" + n + ") r(i))"
                    + " TO '" + pq + "' (FORMAT parquet)");
        }
        for (String format : List.of("CSV", "Parquet")) {
            byte[] listing = format.equals("CSV") ? gzip(rows.toString()) : Files.readAllBytes(pq);
            String manifest = publish("src-" + format, dest, format, List.of(listing), true, format.equals("CSV") ? ".csv.gz" : ".parquet");
            Inventory.Counts counts = new Inventory.Counts();
            long seen = 0;
            String prev = null;
            try (FileStore store = s3.store(); FileStore.Listing l = Inventory.open(manifest, store,
                    StorageLocation.parse("s3://src/lake/"), tmp, counts)) {
                while (l.hasNext()) {
                    String c = l.next().location().canonical();
                    if (prev != null) {
                        assertThat(StorageLocation.compareCodePoints(prev, c)).as(format).isNegative();
                    }
                    prev = c;
                    seen++;
                }
            }
            assertThat(seen).as(format).isEqualTo(n);
            assertThat(prev).as(format + ": keys decoded for CSV only").contains(format.equals("CSV") ? "/f " : "/g+");
        }
        try (var s = Files.list(tmp)) {
            assertThat(s.map(p -> p.getFileName().toString())).as("the chunks and listing copies are removed")
                    .noneMatch(f -> f.startsWith("ducklake-janitor-inventory-"));
        }
    }

    /** An s3:// inventory is read through the store of an s3:// data path; a local lake is told to copy it. */
    @Test
    void anS3InventoryForALocalDataPathIsAUsageError() {
        assertThatThrownBy(() -> Inventory.open("s3://b/manifest.json", null, StorageLocation.parse("/lake/"), tmp,
                new Inventory.Counts())).isInstanceOfSatisfying(JanitorException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.USAGE);
                    assertThat(e.getMessage()).contains("copy the inventory to a local file");
                });
    }
}
