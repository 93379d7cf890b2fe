package dev.ducklake.janitor.ops.compact;

import dev.ducklake.janitor.interop.RealDuckLake;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Trial finding: flush-inlined-data on a catalog whose {@code encrypted} option holds an invalid value
 * ({@code UPDATE ducklake_metadata SET value = 'maybe' WHERE key = 'encrypted'}) failed DuckLake's ATTACH and was
 * reported as a connection failure (exit 3, "Check --catalog … the password"). It is bad catalog contents: exit 6
 * (UNSAFE_CATALOG_STATE), naming the option and its value. Real DuckLake 1.5.5 writes the catalog.
 */
class BadCatalogOptionInteropTest {

    private static final String SCHEMA = "lake_meta";

    @Test
    void anInvalidEncryptedOptionIsBadCatalogContentsNotAConnectionFailure() throws Exception {
        RealDuckLake duck = RealDuckLake.require();
        TestPostgres pg = TestPostgres.get();
        String db = ("badopt_" + ProcessHandle.current().pid()).toLowerCase();
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db));
            st.execute("CREATE DATABASE " + Sql.ident(db));
        }
        try {
            ConnectionSpec spec = pg.spec().withDatabase(db);
            Path data = Files.createTempDirectory("ducklake-badopt-");
            String libpq = "host=" + spec.host() + " port=" + spec.port() + " dbname=" + db + " user=" + spec.user();
            duck.run(RealDuckLake.program().attach(new RealDuckLake.Attach(libpq, data + "/").metadataSchema(SCHEMA))
                    .sql("CREATE TABLE lake.t(id BIGINT)", "INSERT INTO lake.t VALUES (1), (2)")).assertOk();
            try (Connection c = spec.openRaw(); Statement st = c.createStatement()) {
                st.execute("UPDATE " + Sql.qualified(SCHEMA, "ducklake_metadata") + " SET value = 'maybe' WHERE key = 'encrypted'");
            }
            CliRun run = CliRun.run(Map.of(), "flush-inlined-data", "--catalog", libpq, "--metadata-schema", SCHEMA, "--yes",
                    "--duckdb-extension-dir", duck.extensionFilesRoot().toString(), "--output", "json");
            assertThat(run.exitCode()).as("bad catalog contents, not a connection failure: %s", run).isEqualTo(6);
            assertThat(run.json().path("reason").asText()).isEqualTo("unsafe_catalog_state");
            assertThat(run.json().path("message").asText()).contains("encrypted").contains("'maybe'");
            assertThat(run.json().path("hint").asText()).doesNotContain("password");
        } finally {
            try (Connection c = pg.connect(); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
            }
        }
    }
}
