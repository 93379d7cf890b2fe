package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code metrics} JSON document carries {@code exit_code} and {@code catalog} like every other command's, clean
 * run and failure alike; and a schema holding only a {@code ducklake_metadata} (format 9.9) under
 * --all-metadata-schemas is not a catalog (exit 4) for metrics as for check and the maintenance dry runs.
 */
class MetricsDocumentTest {

    static final String DB = "metrics_doc_" + ProcessHandle.current().pid();
    static String url;

    record Run(int code, String out, String err) {
    }

    @BeforeAll
    static void setUp() throws Exception {
        TestPostgres pg = TestPostgres.get();
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + Sql.ident(DB) + " WITH (FORCE)");
            st.execute("CREATE DATABASE " + Sql.ident(DB));
        }
        ConnectionSpec spec = pg.spec().withDatabase(DB);
        try (Connection c = spec.openRaw(); Statement st = c.createStatement()) {
            new CatalogBuilder(c, "la", FormatVersion.V1_0).create();
            st.execute("CREATE SCHEMA lc");
            st.execute("CREATE TABLE lc.ducklake_metadata(key text, value text, scope text, scope_id bigint)");
            st.execute("INSERT INTO lc.ducklake_metadata VALUES ('version', '9.9', NULL, NULL)");
        }
        url = "postgresql://" + spec.user() + "@" + spec.host() + ":" + spec.port() + "/" + DB;
    }

    @AfterAll
    static void tearDown() throws Exception {
        try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + Sql.ident(DB) + " WITH (FORCE)");
        }
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.execute(args, new PrintWriter(out), new PrintWriter(err), Map.of());
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void documentsCarryTheExitCodeAndTheCatalogWithoutThePassword() throws Exception {
        ConnectionSpec spec = TestPostgres.get().spec();
        Run clean = run("metrics", "--catalog", url, "--metadata-schema", "la", "--output", "json");
        assertThat(clean.code()).as(clean.err()).isZero();
        JsonNode doc = new ObjectMapper().readTree(clean.out());
        assertThat(doc.path("status").asText()).isEqualTo("ok");
        assertThat(doc.path("exit_code").isInt()).as(clean.out()).isTrue();
        assertThat(doc.path("exit_code").asInt()).isZero();
        assertThat(doc.path("catalog").path("database").asText()).isEqualTo(DB);
        assertThat(doc.path("catalog").path("host").asText()).isEqualTo(spec.host());
        assertThat(doc.path("catalog").path("schema").asText()).isEqualTo("la");
        assertThat(doc.path("metrics").size()).as("the gauges are still there").isPositive();

        String nosuch = "postgresql://" + spec.user() + ":hidden-pw@" + spec.host() + ":" + spec.port() + "/nosuchdb_"
                + ProcessHandle.current().pid();
        Run down = run("metrics", "--catalog", nosuch, "--output", "json");
        assertThat(down.code()).as(down.err()).isEqualTo(3);
        JsonNode err = new ObjectMapper().readTree(down.out());
        assertThat(err.path("status").asText()).isEqualTo("error");
        assertThat(err.path("exit_code").asInt(-1)).as(down.out()).isEqualTo(3);
        assertThat(err.path("catalog").path("database").asText()).startsWith("nosuchdb_");
        assertThat(err.path("catalog").path("schema").asText()).isEqualTo("public");
        assertThat(down.out() + down.err()).doesNotContain("hidden-pw");

        Run text = run("metrics", "--catalog", nosuch);
        assertThat(text.code()).isEqualTo(3);
        assertThat(text.out()).as("the Prometheus text output is unchanged").startsWith("# HELP ").doesNotContain("exit_code");
    }

    @Test
    void aSchemaWithOnlyAMetadataTableIsNotACatalogForMetricsAsForTheOthers() throws Exception {
        Run check = run("check", "--catalog", url, "--all-metadata-schemas", "--output", "json");
        assertThat(check.code()).as(check.err()).isEqualTo(4);
        Run metrics = run("metrics", "--catalog", url, "--all-metadata-schemas", "--output", "json");
        assertThat(metrics.code()).as(metrics.err()).isEqualTo(check.code());
        JsonNode doc = new ObjectMapper().readTree(metrics.out());
        assertThat(doc.path("exit_code").asInt(-1)).isEqualTo(4);
        assertThat(doc.path("catalog").path("database").asText()).isEqualTo(DB);
        assertThat(doc.path("catalog").has("schema")).as("several schemas: none named").isFalse();
        JsonNode errors = doc.path("catalogs").get(0).path("errors");
        assertThat(errors.size()).as("one error for the schema, not one per missing table: " + errors).isEqualTo(1);
        assertThat(errors.path("lc/catalog").asText()).contains("holds no DuckLake catalog: table ducklake_snapshot is missing");
        assertThat(metrics.err()).doesNotContain("does not exist");
        Run text = run("metrics", "--catalog", url, "--all-metadata-schemas");
        assertThat(text.code()).isEqualTo(4);
        assertThat(text.out()).contains("schema=\"la\"").doesNotContain("schema=\"lc\",format_version");
    }
}
