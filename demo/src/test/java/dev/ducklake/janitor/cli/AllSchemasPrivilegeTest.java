package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 10 item 9: --all-metadata-schemas skips, with a note, the schemas the role has no USAGE on, instead of
 * failing the whole run with exit 8. Runs in a database of its own so that no other test's schema is visited.
 */
class AllSchemasPrivilegeTest {

    private static final String PASSWORD = "all-schemas-pw";

    private final TestPostgres pg = TestPostgres.get();

    @Test
    void schemasWithoutUsageAreSkippedWithANoteAndTheOthersRun() throws Exception {
        String db = "allschemas_" + ProcessHandle.current().pid();
        String role = "allschemas_role_" + ProcessHandle.current().pid();
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db));
            st.execute("CREATE DATABASE " + Sql.ident(db));
            st.execute("DROP ROLE IF EXISTS " + Sql.ident(role));
            st.execute("CREATE ROLE " + Sql.ident(role) + " LOGIN PASSWORD '" + PASSWORD + "'");
        }
        try {
            try (Connection c = pg.spec().withDatabase(db).open(); Statement st = c.createStatement()) {
                FaultCatalog.build(c, "tenant_mine", 4);
                FaultCatalog.build(c, "tenant_other", 4);
                st.execute("GRANT USAGE ON SCHEMA tenant_mine TO " + Sql.ident(role));
                st.execute("GRANT SELECT ON ALL TABLES IN SCHEMA tenant_mine TO " + Sql.ident(role));
            }
            String url = "jdbc:postgresql://" + pg.spec().host() + ":" + pg.spec().port() + "/" + db + "?user=" + role
                    + "&password=" + PASSWORD;
            CliRun run = CliRun.run("drop-orphan-inline-tables", "--catalog", url, "--all-metadata-schemas", "--dry-run",
                    "--output", "json");
            assertThat(run.exitCode()).as("stderr: %s", run.err()).isZero();
            JsonNode doc = run.json();
            assertThat(doc.get("schemas")).hasSize(1);
            assertThat(doc.get("schemas").get(0).get("schema").asText()).isEqualTo("tenant_mine");
            assertThat(doc.get("schemas").get(0).get("orphan_rows").asLong()).isPositive();
            assertThat(doc.get("skipped_schemas")).hasSize(1);
            assertThat(doc.get("skipped_schemas").get(0).get("schema").asText()).isEqualTo("tenant_other");
            assertThat(doc.get("skipped_schemas").get(0).get("reason").asText()).contains("USAGE");
            assertThat(run.err()).contains("tenant_other").contains("no USAGE privilege").contains("skipped");
        } finally {
            try (Connection c = pg.connect(); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
                st.execute("DROP ROLE IF EXISTS " + Sql.ident(role));
            }
        }
    }
}
