package dev.ducklake.janitor.interop;

import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21's trial, on catalogs written by real DuckLake 1.5.5: a second catalog whose DATA_PATH lies inside the swept
 * one, in a schema the janitor's role cannot read, keeps every file (exit 8); excluded, its real DuckLake table folder
 * stops the run (exit 17); readable, only the stray goes, and DuckLake reads every table of both catalogs afterwards.
 */
class TenantIsolationInteropTest {

    @TempDir
    Path dir;

    @Test
    void theTrialsReproductionKeepsEveryFileAndDuckLakeReadsBothCatalogs() throws Exception {
        RealDuckLake dl = RealDuckLake.require();
        TestPostgres pg = TestPostgres.get();
        String db = "iso_dl_" + ProcessHandle.current().pid();
        String role = "iso_dl_role_" + ProcessHandle.current().pid();
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
            st.execute("CREATE DATABASE " + Sql.ident(db));
            st.execute("DROP ROLE IF EXISTS " + Sql.ident(role));
            st.execute("CREATE ROLE " + Sql.ident(role) + " LOGIN PASSWORD 'iso-dl-pw'");
        }
        try {
            Path lake = dir.resolve("lake");
            String libpq = "host=" + pg.spec().host() + " port=" + pg.spec().port() + " dbname=" + db + " user=" + pg.spec().user();
            RealDuckLake.Attach mine = new RealDuckLake.Attach(libpq, lake + "/").metadataSchema("lake").inliningRowLimit(0);
            RealDuckLake.Attach theirs = new RealDuckLake.Attach(libpq, lake.resolve("priv") + "/").metadataSchema("tenant_priv")
                    .alias("priv").inliningRowLimit(0);
            dl.run(RealDuckLake.program().attach(mine).attach(theirs)
                    .sql("CREATE TABLE lake.t1(id INTEGER)", "INSERT INTO lake.t1 VALUES (1), (2)", "INSERT INTO lake.t1 VALUES (3)",
                            "INSERT INTO lake.t1 VALUES (4)", "INSERT INTO lake.t1 VALUES (5)",
                            "CREATE TABLE priv.p1(x VARCHAR)", "INSERT INTO priv.p1 VALUES ('a')", "INSERT INTO priv.p1 VALUES ('b')"))
                    .assertOk();
            Path stray = FileCatalog.file(lake.resolve("main/t1/ducklake-" + UUID.randomUUID() + ".parquet"), Duration.ZERO);
            List<Path> files;
            try (Stream<Path> s = Files.walk(lake)) {
                files = s.filter(Files::isRegularFile).toList();
            }
            for (Path p : files) {
                Files.setLastModifiedTime(p, FileTime.from(Instant.now().minus(Duration.ofDays(10))));
            }
            assertThat(files).filteredOn(p -> p.startsWith(lake.resolve("priv"))).as("DuckLake wrote the tenant's files").hasSize(2);
            try (Connection c = pg.spec().withDatabase(db).openRaw()) {
                Catalogs.exec(c, "GRANT USAGE ON SCHEMA lake TO " + Sql.ident(role));
                Catalogs.exec(c, "GRANT SELECT ON ALL TABLES IN SCHEMA lake TO " + Sql.ident(role));
            }
            String url = "jdbc:postgresql://" + pg.spec().host() + ":" + pg.spec().port() + "/" + db + "?user=" + role
                    + "&password=iso-dl-pw";

            for (String mode : List.of("--dry-run", "--yes")) {
                CliRun r = CliRun.run("delete-orphan-files", "--catalog", url, "--metadata-schema", "lake", "--older-than", "7d",
                        "--no-consult-server", mode, "--output", "json");
                assertThat(r.exitCode()).as(r.toString()).isEqualTo(8);
                assertThat(r.json().get("message").asText()).contains("tenant_priv");
            }
            CliRun excluded = CliRun.run("delete-orphan-files", "--catalog", url, "--metadata-schema", "lake", "--older-than", "7d",
                    "--no-consult-server", "--exclude-catalog-schema", "tenant_priv", "--max-orphan-ratio", "0.9", "--yes",
                    "--output", "json");
            assertThat(excluded.exitCode()).as("DuckLake's own file names make the folder DuckLake-shaped: " + excluded).isEqualTo(17);
            assertThat(excluded.json().get("message").asText()).contains(lake.resolve("priv/main/p1") + "/");
            for (Path p : files) {
                assertThat(Files.exists(p)).as(p.toString()).isTrue();
            }

            try (Connection c = pg.spec().withDatabase(db).openRaw()) {
                Catalogs.exec(c, "GRANT USAGE ON SCHEMA tenant_priv TO " + Sql.ident(role));
                Catalogs.exec(c, "GRANT SELECT ON ALL TABLES IN SCHEMA tenant_priv TO " + Sql.ident(role));
            }
            CliRun ok = CliRun.run("delete-orphan-files", "--catalog", url, "--metadata-schema", "lake", "--older-than", "7d",
                    "--no-consult-server", "--yes", "--output", "json");
            assertThat(ok.exitCode()).as(ok.toString()).isZero();
            assertThat(ok.json().get("files_deleted").asLong()).isEqualTo(1);
            assertThat(Files.exists(stray)).isFalse();
            for (Path p : files) {
                assertThat(Files.exists(p) || p.equals(stray)).as(p.toString()).isTrue();
            }
            RealDuckLake.Result read = dl.run(RealDuckLake.program().attach(mine).attach(theirs)
                    .query("t1", "SELECT count(*), sum(id) FROM lake.t1").query("p1", "SELECT string_agg(x, ',' ORDER BY x) FROM priv.p1"))
                    .assertOk();
            assertThat(read.rows("t1")).isEqualTo(List.of(List.of("5", "15")));
            assertThat(read.rows("p1")).isEqualTo(List.of(List.of("a,b")));
        } finally {
            try (Connection c = pg.connect(); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
                st.execute("DROP ROLE IF EXISTS " + Sql.ident(role));
            }
        }
    }
}
