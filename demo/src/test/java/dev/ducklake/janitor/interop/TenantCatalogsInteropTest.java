package dev.ducklake.janitor.interop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21 item 2 against real DuckLake 1.5.5: two catalogs written by DuckLake itself, the second in another database
 * of the same server with its DATA_PATH nested inside the first one's. A sweep of the outer catalog knows the inner
 * catalog's files (the server's other databases are consulted by default) and deletes only the debris of a failed write
 * in one of its own table folders; without the server's other databases ({@code --no-consult-server}) the inner
 * catalog's table folder is DuckLake-shaped and unknown, so the brake (exit 17) stops the run; {@code --also-catalog}
 * brings it back. DuckLake reads every table of both catalogs afterwards.
 */
class TenantCatalogsInteropTest {

    private static final Duration OLD = Duration.ofDays(10);

    private final List<Path> dirs = new ArrayList<>();
    private String otherDb;

    @AfterEach
    void cleanup() throws Exception {
        for (Path d : dirs) {
            if (Files.exists(d)) {
                try (Stream<Path> s = Files.walk(d)) {
                    s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
        if (otherDb != null) {
            try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + Sql.ident(otherDb) + " WITH (FORCE)");
            }
        }
    }

    @Test
    void aNestedCatalogOfAnotherDatabaseWrittenByDuckLakeIsKnownAndWithoutItTheFolderBrakeFires() throws Exception {
        TestPostgres pg = TestPostgres.get();
        InteropCatalog outer = InteropCatalog.fresh("tn_outer");
        Path lake = outer.dataDir();
        dirs.add(lake);
        otherDb = "tn_other_" + ProcessHandle.current().pid();
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + Sql.ident(otherDb) + " WITH (FORCE)");
            st.execute("CREATE DATABASE " + Sql.ident(otherDb));
        }
        try (Connection c = pg.spec().withDatabase(otherDb).openRaw(); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA tn_inner");
        }
        String innerLibpq = pg.libpq().replace("dbname=" + pg.spec().database(), "dbname=" + otherDb);
        RealDuckLake.Attach innerAttach = new RealDuckLake.Attach(innerLibpq, lake.resolve("nested") + "/")
                .metadataSchema("tn_inner").inliningRowLimit(0);

        outer.run(RealDuckLake.program().attach(outer.attach().inliningRowLimit(0))
                .sql("CREATE TABLE lake.t1(id INTEGER, v VARCHAR)",
                        "INSERT INTO lake.t1 VALUES (1, 'a'), (2, 'b')",
                        "INSERT INTO lake.t1 VALUES (3, 'c')",
                        "CREATE TABLE lake.t2(x BIGINT)",
                        "INSERT INTO lake.t2 VALUES (10)",
                        "DELETE FROM lake.t1 WHERE id = 2"));
        outer.run(RealDuckLake.program().attach(innerAttach)
                .sql("CREATE TABLE lake.n1(id INTEGER)",
                        "INSERT INTO lake.n1 VALUES (1), (2)",
                        "INSERT INTO lake.n1 VALUES (3)",
                        "DELETE FROM lake.n1 WHERE id = 1"));
        TreeSet<String> innerFiles = files(lake.resolve("nested"));
        assertThat(innerFiles).as("DuckLake wrote the inner catalog's data and delete files under nested/main/n1/")
                .isNotEmpty().allMatch(f -> f.startsWith("main/n1/ducklake-"));
        // debris of a failed write in a known table folder of the outer catalog: the one orphan
        Path debris = FileCatalog.file(lake.resolve("main/t1/ducklake-" + UUID.randomUUID() + ".parquet"), OLD);
        age(lake);
        TreeSet<String> before = files(lake);

        String[] base = {"delete-orphan-files", "--catalog", pg.url(), "--metadata-schema", outer.schema(), "--older-than", "7d",
                "--output", "json"};
        CliRun blind = CliRun.run(concat(base, "--no-consult-server", "--dry-run"));
        assertThat(blind.exitCode()).as(blind.toString()).isEqualTo(17);
        assertThat(blind.json().get("message").asText()).contains(lake.resolve("nested/main/n1") + "/")
                .as("the outer catalog's own folder with the debris is known").doesNotContain(lake.resolve("main/t1") + "/");
        CliRun blindExecute = CliRun.run(concat(base, "--no-consult-server", "--yes"));
        assertThat(blindExecute.exitCode()).as(blindExecute.toString()).isEqualTo(17);
        assertThat(files(lake)).as("nothing deleted by the brake").isEqualTo(before);

        CliRun dry = CliRun.run(concat(base, "--dry-run"));
        assertThat(dry.exitCode()).as(dry.toString()).isZero();
        assertThat(dry.json().get("catalogs_consulted")).extracting(JsonNode::asText)
                .contains(outer.schema(), otherDb + "/tn_inner");
        assertThat(dry.json().get("candidates").asLong()).as("only the debris").isEqualTo(1);

