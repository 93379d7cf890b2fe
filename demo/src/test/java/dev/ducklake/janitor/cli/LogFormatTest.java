package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.JanitorProcess;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.sql.Connection;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code --log-format text|json}: every command has it; json lines parse, carry the context and never a password. */
class LogFormatTest {

    static final ObjectMapper JSON = new ObjectMapper();

    static List<JsonNode> jsonLines(String err) throws Exception {
        List<String> lines = err.lines().filter(l -> !l.isBlank()).toList();
        assertThat(lines).isNotEmpty();
        List<JsonNode> out = new java.util.ArrayList<>();
        for (String l : lines) {
            JsonNode o = JSON.readTree(l);
            assertThat(o.isObject()).as(l).isTrue();
            assertThat(o.get("timestamp").asText()).as(l).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
            assertThat(o.get("level").asText()).as(l).isIn("error", "warn", "info", "debug", "trace");
            assertThat(o.has("catalog") && o.has("schema") && o.has("operation") && o.has("message")).as(l).isTrue();
            out.add(o);
        }
        return out;
    }

    @Test
    void everyCommandAcceptsLogFormat() {
        CommandLine cl = new CommandLine(new JanitorCommand(Map.of()));
        assertThat(cl.getCommandSpec().findOption("--log-format")).isNotNull();
        cl.getSubcommands().forEach((name, sub) -> {
            if (!name.equals("help")) {
                assertThat(sub.getCommandSpec().findOption("--log-format")).as(name).isNotNull();
            }
        });
        assertThat(CliRun.run("drop-orphan-inline-tables", "--log-format", "xml").exitCode()).isEqualTo(2);
    }

    @Test
    void anErrorIsJsonWithLevelAndHintAndNoPassword() throws Exception {
        CliRun run = CliRun.run("drop-orphan-inline-tables", "--catalog", "postgresql://janitor:Pa55-word-x@127.0.0.1:1/lake?connect_timeout=2",
                "--dry-run", "--log-format", "json");
        assertThat(run.exitCode()).isEqualTo(3);
        assertThat(run.all()).doesNotContain("Pa55-word-x");
        List<JsonNode> lines = jsonLines(run.err());
        assertThat(lines).anySatisfy(o -> {
            assertThat(o.get("level").asText()).isEqualTo("error");
            assertThat(o.get("operation").asText()).isEqualTo("drop-orphan-inline-tables");
            assertThat(o.get("message").asText()).contains("127.0.0.1");
        });
        assertThat(lines).anySatisfy(o -> assertThat(o.path("hint").asBoolean()).isTrue());
    }

    @Test
    void aUsageErrorIsJsonToo() throws Exception {
        CliRun run = CliRun.run("drop-orphan-inline-tables", "--batch-size", "many", "--log-format=json");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(jsonLines(run.err())).anySatisfy(o -> assertThat(o.get("level").asText()).isEqualTo("error"));
    }

    @Test
    void textModeIsUnchanged() {
        CliRun run = CliRun.run("drop-orphan-inline-tables", "--catalog", "postgresql://janitor@127.0.0.1:1/lake?connect_timeout=2",
                "--dry-run");
        assertThat(run.err()).startsWith("error: ").contains("\nhint: ");
    }

    @Test
    void aSeparateJvmLogsProgressAndLibraryLinesAsJson() throws Exception {
        String schema = TestPostgres.get().freshSchema("logfmt");
        try (Connection c = TestPostgres.get().connect()) {
            DemoScenario.build(c, schema, 9);
        }
        JanitorProcess p = JanitorProcess.start(Map.of(), "drop-orphan-inline-tables", "--catalog", TestPostgres.get().url(),
                "--metadata-schema", schema, "--yes", "--batch-size", "4", "--log-format", "json");
        assertThat(p.waitFor(120)).isZero();
        List<JsonNode> lines = jsonLines(p.err());
        assertThat(lines).anySatisfy(o -> {
            assertThat(o.path("batch").asInt()).isPositive();
            assertThat(o.path("batch_size").asInt()).isEqualTo(4);
            assertThat(o.get("operation").asText()).isEqualTo("drop-orphan-inline-tables");
        });
        // with --output text the result stays on stdout, the progress moved to stderr
        assertThat(p.out()).contains("dropped").doesNotContain("batch 1:");
    }

    /**
     * Trial 40: PostgreSQL's multi-line error ({@code "…\n  Position: 19"}) became an error record and an info record in
     * json mode, and {@code --quiet} dropped its second line.
     */
    @Test
    void aMultiLineServerErrorIsOneRecordAndQuietKeepsItsLines() throws Exception {
        String schema = TestPostgres.get().freshSchema("logml");
        String role = "janitor_logml_probe";
        try (Connection c = TestPostgres.get().connect(); java.sql.Statement st = c.createStatement()) {
            DemoScenario.build(c, schema, 2);
            st.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = '" + role + "') THEN"
                    + " CREATE ROLE " + role + " LOGIN; END IF; END $$");
        }
        dev.ducklake.janitor.pg.ConnectionSpec s = TestPostgres.get().spec();
        String url = "postgresql://" + role + "@" + s.host() + ":" + s.port() + "/" + s.database();
        CliRun text = CliRun.run("expire-snapshots", "--catalog", url, "--metadata-schema", schema, "--older-than", "7d", "--quiet");
        assertThat(text.exitCode()).as(text.err()).isNotZero();
        String[] lines = text.err().split("\n");
        assertThat(lines[0]).startsWith("error: ");
        assertThat(text.err()).as("the server's error spans lines here").contains("\n  ");

        CliRun json = CliRun.run("expire-snapshots", "--catalog", url, "--metadata-schema", schema, "--older-than", "7d",
                "--log-format", "json");
        assertThat(json.exitCode()).isEqualTo(text.exitCode());
        List<JsonNode> records = jsonLines(json.err());
        assertThat(records).as(json.err()).allSatisfy(o -> assertThat(o.path("level").asText()).isEqualTo("error"));
        assertThat(records).hasSize(2); // the error and its hint
        String continued = lines[1].strip();
        assertThat(records.get(0).path("message").asText()).contains(continued);
    }

    @Test
    void slf4jLinesBecomeJson() throws Exception {
        String line = StructuredLog.json("[main] WARN org.example.Thing - something odd", null, null);
        JsonNode o = JSON.readTree(line);
        assertThat(o.get("level").asText()).isEqualTo("warn");
        assertThat(o.get("logger").asText()).isEqualTo("org.example.Thing");
        assertThat(o.get("message").asText()).isEqualTo("something odd");
        assertThat(StructuredLog.json("   ", null, null)).isNull();
    }
}
