package dev.ducklake.janitor.deploy;

import com.sun.net.httpserver.HttpServer;
import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * deploy/prometheus/ducklake-janitor-rules.yaml: promtool accepts the rules and passes their unit tests, every rule
 * has a summary and a runbook naming a ducklake-janitor command, and every metric name in an expression is one the
 * code really exports (taken from a real scrape and a real push, not from a list).
 */
class PrometheusRulesTest {

    static final Path DIR = Path.of("deploy", "prometheus");
    static final Path RULES = DIR.resolve("ducklake-janitor-rules.yaml");
    static final Path TESTS = DIR.resolve("ducklake-janitor-rules.test.yaml");

    /** Prometheus' own series used by the rules. */
    static final Set<String> PROMETHEUS_BUILT_IN = Set.of("up");

    private static final Pattern METRIC_TOKEN = Pattern.compile("\\b(ducklake_[a-zA-Z0-9_:]+|up)\\b(?!\\s*\\()");
    private static final Pattern SAMPLE_NAME = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]", Pattern.MULTILINE);

    @Test
    void promtoolChecksTheRules() throws Exception {
        Path promtool = Promtool.require();
        Promtool.Run check = Promtool.run(promtool, DIR, "check", "rules", RULES.getFileName().toString());
        assertThat(check.exitCode()).as(check.output()).isZero();
        assertThat(check.output()).contains("SUCCESS");
    }

    @Test
    void promtoolUnitTestsPass() throws Exception {
        Path promtool = Promtool.require();
        Promtool.Run test = Promtool.run(promtool, DIR, "test", "rules", TESTS.getFileName().toString());
        assertThat(test.exitCode()).as(test.output()).isZero();
        assertThat(test.output()).contains("SUCCESS");
    }

    @Test
    void theUnitTestsCatchAChangedThreshold(@TempDir Path tmp) throws Exception {
        Path promtool = Promtool.require();
        String rules = Files.readString(RULES);
        assertThat(rules).contains("ducklake_unreachable_inline_tables > 1000");
        Files.writeString(tmp.resolve(RULES.getFileName()), rules.replace("ducklake_unreachable_inline_tables > 1000",
                "ducklake_unreachable_inline_tables > 100000"));
        Files.copy(TESTS, tmp.resolve(TESTS.getFileName()));
        Promtool.Run test = Promtool.run(promtool, tmp, "test", "rules", TESTS.getFileName().toString());
        assertThat(test.exitCode()).as("a broken rule must fail the promtool unit tests").isNotZero();
        assertThat(test.output()).contains("DuckLakeLeakedInlinedTables");
    }

    @Test
    void everyRuleHasASummaryAndARunbookNamingACommand() throws Exception {
        List<Map<String, Object>> rules = rules();
        assertThat(rules).hasSizeGreaterThanOrEqualTo(10);
        for (Map<String, Object> r : rules) {
            @SuppressWarnings("unchecked")
            Map<String, Object> ann = (Map<String, Object>) r.get("annotations");
            assertThat(ann).as(String.valueOf(r.get("alert"))).containsKeys("summary", "runbook");
            assertThat(String.valueOf(ann.get("runbook"))).as(String.valueOf(r.get("alert")))
                    .containsAnyOf("ducklake-janitor ", "`ducklake-janitor ");
            @SuppressWarnings("unchecked")
            Map<String, Object> labels = (Map<String, Object>) r.get("labels");
            assertThat(labels).as(String.valueOf(r.get("alert"))).containsKey("severity");
        }
        Set<String> alerts = new TreeSet<>();
        rules.forEach(r -> alerts.add(String.valueOf(r.get("alert"))));
        // the list: leak high/growing, maintenance failed / stale, catalog down, findings, bloat, deletion queue
        assertThat(alerts).contains("DuckLakeJanitorServeDown", "DuckLakeJanitorServeAbsent", "DuckLakeLeakedInlinedTables", "DuckLakeLeakedInlinedTablesGrowing", "DuckLakeMaintenanceFailed",
                "DuckLakeMaintenanceNotSucceeded", "DuckLakeJanitorCatalogDown", "DuckLakeCheckFindings", "DuckLakeCatalogBloat",
                "DuckLakeDeletionQueueStale");
    }

    @Test
    void everyMetricNameInTheRulesIsExportedByTheCode() throws Exception {
        Set<String> exported = exportedNames();
        // sanity: the capture itself works
        assertThat(exported).contains("ducklake_unreachable_inline_tables", "ducklake_janitor_up", "ducklake_maintenance_every_seconds",
                "ducklake_maintenance_last_success_time_seconds", "ducklake_maintenance_duration_seconds");
        Set<String> used = new TreeSet<>();
        for (Map<String, Object> r : rules()) {
            used.addAll(metricNames(String.valueOf(r.get("expr"))));
        }
        assertThat(used).contains("ducklake_maintenance_duration_seconds", "ducklake_files_scheduled_for_deletion_oldest_age_seconds");
        for (String name : used) {
            assertThat(exported.contains(name) || PROMETHEUS_BUILT_IN.contains(name))
                    .as("metric %s used in %s is not exported by serve/metrics nor pushed by a maintenance run", name, RULES)
                    .isTrue();
        }
        // the promtool unit tests feed the same names
        for (String name : metricNames(seriesOfTheUnitTests())) {
            assertThat(exported.contains(name) || PROMETHEUS_BUILT_IN.contains(name))
                    .as("series %s in %s", name, TESTS).isTrue();
        }
    }

    static Set<String> metricNames(String expr) {
        Set<String> out = new TreeSet<>();
        Matcher m = METRIC_TOKEN.matcher(expr);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** The names a real scrape of a demo catalog and a real Pushgateway push of a drop run produce. */
    static Set<String> exportedNames() throws Exception {
        String schema = TestPostgres.get().freshSchema("rules_names");
        try (Connection c = TestPostgres.get().connect()) {
            DemoScenario.build(c, schema, 5);
        }
        Set<String> names = new TreeSet<>();
        CliRun scrape = CliRun.run("metrics", "--catalog", TestPostgres.get().url(), "--metadata-schema", schema, "--catalog-label", "t");
        assertThat(scrape.exitCode()).as(scrape.all()).isZero();
        names.addAll(sampleNames(scrape.out()));
        Map<String, String> bodies = new ConcurrentHashMap<>();
        HttpServer gw = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        gw.createContext("/", ex -> {
            bodies.merge(ex.getRequestURI().getRawPath(), new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8),
                    String::concat);
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        gw.start();
        try {
            CliRun drop = CliRun.run("drop-orphan-inline-tables", "--catalog", TestPostgres.get().url(), "--metadata-schema", schema,
                    "--yes", "--pushgateway-url", "http://127.0.0.1:" + gw.getAddress().getPort());
            assertThat(drop.exitCode()).as(drop.all()).isZero();
            // maintain's own series: the period of a step with 'every'
            Path cfg = Files.createTempFile("rules-names", ".yaml");
            try {
                Files.writeString(cfg, "pushgateway_url: http://127.0.0.1:" + gw.getAddress().getPort() + "\nstate_schema: "
                        + TestPostgres.get().freshSchema("rules_state") + "\ncatalogs:\n  - {name: t, connection: '" + TestPostgres.get().url()
                        + "', metadata_schema: " + schema + "}\nmaintain:\n  - purge-orphan-stats: {every: 1h}\n");
                CliRun maintain = CliRun.run("maintain", "--config", cfg.toString());
                assertThat(maintain.exitCode()).as(maintain.all()).isZero();
            } finally {
                Files.deleteIfExists(cfg);
            }
        } finally {
            gw.stop(0);
        }
        bodies.values().forEach(b -> names.addAll(sampleNames(b)));
        return names;
    }

    static Set<String> sampleNames(String exposition) {
        Set<String> out = new TreeSet<>();
        Matcher m = SAMPLE_NAME.matcher(exposition);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> rules() throws Exception {
        Map<String, Object> doc = (Map<String, Object>) load(RULES);
        List<Map<String, Object>> out = new java.util.ArrayList<>();
        for (Object g : (List<Object>) doc.get("groups")) {
            out.addAll((List<Map<String, Object>>) ((Map<String, Object>) g).get("rules"));
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    static String seriesOfTheUnitTests() throws Exception {
        StringBuilder b = new StringBuilder();
        Map<String, Object> doc = (Map<String, Object>) load(TESTS);
        for (Object t : (List<Object>) doc.get("tests")) {
            for (Object s : (List<Object>) ((Map<String, Object>) t).get("input_series")) {
                String series = String.valueOf(((Map<String, Object>) s).get("series"));
                b.append(series, 0, series.contains("{") ? series.indexOf('{') : series.length()).append('\n');
            }
        }
        return b.toString();
    }

    static Object load(Path file) throws Exception {
        return new Load(LoadSettings.builder().setLabel(file.toString()).build()).loadFromString(Files.readString(file));
    }
}