        CliRun run = CliRun.run(concat(base, "--yes"));
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.json().get("files_deleted").asLong()).isEqualTo(1);
        assertThat(Files.exists(debris)).isFalse();
        TreeSet<String> expected = new TreeSet<>(before);
        expected.remove(lake.relativize(debris).toString());
        assertThat(files(lake)).isEqualTo(expected);

        CliRun also = CliRun.run(concat(base, "--no-consult-server", "--also-catalog", "dbname=" + otherDb, "--dry-run"));
        assertThat(also.exitCode()).as(also.toString()).isZero();
        assertThat(also.json().get("candidates").asLong()).isZero();
        assertThat(also.json().get("catalogs_consulted")).extracting(JsonNode::asText)
                .containsExactly(outer.schema(), otherDb + "/tn_inner");

        RealDuckLake.Result readOuter = outer.run(RealDuckLake.program().attach(outer.attach())
                .query("t1", "SELECT id, v FROM lake.t1 ORDER BY id")
                .query("t2", "SELECT x FROM lake.t2"));
        assertThat(readOuter.rows("t1")).isEqualTo(List.of(List.of("1", "a"), List.of("3", "c")));
        assertThat(readOuter.rows("t2")).isEqualTo(List.of(List.of("10")));
        RealDuckLake.Result readInner = outer.run(RealDuckLake.program().attach(innerAttach)
                .query("n1", "SELECT id FROM lake.n1 ORDER BY id"));
        assertThat(readInner.rows("n1")).isEqualTo(List.of(List.of("2"), List.of("3")));
    }

    /**
     * Trial 40 (data lost) with DuckLake writing both catalogs: the inner catalog's table folder also holds a file it
     * registered with {@code ducklake_add_data_files} under its own name ({@code import_2024.parquet}). Unseen
     * ({@code --no-consult-server}), the folder used to pass the brake (not every file had a DuckLake name) and a
     * listing deleted all the inner catalog's files; and an inventory of the real files plus one entry for a
     * {@code _SUCCESS} that does not exist did the same. Both stop with exit 17 now; DuckLake reads the table after.
     */
    @Test
    void anUnseenTableFolderHoldingAnAddedFileOrAPhantomEntryStillStopsTheRun() throws Exception {
        TestPostgres pg = TestPostgres.get();
        InteropCatalog outer = InteropCatalog.fresh("tn_outer_b");
        Path lake = outer.dataDir();
        dirs.add(lake);
        otherDb = "tn_other_b_" + ProcessHandle.current().pid();
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + Sql.ident(otherDb) + " WITH (FORCE)");
            st.execute("CREATE DATABASE " + Sql.ident(otherDb));
        }
        try (Connection c = pg.spec().withDatabase(otherDb).openRaw(); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA tn_inner");
        }
        String innerLibpq = pg.libpq().replace("dbname=" + pg.spec().database(), "dbname=" + otherDb);
        RealDuckLake.Attach innerAttach = new RealDuckLake.Attach(innerLibpq, lake.resolve("tenantB") + "/")
                .metadataSchema("tn_inner").inliningRowLimit(0);
        Path imported = lake.resolve("tenantB/main/t2/import_2024.parquet");
        outer.run(RealDuckLake.program().attach(outer.attach().inliningRowLimit(0))
                .sql("CREATE TABLE lake.t(i INTEGER)", "INSERT INTO lake.t VALUES (1), (2)", "INSERT INTO lake.t VALUES (3)"));
        outer.run(RealDuckLake.program().attach(innerAttach)
                .sql("CREATE TABLE lake.t2(i INTEGER)", "INSERT INTO lake.t2 VALUES (1), (2)", "INSERT INTO lake.t2 VALUES (3)",
                        "COPY (SELECT 42::INTEGER AS i) TO '" + imported + "' (FORMAT parquet)",
                        "CALL ducklake_add_data_files('lake', 't2', '" + imported + "')"));
        age(lake);
        TreeSet<String> before = files(lake);
        assertThat(before).contains("tenantB/main/t2/import_2024.parquet")
                .anyMatch(f -> f.startsWith("tenantB/main/t2/ducklake-"));

        String[] base = {"delete-orphan-files", "--catalog", pg.url(), "--metadata-schema", outer.schema(), "--older-than", "7d",
                "--no-consult-server", "--max-orphan-ratio", "1", "--output", "json"};
        CliRun listing = CliRun.run(concat(base, "--yes"));
        assertThat(listing.exitCode()).as(listing.toString()).isEqualTo(17);
        assertThat(listing.json().get("message").asText()).contains(lake.resolve("tenantB/main/t2") + "/");
        assertThat(files(lake)).as("nothing deleted by the brake").isEqualTo(before);

        List<String> entries = new ArrayList<>();
        for (String f : before) {
            entries.add(lake.resolve(f).toString());
        }
        entries.add(lake.resolve("tenantB/main/t2/_SUCCESS").toString()); // no such file
        Path inv = Files.createTempFile("tn-inventory", ".txt");
        dirs.add(inv);
        Files.write(inv, entries);
        CliRun inventory = CliRun.run(concat(base, "--inventory", inv.toString(), "--yes"));
        assertThat(inventory.exitCode()).as(inventory.toString()).isEqualTo(17);
        assertThat(files(lake)).as("nothing deleted by the brake").isEqualTo(before);

        RealDuckLake.Result readInner = outer.run(RealDuckLake.program().attach(innerAttach)
                .query("t2", "SELECT sum(i) FROM lake.t2"));
        assertThat(readInner.rows("t2")).isEqualTo(List.of(List.of("48")));
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = new String[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static void age(Path root) throws IOException {
        FileTime t = FileTime.from(Instant.now().minus(OLD));
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                if (Files.isRegularFile(p)) {
                    Files.setLastModifiedTime(p, t);
                }
            }
        }
    }

    private static TreeSet<String> files(Path root) throws IOException {
        TreeSet<String> out = new TreeSet<>();
        try (Stream<Path> s = Files.walk(root)) {
            s.filter(Files::isRegularFile).forEach(p -> out.add(root.relativize(p).toString()));
        }
        return out;
    }
}
