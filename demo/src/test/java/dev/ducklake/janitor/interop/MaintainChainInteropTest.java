package dev.ducklake.janitor.interop;

import dev.ducklake.janitor.ops.check.CatalogCheck;
import dev.ducklake.janitor.ops.check.CheckOptions;
import dev.ducklake.janitor.ops.check.CheckResult;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 22 part 3, done criterion: the shipped maintain chain (the README's example and the Kubernetes ConfigMap, steps
 * taken from those files as shipped), run on a catalog written, churned and expired by real DuckLake 1.5.5, exits 0, and
 * check afterwards is clean. Before, DuckLake 1.5.5's expiry left dead inlined rows (duckdb/ducklake#1390) that made the
 * chain's check step exit 12 on every run.
 */
class MaintainChainInteropTest {

    private InteropCatalog lake;

    @AfterEach
    void cleanup() {
        if (lake != null) {
            lake.deleteDataDir();
        }
    }

    /** The {@code maintain:} list of a shipped YAML text, dedented to the top level. */
    static String shippedSteps(String yaml) {
        int at = yaml.indexOf("maintain:");
        assertThat(at).as("the shipped file has a maintain list").isNotNegative();
        int lineStart = yaml.lastIndexOf('\n', at) + 1;
        int indent = at - lineStart;
        StringBuilder out = new StringBuilder();
        for (String line : yaml.substring(lineStart).split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            if (line.length() < indent || !line.substring(0, indent).isBlank()) {
                break;
            }
            String rest = line.substring(indent);
            if (out.length() > 0 && !rest.startsWith(" ")) {
                break; // the next top-level key
            }
            out.append(rest).append('\n');
        }
        return out.toString();
    }

