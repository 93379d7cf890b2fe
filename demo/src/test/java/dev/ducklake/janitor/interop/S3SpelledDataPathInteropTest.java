package dev.ducklake.janitor.interop;

import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesOptions;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesResult;
import dev.ducklake.janitor.ops.deleteorphanfiles.OrphanSweep;
import dev.ducklake.janitor.ops.files.AgeThreshold;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.testsupport.S3TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Real DuckLake 1.5.5 through httpfs on the in-process S3 API: a catalog whose data path is {@code s3://b/p%7Eq/}
 * ({@code s3://b/d//q/}, {@code s3://BKT/lake/}) has its files written by DuckDB under the prefix as spelled
 * ({@code p%7Eq/}, {@code d//q/}, bucket {@code BKT}), while another tenant's lake (a DuckDB-file catalog, invisible to
 * the janitor) lives under the canonical form ({@code p~q/}, {@code d/q/}, bucket {@code bkt}). The first catalog reads
 * one of the tenant's files ({@code ducklake_add_data_files}). Its orphan sweep deletes its own stray file only: every
 * file of the tenant survives and both lakes read their rows.
 */
class S3SpelledDataPathInteropTest {

    private static S3TestServer s3;
    private InteropCatalog lake;

    @BeforeAll
    static void start() throws Exception {
        RealDuckLake.require();
        s3 = new S3TestServer();
    }

    @AfterAll
    static void stop() throws Exception {
        if (s3 != null) {
            s3.close();
        }
    }

    @AfterEach
    void cleanup() {
        if (lake != null) {
            lake.deleteDataDir();
        }
    }

    @Test
    void aPercentEscapedDataPathIsSweptAsDuckDbSpellsItsKeys() throws Exception {
        String b = S3TestServer.runBucket("spelled-tilde");
        sweep(b, "p%7Eq/", b, "p~q/");
    }

    @Test
    void aDoubledSlashDataPathIsSweptAsDuckDbSpellsItsKeys() throws Exception {
        String b = S3TestServer.runBucket("spelled-slash");
        sweep(b, "d//q/", b, "d/q/");
    }

    @Test
    void anUpperCaseBucketIsSweptAsDuckDbSpellsIt() throws Exception {
        String lower = S3TestServer.runBucket("spelled-case");
        sweep(lower.toUpperCase(java.util.Locale.ROOT), "lake/", lower, "lake/");
    }

    private static String secret() throws Exception {
        return "CREATE SECRET (TYPE s3, KEY_ID 'janitor-test', SECRET 'janitor-test-secret', REGION 'us-east-1', ENDPOINT"
                + " '127.0.0.1:" + s3.endpoint().getPort() + "', URL_STYLE 'path', USE_SSL false)";
    }

    private static String loadHttpfs() throws Exception {
        try (Stream<Path> s = Files.walk(RealDuckLake.require().extensionFilesRoot())) {
            return "LOAD '" + s.filter(p -> p.getFileName().toString().equals("httpfs.duckdb_extension")).findFirst()
                    .orElseThrow(() -> new AssertionError("no httpfs.duckdb_extension: rerun scripts/install-ducklake-test-env.sh"))
                    + "'";
        }
    }

    private List<String> keys(String bucket, String prefix) {
        return s3.client().listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().stream()
                .map(o -> o.key()).toList();
    }

    /** Catalog A on {@code s3://bucket/spelled}; the other tenant on {@code s3://otherBucket/canonical}, its canonical form. */
    private void sweep(String bucket, String spelled, String otherBucket, String canonical) throws Exception {
        s3.createBucket(bucket);
        s3.createBucket(otherBucket);
        lake = InteropCatalog.fresh("dof_spelled");
        String tenant = lake.dataDir().resolve("tenant.ducklake").toString();
        // the other tenant: a DuckDB-file catalog the janitor cannot see, its files under the canonical spelling
        RealDuckLake.Result b = lake.run(RealDuckLake.program().sql(loadHttpfs(), secret(), "ATTACH 'ducklake:" + tenant
                        + "' AS lb (DATA_PATH 's3://" + otherBucket + "/" + canonical + "', DATA_INLINING_ROW_LIMIT 0)",
                        "CREATE TABLE lb.t(i INTEGER)", "INSERT INTO lb.t VALUES (1)", "INSERT INTO lb.t VALUES (1)")
                .query("shared", "SELECT data_file FROM ducklake_list_files('lb', 't') ORDER BY 1 LIMIT 1"));
        String shared = b.rows("shared").get(0).get(0);
        List<String> tenantKeys = keys(otherBucket, canonical);
        assertThat(tenantKeys).as("the tenant's files").hasSize(2);
        lake.run(RealDuckLake.program().sql(loadHttpfs(), secret())
                .attach(lake.attach("s3://" + bucket + "/" + spelled).inliningRowLimit(0))
                .sql("CREATE TABLE lake.t(i INTEGER)", "INSERT INTO lake.t VALUES (10)",
                        "CALL ducklake_add_data_files('lake', 't', '" + shared + "')"));
        assertThat(keys(bucket, spelled)).as("DuckDB writes the keys under the data path as spelled").hasSize(1);
        s3.put(bucket, spelled + "main/t/ducklake-stray.parquet", 10);
        Thread.sleep(20);

        DeleteOrphanFilesResult r;
        try (Connection c = lake.connect(); FileStore store = s3.store()) {
            r = OrphanSweep.run(c, store, DeleteOrphanFilesOptions.builder(lake.schema()).minAge(Duration.ZERO)
                    .allowShortRetention(true).olderThan(AgeThreshold.parse("0s")).maxOrphanRatio(1.0).dryRun(false).build(),
                    FileListener.NONE);
        }
        assertThat(keys(otherBucket, canonical)).as("every file of the tenant survives").containsExactlyElementsOf(tenantKeys);
        assertThat(r.listed()).as("the catalog's own file and the stray, under the prefix as spelled").isEqualTo(2);
        assertThat(r.deleted()).isEqualTo(1);
        assertThat(s3.exists(bucket, spelled + "main/t/ducklake-stray.parquet")).isFalse();
        RealDuckLake.Result read = lake.run(RealDuckLake.program().sql(loadHttpfs(), secret())
                .attach(lake.attach("s3://" + bucket + "/" + spelled)).query("a", "SELECT sum(i) FROM lake.t")
                .sql("ATTACH 'ducklake:" + tenant + "' AS lb").query("b", "SELECT sum(i) FROM lb.t"));
        assertThat(read.rows("a")).containsExactly(List.of("11"));
        assertThat(read.rows("b")).containsExactly(List.of("2"));
    }
}
