package dev.ducklake.janitor.maintain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.DedicatedPostgres;
import dev.ducklake.janitor.testsupport.FileCatalog;
import org.junit.jupiter.api.AfterAll;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21 item 2 in {@code maintain}: a catalog's {@code also_catalogs}, {@code exclude_catalog_schemas} and
 * {@code consult_server} reach its storage steps as the flags of the same names, and the steps of an
 * {@code all_metadata_schemas} catalog count a file under two schemas' data paths once (item 5). On a server of its
 * own with real roles: a janitor role reading two catalogs of one database (one data path nested in the other), a tenant
 * catalog it cannot read, and a catalog in a second database whose data path lies inside the swept one.
 */
class MaintainConsultTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration OLD = Duration.ofDays(10);
    private static final String PASSWORD = "maint-consult-pw";
    private static final String JANITOR = "janitor_mc";
    private static final String TENANT = "tenant_mc";
    private static long nextId = 7000;

    static DedicatedPostgres pg;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws Exception {
        pg = DedicatedPostgres.start(Map.of(), null);
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("CREATE ROLE " + JANITOR + " LOGIN PASSWORD '" + PASSWORD + "'");
            st.execute("CREATE ROLE " + TENANT + " LOGIN PASSWORD '" + PASSWORD + "'");
            st.execute("CREATE DATABASE mc_lake");
            st.execute("CREATE DATABASE mc_other");
        }
    }

    @AfterAll
    static void stop() throws Exception {
        pg.close();
    }

    private static String url(String db) {
        return "jdbc:postgresql://localhost:" + pg.port() + "/" + db + "?user=" + JANITOR + "&password=" + PASSWORD;
    }

    private static void catalog(Connection c, String schema, String dataPath, boolean grant) throws Exception {
        Catalogs.loadFixture04(c, schema);
        Catalogs.exec(c, "UPDATE " + Sql.qualified(schema, "ducklake_metadata") + " SET value = '1.0' WHERE key = 'version'");
        Catalogs.exec(c, "DELETE FROM " + Sql.qualified(schema, "ducklake_metadata") + " WHERE key = 'data_path'");
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified(schema, "ducklake_metadata")
                + " VALUES ('data_path', ?, NULL, NULL)")) {
            ps.setString(1, dataPath);
            ps.executeUpdate();
        }
        if (grant) {
            Catalogs.exec(c, "GRANT USAGE ON SCHEMA " + Sql.ident(schema) + " TO " + JANITOR);
            Catalogs.exec(c, "GRANT SELECT ON ALL TABLES IN SCHEMA " + Sql.ident(schema) + " TO " + JANITOR);
        }
    }

    /** Writes an old file {@code <dataPath>/main/test/<name>} and registers it as a live data file of table 1. */
    private static Path live(Connection c, String schema, Path dataPath, String name) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified(schema, "ducklake_data_file")
                + " (data_file_id, table_id, begin_snapshot, path, path_is_relative, file_format) VALUES (?, 1, 1, ?, true, 'parquet')")) {
            ps.setLong(1, nextId++);
            ps.setString(2, name);
            ps.executeUpdate();
        }
        return FileCatalog.file(dataPath.resolve("main/test/" + name), OLD);
    }

    private Path config(String catalogExtra) throws Exception {
        Path f = dir.resolve("maintain-" + UUID.randomUUID() + ".yaml");
        Files.writeString(f, "catalogs:\n  - name: lake\n    connection: \"" + url("mc_lake") + "\"\n    all_metadata_schemas: true\n"
                + catalogExtra + "maintain:\n  - delete-orphan-files: {older-than: 7d}\n");
        return f;
    }

    /** The delete-orphan-files result of each schema of the first catalog, by schema. */
    private static Map<String, JsonNode> steps(CliRun run) throws Exception {
        Map<String, JsonNode> out = new java.util.LinkedHashMap<>();
        for (JsonNode s : JSON.readTree(run.out()).get("catalogs").get(0).get("steps")) {
            out.put(s.get("schema").asText(), s);
        }
        return out;
    }

    @Test
    void theCatalogsConsultSettingsReachTheStorageStepsAndEachFileIsCountedByOnePass() throws Exception {
        Path lake = dir.resolve("lake");
        List<Path> kept = new ArrayList<>();
        Path innerStray;
        try (Connection c = pg.spec().withDatabase("mc_lake").openRaw()) {
            catalog(c, "lake", lake + "/", true);
            catalog(c, "inner", lake.resolve("inner") + "/", true);
            for (int i = 0; i < 6; i++) {
                kept.add(live(c, "lake", lake, "k" + i + ".parquet"));
                kept.add(live(c, "inner", lake.resolve("inner"), "i" + i + ".parquet"));
            }
            innerStray = FileCatalog.file(lake.resolve("inner/main/test/stray.parquet"), OLD);
            Catalogs.exec(c, "GRANT CREATE ON DATABASE mc_lake TO " + TENANT);
            Catalogs.exec(c, "SET ROLE " + TENANT);
            catalog(c, "priv", dir.resolve("elsewhere") + "/", false);
            Catalogs.exec(c, "RESET ROLE");
        }
        try (Connection c = pg.spec().withDatabase("mc_other").openRaw()) {
            catalog(c, "o", lake.resolve("other") + "/", true);
            kept.add(live(c, "o", lake.resolve("other"), "o1.parquet"));
            kept.add(live(c, "o", lake.resolve("other"), "o2.parquet"));
        }

        // the unreadable tenant catalog stops both passes (exit 8) until the catalog's configuration excludes it
        CliRun refused = CliRun.run(Map.of(), "maintain", "--config", config("").toString(), "--output", "json", "--dry-run");
        assertThat(refused.exitCode()).as(refused.all()).isEqualTo(8);
        assertThat(steps(refused).get("lake").get("message").asText()).contains("'priv'").contains("--exclude-catalog-schema");

        // excluded, and the server not searched: the other database's live files are candidates of the outer pass
        CliRun blind = CliRun.run(Map.of(), "maintain", "--config", config("    exclude_catalog_schemas: [priv]\n"
                + "    consult_server: false\n").toString(), "--output", "json", "--dry-run");
        assertThat(blind.exitCode()).as(blind.all()).isZero();
        JsonNode outer = steps(blind).get("lake").get("result");
        assertThat(outer.get("excluded_catalog_schemas").get(0).asText()).isEqualTo("priv");
        assertThat(outer.get("candidates").asLong()).as("consult_server: false reached the step: " + outer).isEqualTo(2);
        assertThat(outer.get("left_to_other_schemas").asLong()).as("the inner schema's files are its pass's: " + outer)
                .isEqualTo(7);
        assertThat(outer.get("listed").asLong()).isEqualTo(8);
        JsonNode inner = steps(blind).get("inner").get("result");
        assertThat(inner.get("candidates").asLong()).as("the stray, counted once, by the inner pass").isEqualTo(1);

        // also_catalogs names the other database: its files are known; an execute run deletes the stray alone
        Path cfg = config("    exclude_catalog_schemas: [priv]\n    consult_server: false\n"
                + "    also_catalogs: [\"dbname=mc_other\"]\n"); // user, host, port and password: the catalog's
        CliRun ok = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");
        assertThat(ok.exitCode()).as(ok.all()).isZero();
        assertThat(ok.all()).doesNotContain(PASSWORD);
        JsonNode outerOk = steps(ok).get("lake").get("result");
        assertThat(outerOk.get("candidates").asLong()).as(outerOk.toString()).isZero();
        assertThat(outerOk.get("catalogs_consulted").toString()).contains("mc_other/o");
        assertThat(steps(ok).get("inner").get("result").get("files_deleted").asLong()).isEqualTo(1);
        assertThat(Files.exists(innerStray)).isFalse();
        for (Path p : kept) {
            assertThat(Files.exists(p)).as(p.toString()).isTrue();
        }

        // a bad entry is a configuration error naming the key, before anything runs
        CliRun bad = CliRun.run(Map.of(), "maintain", "--config", config("    also_catalogs: [\"\"]\n").toString());
        assertThat(bad.exitCode()).as(bad.all()).isEqualTo(11);
        assertThat(bad.err()).contains("also_catalogs[0]");
    }
}
