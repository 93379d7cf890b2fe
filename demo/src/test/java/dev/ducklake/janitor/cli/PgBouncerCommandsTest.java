package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.ops.cleanupoldfiles.QueueSweep;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.ops.files.ConsultOptions;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.DeleteOutcome;
import dev.ducklake.janitor.storage.ForwardingStore;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.PgBouncer;
import dev.ducklake.janitor.testsupport.PgBouncer.PoolMode;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 23 item 3: every command through a real PgBouncer (Debian's package, started on loopback in front of the test
 * server). Session pooling: every command works, dry run and execute. Transaction pooling: check, metrics and the dry
 * runs of the three catalog operations work (their state is transaction-local); everything that needs a session
 * (advisory lock, temporary tables, WITH HOLD cursors) refuses at start with exit 19 and changes nothing. The
 * concurrent twin: exactly one run proceeds.
 */
class PgBouncerCommandsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration OLD = Duration.ofDays(10);
    private static PgBouncer session;
    private static PgBouncer transaction;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        PgBouncer.assumeInstalled();
        session = PgBouncer.start(PoolMode.SESSION);
        transaction = PgBouncer.start(PoolMode.TRANSACTION);
    }

    @AfterAll
    static void stop() {
        if (session != null) {
            session.close();
        }
        if (transaction != null) {
            transaction.close();
        }
    }

    private static String leaked(String prefix, int n) throws Exception {
        String schema = TestPostgres.get().freshSchema(prefix);
        try (Connection c = TestPostgres.get().connect()) {
            DemoScenario.build(c, schema, n);
        }
        return schema;
    }

    private static long wouldDrop(String schema) throws Exception {
        return Catalogs.run(schema, o -> o.dryRun(true)).wouldDrop();
    }

    private static JsonNode json(CliRun r) throws Exception {
        return JSON.readTree(r.out());
    }

    private static String expirable(String prefix) throws Exception {
        String s = TestPostgres.get().freshSchema(prefix);
        try (Connection c = TestPostgres.get().connect()) {
            CatalogBuilder b = new CatalogBuilder(c, s, FormatVersion.V1_0).create();
            long t = b.createTable("t", 1);
            b.dropTable(t);
            b.createTable("u", 1);
        }
        return s;
    }

    private static String orphanStats(String prefix) throws Exception {
        String schema = TestPostgres.get().freshSchema(prefix);
        try (Connection c = TestPostgres.get().connect()) {
            CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
            long t = b.createTable("t", 1);
            b.insertRows(t, 2);
            Catalogs.exec(c, "INSERT INTO \"" + schema + "\".ducklake_table_stats VALUES (900, 1, 1, 1)");
            Catalogs.exec(c, "INSERT INTO \"" + schema + "\".ducklake_table_column_stats (table_id, column_id) VALUES (900, 1), (900, 2)");
        }
        return schema;
    }

    private static long orphanStatsRows(String schema) throws Exception {
        try (Connection c = TestPostgres.get().connect()) {
            return Catalogs.scalar(c, "SELECT (SELECT count(*) FROM \"" + schema + "\".ducklake_table_stats WHERE table_id = 900)"
                    + " + (SELECT count(*) FROM \"" + schema + "\".ducklake_table_column_stats WHERE table_id = 900)");
        }
    }

    /** A file catalog with two known files, one queued old file and one orphan under the table's folder. */
    private record Lake(FileCatalog cat, Path queued, Path orphan, Path known) {
    }

    private Lake lake(String prefix) throws Exception {
        Path root = Files.createDirectories(dir.resolve(prefix));
        FileCatalog cat = FileCatalog.create(prefix, root + "/");
        Path known = FileCatalog.file(root.resolve("main/test/k1.parquet"), OLD);
        FileCatalog.file(root.resolve("main/test/k2.parquet"), OLD);
        cat.dataFile(1, "k1.parquet", true);
        cat.dataFile(1, "k2.parquet", true);
        Path queued = FileCatalog.file(root.resolve("main/test/q.parquet"), OLD);
        cat.queue("main/test/q.parquet", true, OLD);
        Path orphan = FileCatalog.file(root.resolve("main/test/orphan.parquet"), OLD);
        return new Lake(cat, queued, orphan, known);
    }

    @Test
    void sessionPoolingEveryCommandWorksDryRunAndExecute() throws Exception {
        String url = session.url();
        // drop-orphan-inline-tables
        String drop = leaked("pgb_s_drop", 5);
        long expected = wouldDrop(drop);
        CliRun dry = CliRun.run("drop-orphan-inline-tables", "--catalog", url, "--metadata-schema", drop, "--dry-run", "--output", "json");
        assertThat(dry.exitCode()).as(dry.all()).isZero();
        assertThat(json(dry).get("would_drop").asLong()).isEqualTo(expected).isPositive();
        CliRun run = CliRun.run("drop-orphan-inline-tables", "--catalog", url, "--metadata-schema", drop, "--yes", "--output", "json");
        assertThat(run.exitCode()).as(run.all()).isZero();
        assertThat(wouldDrop(drop)).as("all dropped through the session pool").isZero();

        // expire-snapshots
        String exp = expirable("pgb_s_exp");
        CliRun expDry = CliRun.run("expire-snapshots", "--catalog", url, "--metadata-schema", exp, "--retain-last", "1", "--min-age", "0s",
                "--dry-run", "--output", "json");
        assertThat(expDry.exitCode()).as(expDry.all()).isZero();
        long snaps = json(expDry).get("snapshots_would_expire").asLong();
        assertThat(snaps).isPositive();
        CliRun expRun = CliRun.run("expire-snapshots", "--catalog", url, "--metadata-schema", exp, "--retain-last", "1", "--min-age", "0s",
                "--yes", "--output", "json");
        assertThat(expRun.exitCode()).as(expRun.all()).isZero();
        assertThat(json(expRun).get("snapshots_expired").asLong()).isEqualTo(snaps);

        // purge-orphan-stats, check before and after
        String stats = orphanStats("pgb_s_stats");
        CliRun check = CliRun.run("check", "--catalog", url, "--metadata-schema", stats, "--output", "json", "--bloat-min-dead-rows", "1000000000");
        assertThat(check.exitCode()).as(check.all()).isEqualTo(12);
        CliRun purgeDry = CliRun.run("purge-orphan-stats", "--catalog", url, "--metadata-schema", stats, "--dry-run", "--output", "json");
        assertThat(purgeDry.exitCode()).as(purgeDry.all()).isZero();
        assertThat(json(purgeDry).get("orphan_rows_total").asLong()).isEqualTo(3);
        CliRun purge = CliRun.run("purge-orphan-stats", "--catalog", url, "--metadata-schema", stats, "--yes", "--output", "json");
        assertThat(purge.exitCode()).as(purge.all()).isZero();
        assertThat(orphanStatsRows(stats)).isZero();
        CliRun clean = CliRun.run("check", "--catalog", url, "--metadata-schema", stats, "--bloat-min-dead-rows", "1000000000");
        assertThat(clean.exitCode()).as(clean.all()).isZero();

        // metrics
        CliRun metrics = CliRun.run("metrics", "--catalog", url, "--metadata-schema", stats);
        assertThat(metrics.exitCode()).as(metrics.all()).isZero();
        assertThat(metrics.out()).contains("ducklake_");

        // cleanup-old-files and delete-orphan-files
        Lake l = lake("pgb_s_files");
        CliRun cofDry = CliRun.run("cleanup-old-files", "--catalog", url, "--metadata-schema", l.cat().schema, "--dry-run", "--verbose");
        assertThat(cofDry.exitCode()).as(cofDry.all()).isZero();
        assertThat(cofDry.out()).contains("would_delete\t" + l.queued());
        CliRun cof = CliRun.run("cleanup-old-files", "--catalog", url, "--metadata-schema", l.cat().schema);
        assertThat(cof.exitCode()).as(cof.all()).isZero();
        assertThat(Files.exists(l.queued())).isFalse();
        CliRun dofDry = CliRun.run("delete-orphan-files", "--catalog", url, "--metadata-schema", l.cat().schema, "--dry-run", "--verbose");
        assertThat(dofDry.exitCode()).as(dofDry.all()).isZero();
        assertThat(dofDry.out()).contains(l.orphan().toString());
        CliRun dof = CliRun.run("delete-orphan-files", "--catalog", url, "--metadata-schema", l.cat().schema);
        assertThat(dof.exitCode()).as(dof.all()).isZero();
        assertThat(Files.exists(l.orphan())).isFalse();
        assertThat(Files.exists(l.known())).isTrue();
    }

    @Test
    void sessionPoolingMaintainWorks() throws Exception {
        String schema = leaked("pgb_s_maint", 4);
        Path cfg = maintainConfig(session.url(), schema);
        CliRun run = CliRun.run("maintain", "--config", cfg.toString(), "--output", "json");
        assertThat(run.exitCode()).as(run.all()).isIn(0, 12);
        for (JsonNode step : json(run).get("catalogs").get(0).get("steps")) {
            assertThat(step.get("status").asText()).as(step.toString()).isIn("ok", "findings");
        }
        assertThat(wouldDrop(schema)).isZero();
    }

    private Path maintainConfig(String url, String schema) throws Exception {
        Path data = Files.createDirectories(dir.resolve("maint-data-" + schema));
        Path f = dir.resolve("maintain-" + schema + ".yaml");
        Files.writeString(f, "catalogs:\n  - name: lake\n    connection: " + url + "\n    metadata_schema: " + schema + "\n"
                + "maintain:\n  - expire-snapshots: {older-than: 7d, retain-last: 10}\n"
                + "  - drop-orphan-inline-tables: {include-unregistered: true}\n"
                + "  - cleanup-old-files: {older-than: 2d, data-path: \"" + data + "\"}\n  - check: {}\n");
        return f;
    }

    @Test
    void transactionPoolingReadOnlyCommandsAndCatalogDryRunsWork() throws Exception {
        String url = transaction.url();
        String direct = TestPostgres.get().url();
        String drop = leaked("pgb_t_drop", 5);
        long expected = wouldDrop(drop);
        CliRun dry = CliRun.run("drop-orphan-inline-tables", "--catalog", url, "--metadata-schema", drop, "--dry-run", "--output", "json");
        assertThat(dry.exitCode()).as(dry.all()).isZero();
        assertThat(json(dry).get("would_drop").asLong()).isEqualTo(expected).isPositive();

        String exp = expirable("pgb_t_exp");
        String[] expArgs = {"expire-snapshots", "--metadata-schema", exp, "--retain-last", "1", "--min-age", "0s", "--dry-run", "--output", "json"};
        CliRun expDry = CliRun.run(with(expArgs, "--catalog", url));
        assertThat(expDry.exitCode()).as(expDry.all()).isZero();
        assertThat(json(expDry).get("snapshots_would_expire").asLong()).as("the same answer as on the server itself")
                .isEqualTo(json(CliRun.run(with(expArgs, "--catalog", direct))).get("snapshots_would_expire").asLong()).isPositive();

        String stats = orphanStats("pgb_t_stats");
        CliRun purgeDry = CliRun.run("purge-orphan-stats", "--catalog", url, "--metadata-schema", stats, "--dry-run", "--output", "json");
        assertThat(purgeDry.exitCode()).as(purgeDry.all()).isZero();
        assertThat(json(purgeDry).get("orphan_rows_total").asLong()).isEqualTo(3);

        // check: the same findings as on the server itself
        String[] checkArgs = {"check", "--metadata-schema", stats, "--output", "json", "--bloat-min-dead-rows", "1000000000"};
        CliRun check = CliRun.run(with(checkArgs, "--catalog", url));
        CliRun checkDirect = CliRun.run(with(checkArgs, "--catalog", direct));
        assertThat(check.exitCode()).as(check.all()).isEqualTo(12).isEqualTo(checkDirect.exitCode());
        assertThat(json(check).get("findings")).isEqualTo(json(checkDirect).get("findings"));
        assertThat(json(check).get("errors")).as("no rule failed").isEqualTo(json(checkDirect).get("errors"));

        // metrics, several times (pgJDBC's prepareThreshold is 5: named statements would break on another server session)
        for (int i = 0; i < 3; i++) {
            CliRun metrics = CliRun.run("metrics", "--catalog", url, "--metadata-schema", stats, "--output", "json");
            assertThat(metrics.exitCode()).as(metrics.all()).isZero();
            assertThat(metrics.err()).doesNotContain("does not exist");
            JsonNode doc = json(metrics);
            assertThat(doc.get("status").asText()).isEqualTo("ok");
            assertThat(doc.get("catalogs").get(0).get("errors")).as("no query failed: %s", metrics.out()).isEmpty();
        }
    }

    @Test
    void transactionPoolingEveryCommandThatNeedsASessionRefusesAtStartWithExit19() throws Exception {
        String url = transaction.url();
        String drop = leaked("pgb_t_xdrop", 3);
        long before = wouldDrop(drop);
        CliRun run = CliRun.run("drop-orphan-inline-tables", "--catalog", url, "--metadata-schema", drop, "--yes");
        assertRefused(run);
        assertThat(wouldDrop(drop)).as("nothing dropped").isEqualTo(before);

        String exp = expirable("pgb_t_xexp");
        CliRun expRun = CliRun.run("expire-snapshots", "--catalog", url, "--metadata-schema", exp, "--retain-last", "1", "--min-age", "0s", "--yes");
        assertRefused(expRun);
        CliRun after = CliRun.run("expire-snapshots", "--catalog", TestPostgres.get().url(), "--metadata-schema", exp, "--retain-last", "1",
                "--min-age", "0s", "--dry-run", "--output", "json");
        assertThat(json(after).get("snapshots_would_expire").asLong()).as("nothing expired").isPositive();

        String stats = orphanStats("pgb_t_xstats");
        assertRefused(CliRun.run("purge-orphan-stats", "--catalog", url, "--metadata-schema", stats, "--yes"));
        assertThat(orphanStatsRows(stats)).isEqualTo(3);

        Lake l = lake("pgb_t_files");
        for (String cmd : List.of("cleanup-old-files", "delete-orphan-files")) {
            assertRefused(CliRun.run(cmd, "--catalog", url, "--metadata-schema", l.cat().schema, "--dry-run"));
            assertRefused(CliRun.run(cmd, "--catalog", url, "--metadata-schema", l.cat().schema));
        }
        assertThat(Files.exists(l.queued())).isTrue();
        assertThat(Files.exists(l.orphan())).isTrue();
        assertThat(l.cat().queueRows()).isEqualTo(1);

        String maint = leaked("pgb_t_maint", 3);
        long maintBefore = wouldDrop(maint);
        CliRun m = CliRun.run("maintain", "--config", maintainConfig(url, maint).toString(), "--output", "json");
        assertThat(m.exitCode()).as(m.all()).isEqualTo(19);
        for (JsonNode step : json(m).get("catalogs").get(0).get("steps")) {
            assertThat(step.get("status").asText()).as("no step runs: %s", step).isEqualTo("error");
        }
        assertThat(m.all()).contains("transaction").contains("session-mode pool");
        assertThat(wouldDrop(maint)).isEqualTo(maintBefore);
    }

    private static void assertRefused(CliRun r) {
        assertThat(r.exitCode()).as(r.all()).isEqualTo(19);
        assertThat(r.err()).contains("transaction").contains("pooler").contains("--catalog").contains("pool_mode = session")
                .contains("Nothing was changed");
    }

    private static String[] with(String[] args, String... more) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    /** Two execute runs started at once; returns their exit codes. */
    private static List<CliRun> twins(String url1, String url2, String schema) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<CliRun>> runs = new ArrayList<>();
        for (String url : List.of(url1, url2)) {
            runs.add(CompletableFuture.supplyAsync(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return CliRun.run("drop-orphan-inline-tables", "--catalog", url, "--metadata-schema", schema, "--batch-size", "1",
                        "--yes", "--output", "json");
            }));
        }
        go.countDown();
        List<CliRun> out = new ArrayList<>();
        for (CompletableFuture<CliRun> f : runs) {
            out.add(f.get());
        }
        return out;
    }

    /**
     * The catalog census through a session pool: cleanup-old-files reaches the server's other databases through the
     * pooler (its {@code *} entry passes each database name on). At the first batch's deletes a DuckLake catalog appears
     * in a database that held none at the survey (probed through the census's kept pooled connection) and in a database
     * created then (a new login through the pooler); the run stops before the second batch's deletes, naming both.
     */
    @Test
    void sessionPoolingCatalogsThatAppearInOtherDatabasesStopCleanupBeforeTheNextDeletes() throws Exception {
        long pid = ProcessHandle.current().pid();
        String quiet = "pgb_census_quiet_" + pid;
        String born = "pgb_census_born_" + pid;
        ConnectionSpec server = TestPostgres.get().spec();
        try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
            for (String db : List.of(quiet, born)) {
                st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
            }
            // from template0: CREATE DATABASE from a template in use fails, and this test does not depend on
            // template1 being free (the janitor's own logins to it end their pooled sessions: TemplateSessionsThroughPoolerTest)
            st.execute("CREATE DATABASE " + Sql.ident(quiet) + " TEMPLATE template0");
        }
        try {
            Path root = Files.createDirectories(dir.resolve("census"));
            FileCatalog cat = FileCatalog.create("pgb_census", root + "/");
            List<Path> files = new ArrayList<>();
            for (String n : List.of("a", "b", "c", "d")) {
                files.add(FileCatalog.file(root.resolve("main/test/" + n + ".parquet"), OLD));
                cat.queue("main/test/" + n + ".parquet", true, OLD);
            }
            AtomicBoolean appeared = new AtomicBoolean();
            ForwardingStore store = new ForwardingStore(new LocalFileStore(root)) {
                @Override
                public DeleteOutcome delete(List<String> addresses) throws StorageException {
                    return delete(addresses, false);
                }

                @Override
                public DeleteOutcome delete(List<String> addresses, boolean measure) throws StorageException {
                    if (appeared.compareAndSet(false, true)) {
                        try {
                            try (Connection c = server.withDatabase(quiet).openRaw()) {
                                Catalogs.loadFixture04(c, "late");
                            }
                            try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
                                st.execute("CREATE DATABASE " + Sql.ident(born) + " TEMPLATE template0");
                            }
                            try (Connection c = server.withDatabase(born).openRaw()) {
                                Catalogs.loadFixture04(c, "first");
                            }
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }
                    return inner.delete(addresses, measure);
                }
            };
            ConnectionSpec pooled = session.spec();
            CleanupOldFilesResult r;
            try (Connection c = pooled.openRaw()) {
                r = QueueSweep.run(c, store, CleanupOldFilesOptions.builder(cat.schema).dryRun(false)
                        .batchSize(1).deleteConcurrency(1).consult(ConsultOptions.defaults().withServer(pooled)).build(),
                        FileListener.NONE);
            }
            assertThat(appeared).isTrue();
            assertThat(files.get(0)).as("the first batch's file, checked before the catalogs appeared").doesNotExist();
            for (Path f : files.subList(1, 4)) {
                assertThat(f).exists();
            }
            assertThat(r.filesDeleted()).isEqualTo(1);
            assertThat(r.stoppedDuring()).isEqualTo("deleting");
            assertThat(r.findings()).anySatisfy(f -> assertThat(f).contains("appeared during the run")
                    .contains(quiet + "/late").contains(born + "/first"));
            assertThat(cat.queueRows()).as("the rows of the files not deleted stay").isEqualTo(3);
        } finally {
            try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
                for (String db : List.of(quiet, born)) {
                    st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
                }
            }
        }
    }

    @Test
    void concurrentTwinsThroughASessionPoolExactlyOneProceeds() throws Exception {
        String schema = leaked("pgb_twin_s", 150);
        long expected = wouldDrop(schema);
        List<CliRun> runs = twins(session.url(), session.url(), schema);
        List<Integer> codes = runs.stream().map(CliRun::exitCode).sorted().toList();
        assertThat(codes).as("%s", runs).containsExactly(0, 7);
        CliRun winner = runs.stream().filter(r -> r.exitCode() == 0).findFirst().orElseThrow();
        assertThat(json(winner).get("dropped").asLong()).isEqualTo(expected);
        assertThat(wouldDrop(schema)).isZero();
    }

    @Test
    void concurrentTwinsThroughATransactionPoolNeverShareALock() throws Exception {
        // both through the transaction pool: neither proceeds, nothing changes
        String schema = leaked("pgb_twin_t", 20);
        long expected = wouldDrop(schema);
        List<CliRun> both = twins(transaction.url(), transaction.url(), schema);
        assertThat(both.stream().map(CliRun::exitCode).toList()).as("%s", both).containsExactly(19, 19);
        assertThat(wouldDrop(schema)).isEqualTo(expected);
        // one through a session pool, its twin through the transaction pool: exactly one proceeds
        String mixed = leaked("pgb_twin_m", 150);
        long mixedExpected = wouldDrop(mixed);
        List<CliRun> runs = twins(session.url(), transaction.url(), mixed);
        assertThat(runs.get(0).exitCode()).as(runs.get(0).all()).isZero();
        assertThat(runs.get(1).exitCode()).as(runs.get(1).all()).isEqualTo(19);
        assertThat(json(runs.get(0)).get("dropped").asLong()).isEqualTo(mixedExpected);
    }
}
