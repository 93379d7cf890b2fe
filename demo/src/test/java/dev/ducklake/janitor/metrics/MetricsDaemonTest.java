package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The daemon over real HTTP against the real PostgreSQL. */
class MetricsDaemonTest {

    static final int LEAKED = 25;
    static String schema;
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    final List<String> log = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void setUp() throws Exception {
        TestPostgres pg = TestPostgres.get();
        schema = pg.freshSchema("metrics_daemon");
        try (Connection c = pg.connect()) {
            MetricsFixtures.build(c, schema, LEAKED);
        }
    }

    static HttpResponse<String> get(int port, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static void await(String what, Duration max, BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(100);
        }
    }

    static Double sample(String body, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(body);
        return m.find() ? Double.parseDouble(m.group(1)) : null;
    }

    static String scrape(int port) {
        try {
            HttpResponse<String> r = get(port, "/metrics");
            assertThat(r.statusCode()).isEqualTo(200);
            return r.body();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static int status(int port, String path) {
        try {
            return get(port, path).statusCode();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    TargetConfig target(String name, ConnectionSpec spec, List<CustomQuery> queries) {
        return new TargetConfig(name, spec, schema, Duration.ofSeconds(10), queries);
    }

    @Test
    void servesTwoCatalogsAndABrokenOneNeverHidesTheOther() throws Exception {
        ConnectionSpec good = TestPostgres.get().spec();
        ConnectionSpec broken = ConnectionSpec.parse("host=127.0.0.1 port=1 dbname=nowhere user=nobody password=s3cret-pw connect_timeout=2",
                Map.of(), null);
        List<CatalogTarget> targets = List.of(new CatalogTarget(target("good", good, List.of()), log::add),
                new CatalogTarget(target("broken", broken, List.of()), log::add));
        try (MetricsDaemon d = new MetricsDaemon(targets, Duration.ofMillis(300), log::add)) {
            d.start("127.0.0.1", 0);
            int port = d.port();
            await("good collected", Duration.ofSeconds(30),
                    () -> sample(scrape(port), "ducklake_janitor_up{catalog=\"good\"}") != null
                            && sample(scrape(port), "ducklake_janitor_up{catalog=\"good\"}") == 1.0
                            && sample(scrape(port), "ducklake_janitor_up{catalog=\"broken\"}") != null);
            String body = scrape(port);
            assertThat(sample(body, "ducklake_unreachable_inline_tables{catalog=\"good\",schema=\"" + schema + "\"}")).isEqualTo(LEAKED + 3.0);
            assertThat(sample(body, "ducklake_janitor_up{catalog=\"broken\"}")).isEqualTo(0.0);
            assertThat(sample(body, "ducklake_janitor_query_errors_total{catalog=\"broken\",query=\"connect\"}")).isGreaterThanOrEqualTo(1.0);
            assertThat(sample(body, "ducklake_janitor_query_errors_total{catalog=\"good\",query=\"snapshots\"}")).isEqualTo(0.0);
            assertThat(body).contains("ducklake_janitor_scrape_duration_seconds{catalog=\"good\"}")
                    .contains("ducklake_janitor_query_duration_seconds{catalog=\"good\",query=\"unreachable_inline_tables\"}")
                    .contains("ducklake_janitor_last_success_timestamp_seconds{catalog=\"good\"}")
                    .doesNotContain("ducklake_unreachable_inline_tables{catalog=\"broken\",schema=\"" + schema + "\"}")
                    .doesNotContain("s3cret-pw");
            assertThat(status(port, "/-/healthy")).isEqualTo(200);
            HttpResponse<String> ready = get(port, "/-/ready");
            assertThat(ready.statusCode()).as("one catalog down: not ready").isEqualTo(503);
            assertThat(ready.body()).contains("good: up").contains("broken: down").doesNotContain("s3cret-pw");
            assertThat(status(port, "/nope")).isEqualTo(404);
        }
        assertThat(String.join("\n", log)).doesNotContain("s3cret-pw");
    }

    @Test
    void aCatalogThatGoesDownAndComesBackFlipsReadyAndResumes() throws Exception {
        String role = "metrics_flaky_" + ProcessHandle.current().pid();
        try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
            st.execute("DROP ROLE IF EXISTS " + Sql.ident(role));
            st.execute("CREATE ROLE " + Sql.ident(role) + " LOGIN PASSWORD 'flaky-pw'");
            st.execute("GRANT USAGE ON SCHEMA " + Sql.ident(schema) + " TO " + Sql.ident(role));
            st.execute("GRANT SELECT ON ALL TABLES IN SCHEMA " + Sql.ident(schema) + " TO " + Sql.ident(role));
        }
        ConnectionSpec base = TestPostgres.get().spec();
        ConnectionSpec flaky = ConnectionSpec.parse("host=" + base.host() + " port=" + base.port() + " dbname=" + base.database()
                + " user=" + role + " password=flaky-pw", Map.of(), null);
        try (MetricsDaemon d = new MetricsDaemon(List.of(new CatalogTarget(target("flaky", flaky, List.of()), log::add)),
                Duration.ofMillis(300), log::add)) {
            d.start("127.0.0.1", 0);
            int port = d.port();
            await("ready", Duration.ofSeconds(30), () -> status(port, "/-/ready") == 200);
            assertThat(sample(scrape(port), "ducklake_unreachable_inline_tables{catalog=\"flaky\",schema=\"" + schema + "\"}")).isEqualTo(LEAKED + 3.0);

            try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
                st.execute("ALTER ROLE " + Sql.ident(role) + " NOLOGIN");
                st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + role + "'");
            }
            await("not ready", Duration.ofSeconds(30), () -> status(port, "/-/ready") == 503);
            String down = scrape(port);
            assertThat(sample(down, "ducklake_janitor_up{catalog=\"flaky\"}")).isEqualTo(0.0);
            assertThat(down).as("no stale catalog gauges while down").doesNotContain("ducklake_unreachable_inline_tables{");
            assertThat(sample(down, "ducklake_janitor_query_errors_total{catalog=\"flaky\",query=\"connect\"}")).isGreaterThanOrEqualTo(1.0);

            try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
                st.execute("ALTER ROLE " + Sql.ident(role) + " LOGIN");
            }
            await("ready again (backoff at most a few seconds here)", Duration.ofSeconds(70), () -> status(port, "/-/ready") == 200);
            String back = scrape(port);
            assertThat(sample(back, "ducklake_janitor_up{catalog=\"flaky\"}")).isEqualTo(1.0);
            assertThat(sample(back, "ducklake_unreachable_inline_tables{catalog=\"flaky\",schema=\"" + schema + "\"}")).as("metrics resume").isEqualTo(LEAKED + 3.0);
        } finally {
            try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
                st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + role + "'");
                st.execute("DROP OWNED BY " + Sql.ident(role));
                st.execute("DROP ROLE IF EXISTS " + Sql.ident(role));
            }
        }
        assertThat(String.join("\n", log)).contains("flaky: down").contains("flaky: up").doesNotContain("flaky-pw");
    }

    @Test
    void aYamlWithABadQueryReportsAnErrorMetricAndServesTheRest() throws Exception {
        String yaml = """
                interval_seconds: 0.3
                catalogs:
                  - name: yaml_lake
                    connection: ${env:LAKE_URL}
                    metadata_schema: %s
                    statement_timeout_seconds: 10
                queries:
                  - name: lake_tables_by_state
                    help: DuckLake tables by state.
                    sql: >-
                      SELECT CASE WHEN end_snapshot IS NULL THEN 'live' ELSE 'dropped' END AS state, count(*) AS n
                      FROM ducklake_table GROUP BY 1
                    labels: [state]
                    value: n
                    timeout_seconds: 5
                  - name: lake_broken
                    help: A query with a typo.
                    sql: SELEC 1 AS value
                """.formatted(schema);
        MetricsConfig cfg = MetricsConfig.parse(Path.of("test.yaml"), yaml, Map.of("LAKE_URL", TestPostgres.get().url()));
        assertThat(cfg.catalogs()).hasSize(1);
        assertThat(cfg.catalogs().get(0).queries()).extracting(CustomQuery::timeout)
                .containsExactly(Duration.ofSeconds(5), Duration.ofSeconds(10));
        List<CatalogTarget> targets = new ArrayList<>();
        for (TargetConfig t : cfg.catalogs()) {
            targets.add(new CatalogTarget(t, log::add));
        }
        try (MetricsDaemon d = new MetricsDaemon(targets, cfg.interval(), log::add)) {
            d.start("127.0.0.1", 0);
            int port = d.port();
            await("two collections", Duration.ofSeconds(30), () -> {
                Double n = sample(scrape(port), "ducklake_janitor_query_errors_total{catalog=\"yaml_lake\",query=\"lake_broken\"}");
                return n != null && n >= 2;
            });
            String body = scrape(port);
            assertThat(sample(body, "lake_tables_by_state{catalog=\"yaml_lake\",schema=\"" + schema + "\",state=\"live\"}")).isEqualTo(2.0);
            assertThat(sample(body, "ducklake_unreachable_inline_tables{catalog=\"yaml_lake\",schema=\"" + schema + "\"}")).isEqualTo(LEAKED + 3.0);
            assertThat(sample(body, "ducklake_janitor_up{catalog=\"yaml_lake\"}")).isEqualTo(1.0);
            assertThat(body).contains("# HELP lake_tables_by_state DuckLake tables by state.");
            assertThat(status(port, "/-/ready")).as("a bad custom query does not make the catalog unready").isEqualTo(200);
        }
        assertThat(log).anyMatch(l -> l.contains("query lake_broken failed"));
    }

    @Test
    void badConfigurationsAreConfigErrors() {
        Map<String, String> env = Map.of();
        for (String yaml : List.of(
                "catalogs: []",
                "catalogs:\n  - name: a\n    connection: host=h\n    colour: blue",
                "catalogs:\n  - name: a\n    connection: host=h\n  - name: a\n    connection: host=h",
                "catalogs:\n  - name: a\n    connection: ${env:NOT_SET_ANYWHERE}",
                "catalogs:\n  - name: a\n    connection: host=h\nqueries:\n  - name: ducklake_snapshots\n    help: x\n    sql: SELECT 1",
                "catalogs:\n  - name: a\n    connection: host=h\nqueries:\n  - name: bad-name\n    help: x\n    sql: SELECT 1",
                "catalogs:\n  - name: a\n    connection: host=h\n    password_file: /nonexistent/pw",
                "catalogs: [unclosed")) {
            assertThatThrownBy(() -> MetricsConfig.parse(Path.of("bad.yaml"), yaml, env)).as(yaml)
                    .isInstanceOfSatisfying(JanitorException.class, e -> {
                        assertThat(e.reason()).isEqualTo(JanitorException.Reason.CONFIG);
                        assertThat(e.reason().exitCode()).isEqualTo(11);
                        assertThat(e.getMessage()).contains("bad.yaml");
                    });
        }
    }

    /** The metrics file's mistakes name the line and key, as the maintain file's do (one YAML reader for both). */
    @Test
    void aMistakeNamesTheLineAndTheKey() {
        String yaml = "catalogs:\n  - name: a\n    connection: host=h\n  - name: a\n    connection: host=h";
        assertThatThrownBy(() -> MetricsConfig.parse(Path.of("bad.yaml"), yaml, Map.of()))
                .hasMessageContaining("Metrics configuration bad.yaml, line 4, key catalogs[1].name: duplicate catalog name 'a'");
        assertThatThrownBy(() -> MetricsConfig.parse(Path.of("bad.yaml"), "catalogs:\n  - name: a\n    colour: blue", Map.of()))
                .hasMessageContaining("line 3, key catalogs[0].colour: unknown key; allowed:");
    }
}