    static String readmeYaml() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        int section = readme.indexOf("## Run it nightly with `maintain`");
        int start = readme.indexOf("```yaml\n", section) + "```yaml\n".length();
        return readme.substring(start, readme.indexOf("```", start));
    }

    @ParameterizedTest
    @ValueSource(strings = {"README.md", "deploy/kubernetes/configmap.yaml"})
    void theShippedChainExitsZeroAfterDuckLakesOwnChurnAndExpiryAndCheckIsClean(String shipped) throws Exception {
        lake = InteropCatalog.fresh("chain");
        RealDuckLake.Program churn = RealDuckLake.program().attach(lake.attach().inliningRowLimit(10))
                .sql("CREATE TABLE lake.a(id INTEGER, v VARCHAR)",
                        "INSERT INTO lake.a VALUES (1, 'one'), (2, 'two'), (3, 'three')",
                        "INSERT INTO lake.a SELECT i + 100, 'bulk' FROM range(1000) t(i)",
                        "UPDATE lake.a SET v = 'uno' WHERE id = 1",
                        "DELETE FROM lake.a WHERE id = 2",
                        "DELETE FROM lake.a WHERE id BETWEEN 600 AND 700",
                        "ALTER TABLE lake.a ADD COLUMN w INTEGER",
                        "INSERT INTO lake.a VALUES (4, 'four', 4)");
        for (int r = 0; r < 3; r++) {
            churn.sql("DROP TABLE IF EXISTS lake.s", "CREATE TABLE lake.s(id INTEGER, v VARCHAR)",
                    "INSERT INTO lake.s VALUES (" + r + ", 'small'), (" + (r + 10) + ", 'other')",
                    "DELETE FROM lake.s WHERE id = " + r);
        }
        churn.sql("CALL ducklake_expire_snapshots('lake', older_than => now())");
        lake.run(churn);
        CheckResult before = check();
        assertThat(before.counts().get("dead_inlined_rows")).as("DuckLake 1.5.5's expiry leaves dead inlined rows (#1390)")
                .isPositive();

        String yaml = shipped.equals("README.md") ? readmeYaml() : Files.readString(Path.of(shipped));
        Path cfg = Files.createTempFile("maintain-chain-", ".yaml");
        try {
            Files.writeString(cfg, "catalogs:\n  - name: lake\n    connection: " + TestPostgres.get().url() + "\n    metadata_schema: "
                    + lake.schema() + "\n"
                    // the shipped ConfigMap gives the storage steps a cadence ('every'), which needs the run ledger
                    + "state_schema: " + TestPostgres.get().freshSchema("chain_state") + "\n" + withTestExtensions(shippedSteps(yaml)));
            CliRun run = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");
            assertThat(run.exitCode()).as("the shipped chain (%s) on a DuckLake 1.5.5 catalog; stdout %s; stderr %s", shipped,
                    run.out(), run.err()).isZero();
            // the engine steps ran DuckLake's functions: the churn left inlined rows (limit 10), which the flush wrote out
            com.fasterxml.jackson.databind.JsonNode steps = new com.fasterxml.jackson.databind.ObjectMapper().readTree(run.out())
                    .get("catalogs").get(0).get("steps");
            java.util.Map<String, com.fasterxml.jackson.databind.JsonNode> byName = new java.util.HashMap<>();
            steps.forEach(st -> byName.put(st.get("step").asText(), st));
            assertThat(byName).containsKeys("flush-inlined-data", "compact");
            assertThat(byName.get("flush-inlined-data").get("status").asText()).isEqualTo("ok");
            assertThat(byName.get("flush-inlined-data").get("result").get("tables_done").asLong()).as(run.out()).isPositive();
            assertThat(byName.get("compact").get("status").asText()).isEqualTo("ok");
        } finally {
            Files.deleteIfExists(cfg);
        }
        CheckResult after = check();
        assertThat(after.errors()).isEmpty();
        assertThat(after.status()).as("check after the chain: %s", after.findings()).isEqualTo(CheckResult.CLEAN);
        // and DuckLake still reads the table, the deleted versions gone, the live rows intact
        RealDuckLake.Result read = lake.run(RealDuckLake.program().attach(lake.attach())
                .query("a", "SELECT count(*), min(v) FILTER (WHERE id = 1) FROM lake.a")
                .query("s", "SELECT count(*) FROM lake.s"));
        assertThat(read.rows("a")).containsExactly(java.util.List.of("902", "uno"));
        assertThat(read.rows("s")).containsExactly(java.util.List.of("1"));
    }

    @org.junit.jupiter.api.Test
    void aMissingDuckDbExtensionFailsTheEngineStepWithExit21AndTheNextStepStillRuns() throws Exception {
        lake = InteropCatalog.fresh("chain_noext");
        lake.run(RealDuckLake.program().attach(lake.attach().inliningRowLimit(10))
                .sql("CREATE TABLE lake.a(id INTEGER)", "INSERT INTO lake.a VALUES (1), (2)"));
        Path empty = Files.createTempDirectory("no-extensions");
        Path cfg = Files.createTempFile("maintain-noext-", ".yaml");
        try {
            Files.writeString(cfg, "catalogs:\n  - name: lake\n    connection: " + TestPostgres.get().url() + "\n    metadata_schema: "
                    + lake.schema() + "\nmaintain:\n  - flush-inlined-data: {duckdb-extension-dir: " + empty + "}\n  - check: {}\n");
            CliRun run = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json", "--yes");
            assertThat(run.exitCode()).as("%s %s", run.out(), run.err()).isEqualTo(21);
            com.fasterxml.jackson.databind.JsonNode steps = new com.fasterxml.jackson.databind.ObjectMapper().readTree(run.out())
                    .get("catalogs").get(0).get("steps");
            assertThat(steps.get(0).get("step").asText()).isEqualTo("flush-inlined-data");
            assertThat(steps.get(0).get("exit_code").asInt()).isEqualTo(21);
            assertThat(steps.get(0).get("reason").asText()).isEqualTo("engine_unavailable");
            assertThat(steps.get(0).get("message").asText()).contains(empty.toString());
            assertThat(steps.get(1).get("step").asText()).isEqualTo("check");
            assertThat(steps.get(1).get("status").asText()).as("the check step still ran").isIn("ok", "findings");
        } finally {
            Files.deleteIfExists(cfg);
            Files.deleteIfExists(empty);
        }
        // nothing was flushed: the two rows are still inlined
        RealDuckLake.Result read = lake.run(RealDuckLake.program().attach(lake.attach()).query("a", "SELECT count(*) FROM lake.a"));
        assertThat(read.rows("a")).containsExactly(List.of("2"));
    }

    /**
     * The shipped steps with the DuckDB extensions of the test's pinned wheels: the ConfigMap's directory is the image's, the
     * README's steps INSTALL from DuckDB's repository (no network in the tests).
     */
    static String withTestExtensions(String steps) {
        String root = RealDuckLake.require().extensionFilesRoot().toString();
        String out = steps.replace("/opt/ducklake-janitor/duckdb-extensions", root);
        for (String step : List.of("flush-inlined-data", "compact")) {
            // a flow-style step ("- compact: {max-input-files: 2000}" or "{}") gets the directory as its first option
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("- " + step + ": \\{([^}]*)}").matcher(out);
            if (m.find()) {
                String rest = m.group(1).isBlank() ? "" : ", " + m.group(1);
                out = out.substring(0, m.start()) + "- " + step + ": {duckdb-extension-dir: " + root + rest + "}" + out.substring(m.end());
            }
        }
        assertThat(out).as("every engine step of the shipped chain gets the test's extensions").contains("- flush-inlined-data:", "- compact:");
        return out;
    }

    private CheckResult check() throws Exception {
        return new CatalogCheck(TestPostgres.get().spec(), CheckOptions.defaults().withMetadataSchema(lake.schema())
                .withBloatThresholds(Long.MAX_VALUE, 1)).execute();
    }
}
