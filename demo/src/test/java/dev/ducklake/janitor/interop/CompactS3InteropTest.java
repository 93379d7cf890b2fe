package dev.ducklake.janitor.interop;

import dev.ducklake.janitor.testsupport.CliRun;
import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.testsupport.S3TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26: flush-inlined-data and compact on a catalog whose data path is on S3 (the in-process S3 API). The catalog of
 * {@link CompactDifferentialInteropTest} is written by real DuckLake 1.5.5 on local disk; one {@code TEMPLATE} copy keeps
 * it there and gets DuckLake's own flush, merge and rewrite; on the other its files are uploaded to a bucket and
 * {@code data_path} is pointed at it (every path of the catalog is relative, so DuckLake reads the copy there), and the
 * janitor runs flush-inlined-data then compact through DuckDB's httpfs. Both must leave the same live files per table and
 * the same rows at every snapshot, as DuckLake reads them (the S3 copy read back through httpfs). Also: no credentials and
 * a missing httpfs extension are refused before anything changes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CompactS3InteropTest {

    private ExpireTwins twins;
    private S3TestServer s3;
    private String bucket;
    private long newestSource;

    @BeforeAll
    void writeCatalog() throws Exception {
        RealDuckLake.require();
        s3 = new S3TestServer();
        bucket = S3TestServer.runBucket("compact-s3");
        s3.createBucket(bucket);
        twins = new ExpireTwins("cs3");
        RealDuckLake.require().run(RealDuckLake.program().attach(twins.attach(twins.source).inliningRowLimit(10))
                .sql(CompactDifferentialInteropTest.WORKLOAD)).assertOk();
        newestSource = Long.parseLong(twins.rows(twins.source, "SELECT max(snapshot_id) FROM " + ExpireTwins.SCHEMA
                + ".ducklake_snapshot").get(0));
    }

    @AfterAll
    void tearDown() throws Exception {
        if (twins != null) {
            twins.close();
        }
        if (s3 != null) {
            s3.close();
        }
    }

    /** A copy of the catalog whose files are in the bucket under {@code <db>/} and whose data_path says so. */
    private String copyOnS3(String suffix) throws Exception {
        String db = twins.copy(suffix);
        assertThat(twins.rows(db, "SELECT count(*) FROM " + ExpireTwins.SCHEMA + ".ducklake_data_file WHERE NOT path_is_relative"))
                .as("DuckLake wrote relative paths: the catalog moves with its data path").containsExactly("0");
        try (Stream<Path> files = Files.walk(twins.dataDir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                byte[] bytes = Files.readAllBytes(f);
                String key = db + "/" + twins.dataDir.relativize(f).toString().replace('\\', '/');
                s3.blobs().putBlob(bucket, s3.blobs().blobBuilder(key).payload(bytes).contentLength(bytes.length).build());
            }
        }
        try (var c = twins.connect(db); var ps = c.prepareStatement("UPDATE " + ExpireTwins.SCHEMA + ".ducklake_metadata SET value = ?"
                + " WHERE key = 'data_path' AND scope IS NULL")) {
            ps.setString(1, dataPath(db));
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
        return db;
    }

    private String dataPath(String db) {
        return "s3://" + bucket + "/" + db + "/";
    }

    private long objects(String db) {
        return s3.client().listObjectsV2Paginator(b -> b.bucket(bucket).prefix(db + "/")).contents().stream().count();
    }

    private String[] s3Flags() {
        return new String[] {"--s3-endpoint", s3.endpoint().toString(), "--s3-path-style", "--s3-region", "us-east-1"};
    }

    private CliRun janitor(String command, String db, Path extensionDir, String... args) {
        List<String> all = new ArrayList<>(List.of(command, "--catalog", twins.catalogArg(db), "--metadata-schema", ExpireTwins.SCHEMA,
                "--output", "json", "--yes", "--duckdb-extension-dir", extensionDir.toString()));
        all.addAll(List.of(args));
        return CliRun.run(System.getenv(), all.toArray(new String[0]));
    }

    /** A DuckLake program that reads the S3 copy through httpfs. */
    private RealDuckLake.Program onS3(String db) throws Exception {
        Path httpfs;
        try (Stream<Path> s = Files.walk(RealDuckLake.require().extensionFilesRoot())) {
            httpfs = s.filter(p -> p.getFileName().toString().equals("httpfs.duckdb_extension")).findFirst()
                    .orElseThrow(() -> new AssertionError("no httpfs.duckdb_extension: demo/src/test/python/requirements-interop.txt"
                            + " pins duckdb-extension-httpfs; rerun scripts/install-ducklake-test-env.sh"));
        }
        var spec = twins.spec(db);
        return RealDuckLake.program().sql("LOAD '" + httpfs + "'", "CREATE SECRET (TYPE s3, KEY_ID 'janitor-test', SECRET "
                        + "'janitor-test-secret', REGION 'us-east-1', ENDPOINT '127.0.0.1:" + s3.endpoint().getPort() + "', URL_STYLE 'path',"
                        + " USE_SSL false)")
                .attach(new RealDuckLake.Attach("host=" + spec.host() + " port=" + spec.port() + " dbname=" + db + " user=" + spec.user(),
                        null).metadataSchema(ExpireTwins.SCHEMA));
    }

    @Test
    void flushAndCompactOnS3EqualDuckLakesOwnFunctionsOnLocalDisk() throws Exception {
        String local = twins.copy("loc");
        RealDuckLake.require().run(RealDuckLake.program().attach(twins.attach(local)).sql("CALL ducklake_flush_inlined_data('lake')",
                "CALL ducklake_merge_adjacent_files('lake')", "CALL ducklake_rewrite_data_files('lake')")).assertOk();

        String b = copyOnS3("s3");
        long objectsBefore = objects(b);
        long localBefore;
        try (Stream<Path> f = Files.walk(twins.dataDir)) {
            localBefore = f.count();
        }
        Path ext = RealDuckLake.require().extensionFilesRoot();
        CliRun flush = janitor("flush-inlined-data", b, ext, s3Flags());
        assertThat(flush.exitCode()).as(flush.err() + flush.out()).isZero();
        assertThat(flush.json().path("tables_done").asLong()).isEqualTo(2);
        CliRun compact = janitor("compact", b, ext, s3Flags());
        assertThat(compact.exitCode()).as(compact.err() + compact.out()).isZero();
        assertThat(compact.json().path("tables_done").asLong()).isPositive();
        assertThat(flush.out() + flush.err() + compact.out() + compact.err()).doesNotContain("janitor-test-secret");

        assertThat(objects(b)).as("DuckDB wrote the new Parquet files to the bucket").isGreaterThan(objectsBefore);
        try (Stream<Path> f = Files.walk(twins.dataDir)) {
            assertThat(f.count()).as("and nothing to local disk").isEqualTo(localBefore);
        }
        assertThat(CompactDifferentialInteropTest.liveFiles(twins, b)).as("live files per table")
                .isEqualTo(CompactDifferentialInteropTest.liveFiles(twins, local))
                .isNotEqualTo(CompactDifferentialInteropTest.liveFiles(twins, twins.source));
        Map<String, JsonNode> onS3 = CompactDifferentialInteropTest.rowsEverywhere(twins, b, onS3(b), newestSource);
        Map<String, JsonNode> onDisk = CompactDifferentialInteropTest.rowsEverywhere(twins, local,
                RealDuckLake.program().attach(twins.attach(local)), newestSource);
        assertThat(onS3).isEqualTo(onDisk);
    }

    @Test
    void withoutCredentialsNothingStartsAndNothingChanges() throws Exception {
        String b = copyOnS3("nocred");
        Map<String, List<String>> dump = twins.dump(b);
        String[] props = {"aws.accessKeyId", "aws.secretAccessKey", "aws.disableEc2Metadata", "aws.sharedCredentialsFile", "aws.configFile"};
        Map<String, String> saved = new java.util.HashMap<>();
        for (String p : props) {
            if (System.getProperty(p) != null) {
                saved.put(p, System.getProperty(p));
            }
        }
        System.clearProperty("aws.accessKeyId");
        System.clearProperty("aws.secretAccessKey");
        System.setProperty("aws.disableEc2Metadata", "true");
        Path none = Files.createTempDirectory("no-aws-");
        System.setProperty("aws.sharedCredentialsFile", none.resolve("credentials").toString());
        System.setProperty("aws.configFile", none.resolve("config").toString());
        try {
            CliRun r = janitor("compact", b, RealDuckLake.require().extensionFilesRoot(), s3Flags());
            assertThat(r.exitCode()).as(r.err() + r.out()).isEqualTo(13);
            assertThat(r.err()).contains("is on S3").contains("No AWS credentials");
            CliRun dry = janitor("compact", b, RealDuckLake.require().extensionFilesRoot(),
                    List.of("--dry-run", "--s3-endpoint", s3.endpoint().toString(), "--s3-path-style").toArray(new String[0]));
            assertThat(dry.exitCode()).as(dry.err() + dry.out()).isZero();
            assertThat(dry.json().path("warnings").toString()).contains("an execute run would stop before starting DuckDB (exit 13)");
        } finally {
            for (String p : props) {
                if (saved.containsKey(p)) {
                    System.setProperty(p, saved.get(p));
                } else {
                    System.clearProperty(p);
                }
            }
        }
        assertThat(twins.dump(b)).as("nothing changed").isEqualTo(dump);
    }

    @Test
    void aMissingHttpfsExtensionIsNamed() throws Exception {
        String b = copyOnS3("nohttpfs");
        Map<String, List<String>> dump = twins.dump(b);
        Path dir = Files.createTempDirectory("ext-no-httpfs-").resolve("v1.5.5");
        Files.createDirectories(dir);
        try (Stream<Path> s = Files.walk(RealDuckLake.require().extensionFilesRoot())) {
            for (Path p : s.filter(p -> p.getFileName().toString().equals("ducklake.duckdb_extension")
                    || p.getFileName().toString().equals("postgres_scanner.duckdb_extension")).toList()) {
                Files.copy(p, dir.resolve(p.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        CliRun r = janitor("flush-inlined-data", b, dir.getParent(), s3Flags());
        assertThat(r.exitCode()).as(r.err() + r.out()).isEqualTo(21);
        assertThat(r.err()).contains("No httpfs.duckdb_extension file under").contains("duckdb-extension-httpfs");
        assertThat(twins.dump(b)).as("nothing changed").isEqualTo(dump);
    }
}
