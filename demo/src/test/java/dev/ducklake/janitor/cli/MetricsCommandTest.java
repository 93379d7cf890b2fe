package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** The metrics and serve commands, run in-process as a user would. */
class MetricsCommandTest {

    static final int LEAKED = 30;
    static String schema;

    record Run(int code, String out, String err) {
    }

    @BeforeAll
    static void setUp() throws Exception {
        schema = TestPostgres.get().freshSchema("metrics_cli");
        try (Connection c = TestPostgres.get().connect()) {
            DemoScenario.build(c, schema, LEAKED);
        }
    }

    static Run run(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.execute(args, new PrintWriter(out), new PrintWriter(err), env);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void oneShotTextAndJsonAgreeWithTheDryRunOrphanRows() throws Exception {
        String url = TestPostgres.get().url();
        Run text = run(Map.of(), "metrics", "--catalog", url, "--metadata-schema", schema, "--catalog-label", "prod");
        assertThat(text.code()).as(text.err()).isZero();
        assertThat(text.out()).contains("# TYPE ducklake_unreachable_inline_tables gauge")
                .contains("ducklake_unreachable_inline_tables{catalog=\"prod\",schema=\"" + schema + "\"} " + (LEAKED + 2))
                .contains("ducklake_janitor_up{catalog=\"prod\"} 1");

        Run json = run(Map.of(), "metrics", "--catalog", url, "--metadata-schema", schema, "--output", "json");
        assertThat(json.code()).as(json.err()).isZero();
        JsonNode doc = new ObjectMapper().readTree(json.out());
        assertThat(doc.path("status").asText()).isEqualTo("ok");
        long metric = -1;
        for (JsonNode m : doc.path("metrics")) {
            if (m.path("name").asText().equals("ducklake_unreachable_inline_tables")) {
                metric = m.path("samples").get(0).path("value").asLong();
                assertThat(m.path("samples").get(0).path("labels").path("catalog").asText())
                        .as("default label: database name").isEqualTo(TestPostgres.get().spec().database());
            }
        }
        Run dry = run(Map.of(), "drop-orphan-inline-tables", "--catalog", url, "--metadata-schema", schema, "--dry-run", "--output", "json");
        assertThat(dry.code()).as(dry.err()).isZero();
        long orphanRows = new ObjectMapper().readTree(dry.out()).path("orphan_rows").asLong();
        assertThat(metric).as("metric and dry run share one predicate").isEqualTo(orphanRows).isEqualTo(LEAKED + 2);
    }

    @Test
    void oneShotExitCodes() throws Exception {
        Run missing = run(Map.of(), "metrics", "--catalog", TestPostgres.get().url(), "--metadata-schema", "no_such_schema_x");
        assertThat(missing.code()).as("not a catalog").isEqualTo(4);
        assertThat(missing.out()).contains("ducklake_janitor_up{catalog=");
        assertThat(missing.err()).as("names the database and the server").contains("does not exist in database '"
                + TestPostgres.get().spec().database() + "' on " + TestPostgres.get().spec().host() + ":");
        Run down = run(Map.of(), "metrics", "--catalog", "host=127.0.0.1 port=1 dbname=x user=y password=hidden-pw connect_timeout=2");
        assertThat(down.code()).as("unreachable").isEqualTo(3);
        assertThat(down.out() + down.err()).doesNotContain("hidden-pw");
        Path bad = Files.createTempFile("metrics", ".yaml");
        Files.writeString(bad, "catalogs: [");
        Run config = run(Map.of(), "metrics", "--config", bad.toString());
        assertThat(config.code()).as("config error").isEqualTo(11);
    }

    @Test
    void serveFromYamlServesMetricsUntilStopped() throws Exception {
        Path yaml = Files.createTempFile("metrics", ".yaml");
        Files.writeString(yaml, """
                catalogs:
                  - name: served
                    connection: ${env:LAKE}
                    metadata_schema: %s
                """.formatted(schema));
        Map<String, String> env = new HashMap<>();
        env.put("LAKE", TestPostgres.get().url());
        env.put("DUCKLAKE_JANITOR_METRICS_CONFIG", yaml.toString());
        StringWriter err = new StringWriter();
        AtomicInteger code = new AtomicInteger(-1);
        Thread t = new Thread(() -> code.set(Main.execute(new String[] {"serve", "--listen", "127.0.0.1:0", "--interval", "1"},
                new PrintWriter(new StringWriter()), new PrintWriter(err), env)));
        t.start();
        Pattern serving = Pattern.compile("serving http://127\\.0\\.0\\.1:(\\d+)/metrics");
        int port = -1;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (port < 0 && System.nanoTime() < deadline) {
            Matcher m = serving.matcher(err.toString());
            if (m.find()) {
                port = Integer.parseInt(m.group(1));
            } else {
                Thread.sleep(100);
            }
        }
        assertThat(port).as("serve announced its port: " + err).isPositive();
        HttpClient http = HttpClient.newHttpClient();
        String body = "";
        while (System.nanoTime() < deadline && !body.contains("ducklake_unreachable_inline_tables{catalog=\"served\",schema=\"" + schema + "\"}")) {
            body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Thread.sleep(100);
        }
        assertThat(body).contains("ducklake_unreachable_inline_tables{catalog=\"served\",schema=\"" + schema + "\"} " + (LEAKED + 2));
        assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/-/ready")).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        t.interrupt();
        t.join(10_000);
        assertThat(t.isAlive()).isFalse();
        assertThat(code.get()).isZero();
    }

    /** Issue 24: serve logged "schema public" for an entry with all_metadata_schemas. */
    @Test
    void serveNamesEverySchemaForAnAllMetadataSchemasEntry() throws Exception {
        // a database of its own: the shared test database holds hundreds of catalogs by the end of the suite, more than
        // one collection takes within this test's wait
        TestPostgres pg = TestPostgres.get();
        String db = "serve_all_" + ProcessHandle.current().pid();
        try (Connection c = pg.connect(); java.sql.Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
            st.execute("CREATE DATABASE " + db);
        }
        try (Connection c = pg.spec().withDatabase(db).openRaw()) {
            new dev.ducklake.janitor.demo.CatalogBuilder(c, "tenant_a", dev.ducklake.janitor.catalog.FormatVersion.V1_0).create();
            new dev.ducklake.janitor.demo.CatalogBuilder(c, "tenant_b", dev.ducklake.janitor.catalog.FormatVersion.V1_0).create();
        }
        String catalog = pg.libpq().replace("dbname=" + pg.spec().database(), "dbname=" + db);
        StringWriter err = new StringWriter();
        AtomicInteger code = new AtomicInteger(-1);
        Thread t = new Thread(() -> code.set(Main.execute(new String[] {"serve", "--catalog", catalog,
                "--all-metadata-schemas", "--listen", "127.0.0.1:0", "--interval", "60"}, new PrintWriter(new StringWriter()),
                new PrintWriter(err), Map.of())));
        t.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline && !(err.toString().contains("serving http://") && err.toString().contains(": up ("))) {
            Thread.sleep(100);
        }
        t.interrupt();
        t.join(10_000);
        assertThat(err.toString()).as("the start-up and up lines").contains("serving http://127.0.0.1:")
                .contains("every schema holding a DuckLake catalog)").contains(": up (").doesNotContain("schema public")
                .contains("each within 30.0 s");
        assertThat(code.get()).isZero();
    }

