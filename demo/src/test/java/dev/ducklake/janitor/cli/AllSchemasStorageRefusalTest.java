package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
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
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21's trial, the {@code --all-metadata-schemas --dry-run} variant: the schema the role has no USAGE on was
 * skipped with a warning and its live files were listed as would_delete. The skip of the unreadable schema stays (it
 * cannot be swept), but every pass now refuses (exit 8, naming it) instead of listing candidates, and the execute run
 * deletes nothing. Runs in a database of its own with real roles, so that no other test's schema is visited.
 */
class AllSchemasStorageRefusalTest {

    private static final String PASSWORD = "all-schemas-storage-pw";
    private static final Duration OLD = Duration.ofDays(10);

    private final TestPostgres pg = TestPostgres.get();

    @TempDir
    Path dir;

    private static void catalog(Connection c, String schema, String dataPath) throws Exception {
        Catalogs.loadFixture04(c, schema);
        Catalogs.exec(c, "UPDATE " + Sql.qualified(schema, "ducklake_metadata") + " SET value = '1.0' WHERE key = 'version'");
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified(schema, "ducklake_metadata")
                + " VALUES ('data_path', ?, NULL, NULL)")) {
            ps.setString(1, dataPath);
            ps.executeUpdate();
        }
    }

    private static long nextId = 7000;

    /** A live data file of table 1 ({@code <data path>/main/test/<name>}) on disk and in the catalog. */
    private static Path liveFile(Connection c, String schema, Path dataPath) throws Exception {
        String name = "ducklake-" + UUID.randomUUID() + ".parquet";
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified(schema, "ducklake_data_file")
                + " (data_file_id, table_id, begin_snapshot, path, path_is_relative, file_format) VALUES (?, 1, 1, ?, true, 'parquet')")) {
            ps.setLong(1, nextId++);
            ps.setString(2, name);
            ps.executeUpdate();
        }
        return FileCatalog.file(dataPath.resolve("main/test/" + name), OLD);
    }

    @Test
    void everyPassRefusesInsteadOfListingAnUnreadableNestedCatalogsFiles() throws Exception {
        String db = "allstorage_" + ProcessHandle.current().pid();
        String janitor = "allstorage_janitor_" + ProcessHandle.current().pid();
        String tenant = "allstorage_tenant_" + ProcessHandle.current().pid();
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db));
            st.execute("CREATE DATABASE " + Sql.ident(db));
            for (String r : List.of(janitor, tenant)) {
                st.execute("DROP ROLE IF EXISTS " + Sql.ident(r));
                st.execute("CREATE ROLE " + Sql.ident(r) + " LOGIN PASSWORD '" + PASSWORD + "'");
            }
        }
        Path lake = dir.resolve("lake");
        List<Path> files = new ArrayList<>();
        try {
            try (Connection c = pg.spec().withDatabase(db).openRaw()) {
                catalog(c, "public_lake", lake + "/");
                for (int i = 0; i < 6; i++) {
                    files.add(liveFile(c, "public_lake", lake));
                }
                Catalogs.exec(c, "GRANT USAGE ON SCHEMA public_lake TO " + Sql.ident(janitor));
                Catalogs.exec(c, "GRANT SELECT ON ALL TABLES IN SCHEMA public_lake TO " + Sql.ident(janitor));
                Catalogs.exec(c, "GRANT CREATE ON DATABASE " + Sql.ident(db) + " TO " + Sql.ident(tenant));
                Catalogs.exec(c, "SET ROLE " + Sql.ident(tenant));
                catalog(c, "tenant_priv", lake.resolve("priv") + "/");
                files.add(liveFile(c, "tenant_priv", lake.resolve("priv")));
                files.add(liveFile(c, "tenant_priv", lake.resolve("priv")));
                Catalogs.exec(c, "RESET ROLE");
            }
            String url = "jdbc:postgresql://" + pg.spec().host() + ":" + pg.spec().port() + "/" + db + "?user=" + janitor
                    + "&password=" + PASSWORD;
            for (String mode : List.of("--dry-run", "--yes")) {
                CliRun run = CliRun.run("delete-orphan-files", "--catalog", url, "--all-metadata-schemas", "--older-than", "7d",
                        "--no-consult-server", mode, "--output", "json");
                assertThat(run.exitCode()).as(run.toString()).isEqualTo(8);
                JsonNode doc = run.json();
                assertThat(doc.get("skipped_schemas")).extracting(n -> n.get("schema").asText()).containsExactly("tenant_priv");
                assertThat(doc.get("schemas")).hasSize(1);
                JsonNode pass = doc.get("schemas").get(0);
                assertThat(pass.get("schema").asText()).isEqualTo("public_lake");
                assertThat(pass.get("exit_code").asInt()).isEqualTo(8);
                assertThat(pass.get("message").asText()).contains("'tenant_priv'").contains("GRANT USAGE ON SCHEMA \"tenant_priv\"")
                        .doesNotContain(PASSWORD);
                assertThat(run.out()).doesNotContain("would_delete");
                for (Path p : files) {
                    assertThat(Files.exists(p)).as(p.toString()).isTrue();
                }
            }
            CliRun text = CliRun.run("delete-orphan-files", "--catalog", url, "--all-metadata-schemas", "--older-than", "7d",
                    "--no-consult-server", "--dry-run");
            assertThat(text.exitCode()).as(text.toString()).isEqualTo(8);
            assertThat(text.out()).as("the dry run reports the refusal instead of candidates").doesNotContain("would_delete");
        } finally {
            try (Connection c = pg.connect(); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
                st.execute("DROP ROLE IF EXISTS " + Sql.ident(janitor));
                st.execute("DROP ROLE IF EXISTS " + Sql.ident(tenant));
            }
        }
    }
}
