package dev.ducklake.janitor.maintain;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The maintain configuration: every mistake is exit 11 naming file, line and key, before anything runs. */
class MaintainConfigTest {

    @TempDir
    Path tmp;

    static final String GOOD = """
            catalogs:
              - name: lake
                connection: postgresql://janitor@db:5432/lake
                metadata_schema: public
                run_budget: 40m
            pushgateway_url: http://pushgateway:9091
            run_budget: 2700
            maintain:
              - expire-snapshots: {older-than: 7d, retain-last: 10}
              - drop-orphan-inline-tables:
                  include-unregistered: true
                  run-budget: 900
              - purge-orphan-stats: {}
              - cleanup-old-files: {older-than: 2d}
              - delete-orphan-files: {max-orphan-ratio: 0.2, data-path: "s3://bucket/lake/", s3-path-style: true, delete-concurrency: 16}
              - check: {}
            """;

    static MaintainConfig parse(String text) throws JanitorException {
        return MaintainConfig.parse(Path.of("m.yaml"), text, Map.of(), registry());
    }

    static Map<String, MaintenanceStep> registry() {
        // the CLI's registry, through its only public door: the package-private factory is in cli
        return dev.ducklake.janitor.cli.MaintainStepsAccess.registry();
    }

    @Test
    void aCompleteConfigurationParses() throws Exception {
        MaintainConfig c = parse(GOOD);
        assertThat(c.catalogs()).hasSize(1);
        assertThat(c.catalogs().get(0).runBudget()).isEqualTo(Duration.ofMinutes(40));
        assertThat(c.runBudget()).isEqualTo(Duration.ofSeconds(2700));
        assertThat(c.steps()).extracting(StepConfig::name).containsExactly("expire-snapshots", "drop-orphan-inline-tables",
                "purge-orphan-stats", "cleanup-old-files", "delete-orphan-files", "check");
        assertThat(c.steps().get(0).options()).containsEntry("older-than", Duration.ofDays(7)).containsEntry("retain-last", 10L);
        assertThat(c.steps().get(1).runBudget()).isEqualTo(Duration.ofSeconds(900));
        assertThat(c.steps().get(1).options()).containsEntry("include-unregistered", true).doesNotContainKey("run-budget");
        assertThat(c.steps().get(4).options()).containsEntry("delete-concurrency", 16L);
        assertThat(c.pushgateway().display()).contains("pushgateway:9091");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        // replace | with | expected line | expected key | expected words
        "include-unregistered: true|include-unregisterd: true|11|maintain[1].drop-orphan-inline-tables.include-unregisterd|unknown option",
        "older-than: 7d, retain-last|older-than: 7 fortnights, retain-last|9|maintain[0].expire-snapshots.older-than|must be a duration",
        "older-than: 7d, retain-last|older-than: 9999999999999d, retain-last|9|maintain[0].expire-snapshots.older-than|must be a duration",
        "retain-last: 10|retain-last: -1|9|maintain[0].expire-snapshots.retain-last|integer of 1 or more",
        "- check: {}|- chek: {}|16|maintain[5].chek|unknown step",
        "run_budget: 2700|run_budgt: 2700|7|run_budgt|unknown key",
        "    metadata_schema: public|    metadata_schema: public\\n    colour: blue|5|catalogs[0].colour|unknown key",
        "max-orphan-ratio: 0.2|max-orphan-ratio: 2|15|maintain[4].delete-orphan-files.max-orphan-ratio|above 0 and at most 1",
        "delete-concurrency: 16|delete-concurrency: 0|15|maintain[4].delete-orphan-files.delete-concurrency|integer of 1 or more",
        "delete-concurrency: 16|delete-concurrency: 65|15|maintain[4].delete-orphan-files|--delete-concurrency must be between 1 and 64",
        "run-budget: 900|run-budget: 0|12|maintain[1].drop-orphan-inline-tables.run-budget|positive duration",
        "include-unregistered: true|include-unregistered: yes please|11|maintain[1].drop-orphan-inline-tables.include-unregistered|true or false",
        // the command's own parser and checks: a value its flag refuses, a combination its command refuses
        // (an older-than below min-age is refused when the run computes its cutoff, as on the command line)
        "- check: {}|- check: {max-examples: 5000}|16|maintain[5].check|--max-examples",
        "older-than: 7d, retain-last: 10|versions: [3, 5], older-than: 7d|9|maintain[0].expire-snapshots|--versions",
        "    run_budget: 40m|    run_budget: 40m\\n    name: again|6|catalogs[0].name|duplicate key",
        "include-unregistered: true|include-unregistered: true\\n      batch-size: 5000|12|maintain[1].drop-orphan-inline-tables.batch-size|between 1 and 2000",
    })
    void mistakesNameFileLineAndKey(String from, String to, int line, String key, String words) {
        String text = GOOD.replace(from, to.replace("\\n", "\n"));
        assertThat(text).isNotEqualTo(GOOD);
        assertThatThrownBy(() -> parse(text)).isInstanceOfSatisfying(JanitorException.class, e -> {
            assertThat(e.reason()).isEqualTo(JanitorException.Reason.CONFIG);
            assertThat(e.getMessage()).contains("m.yaml").contains("line " + line + ",").contains("key " + key).contains(words);
        });
    }

    /**
     * Trial 42, item 6: "must be true or false, got 'false'" contradicted itself. A quoted value that would be valid
     * unquoted is named as quoted text; a refused {@code every} quotes what was written ({@code 0s}, not 0).
     */
    @Test
    void aQuotedValueValidWithoutQuotesIsNamedAndEveryIsQuotedAsWritten() {
        Map<String, String> cases = new java.util.LinkedHashMap<>();
        cases.put("- drop-orphan-inline-tables: {include-nonempty: 'false'}", "key maintain[0].drop-orphan-inline-tables.include-nonempty:"
                + " must be true or false, got the string 'false' (quoted); write it without quotes.");
        cases.put("- expire-snapshots: {older-than: 7d, retain-last: '10'}", "key maintain[0].expire-snapshots.retain-last: must be an"
                + " integer of 1 or more, got the string '10' (quoted); write it without quotes.");
        cases.put("- delete-orphan-files: {max-orphan-ratio: \"0.5\"}", "key maintain[0].delete-orphan-files.max-orphan-ratio: must be"
                + " a number above 0 and at most 1, got the string '0.5' (quoted); write it without quotes.");
        // quoted, but no better without quotes: the plain message
        cases.put("- expire-snapshots: {older-than: 7d, retain-last: '0'}", "key maintain[0].expire-snapshots.retain-last: must be an"
                + " integer of 1 or more, got '0'.");
        cases.put("- drop-orphan-inline-tables: {include-nonempty: 'yes'}", "must be true or false, got 'yes'.");
        cases.put("- check: {every: 0s}", "key maintain[0].check.every: must be a positive duration (");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            String text = "catalogs:\n  - name: a\n    connection: postgresql://janitor@db:5432/lake\nmaintain:\n  " + c.getKey() + "\n";
            assertThatThrownBy(() -> parse(text)).as(c.getKey()).isInstanceOfSatisfying(JanitorException.class, e -> {
                assertThat(e.reason()).isEqualTo(JanitorException.Reason.CONFIG);
                assertThat(e.getMessage()).contains("line 5,").contains(c.getValue());
            });
        }
        assertThatThrownBy(() -> parse("catalogs:\n  - name: a\n    connection: postgresql://janitor@db:5432/lake\nmaintain:\n"
                + "  - check: {every: 0s}\n")).hasMessageEndingWith(", got '0s'.");
        assertThatThrownBy(() -> parse("catalogs:\n  - name: a\n    connection: postgresql://janitor@db:5432/lake\nmaintain:\n"
                + "  - check: {every: 0}\n")).hasMessageEndingWith(", got 0.");
    }

    @Test
    void everyDurationOfTheOneGrammarWorksInYamlAsOnTheCommandLine() throws Exception {
        for (String[] d : new String[][] {{"2w", "14"}, {"P7D", "7"}, {"'7 days'", "7"}, {"1w", "7"}}) {
            MaintainConfig c = parse(GOOD.replace("older-than: 7d, retain-last: 10", "older-than: " + d[0] + ", retain-last: 10")
                    .replace("cleanup-old-files: {older-than: 2d}", "cleanup-old-files: {older-than: " + d[0] + "}")
                    .replace("run_budget: 2700", "run_budget: 2w"));
            assertThat(c.steps().get(0).options()).as(d[0]).containsEntry("older-than", Duration.ofDays(Long.parseLong(d[1])));
            assertThat(c.runBudget()).isEqualTo(Duration.ofDays(14));
        }
    }

    /** The first YAML block after {@code heading} in {@code file}. */
    static String yamlAfter(String file, String heading) throws Exception {
        String text = java.nio.file.Files.readString(Path.of(file));
        int section = text.indexOf(heading);
        assertThat(section).as("%s has the section %s", file, heading).isPositive();
        int start = text.indexOf("```yaml\n", section) + "```yaml\n".length();
        return text.substring(start, text.indexOf("```", start));
    }

    @Test
    void theReadmeExampleOfTwoTenantsIsValidForMaintainAndServe() throws Exception {
        String yaml = yamlAfter("README.md", "## Run it nightly with `maintain`");
        Path pw = java.nio.file.Files.writeString(tmp.resolve("password"), "x\n");
        Path file = java.nio.file.Files.writeString(tmp.resolve("readme.yaml"),
                yaml.replace("/etc/ducklake-janitor/tenant-a.password", pw.toString()));
        Map<String, String> env = Map.of("TENANT_B_CATALOG", "postgresql://janitor@tenant-b-db/lake", "TENANT_B_PG_PASSWORD", "y");
        MaintainConfig c = MaintainConfig.load(file, env, registry());
        assertThat(c.steps()).extracting(StepConfig::name).containsExactly("expire-snapshots", "drop-orphan-inline-tables",
                "purge-orphan-stats", "flush-inlined-data", "compact", "cleanup-old-files", "delete-orphan-files", "check");
        assertThat(c.catalogs()).hasSize(2);
        assertThat(dev.ducklake.janitor.metrics.MetricsConfig.load(file, env).catalogs()).hasSize(2);
        // a login error names the variable the operator set (password_env), not PGPASSWORD, which nobody set
        assertThat(c.catalogs().get(1).connection().passwordSource().describe())
                .isEqualTo("password from the TENANT_B_PG_PASSWORD environment variable");
        assertThat(dev.ducklake.janitor.metrics.MetricsConfig.load(file, env).catalogs().get(1).connection().passwordSource()
                .describe()).isEqualTo("password from the TENANT_B_PG_PASSWORD environment variable");
    }

    @Test
    void theCompleteExampleOfTheOperatingPageIsValidForMaintainAndServe() throws Exception {
        String yaml = yamlAfter("docs/operating.md", "## `maintain`: the chain from one configuration file");
        Path pw = java.nio.file.Files.writeString(tmp.resolve("password"), "x\n");
        Path file = java.nio.file.Files.writeString(tmp.resolve("operating.yaml"),
                yaml.replace("/var/run/secrets/ducklake-janitor/password", pw.toString()));
        Map<String, String> env = Map.of("STAGING_CATALOG", "postgresql://janitor@staging-db/lake", "STAGING_PG_PASSWORD", "y");
        MaintainConfig c = MaintainConfig.load(file, env, registry());
        assertThat(c.steps()).extracting(StepConfig::name).containsExactly("expire-snapshots", "drop-orphan-inline-tables",
                "purge-orphan-stats", "cleanup-old-files", "delete-orphan-files", "check");
        assertThat(c.catalogs()).hasSize(2);
        assertThat(dev.ducklake.janitor.metrics.MetricsConfig.load(file, env).catalogs()).hasSize(2);
    }

    @Test
    void anUnsetPasswordVariableAndABadYamlAreConfigErrors() {
        assertThatThrownBy(() -> parse(GOOD.replace("metadata_schema: public", "password_env: NOPE_PW")))
                .hasMessageContaining("line 4, key catalogs[0].password_env").hasMessageContaining("NOPE_PW");
        assertThatThrownBy(() -> parse("catalogs: [\n  - oops")).hasMessageContaining("m.yaml, line").hasMessageContaining("not valid YAML");
        assertThatThrownBy(() -> parse(GOOD.replace("maintain:", "maintain_:"))).hasMessageContaining("key maintain_");
    }

    @Test
    void thePasswordFromAnEnvironmentVariableIsUsedAndNeverPrinted() throws Exception {
        MaintainConfig c = MaintainConfig.parse(Path.of("m.yaml"), GOOD.replace("metadata_schema: public",
                "metadata_schema: public\n    password_env: LAKE_PW"), Map.of("LAKE_PW", "s3cr3t-Pw"), registry());
        assertThat(c.catalogs().get(0).connection().hasPassword()).isTrue();
        assertThat(c.catalogs().get(0).connection().toString()).doesNotContain("s3cr3t-Pw");
    }

    @Test
    void serveReadsTheSameFileWithThePasswordFromTheEnvironment() throws Exception {
        String text = GOOD.replace("metadata_schema: public", "metadata_schema: public\n    password_env: LAKE_PW");
        dev.ducklake.janitor.metrics.MetricsConfig m = dev.ducklake.janitor.metrics.MetricsConfig.parse(Path.of("m.yaml"), text,
                Map.of("LAKE_PW", "s3cr3t-Pw"));
        assertThat(m.catalogs().get(0).connection().hasPassword()).isTrue();
        assertThatThrownBy(() -> dev.ducklake.janitor.metrics.MetricsConfig.parse(Path.of("m.yaml"), text, Map.of()))
                .hasMessageContaining("LAKE_PW");
        // keys only maintain knows are accepted by serve, real typos are still refused
        assertThatThrownBy(() -> dev.ducklake.janitor.metrics.MetricsConfig.parse(Path.of("m.yaml"), GOOD.replace("run_budget: 2700",
                "run_budgt: 2700"), Map.of())).hasMessageContaining("run_budgt");
    }

    @Test
    void aBadConfigurationChangesNothingAndExits11(@TempDir Path dir) throws Exception {
        String schema = TestPostgres.get().freshSchema("maint_cfg");
        try (Connection c = TestPostgres.get().connect()) {
            DemoScenario.build(c, schema, 5);
        }
        // the first step is fine, the error is in the last one: nothing may run
        Path f = dir.resolve("bad.yaml");
        Files.writeString(f, "catalogs:\n  - name: lake\n    connection: " + TestPostgres.get().url() + "\n    metadata_schema: " + schema
                + "\nmaintain:\n  - drop-orphan-inline-tables: {}\n  - cleanup-old-files: {older-than: yesterday}\n");
        CliRun run = CliRun.run(Map.of(), "maintain", "--config", f.toString());
        assertThat(run.exitCode()).isEqualTo(11);
        assertThat(run.err()).contains(f.toString()).contains("line 7").contains("key maintain[1].cleanup-old-files.older-than");
        assertThat(Catalogs.run(schema, o -> o.dryRun(true)).wouldDrop()).isEqualTo(6);
        CliRun missing = CliRun.run(Map.of(), "maintain", "--config", dir.resolve("nope.yaml").toString());
        assertThat(missing.exitCode()).isEqualTo(11);
        assertThat(missing.err()).contains("nope.yaml").contains("no such file");
    }
}