    @Test
    void serveRefusesACollectionTimeoutOutOfRange() {
        for (String bad : new String[] {"0", "-1", "86401", "NaN"}) {
            Run r = run(Map.of(), "serve", "--catalog", TestPostgres.get().url(), "--listen", "127.0.0.1:0", "--collection-timeout", bad);
            assertThat(r.code()).as("--collection-timeout %s", bad).isEqualTo(2);
            assertThat(r.err()).contains("--collection-timeout must be more than 0 and at most 86400 seconds");
        }
    }

    @Test
    void allMetadataSchemasMeasuresEveryTenantOfADatabaseAsOneEntryWithThePushLabels() throws Exception {
        String db = "tenants_" + ProcessHandle.current().pid();
        try (Connection c = TestPostgres.get().connect(); java.sql.Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + db);
            st.execute("CREATE DATABASE " + db);
        }
        dev.ducklake.janitor.pg.ConnectionSpec spec = TestPostgres.get().spec().withDatabase(db);
        try (Connection c = spec.open()) {
            DemoScenario.build(c, "tenant_a", 3);
            DemoScenario.build(c, "tenant b", 5);
        }
        try {
            String url = "postgresql://" + spec.user() + "@" + spec.host() + ":" + spec.port() + "/" + db;
            Run text = run(Map.of(), "metrics", "--catalog", url, "--all-metadata-schemas");
            assertThat(text.code()).as(text.err()).isZero();
            assertThat(text.out()).as("catalog = the database name, schema = the metadata schema, as on the pushes")
                    .contains("ducklake_unreachable_inline_tables{catalog=\"" + db + "\",schema=\"tenant_a\"} 5")
                    .contains("ducklake_unreachable_inline_tables{catalog=\"" + db + "\",schema=\"tenant b\"} 7")
                    .contains("ducklake_janitor_up{catalog=\"" + db + "\"} 1");
            Run both = run(Map.of(), "metrics", "--catalog", url, "--all-metadata-schemas", "--metadata-schema", "tenant_a");
            assertThat(both.code()).isEqualTo(2);
            String help = run(Map.of(), "metrics", "--help").out();
            assertThat(help).contains("--all-metadata-schemas").doesNotContain("accept it several times");
        } finally {
            try (Connection c = TestPostgres.get().connect(); java.sql.Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
            }
        }
    }
}
