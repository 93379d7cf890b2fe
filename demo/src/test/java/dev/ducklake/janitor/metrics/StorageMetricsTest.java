package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.S3TestServer;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static dev.ducklake.janitor.metrics.MetricsDaemonTest.await;
import static dev.ducklake.janitor.metrics.MetricsDaemonTest.get;
import static dev.ducklake.janitor.metrics.MetricsDaemonTest.sample;
import static dev.ducklake.janitor.metrics.MetricsDaemonTest.scrape;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21: check --storage's counts exported by {@code metrics --storage} and {@code serve --storage} (local files and
 * S3 through S3Proxy); a storage failure is its own metric and /-/ready line and never takes the catalog gauges down.
 */
class StorageMetricsTest {

    private static final Duration OLD = Duration.ofDays(3);

    @TempDir
    Path dir;

    /** Three known files (one resized), one data file row and one delete file row whose objects are gone, one row outside. */
    private FileCatalog damagedLocalCatalog(Path lake) throws Exception {
        FileCatalog cat = FileCatalog.create("met_storage", lake + "/");
        for (int i = 0; i < 3; i++) {
            FileCatalog.file(lake.resolve("main/test/k" + i + ".parquet"), OLD);
            cat.dataFile(1, "k" + i + ".parquet", true);
        }
        try (Connection c = TestPostgres.get().connect()) {
            Catalogs.exec(c, "UPDATE " + Sql.qualified(cat.schema, "ducklake_data_file") + " SET file_size_bytes = 99"
                    + " WHERE path = 'k1.parquet'");
        }
        cat.dataFile(1, "gone.parquet", true);
        cat.deleteFile(1, "gone-delete.puffin", true);
        cat.dataFile(1, dir.resolve("elsewhere/x.parquet").toString(), false);
        FileCatalog.file(lake.resolve("main/test/stray.parquet"), OLD); // listed, known to no row
        return cat;
    }

    /** The series as the text format prints it (labels in name order). */
    private static String series(String name, String cat, String schema, String... more) {
        java.util.TreeMap<String, String> labels = new java.util.TreeMap<>();
        labels.put("catalog", cat);
        labels.put("schema", schema);
        for (int i = 0; i < more.length; i += 2) {
            labels.put(more[i], more[i + 1]);
        }
        StringBuilder b = new StringBuilder(name).append('{');
        labels.forEach((k, v) -> b.append(b.charAt(b.length() - 1) == '{' ? "" : ",").append(k).append("=\"").append(v).append('"'));
        return b.append('}').toString();
    }

