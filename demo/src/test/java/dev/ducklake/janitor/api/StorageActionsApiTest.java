package dev.ducklake.janitor.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesResult;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.storage.FileStores;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.S3TestServer;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The library's storage actions ({@link Janitor#cleanupOldFiles()}, {@link Janitor#deleteOrphanFiles()}) give what the
 * CLI gives: each runs on one of two identical local lakes and catalogs, the CLI on the other, a dry run and then an
 * execute run, and every member of the result record equals the CLI's JSON (times, cutoffs and warnings aside; the
 * lake's path and the schema name read alike). The actions are dry runs unless told otherwise, refuse a catalog that
 * may reach the data path and cannot be read as the CLI does, and refuse bad settings with {@link Reason#USAGE}.
 */
class StorageActionsApiTest {

    private static final ObjectMapper JSON = new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
    /** Members that differ between two runs on two copies: times, the cutoffs computed from now(), warnings. */
    private static final Pattern VOLATILE = Pattern.compile(".*seconds.*|elapsed.*|.*cutoff|.*_at|batch_list|warnings");
    private static final Duration OLD = Duration.ofDays(3);

    private final TestPostgres pg = TestPostgres.get();

    @TempDir
    Path dir;

    /** One copy: a catalog and its lake. */
    private record Lake(FileCatalog cat, Path root) {
        Path file(String name) {
            return root.resolve("main/test/" + name);
        }
    }

    /**
     * A lake with 4 known files (k0..k3), 2 orphans (o1, o2) and a queue of 5 rows: q1 and q2 old and present, gone.parquet
     * old and missing, q3 queued minutes ago, k0 queued although live.
     */
    private Lake lake(String name) throws Exception {
        Path root = dir.resolve(name);
        FileCatalog cat = FileCatalog.create("api_st_" + name, root + "/");
        Lake l = new Lake(cat, root);
        for (int i = 0; i < 4; i++) {
            FileCatalog.file(l.file("k" + i + ".parquet"), OLD);
            cat.dataFile(1, "k" + i + ".parquet", true);
        }
        FileCatalog.file(l.file("o1.parquet"), OLD);
        FileCatalog.file(l.file("o2.parquet"), OLD);
        for (String q : List.of("q1", "q2", "q3")) {
            FileCatalog.file(l.file(q + ".parquet"), OLD);
        }
        cat.queue("main/test/q1.parquet", true, OLD);
        cat.queue("main/test/q2.parquet", true, OLD);
        cat.queue("main/test/gone.parquet", true, OLD);
        cat.queue("main/test/q3.parquet", true, Duration.ofMinutes(5));
        cat.queue("main/test/k0.parquet", true, OLD);
        return l;
    }

    private CliRun cli(String command, Lake l, boolean dryRun) {
        return CliRun.run(command, "--catalog", pg.url(), "--metadata-schema", l.cat().schema, "--older-than", "2d",
                "--output", "json", dryRun ? "--dry-run" : "--yes");
    }

    /**
     * Every member of the API's result (as JSON) that the CLI's document also has is equal there, once each copy's lake
     * path and schema read {@code LAKE} and {@code SCHEMA}; returns how many were compared.
     */
    private static int assertSameFigures(Object apiResult, Lake api, CliRun cli, Lake viaCli) {
        return assertSameFigures(apiResult, api.root().toString(), api.cat().schema, cli, viaCli.root().toString(),
                viaCli.cat().schema);
    }

    private static int assertSameFigures(Object apiResult, String apiPlace, String apiSchema, CliRun cli, String cliPlace,
                                         String cliSchema) {
        JsonNode doc = cli.json();
        int compared = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = JSON.valueToTree(apiResult).fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            if (VOLATILE.matcher(f.getKey()).matches() || !doc.has(f.getKey())) {
                continue;
            }
            assertThat(f.getValue().toString().replace(apiPlace, "LAKE").replace(apiSchema, "SCHEMA"))
                    .as("member %s of the API's result against the CLI's JSON\n%s", f.getKey(), cli)
                    .isEqualTo(doc.get(f.getKey()).toString().replace(cliPlace, "LAKE").replace(cliSchema, "SCHEMA"));
            compared++;
        }
        return compared;
    }

    @Test
    void cleanupOldFilesGivesWhatTheCliGivesAndIsADryRunByDefault() throws Exception {
        Lake viaCli = lake("cof_cli");
        Lake viaApi = lake("cof_api");
        Janitor janitor = Janitor.on(pg.url(), viaApi.cat().schema);

        CliRun cliDry = cli("cleanup-old-files", viaCli, true);
        CleanupOldFilesResult dry = janitor.cleanupOldFiles().olderThan(Duration.ofDays(2)).execute();
        assertThat(dry.dryRun()).as("no dryRun(false): a dry run").isTrue();
        assertThat(dry.filesDeleted()).as("q1, q2 and the missing one would go").isEqualTo(3);
        assertThat(dry.keptLive()).isEqualTo(1);
        assertThat(dry.run().batchSizeRequested()).as("the CLI's --batch-size default")
                .isEqualTo(dev.ducklake.janitor.ops.runtime.RunOptions.DEFAULT_BATCH_SIZE);
        assertThat(Files.exists(viaApi.file("q1.parquet"))).isTrue();
        assertThat(viaApi.cat().queueRows()).isEqualTo(5);
        assertThat(assertSameFigures(dry, viaApi, cliDry, viaCli)).as("figures compared").isGreaterThan(15);

        CliRun cliRun = cli("cleanup-old-files", viaCli, false);
        CleanupOldFilesResult done = janitor.cleanupOldFiles().olderThan(Duration.ofDays(2)).dryRun(false).execute();
        assertThat(done.dryRun()).isFalse();
        assertThat(done.queueRowsDeleted()).isEqualTo(3);
        assertSameFigures(done, viaApi, cliRun, viaCli);
        for (Lake l : List.of(viaCli, viaApi)) {
            assertThat(Files.exists(l.file("q1.parquet")) || Files.exists(l.file("q2.parquet"))).as("deleted").isFalse();
            assertThat(Files.exists(l.file("q3.parquet")) && Files.exists(l.file("k0.parquet"))).as("young, live").isTrue();
            assertThat(l.cat().queueRows()).as("the young and the live row stay").isEqualTo(2);
        }
    }

    @Test
    void deleteOrphanFilesGivesWhatTheCliGivesAndIsADryRunByDefault() throws Exception {
        Lake viaCli = lake("dof_cli");
        Lake viaApi = lake("dof_api");
        Janitor janitor = Janitor.on(pg.url(), viaApi.cat().schema);
        List<String> events = new ArrayList<>();

        CliRun cliDry = cli("delete-orphan-files", viaCli, true);
        DeleteOrphanFilesResult dry = janitor.deleteOrphanFiles().olderThan(Duration.ofDays(2))
                .files(new FileListener() {
                    @Override
                    public void file(String action, String address, long size, Instant mtime, String reason) {
                        events.add(action + " " + address);
                    }
                }).execute();
        assertThat(dry.dryRun()).as("no dryRun(false): a dry run").isTrue();
        assertThat(dry.candidates()).as("o1, o2").isEqualTo(2);
        assertThat(events).contains("would_delete " + viaApi.file("o1.parquet"));
        assertThat(Files.exists(viaApi.file("o1.parquet"))).isTrue();
        assertThat(assertSameFigures(dry, viaApi, cliDry, viaCli)).as("figures compared").isGreaterThan(15);

        CliRun cliRun = cli("delete-orphan-files", viaCli, false);
        DeleteOrphanFilesResult done = janitor.deleteOrphanFiles().olderThan(Duration.ofDays(2)).dryRun(false).execute();
        assertThat(done.deleted()).isEqualTo(2);
        assertSameFigures(done, viaApi, cliRun, viaCli);
        for (Lake l : List.of(viaCli, viaApi)) {
            assertThat(Files.exists(l.file("o1.parquet")) || Files.exists(l.file("o2.parquet"))).as("orphans gone").isFalse();
            assertThat(Files.exists(l.file("k3.parquet")) && Files.exists(l.file("q1.parquet"))).as("known, queued").isTrue();
        }
    }

    /** On S3 (the in-process S3Proxy), the library's {@code s3(...)} settings reach the store as the CLI's --s3-* flags. */
    @Test
    void cleanupOldFilesReachesS3WithTheGivenSettings() throws Exception {
        try (S3TestServer s3 = new S3TestServer()) {
            Map<String, FileCatalog> cats = new java.util.LinkedHashMap<>();
            Map<String, String> buckets = new java.util.LinkedHashMap<>();
            for (String side : List.of("cli", "api")) {
                String bucket = S3TestServer.runBucket("api-cof-" + side);
                s3.createBucket(bucket);
                FileCatalog cat = FileCatalog.create("api_s3_" + side, "s3://" + bucket + "/");
                s3.put(bucket, "main/test/k.parquet", 7);
                cat.dataFile(1, "k.parquet", true);
                s3.put(bucket, "main/test/q.parquet", 9);
                cat.queue("main/test/q.parquet", true, OLD);
                cats.put(side, cat);
                buckets.put(side, bucket);
            }
            CliRun cli = CliRun.run("cleanup-old-files", "--catalog", pg.url(), "--metadata-schema", cats.get("cli").schema,
                    "--s3-region", "us-east-1", "--s3-endpoint", s3.endpoint().toString(), "--s3-path-style", "--yes",
                    "--output", "json");
            assertThat(cli.exitCode()).as(cli.toString()).isZero();
            CleanupOldFilesResult r = Janitor.on(pg.url(), cats.get("api").schema).cleanupOldFiles()
                    .s3(new FileStores.Options("us-east-1", s3.endpoint(), true)).dryRun(false).execute();
            assertThat(r.filesDeleted()).isEqualTo(1);
            assertThat(r.bytes()).as("sized from the listing").isEqualTo(9);
            assertSameFigures(r, buckets.get("api"), cats.get("api").schema, cli, buckets.get("cli"), cats.get("cli").schema);
            for (String side : List.of("cli", "api")) {
                assertThat(s3.exists(buckets.get(side), "main/test/q.parquet")).as(side).isFalse();
                assertThat(s3.exists(buckets.get(side), "main/test/k.parquet")).as(side).isTrue();
                assertThat(cats.get(side).queueRows()).isZero();
            }
        }
    }

    /**
     * A DataSource reaches one database, so it cannot search the server's other databases: refused unless that search
     * is turned off; then the run gives what the connection string's run gives.
     */
    @Test
    void aDataSourceMustTurnTheServerSearchOff() throws Exception {
        Lake l = lake("dof_ds");
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(pg.url());
        Janitor viaDataSource = Janitor.on(ds, l.cat().schema);
        assertThatThrownBy(() -> viaDataSource.deleteOrphanFiles().dryRun(false).execute()).isInstanceOf(JanitorException.class)
                .satisfies(e -> assertThat(((JanitorException) e).reason()).isEqualTo(Reason.USAGE))
                .hasMessageContaining("DataSource").hasMessageContaining("consultServer(false)");
        assertThat(Files.exists(l.file("o1.parquet"))).isTrue();
        DeleteOrphanFilesResult r = viaDataSource.deleteOrphanFiles().consultServer(false).execute();
        DeleteOrphanFilesResult viaString = Janitor.on(pg.url(), l.cat().schema).deleteOrphanFiles().consultServer(false).execute();
        assertThat(r.candidates()).isEqualTo(2).isEqualTo(viaString.candidates());
        assertThat(r.databasesNotConsulted()).isEmpty();
    }

    /**
     * A second catalog of the database that the run's role cannot read may reach the data path: the library refuses
     * (nothing listed or deleted) with the CLI's reason and message, in a dry run and an execute run.
     */
    @Test
    void anUnreadableSecondCatalogRefusesTheLibraryAsTheCli() throws Exception {
        String db = "api_st_" + ProcessHandle.current().pid();
        String role = db + "_role";
        try (Connection c = pg.connect()) {
            Catalogs.exec(c, "DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
            Catalogs.exec(c, "CREATE DATABASE " + Sql.ident(db));
            Catalogs.exec(c, "DO $$BEGIN CREATE ROLE " + Sql.ident(role) + " LOGIN PASSWORD 'pw'; EXCEPTION WHEN duplicate_object"
                    + " THEN NULL; END$$");
        }
        Path lake = dir.resolve("shared");
        Path orphan = FileCatalog.file(lake.resolve("main/test/orphan.parquet"), OLD);
        try {
            try (Connection c = pg.spec().withDatabase(db).openRaw()) {
                for (String schema : List.of("lake", "tenant")) {
                    Catalogs.loadFixture04(c, schema);
                    Catalogs.exec(c, "UPDATE " + Sql.qualified(schema, "ducklake_metadata") + " SET value = '1.0' WHERE key = 'version'");
                    Catalogs.exec(c, "DELETE FROM " + Sql.qualified(schema, "ducklake_metadata") + " WHERE key = 'data_path'");
                    Catalogs.exec(c, "INSERT INTO " + Sql.qualified(schema, "ducklake_metadata") + " VALUES ('data_path', '"
                            + lake + "/', NULL, NULL)");
                }
                Catalogs.exec(c, "GRANT USAGE ON SCHEMA lake TO " + Sql.ident(role));
                Catalogs.exec(c, "GRANT SELECT ON ALL TABLES IN SCHEMA lake TO " + Sql.ident(role));
            }
            ConnectionSpec s = pg.spec();
            String url = "jdbc:postgresql://" + s.host() + ":" + s.port() + "/" + db + "?user=" + role + "&password=pw";
            Janitor janitor = Janitor.on(url, "lake");
            Map<String, Function<Boolean, MaintenanceAction<?, ?>>> actions = Map.of(
                    "delete-orphan-files", dry -> janitor.deleteOrphanFiles().consultServer(false).dryRun(dry),
                    "cleanup-old-files", dry -> janitor.cleanupOldFiles().consultServer(false).dryRun(dry));
            for (Map.Entry<String, Function<Boolean, MaintenanceAction<?, ?>>> a : actions.entrySet()) {
                for (boolean dry : List.of(true, false)) {
                    CliRun cli = CliRun.run(a.getKey(), "--catalog", url, "--metadata-schema", "lake", "--no-consult-server",
                            dry ? "--dry-run" : "--yes", "--output", "json");
                    assertThat(cli.exitCode()).as(cli.toString()).isEqualTo(Reason.PERMISSION_DENIED.exitCode());
                    assertThatThrownBy(() -> a.getValue().apply(dry).execute()).as("%s, dry run %s", a.getKey(), dry)
                            .isInstanceOf(JanitorException.class)
                            .satisfies(e -> assertThat(((JanitorException) e).reason()).isEqualTo(Reason.PERMISSION_DENIED))
                            .hasMessage(cli.json().get("message").asText()).hasMessageContaining("'tenant'");
                    assertThat(Files.exists(orphan)).isTrue();
                }
            }
        } finally {
            try (Connection c = pg.connect()) {
                Catalogs.exec(c, "DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
            }
        }
    }

    private static Reason reason(MaintenanceAction<?, ?> action) {
        try {
            action.execute();
        } catch (JanitorException e) {
            return e.reason();
        }
        return null;
    }

    @Test
    void badSettingsAreUsageErrorsAndDeleteNothing() throws Exception {
        Lake l = lake("bad");
        Janitor janitor = Janitor.on(pg.url(), l.cat().schema);
        Map<String, MaintenanceAction<?, ?>> bad = new java.util.LinkedHashMap<>();
        bad.put("concurrency 65", janitor.deleteOrphanFiles().dryRun(false).deleteConcurrency(65));
        bad.put("negative concurrency", janitor.cleanupOldFiles().dryRun(false).deleteConcurrency(-1));
        bad.put("ratio 1.5", janitor.deleteOrphanFiles().dryRun(false).maxOrphanRatio(1.5));
        bad.put("negative min age", janitor.cleanupOldFiles().dryRun(false).minAge(Duration.ofHours(-1)));
        bad.put("under the 24 h floor", janitor.deleteOrphanFiles().dryRun(false).minAge(Duration.ofHours(1)));
        bad.put("older than under min age", janitor.cleanupOldFiles().dryRun(false).olderThan(Duration.ofMinutes(10)));
        bad.put("negative older than", janitor.deleteOrphanFiles().dryRun(false).olderThan(Duration.ofDays(-2)));
        bad.put("batches of a one-pass sweep", janitor.deleteOrphanFiles().dryRun(false).batchSize(10));
        bad.put("max batches of a one-pass sweep", janitor.deleteOrphanFiles().dryRun(false).maxBatches(1));
        bad.put("batch size 0", janitor.cleanupOldFiles().dryRun(false).batchSize(0));
        bad.put("blank exclusion", janitor.cleanupOldFiles().dryRun(false).excludeCatalogSchema(" "));
        bad.put("malformed also-catalog", janitor.deleteOrphanFiles().dryRun(false).alsoCatalog(""));
        for (Map.Entry<String, MaintenanceAction<?, ?>> b : bad.entrySet()) {
            assertThat(reason(b.getValue())).as(b.getKey()).isEqualTo(Reason.USAGE);
        }
        CliRun cli = CliRun.run("delete-orphan-files", "--catalog", pg.url(), "--metadata-schema", l.cat().schema,
                "--max-orphan-ratio", "1.5", "--yes");
        assertThat(cli.exitCode()).as("the CLI refuses the same ratio\n%s", cli).isEqualTo(Reason.USAGE.exitCode());
        assertThat(Files.exists(l.file("o1.parquet")) && Files.exists(l.file("q1.parquet"))).as("nothing deleted").isTrue();
        assertThat(l.cat().queueRows()).isEqualTo(5);
    }
}
