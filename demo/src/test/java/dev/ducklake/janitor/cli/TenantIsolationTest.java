package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.ops.cleanupoldfiles.QueueSweep;
import dev.ducklake.janitor.ops.deleteorphanfiles.OrphanSweep;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesOptions;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesResult;
import dev.ducklake.janitor.ops.files.AgeThreshold;
import dev.ducklake.janitor.ops.files.ConsultOptions;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.DeleteOutcome;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.ForwardingStore;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.DedicatedPostgres;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.S3TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21 items 1, 2 and 5: a storage sweep deletes a file only when every catalog that could reach it has been read.
 * Real roles and grants on a PostgreSQL server of this class's own (so that the databases the sweep consults are
 * exactly the ones made here): a janitor role with SELECT on its catalog only, a tenant role owning a second catalog
 * whose data path lies inside the swept one, a second database, a database the role may not connect to.
 */
class TenantIsolationTest {

    private static final Duration OLD = Duration.ofDays(10);
    private static final String PASSWORD = "tenant-iso-pw";
    private static final String JANITOR = "janitor_iso";
    private static final String TENANT = "tenant_iso";
    /** Unique to this test JVM: catalogs of earlier runs on an external server name the same keys otherwise. */
    private static final String TENANTS = S3TestServer.runBucket("tenants");

    static DedicatedPostgres pg;

    @TempDir
    Path dir;