    @Test
    void metricsExportsTheStorageCountsOnlyWhenAsked() throws Exception {
        Path lake = dir.resolve("lake");
        FileCatalog cat = damagedLocalCatalog(lake);
        String url = TestPostgres.get().url();
        CliRun plain = CliRun.run("metrics", "--catalog", url, "--metadata-schema", cat.schema, "--catalog-label", "lake");
        assertThat(plain.exitCode()).as(plain.toString()).isZero();
        assertThat(plain.out()).doesNotContain("ducklake_storage_").doesNotContain("missing_data_files")
                .doesNotContain("ducklake_janitor_storage_check");

        CliRun r = CliRun.run("metrics", "--catalog", url, "--metadata-schema", cat.schema, "--catalog-label", "lake", "--storage");
        assertThat(r.exitCode()).as(r.toString()).isZero();
        String body = r.out();
        String s = cat.schema;
        assertThat(sample(body, series("ducklake_check_findings", "lake", s, "kind", "missing_data_files", "severity", "damage")))
                .as(body).isEqualTo(1.0);
        assertThat(sample(body, series("ducklake_check_findings", "lake", s, "kind", "missing_delete_files", "severity", "damage")))
                .isEqualTo(1.0);
        assertThat(sample(body, series("ducklake_check_findings", "lake", s, "kind", "size_mismatch_files", "severity", "damage")))
                .isEqualTo(1.0);
        assertThat(sample(body, series("ducklake_check_findings", "lake", s, "kind", "dead_inlined_rows", "severity", "debris")))
                .as("the catalog rules' findings are in the same family").isNotNull();
        assertThat(sample(body, series("ducklake_storage_listed_objects", "lake", s))).isEqualTo(4.0);
        assertThat(sample(body, series("ducklake_storage_compared_files", "lake", s))).isEqualTo(5.0);
        assertThat(sample(body, series("ducklake_storage_unchecked_files", "lake", s))).isEqualTo(1.0);
        assertThat(sample(body, series("ducklake_janitor_storage_check_success", "lake", s))).isEqualTo(1.0);
        assertThat(sample(body, series("ducklake_janitor_storage_check_errors_total", "lake", s))).isEqualTo(0.0);
        assertThat(sample(body, series("ducklake_janitor_storage_check_duration_seconds", "lake", s))).isPositive();
        assertThat(body).contains("# TYPE ducklake_storage_listed_objects gauge")
                .contains("# TYPE ducklake_janitor_storage_check_errors_total counter")
                .contains("ducklake_janitor_up{catalog=\"lake\"} 1");

        CliRun json = CliRun.run("metrics", "--catalog", url, "--metadata-schema", cat.schema, "--storage", "--output", "json");
        assertThat(json.json().get("catalogs").get(0).get("storage").get("status").asText()).isEqualTo("ok");

        // the flags of the store only with --storage
        CliRun misuse = CliRun.run("metrics", "--catalog", url, "--metadata-schema", cat.schema, "--data-path", lake.toString());
        assertThat(misuse.exitCode()).as(misuse.toString()).isEqualTo(2);
        assertThat(misuse.err()).contains("only apply with --storage");
        for (String[] bad : List.of(new String[] {"serve", "--storage-interval", "60"}, new String[] {"serve", "--storage-timeout", "60"},
                new String[] {"serve", "--storage", "--storage-interval", "0"}, new String[] {"metrics", "--storage", "--storage-timeout", "-1"})) {
            String[] args = java.util.stream.Stream.concat(java.util.Arrays.stream(bad), java.util.stream.Stream.of("--catalog", url,
                    "--metadata-schema", cat.schema, "--listen", "127.0.0.1:0")).toArray(String[]::new);
            if (bad[0].equals("metrics")) {
                args = java.util.Arrays.copyOf(args, args.length - 2);
            }
            CliRun r2 = CliRun.run(args);
            assertThat(r2.exitCode()).as(String.join(" ", bad) + ": " + r2).isEqualTo(2);
        }
        assertThat(Files.exists(lake.resolve("main/test/stray.parquet"))).as("nothing is deleted").isTrue();
        try (Connection c = TestPostgres.get().connect()) {
            assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + Sql.qualified(cat.schema, "ducklake_data_file")
                    + " WHERE path = 'gone.parquet'")).as("the catalog is never changed").isEqualTo(1);
        }
    }

    @Test
    void aStorageFailureIsItsOwnMetricAndExitCodeAndKeepsTheCatalogGauges() throws Exception {
        try (S3TestServer s3 = new S3TestServer()) {
            String bucket = S3TestServer.runBucket("metstore");
            s3.createBucket(bucket);
            FileCatalog cat = FileCatalog.create("met_s3", "s3://" + bucket + "/lake/");
            for (int i = 0; i < 2; i++) {
                s3.put(bucket, "lake/main/test/k" + i + ".parquet", 10);
                cat.dataFile(1, "k" + i + ".parquet", true);
            }
            cat.dataFile(1, "gone.parquet", true);
            String[] args = {"metrics", "--catalog", TestPostgres.get().url(), "--metadata-schema", cat.schema, "--catalog-label",
                "lake", "--storage", "--s3-endpoint", s3.endpoint().toString(), "--s3-path-style", "--s3-region", "us-east-1"};
            CliRun ok = CliRun.run(args);
            assertThat(ok.exitCode()).as(ok.toString()).isZero();
            String s = cat.schema;
            assertThat(sample(ok.out(), series("ducklake_check_findings", "lake", s, "kind", "missing_data_files", "severity",
                    "damage"))).as(ok.out()).isEqualTo(1.0);
            assertThat(sample(ok.out(), series("ducklake_storage_listed_objects", "lake", s))).isEqualTo(2.0);

            s3.blobs().deleteContainer(bucket); // the store no longer answers for this data path
            CliRun failed = CliRun.run(args);
            assertThat(failed.exitCode()).as(failed.toString()).isEqualTo(13);
            assertThat(failed.err()).contains("storage comparison");
            String body = failed.out();
            assertThat(sample(body, series("ducklake_janitor_storage_check_success", "lake", s))).as(body).isEqualTo(0.0);
            assertThat(sample(body, series("ducklake_janitor_storage_check_errors_total", "lake", s))).isEqualTo(1.0);
            assertThat(body).doesNotContain("ducklake_storage_listed_objects{").doesNotContain("missing_data_files");
            assertThat(body).as("the catalog gauges are unaffected").contains("ducklake_janitor_up{catalog=\"lake\"} 1")
                    .contains(series("ducklake_data_files_live", "lake", s) + " 3.0");
        }
    }

    @Test
    void serveComparesStorageApartAndShowsAFailureInReady() throws Exception {
        Path lake = dir.resolve("lake");
        FileCatalog cat = damagedLocalCatalog(lake);
        TargetConfig good = new TargetConfig("lake", TestPostgres.get().spec(), cat.schema, Duration.ofSeconds(30), List.of());
        TargetConfig other = new TargetConfig("slow", TestPostgres.get().spec(), cat.schema, Duration.ofSeconds(30), List.of());
        List<String> log = new CopyOnWriteArrayList<>();
        StorageGauges local = new StorageGauges(good, p -> new LocalFileStore(), null, Duration.ofMinutes(1), log::add);
        // a storage timeout nothing can meet: the comparison always ends as failed, the catalog stays up
        StorageGauges timedOut = new StorageGauges(other, p -> new LocalFileStore(), null, Duration.ofMillis(1), log::add);
        List<CatalogTarget> targets = List.of(new CatalogTarget(good, log::add), new CatalogTarget(other, log::add));
        try (MetricsDaemon d = new MetricsDaemon(targets, Duration.ofMillis(500), log::add)
                .withStorage(List.of(local, timedOut), Duration.ofMillis(300))) {
            d.start("127.0.0.1", 0);
            int port = d.port();
            String s = cat.schema;
            await("both compared", Duration.ofSeconds(60), () -> {
                String b = scrape(port);
                Double errs = sample(b, series("ducklake_janitor_storage_check_errors_total", "slow", s));
                return sample(b, series("ducklake_storage_listed_objects", "lake", s)) != null && errs != null && errs >= 2
                        && Double.valueOf(1.0).equals(sample(b, "ducklake_janitor_up{catalog=\"slow\"}"))
                        && Double.valueOf(1.0).equals(sample(b, "ducklake_janitor_up{catalog=\"lake\"}"));
            });
            String body = scrape(port);
            assertThat(sample(body, series("ducklake_check_findings", "lake", s, "kind", "missing_data_files", "severity", "damage")))
                    .isEqualTo(1.0);
            assertThat(sample(body, series("ducklake_janitor_storage_check_success", "lake", s))).isEqualTo(1.0);
            assertThat(sample(body, series("ducklake_janitor_storage_check_success", "slow", s))).isEqualTo(0.0);
            assertThat(body).doesNotContain(series("ducklake_storage_listed_objects", "slow", s));
            assertThat(sample(body, "ducklake_janitor_up{catalog=\"slow\"}")).as("storage never takes the catalog down")
                    .isEqualTo(1.0);
            Double errs = sample(body, series("ducklake_janitor_storage_check_errors_total", "slow", s));
            await("more failed comparisons", Duration.ofSeconds(30), () -> sample(scrape(port),
                    series("ducklake_janitor_storage_check_errors_total", "slow", s)) > errs);
            assertThat(sample(scrape(port), "ducklake_janitor_up{catalog=\"slow\"}")).as("still up after more failures").isEqualTo(1.0);
            assertThat(sample(body, series("ducklake_data_files_live", "slow", s))).isEqualTo(5.0);
            HttpResponse<String> ready = get(port, "/-/ready");
            assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
            assertThat(ready.body()).contains("lake storage: ok").contains("slow storage: failed (")
                    .contains("storage comparison timed out after 0.001 s");
            assertThat(String.join("\n", log)).contains("catalog slow: storage comparison failed");
        }
    }

    /** A catalog in schema {@code schema} of the connection's database with data_path {@code lake} and these live data files. */
    private static void catalogIn(Connection c, String schema, Path lake, String... files) throws Exception {
        Catalogs.loadFixture04(c, schema);
        Catalogs.exec(c, "UPDATE " + Sql.qualified(schema, "ducklake_metadata") + " SET value = '1.0' WHERE key = 'version'");
        Catalogs.exec(c, "DELETE FROM " + Sql.qualified(schema, "ducklake_metadata") + " WHERE key = 'data_path'");
        Catalogs.exec(c, "INSERT INTO " + Sql.qualified(schema, "ducklake_metadata") + " VALUES ('data_path', '" + lake + "/', NULL, NULL)");
        long id = 1000;
        for (String f : files) {
            Catalogs.exec(c, "INSERT INTO " + Sql.qualified(schema, "ducklake_data_file") + " (data_file_id, table_id, begin_snapshot,"
                    + " path, path_is_relative, file_format) VALUES (" + id++ + ", 1, 1, '" + f + "', true, 'parquet')");
        }
    }

    @Test
    void everySchemaIsComparedAndOneLeftIsNoLongerReported() throws Exception {
        String db = "met_storage_all_" + ProcessHandle.current().pid();
        try (Connection c = TestPostgres.get().connect(); java.sql.Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db));
            st.execute("CREATE DATABASE " + Sql.ident(db));
        }
        dev.ducklake.janitor.pg.ConnectionSpec spec = TestPostgres.get().spec().withDatabase(db);
        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        FileCatalog.file(a.resolve("main/test/k.parquet"), OLD);
        FileCatalog.file(b.resolve("main/test/k.parquet"), OLD);
        try (Connection c = spec.open()) {
            catalogIn(c, "tenant_a", a, "k.parquet");
            catalogIn(c, "tenant_b", b, "k.parquet", "gone.parquet");
        }
        TargetConfig all = new TargetConfig("lake", spec, "public", Duration.ofSeconds(30), List.of(), true);
        List<String> log = new CopyOnWriteArrayList<>();
        StorageGauges g = new StorageGauges(all, p -> new LocalFileStore(), null, Duration.ofMinutes(1), log::add);
        g.collectOnce();
        String body = Exposition.text(g.families());
        assertThat(g.lastError()).as(body).isNull();
        assertThat(sample(body, series("ducklake_check_findings", "lake", "tenant_a", "kind", "missing_data_files", "severity",
                "damage"))).as(body).isEqualTo(0.0);
        assertThat(sample(body, series("ducklake_check_findings", "lake", "tenant_b", "kind", "missing_data_files", "severity",
                "damage"))).isEqualTo(1.0);
        assertThat(sample(body, series("ducklake_janitor_storage_check_success", "lake", "tenant_b"))).isEqualTo(1.0);
        assertThat(body).doesNotContain("schema=\"\"");

        try (Connection c = spec.open()) {
            Catalogs.exec(c, "DROP SCHEMA tenant_b CASCADE");
        }
        g.collectOnce();
        body = Exposition.text(g.families());
        assertThat(body).contains("schema=\"tenant_a\"").doesNotContain("tenant_b");
    }
}