    private final List<String> databases = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        pg = DedicatedPostgres.start(Map.of(), null);
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("CREATE ROLE " + JANITOR + " LOGIN PASSWORD '" + PASSWORD + "'");
            st.execute("CREATE ROLE " + TENANT + " LOGIN PASSWORD '" + PASSWORD + "'");
        }
    }

    @AfterAll
    static void stop() throws Exception {
        pg.close();
    }

    @AfterEach
    void dropDatabases() throws Exception {
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            for (String db : databases) {
                st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
            }
        }
    }

    private String database(String name) throws Exception {
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + Sql.ident(name));
        }
        databases.add(name);
        return name;
    }

    private static Connection su(String db) throws Exception {
        return pg.spec().withDatabase(db).openRaw();
    }

    /** The janitor role's URL for a database. */
    private static String url(String db) {
        return "jdbc:postgresql://localhost:" + pg.port() + "/" + db + "?user=" + JANITOR + "&password=" + PASSWORD;
    }

    /** A DuckLake 1.0 catalog (the real 0.4 fixture, migrated) in {@code schema} with this data path; table 1 at main/test/. */
    private static void catalog(Connection c, String schema, String dataPath) throws Exception {
        Catalogs.loadFixture04(c, schema);
        Catalogs.exec(c, "UPDATE " + Sql.qualified(schema, "ducklake_metadata") + " SET value = '1.0' WHERE key = 'version'");
        Catalogs.exec(c, "DELETE FROM " + Sql.qualified(schema, "ducklake_metadata") + " WHERE key = 'data_path'");
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified(schema, "ducklake_metadata")
                + " VALUES ('data_path', ?, NULL, NULL)")) {
            ps.setString(1, dataPath);
            ps.executeUpdate();
        }
    }

    private static void grantRead(Connection c, String schema) throws Exception {
        Catalogs.exec(c, "GRANT USAGE ON SCHEMA " + Sql.ident(schema) + " TO " + JANITOR);
        Catalogs.exec(c, "GRANT SELECT ON ALL TABLES IN SCHEMA " + Sql.ident(schema) + " TO " + JANITOR);
    }

    private static long nextId = 5000;

    /** Registers {@code file} (under {@code <data path>/main/test/}) as a live data file of table 1. */
    private static void dataFile(Connection c, String schema, String name) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified(schema, "ducklake_data_file")
                + " (data_file_id, table_id, begin_snapshot, path, path_is_relative, file_format) VALUES (?, 1, 1, ?, true, 'parquet')")) {
            ps.setLong(1, nextId++);
            ps.setString(2, name);
            ps.executeUpdate();
        }
    }

    private static String ducklakeName() {
        return "ducklake-" + UUID.randomUUID() + ".parquet";
    }

    /** The swept catalog {@code lake}: 6 known files and one stray (debris of a failed write) in its known table folder. */
    private Path sweptCatalog(Connection c, Path lake) throws Exception {
        catalog(c, "lake", lake + "/");
        grantRead(c, "lake");
        // cleanup-old-files checks DELETE on the swept catalog's queue before its first file (docs/privileges.md)
        Catalogs.exec(c, "GRANT DELETE ON " + Sql.qualified("lake", "ducklake_files_scheduled_for_deletion") + " TO " + JANITOR);
        for (int i = 0; i < 6; i++) {
            String n = ducklakeName();
            FileCatalog.file(lake.resolve("main/test/" + n), OLD);
            dataFile(c, "lake", n);
        }
        return FileCatalog.file(lake.resolve("main/test/" + ducklakeName()), OLD);
    }

    /** A catalog owned by the tenant role, no grant to the janitor, with two live DuckLake-named files. */
    private static List<Path> tenantCatalog(Connection c, String schema, Path dataPath) throws Exception {
        Catalogs.exec(c, "SET ROLE " + TENANT);
        try {
            catalog(c, schema, dataPath + "/");
            List<Path> files = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                String n = ducklakeName();
                files.add(FileCatalog.file(dataPath.resolve("main/test/" + n), OLD));
                dataFile(c, schema, n);
            }
            return files;
        } finally {
            Catalogs.exec(c, "RESET ROLE");
        }
    }

    private static void assertAllExist(List<Path> files) {
        for (Path p : files) {
            assertThat(Files.exists(p)).as(p.toString()).isTrue();
        }
    }

    @Test
    void aCatalogTheRoleCanSeeButNotReadStopsTheRunInDryRunAndExecute() throws Exception {
        String db = database("iso_unreadable");
        Path lake = dir.resolve("lake");
        Path stray;
        List<Path> theirs;
        List<Path> sibling;
        try (Connection c = su(db)) {
            Catalogs.exec(c, "GRANT CREATE ON DATABASE " + Sql.ident(db) + " TO " + TENANT);
            stray = sweptCatalog(c, lake);
            theirs = tenantCatalog(c, "tenant_priv", lake.resolve("priv"));
            sibling = tenantCatalog(c, "tenant_sibling", dir.resolve("sibling"));
        }
        List<Path> all = new ArrayList<>(theirs);
        all.addAll(sibling);
        all.add(stray);

        for (String mode : List.of("--dry-run", "--yes")) {
            CliRun run = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                    mode, "--output", "json");
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(8);
            String message = run.json().get("message").asText();
            assertThat(message).contains("'tenant_priv'").contains("GRANT USAGE ON SCHEMA \"tenant_priv\"")
                    .contains("GRANT SELECT ON \"tenant_priv\".\"ducklake_data_file\"").contains("--exclude-catalog-schema")
                    .contains("Nothing was listed or deleted").doesNotContain(PASSWORD);
            assertThat(message).as("the sibling is unreadable too: its data path is unknown").contains("'tenant_sibling'");
            assertAllExist(all);
        }
        CliRun text = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                "--dry-run");
        assertThat(text.exitCode()).isEqualTo(8);
        assertThat(text.out()).as("the dry run reports the refusal instead of candidates").doesNotContain("would_delete");
        CliRun cleanup = CliRun.run("cleanup-old-files", "--catalog", url(db), "--metadata-schema", "lake", "--dry-run");
        assertThat(cleanup.exitCode()).as("cleanup-old-files consults the same catalogs: " + cleanup).isEqualTo(8);

        // the sibling is proven disjoint: excluded, the run proceeds; the nested one is still refused
        CliRun one = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                "--exclude-catalog-schema", "tenant_sibling", "--dry-run", "--output", "json");
        assertThat(one.exitCode()).as(one.toString()).isEqualTo(8);
        assertThat(one.json().get("message").asText()).contains("tenant_priv").doesNotContain("tenant_sibling");

        // excluding the nested one too: it proceeds, but the nested catalog's files form a DuckLake table folder no
        // consulted catalog knows, so the second line of defence stops it
        CliRun both = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                "--exclude-catalog-schema", "tenant_sibling", "--exclude-catalog-schema", "tenant_priv", "--yes", "--output", "json");
        assertThat(both.exitCode()).as(both.toString()).isEqualTo(17);
        assertThat(both.json().get("message").asText()).contains(lake.resolve("priv/main/test") + "/")
                .contains("--allow-unknown-table-folders");
        assertThat(both.err()).contains("excluded by --exclude-catalog-schema");
        assertAllExist(all);

        // the nested tenant's files are moved away (its data path is now really disjoint): the run proceeds and deletes the stray
        try (Connection c = su(db); PreparedStatement ps = c.prepareStatement("UPDATE tenant_priv.ducklake_metadata SET value = ?"
                + " WHERE key = 'data_path'")) {
            ps.setString(1, dir.resolve("moved") + "/");
            ps.executeUpdate();
        }
        for (Path p : theirs) {
            Path to = dir.resolve("moved").resolve(lake.resolve("priv").relativize(p));
            Files.createDirectories(to.getParent());
            Files.move(p, to);
        }
        CliRun ok = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                "--exclude-catalog-schema", "tenant_sibling", "--exclude-catalog-schema", "tenant_priv", "--yes", "--output", "json");
        assertThat(ok.exitCode()).as(ok.toString()).isZero();
        assertThat(ok.json().get("files_deleted").asLong()).isEqualTo(1);
        assertThat(ok.json().get("excluded_catalog_schemas")).extracting(JsonNode::asText)
                .containsExactlyInAnyOrder("tenant_priv", "tenant_sibling");
        assertThat(Files.exists(stray)).isFalse();
        assertAllExist(sibling);
    }

    @Test
    void aCatalogInAnotherDatabaseIsKnownAndWithoutItTheUnknownFolderBrakeFires() throws Exception {
        String db = database("iso_main");
        String db2 = database("iso_other");
        String db3 = database("iso_noconnect");
        Path lake = dir.resolve("lake");
        Path stray;
        List<Path> theirs = new ArrayList<>();
        try (Connection c = su(db)) {
            stray = sweptCatalog(c, lake);
        }
        try (Connection c = su(db2)) {
            catalog(c, "cat2", lake.resolve("db2") + "/");
            grantRead(c, "cat2");
            for (int i = 0; i < 2; i++) {
                String n = ducklakeName();
                theirs.add(FileCatalog.file(lake.resolve("db2/main/test/" + n), OLD));
                dataFile(c, "cat2", n);
            }
            catalog(c, "cat3", dir.resolve("sibling3") + "/"); // not overlapping: not consulted
            grantRead(c, "cat3");
        }
        try (Connection c = su(db3)) {
            Catalogs.exec(c, "REVOKE CONNECT ON DATABASE " + Sql.ident(db3) + " FROM PUBLIC");
        }
        List<Path> all = new ArrayList<>(theirs);
        all.add(stray);

        // a database the role cannot connect to may hold a catalog that references these files: refused (found by trying
        // it: it used to be a warning, and another tenant's file in a shared table folder was deleted)
        CliRun refused = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                "--yes", "--output", "json");
        assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(8);
        assertThat(refused.json().get("message").asText()).contains(db3).contains("no CONNECT privilege").contains(db3 + "/*");
        assertAllExist(all);

        CliRun dry = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                "--exclude-catalog-schema", db3 + "/*", "--dry-run", "--output", "json");
        assertThat(dry.exitCode()).as(dry.toString()).isZero();
        assertThat(dry.json().get("candidates").asLong()).as("only the stray").isEqualTo(1);
        assertThat(dry.json().get("kept_known").asLong()).isEqualTo(8);
        assertThat(dry.json().get("catalogs_consulted")).extracting(JsonNode::asText).containsExactly("lake", db2 + "/cat2");
        assertThat(dry.json().get("databases_not_consulted")).anySatisfy(n -> {
            assertThat(n.get("database").asText()).isEqualTo(db3);
            assertThat(n.get("reason").asText()).contains("no CONNECT privilege");
        });
        assertThat(dry.err()).contains(db3).contains("not consulted");

        // a login that fails (here the database's connection limit) stops the run too, with exit 3
        try (Connection c = su(db3)) {
            Catalogs.exec(c, "GRANT CONNECT ON DATABASE " + Sql.ident(db3) + " TO PUBLIC");
            Catalogs.exec(c, "ALTER DATABASE " + Sql.ident(db3) + " CONNECTION LIMIT 0");
        }
        for (String command : List.of("delete-orphan-files", "cleanup-old-files")) {
            CliRun full = CliRun.run(command, "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                    "--yes", "--output", "json");
            assertThat(full.exitCode()).as(full.toString()).isEqualTo(3);
            assertThat(full.json().get("message").asText()).contains(db3).contains("could not be consulted")
                    .contains("Nothing was listed or deleted");
        }
        // ... and is waived by the same DB/* as a database without CONNECT (the other branch of the one waiver)
        CliRun waivedLogin = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than",
                "7d", "--exclude-catalog-schema", db3 + "/*", "--dry-run", "--output", "json");
        assertThat(waivedLogin.exitCode()).as(waivedLogin.toString()).isZero();
        assertThat(waivedLogin.json().get("candidates").asLong()).as("only the stray").isEqualTo(1);
        assertThat(waivedLogin.json().get("databases_not_consulted")).anySatisfy(n -> {
            assertThat(n.get("database").asText()).isEqualTo(db3);
            assertThat(n.get("reason").asText()).contains("connecting failed").contains("excluded by --exclude-catalog-schema "
                    + db3 + "/*");
        });
        assertAllExist(all);
        try (Connection c = su(db3)) {
            Catalogs.exec(c, "ALTER DATABASE " + Sql.ident(db3) + " CONNECTION LIMIT -1");
            Catalogs.exec(c, "REVOKE CONNECT ON DATABASE " + Sql.ident(db3) + " FROM PUBLIC");
        }

        CliRun blind = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                "--no-consult-server", "--max-orphan-ratio", "0.9", "--yes", "--output", "json");
        assertThat(blind.exitCode()).as(blind.toString()).isEqualTo(17);
        assertThat(blind.json().get("message").asText()).contains(lake.resolve("db2/main/test") + "/");
        assertAllExist(all);

        CliRun also = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                "--no-consult-server", "--also-catalog", "dbname=" + db2 + " metadata_schema=cat2", "--yes", "--output", "json");
        assertThat(also.exitCode()).as(also.toString()).isZero();
        assertThat(also.json().get("catalogs_consulted")).extracting(JsonNode::asText).containsExactly("lake", db2 + "/cat2");
        assertThat(also.json().get("files_deleted").asLong()).isEqualTo(1);
        assertThat(Files.exists(stray)).isFalse();
        assertAllExist(theirs);

        CliRun badRef = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--also-catalog",
                "dbname=" + db2 + " metadata_schema=nope", "--dry-run");
        assertThat(badRef.exitCode()).as(badRef.toString()).isEqualTo(4);
        assertThat(badRef.err()).contains("'nope'");
        CliRun badSyntax = CliRun.run("delete-orphan-files", "--catalog", url(db), "--also-catalog", "dbname", "--dry-run");
        assertThat(badSyntax.exitCode()).isEqualTo(2);
        assertThat(badSyntax.err()).contains("--also-catalog");
    }

    /**
     * The re-trial of 2026-12-06 (stop 38): the connections to the server's other databases had no lock_timeout, so a
     * writer's ACCESS EXCLUSIVE lock on a catalog table there held the run (14 s with --lock-timeout 1 --run-budget 5s,
     * then blamed on another step). They get the swept session's: the read there ends at the lock timeout, the run
     * fails fast and deletes nothing.
     */
    @Test
    void aLockInAnotherDatabaseEndsTheReadThereAtTheLockTimeout() throws Exception {
        String db = database("iso_lockmain");
        String db2 = database("iso_lockother");
        Path lake = dir.resolve("lake");
        Path stray;
        try (Connection c = su(db)) {
            stray = sweptCatalog(c, lake);
        }
        try (Connection c = su(db2)) {
            catalog(c, "cat2", lake.resolve("db2") + "/");
            grantRead(c, "cat2");
        }
        try (Connection holder = su(db2)) {
            holder.setAutoCommit(false);
            Catalogs.exec(holder, "LOCK TABLE " + Sql.qualified("cat2", "ducklake_data_file") + " IN ACCESS EXCLUSIVE MODE");
            long t0 = System.nanoTime();
            CliRun run = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(60),
                    () -> CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than",
                            "7d", "--yes", "--output", "json", "--lock-timeout", "0.5", "--run-budget", "5s"));
            double seconds = (System.nanoTime() - t0) / 1e9;
            holder.rollback();
            assertThat(seconds).as("not held until the lock goes\n%s", run).isLessThan(20);
            assertThat(run.exitCode()).as(run.toString()).isNotZero();
            assertThat(run.out() + run.err()).contains("lock timeout");
            // stop 39: the message names where the lock is and what to do (it was the server's bare 55P03, exit 9)
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(9);
            assertThat(run.json().get("message").asText()).contains("'" + db2 + "'").contains("cat2")
                    .contains("--lock-timeout").contains("pg_locks");
        }
        // the survey's own reads there (ducklake_metadata, before the files): named the same way
        try (Connection holder = su(db2)) {
            holder.setAutoCommit(false);
            Catalogs.exec(holder, "LOCK TABLE " + Sql.qualified("cat2", "ducklake_metadata") + " IN ACCESS EXCLUSIVE MODE");
            CliRun run = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(60),
                    () -> CliRun.run("cleanup-old-files", "--catalog", url(db), "--metadata-schema", "lake", "--yes",
                            "--output", "json", "--lock-timeout", "0.5", "--run-budget", "5s"));
            holder.rollback();
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(9);
            assertThat(run.json().get("message").asText()).as(run.toString()).contains("'" + db2 + "'")
                    .contains("--lock-timeout").contains("pg_locks");
        }
        assertThat(stray).as("nothing deleted").exists();
    }

    /**
     * The trial of 2026-12-06 (stop 39, data lost before the fix): a new database with a DuckLake catalog, created while
     * cleanup-old-files runs, that registers queued files of the swept lake by their absolute paths. The run read the
     * server's databases once, at its start; now, before each batch, it looks for catalogs that appeared (a login to each
     * database that held none) and stops before the deletes. Every file the new catalog registered while it was still
     * there survives.
     */
    @Test
    void aCatalogInADatabaseCreatedDuringCleanupStopsItAndItsFilesSurvive() throws Exception {
        String db = database("iso_appearmain");
        Path lake = dir.resolve("lake");
        int n = 400;
        List<Path> queued = new ArrayList<>();
        try (Connection c = su(db)) {
            sweptCatalog(c, lake);
            for (int i = 0; i < n; i++) {
                queued.add(FileCatalog.file(lake.resolve("main/q/f" + i + ".parquet"), OLD));
            }
            Catalogs.exec(c, "INSERT INTO " + Sql.qualified("lake", "ducklake_files_scheduled_for_deletion")
                    + " SELECT 900000 + g, 'main/q/f' || g || '.parquet', true, now() - interval '10 days'"
                    + " FROM generate_series(0, " + (n - 1) + ") g");
        }
        List<Path> registered = new ArrayList<>();
        Thread tenant = new Thread(() -> {
            try {
                while (queued.stream().allMatch(Files::exists)) {
                    Thread.sleep(5);
                }
                String db2 = database("iso_appearnew");
                try (Connection c = su(db2)) {
                    catalog(c, "fresh", dir.resolve("fresh") + "/");
                    grantRead(c, "fresh");
                    // a batch checked before the catalog existed may still be deleting (the one-batch window of
                    // docs/storage-maintenance.md); the files registered after that are the ones the check protects
                    Thread.sleep(500);
                    c.setAutoCommit(false);
                    long id = 7000;
                    for (Path f : queued) {
                        if (Files.exists(f)) {
                            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified("fresh", "ducklake_data_file")
                                    + " (data_file_id, table_id, begin_snapshot, path, path_is_relative, file_format)"
                                    + " VALUES (?, 1, 1, ?, false, 'parquet')")) {
                                ps.setLong(1, id++);
                                ps.setString(2, f.toString());
                                ps.executeUpdate();
                            }
                            registered.add(f);
                        }
                    }
                    c.commit();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        tenant.start();
        CliRun run = CliRun.run("cleanup-old-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "1d",
                "--batch-size", "1", "--delete-concurrency", "1", "--yes", "--output", "json");
        tenant.join(60_000);
        assertThat(registered).as("the new catalog registered files the run had not reached\n%s", run).isNotEmpty();
        assertAllExist(registered);
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("appeared during the run").contains("iso_appearnew/fresh");
    }

    /**
     * The census through a held connection: another database whose catalog the survey read (so its connection is held
     * for the run) gains a second catalog during cleanup-old-files, which registers the queued files of later batches by
     * their absolute paths. The run stops before the next batch's deletes and names the new catalog
     * {@code DATABASE/SCHEMA}, with the database's name as the survey recorded it.
     */
    @Test
    void aCatalogCreatedDuringCleanupInAConsultedDatabaseStopsItBeforeTheNextDeletes() throws Exception {
        String db = database("iso_heldmain");
        String db2 = database("iso_heldother");
        Path lake = dir.resolve("lake");
        List<Path> queued = new ArrayList<>();
        try (Connection c = su(db)) {
            sweptCatalog(c, lake);
            for (int i = 0; i < 4; i++) {
                queued.add(FileCatalog.file(lake.resolve("main/q/f" + i + ".parquet"), OLD));
            }
            Catalogs.exec(c, "INSERT INTO " + Sql.qualified("lake", "ducklake_files_scheduled_for_deletion")
                    + " SELECT 900000 + g, 'main/q/f' || g || '.parquet', true, now() - interval '10 days'"
                    + " FROM generate_series(0, 3) g");
        }
        try (Connection c = su(db2)) {
            catalog(c, "first", dir.resolve("first") + "/");
            grantRead(c, "first");
        }
        AtomicBoolean created = new AtomicBoolean();
        ForwardingStore store = new ForwardingStore(new LocalFileStore(lake)) {
            @Override
            public DeleteOutcome delete(List<String> addresses) throws StorageException {
                return delete(addresses, false);
            }

            @Override
            public DeleteOutcome delete(List<String> addresses, boolean measure) throws StorageException {
                if (created.compareAndSet(false, true)) {
                    try (Connection c = su(db2)) {
                        catalog(c, "second", dir.resolve("second") + "/");
                        grantRead(c, "second");
                        for (Path f : queued.subList(1, 4)) {
                            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified("second", "ducklake_data_file")
                                    + " (data_file_id, table_id, begin_snapshot, path, path_is_relative, file_format)"
                                    + " VALUES (?, 1, 1, ?, false, 'parquet')")) {
                                ps.setLong(1, nextId++);
                                ps.setString(2, f.toString());
                                ps.executeUpdate();
                            }
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
                return inner.delete(addresses, measure);
            }
        };
        ConnectionSpec janitor = ConnectionSpec.parse(url(db), Map.of(), null);
        CleanupOldFilesResult r;
        try (Connection c = janitor.openRaw()) {
            r = QueueSweep.run(c, store, CleanupOldFilesOptions.builder("lake").dryRun(false).batchSize(1)
                    .deleteConcurrency(1).consult(ConsultOptions.defaults().withServer(janitor)).build(), FileListener.NONE);
        }
        assertThat(created).isTrue();
        assertThat(queued.get(0)).as("the first batch's file, deleted before the catalog appeared").doesNotExist();
        assertAllExist(queued.subList(1, 4));
        assertThat(r.filesDeleted()).isEqualTo(1);
        assertThat(r.stoppedDuring()).isEqualTo("deleting");
        assertThat(r.findings()).anySatisfy(f -> assertThat(f).contains("appeared during the run")
                .contains(db2 + "/second").doesNotContain(db2 + "/first"));
    }

    @Test
    void anUnreadableCatalogInAnotherDatabaseStopsTheRunUnlessExcludedByDatabaseAndName() throws Exception {
        String db = database("iso_main2");
        String db2 = database("iso_tenantdb");
        Path lake = dir.resolve("lake");
        try (Connection c = su(db)) {
            sweptCatalog(c, lake);
        }
        try (Connection c = su(db2)) {
            Catalogs.exec(c, "GRANT CREATE ON DATABASE " + Sql.ident(db2) + " TO " + TENANT);
            tenantCatalog(c, "hidden", dir.resolve("elsewhere"));
        }
        CliRun run = CliRun.run("cleanup-old-files", "--catalog", url(db), "--metadata-schema", "lake", "--yes", "--output", "json");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(8);
        assertThat(run.json().get("message").asText()).contains("'" + db2 + "/hidden'");
        CliRun excluded = CliRun.run("cleanup-old-files", "--catalog", url(db), "--metadata-schema", "lake", "--yes",
                "--exclude-catalog-schema", db2 + "/hidden", "--output", "json");
        assertThat(excluded.exitCode()).as(excluded.toString()).isZero();
        assertThat(excluded.json().get("excluded_catalog_schemas")).extracting(JsonNode::asText).containsExactly(db2 + "/hidden");
    }

    @Test
    void aCandidateUnderTwoSchemasOfOneRunIsCountedOnce() throws Exception {
        String db = database("iso_multi");
        Path lake = dir.resolve("lake");
        Path strayInner;
        Path strayOuter;
        try (Connection c = su(db)) {
            strayOuter = sweptCatalog(c, lake);
            catalog(c, "inner", lake.resolve("inner") + "/");
            grantRead(c, "inner");
            for (int i = 0; i < 4; i++) {
                String n = ducklakeName();
                FileCatalog.file(lake.resolve("inner/main/test/" + n), OLD);
                dataFile(c, "inner", n);
            }
            strayInner = FileCatalog.file(lake.resolve("inner/main/test/" + ducklakeName()), OLD);
        }
        CliRun dry = CliRun.run("delete-orphan-files", "--catalog", url(db), "--all-metadata-schemas", "--older-than", "7d",
                "--dry-run", "--verbose");
        assertThat(dry.exitCode()).as(dry.toString()).isZero();
        List<String> lines = dry.out().lines().filter(l -> l.startsWith("would_delete")).toList();
        assertThat(lines).as(dry.toString()).hasSize(2);
        assertThat(lines).filteredOn(l -> l.contains(strayInner.toString())).hasSize(1);
        assertThat(lines).filteredOn(l -> l.contains(strayOuter.toString())).hasSize(1);
        CliRun json = CliRun.run("delete-orphan-files", "--catalog", url(db), "--all-metadata-schemas", "--older-than", "7d",
                "--dry-run", "--output", "json");
        assertThat(json.json().get("total").get("candidates").asLong()).isEqualTo(2);
        JsonNode outer = json.json().get("schemas").get(1);
        assertThat(outer.get("schema").asText()).isEqualTo("lake");
        assertThat(outer.get("left_to_other_schemas").asLong()).as("the inner catalog's 5 files").isEqualTo(5);
        CliRun run = CliRun.run("delete-orphan-files", "--catalog", url(db), "--all-metadata-schemas", "--older-than", "7d",
                "--yes", "--output", "json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.json().get("total").get("files_deleted").asLong()).isEqualTo(2);
        assertThat(Files.exists(strayInner)).isFalse();
        assertThat(Files.exists(strayOuter)).isFalse();
    }

    @Test
    void onS3TheUnreadableNestedCatalogRefusesAndAnotherDatabasesCatalogIsKnown() throws Exception {
        String db = database("iso_s3");
        String db2 = database("iso_s3_other");
        try (S3TestServer s3 = new S3TestServer()) {
            s3.createBucket(TENANTS);
            try (Connection c = su(db)) {
                catalog(c, "lake", "s3://" + TENANTS + "/lake/");
                grantRead(c, "lake");
                for (int i = 0; i < 6; i++) {
                    String n = ducklakeName();
                    s3.put(TENANTS, "lake/main/test/" + n, 10);
                    dataFile(c, "lake", n);
                }
                s3.put(TENANTS, "lake/main/test/" + ducklakeName(), 10);
                Catalogs.exec(c, "GRANT CREATE ON DATABASE " + Sql.ident(db) + " TO " + TENANT);
                Catalogs.exec(c, "SET ROLE " + TENANT);
                catalog(c, "tenant_priv", "s3://" + TENANTS + "/lake/priv/");
                String n = ducklakeName();
                s3.put(TENANTS, "lake/priv/main/test/" + n, 10);
                dataFile(c, "tenant_priv", n);
                Catalogs.exec(c, "RESET ROLE");
            }
            String theirs = null;
            try (Connection c = su(db2)) {
                catalog(c, "cat2", "s3a://" + TENANTS + "/lake/db2");
                grantRead(c, "cat2");
                String n = ducklakeName();
                theirs = "lake/db2/main/test/" + n;
                s3.put(TENANTS, theirs, 10);
                dataFile(c, "cat2", n);
            }
            Thread.sleep(20);
            ConnectionSpec janitor = ConnectionSpec.parse(url(db), Map.of(), null);
            DeleteOrphanFilesOptions o = DeleteOrphanFilesOptions.builder("lake").minAge(Duration.ZERO).allowShortRetention(true)
                    .olderThan(AgeThreshold.parse("0s")).dryRun(false).maxOrphanRatio(0.9)
                    .consult(ConsultOptions.defaults().withServer(janitor)).build();
            try (Connection c = janitor.openRaw(); FileStore store = s3.store()) {
                assertThat(reason(() -> OrphanSweep.run(c, store, o, FileListener.NONE))).isEqualTo(Reason.PERMISSION_DENIED);
            }
            assertThat(s3.exists(TENANTS, theirs)).isTrue();
            DeleteOrphanFilesResult r;
            try (Connection c = janitor.openRaw(); FileStore store = s3.store()) {
                r = OrphanSweep.run(c, store, o.withConsult(o.consult().withExcludedSchemas(List.of("tenant_priv"))),
                        FileListener.NONE);
            } catch (JanitorException e) {
                assertThat(e.reason()).as(e.getMessage()).isEqualTo(Reason.BRAKE_UNKNOWN_TABLE_FOLDERS);
                assertThat(e.getMessage()).contains("s3://" + TENANTS + "/lake/priv/main/test/").doesNotContain("lake/db2");
                r = null;
            }
            assertThat(r).as("the excluded nested catalog's folder stops the run").isNull();
            try (Connection c = janitor.openRaw(); FileStore store = s3.store()) {
                assertThat(reason(() -> OrphanSweep.run(c, store, o.withConsult(o.consult()
                        .withExcludedSchemas(List.of("tenant_priv")).withConsultServer(false)), FileListener.NONE)))
                        .as("without the server's other databases their folder is unknown too")
                        .isEqualTo(Reason.BRAKE_UNKNOWN_TABLE_FOLDERS);
            }
            assertThat(s3.exists(TENANTS, theirs)).isTrue();
        }
    }

    interface Body {
        void run() throws Exception;
    }

    private static Reason reason(Body b) {
        try {
            b.run();
        } catch (JanitorException e) {
            return e.reason();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        return null;
    }

    /**
     * Found by trying it: a catalog whose data path spells the swept directory through a symbolic link was not seen as
     * overlapping (no warning), and its live file in the shared folder was deleted; one with a relative data path was
     * placed under the janitor's own working directory and skipped the same way.
     */
    @Test
    void aDataPathSpelledThroughALinkIsTheSamePlaceAndARelativeOneRefusesTheRun() throws Exception {
        String db = database("iso_spelling");
        Path lake = dir.resolve("lake");
        Path link = dir.resolve("lake-link");
        Files.createDirectories(lake);
        Files.createSymbolicLink(link, lake);
        Path stray;
        List<Path> theirs = new ArrayList<>();
        try (Connection c = su(db)) {
            stray = sweptCatalog(c, lake);
            catalog(c, "linked", link + "/");
            grantRead(c, "linked");
            String n = ducklakeName();
            theirs.add(FileCatalog.file(lake.resolve("main/test/" + n), OLD)); // the shared table folder main/test/
            dataFile(c, "linked", n);
        }
        for (String command : List.of("delete-orphan-files", "cleanup-old-files")) {
            CliRun dry = CliRun.run(command, "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                    "--dry-run", "--output", "json");
            assertThat(dry.exitCode()).as(dry.toString()).isZero();
            assertThat(dry.json().get("catalogs_consulted")).extracting(JsonNode::asText).containsExactly("lake", "linked");
        }
        CliRun run = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                "--yes", "--output", "json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.json().get("files_deleted").asLong()).as("the stray only").isEqualTo(1);
        assertThat(Files.exists(stray)).isFalse();
        assertAllExist(theirs);

        try (Connection c = su(db)) {
            catalog(c, "relative", "lake/");
            grantRead(c, "relative");
        }
        CliRun refused = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                "--yes", "--output", "json");
        assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(6);
        assertThat(refused.json().get("message").asText()).contains("'relative'").contains("relative data path")
                .contains("Nothing was listed or deleted");
        CliRun waived = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                "--exclude-catalog-schema", "relative", "--dry-run", "--output", "json");
        assertThat(waived.exitCode()).as(waived.toString()).isZero();
        assertThat(waived.json().get("excluded_catalog_schemas")).extracting(JsonNode::asText).containsExactly("relative");
        assertAllExist(theirs);
    }

    /**
     * Found by a tester with real DuckLake: a database set ALLOW_CONNECTIONS false was only reported, and the live files
     * of its catalog, in a table folder it shares with the swept catalog, were deleted; once connections were allowed
     * again DuckLake could not read them. Frozen is not empty: it is refused like a database without CONNECT, waived
     * by the same DB/*; PostgreSQL's own template0 never refuses a run; a template database is surveyed like any other.
     */
    @Test
    void aDatabaseThatAllowsNoConnectionsStopsTheRunUnlessWaivedAndTemplate0NeverDoes() throws Exception {
        String db = database("iso_swept");
        String frozen = database("iso_frozen");
        String tmpl = database("iso_template");
        Path lake = dir.resolve("lake");
        Path stray;
        List<Path> theirs = new ArrayList<>();
        try (Connection c = su(db)) {
            stray = sweptCatalog(c, lake);
        }
        try (Connection c = su(frozen)) {
            catalog(c, "public_lake", lake + "/"); // the same data path, the same table folder main/test/
            grantRead(c, "public_lake");
            String n = ducklakeName();
            theirs.add(FileCatalog.file(lake.resolve("main/test/" + n), OLD));
            dataFile(c, "public_lake", n);
        }
        try (Connection c = su(tmpl)) {
            catalog(c, "tl", lake + "/");
            grantRead(c, "tl");
            String n = ducklakeName();
            theirs.add(FileCatalog.file(lake.resolve("main/test/" + n), OLD));
            dataFile(c, "tl", n);
        }
        List<Path> all = new ArrayList<>(theirs);
        all.add(stray);
        try (Connection c = su(db)) {
            Catalogs.exec(c, "ALTER DATABASE " + Sql.ident(frozen) + " ALLOW_CONNECTIONS false");
            Catalogs.exec(c, "ALTER DATABASE " + Sql.ident(tmpl) + " IS_TEMPLATE true");
        }
        Path cfg = dir.resolve("maintain.yaml");
        Files.writeString(cfg, "catalogs:\n  - name: lake\n    connection: \"" + url(db) + "\"\n    metadata_schema: lake\n"
                + "maintain:\n  - delete-orphan-files: {older-than: 7d}\n  - cleanup-old-files: {older-than: 7d}\n");
        try {
            for (String command : List.of("delete-orphan-files", "cleanup-old-files")) {
                for (String mode : List.of("--yes", "--dry-run")) {
                    CliRun refused = CliRun.run(command, "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                            mode, "--output", "json");
                    assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(8);
                    assertThat(refused.json().get("message").asText()).contains("'" + frozen + "'")
                            .contains("does not allow connections").contains("--exclude-catalog-schema " + frozen + "/*")
                            .contains("Nothing was listed or deleted").doesNotContain("template0");
                }
            }
            CliRun maintain = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");
            assertThat(maintain.exitCode()).as(maintain.all()).isEqualTo(8);
            assertThat(maintain.out()).contains("does not allow connections").contains(frozen + "/*");
            assertAllExist(all);

            // waived: it proceeds, lists the database, and the template database's catalog was read (its file is kept)
            CliRun dry = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                    "--exclude-catalog-schema", frozen + "/*", "--dry-run", "--output", "json");
            assertThat(dry.exitCode()).as(dry.toString()).isZero();
            assertThat(dry.json().get("catalogs_consulted")).extracting(JsonNode::asText).containsExactly("lake", tmpl + "/tl");
            assertThat(dry.json().get("candidates").asLong()).as("the stray and the frozen catalog's file, waived").isEqualTo(2);
            assertThat(dry.json().get("databases_not_consulted")).singleElement().satisfies(n -> {
                assertThat(n.get("database").asText()).isEqualTo(frozen);
                assertThat(n.get("reason").asText()).contains("does not allow connections")
                        .contains("excluded by --exclude-catalog-schema " + frozen + "/*");
            });
            assertThat(dry.err()).contains(frozen).contains("not consulted").doesNotContain("template0");
            assertAllExist(all);

            // a template that allows no connections (the usual way to freeze a database) is refused the same way
            try (Connection c = su(db)) {
                Catalogs.exec(c, "ALTER DATABASE " + Sql.ident(tmpl) + " ALLOW_CONNECTIONS false");
            }
            CliRun frozenTemplate = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake",
                    "--older-than", "7d", "--exclude-catalog-schema", frozen + "/*", "--dry-run", "--output", "json");
            assertThat(frozenTemplate.exitCode()).as(frozenTemplate.toString()).isEqualTo(8);
            assertThat(frozenTemplate.json().get("message").asText()).contains("'" + tmpl + "'")
                    .contains("--exclude-catalog-schema " + tmpl + "/*").doesNotContain("template0");
        } finally {
            try (Connection c = su(db)) {
                Catalogs.exec(c, "ALTER DATABASE " + Sql.ident(tmpl) + " IS_TEMPLATE false ALLOW_CONNECTIONS true");
                Catalogs.exec(c, "ALTER DATABASE " + Sql.ident(frozen) + " ALLOW_CONNECTIONS true");
            }
        }

        // connections allowed again: the catalogs are read, only the stray goes
        CliRun run = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                "--yes", "--output", "json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.json().get("catalogs_consulted")).extracting(JsonNode::asText)
                .containsExactly("lake", frozen + "/public_lake", tmpl + "/tl");
        assertThat(run.json().get("files_deleted").asLong()).as("the stray only").isEqualTo(1);
        assertThat(Files.exists(stray)).isFalse();
        assertAllExist(theirs);
    }

    /**
     * Found by a tester: a catalog whose data path is a symbolic link to a directory (DuckLake reads it fine) could not
     * be swept (exit 13, "Not a directory"). The link is listed as a directory, files spelled under it; and since the
     * listing then spells every file under the link, the files other catalogs name by the real directory (or through
     * a link of their own) are known under that spelling too, else they would be orphans to the sweep.
     */
    @Test
    void aDataPathThatIsALinkIsSweptAsTheDirectoryAndFilesOthersNameByTheRealPathAreKept() throws Exception {
        String db = database("iso_link_root");
        String db2 = database("iso_link_other");
        Path lake = Files.createDirectories(dir.resolve("real-lake"));
        Path link = Files.createSymbolicLink(dir.resolve("lnk3"), lake);
        Path link1 = Files.createSymbolicLink(dir.resolve("lnk1"), lake);
        Path stray;
        List<Path> theirs = new ArrayList<>();
        try (Connection c = su(db)) {
            stray = sweptCatalog(c, link); // data_path '<dir>/lnk3/', its files written through the link
            catalog(c, "byreal", lake + "/"); // the same directory by its real path, the same table folder
            grantRead(c, "byreal");
            String n = ducklakeName();
            theirs.add(FileCatalog.file(lake.resolve("main/test/" + n), OLD));
            dataFile(c, "byreal", n);
        }
        try (Connection c = su(db2)) {
            catalog(c, "bylink1", link1 + "/"); // through another link, in another database
            grantRead(c, "bylink1");
            String n = ducklakeName();
            theirs.add(FileCatalog.file(lake.resolve("main/test/" + n), OLD));
            dataFile(c, "bylink1", n);
        }
        List<Path> all = new ArrayList<>(theirs);
        all.add(stray);

        CliRun check = CliRun.run("check", "--catalog", url(db), "--metadata-schema", "lake", "--storage", "--output", "json");
        assertThat(check.exitCode()).as(check.toString()).isZero();
        assertThat(check.json().get("counts").get("missing_data_files").asLong()).isZero();

        for (String[] dataPath : List.of(new String[0], new String[] {"--data-path", link1 + "/"})) {
            List<String> args = new ArrayList<>(List.of("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake",
                    "--older-than", "7d", "--dry-run", "--output", "json"));
            args.addAll(List.of(dataPath));
            CliRun dry = CliRun.run(args.toArray(String[]::new));
            assertThat(dry.exitCode()).as(dry.toString()).isZero();
            assertThat(dry.json().get("candidates").asLong()).as("only the stray: " + dry).isEqualTo(1);
            assertThat(dry.json().get("kept_known").asLong()).as(dry.toString()).isEqualTo(8);
            assertThat(dry.json().get("catalogs_consulted")).extracting(JsonNode::asText)
                    .containsExactly("lake", "byreal", db2 + "/bylink1");
        }
        assertAllExist(all);

        CliRun run = CliRun.run("delete-orphan-files", "--catalog", url(db), "--metadata-schema", "lake", "--older-than", "7d",
                "--yes", "--output", "json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.json().get("files_deleted").asLong()).as("the stray only").isEqualTo(1);
        assertThat(Files.exists(stray)).isFalse();
        assertAllExist(theirs);
        assertThat(Files.isSymbolicLink(link)).as("the link itself is left as it is").isTrue();
    }
}
