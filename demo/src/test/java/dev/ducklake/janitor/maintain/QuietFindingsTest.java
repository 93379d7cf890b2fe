package dev.ducklake.janitor.maintain;

import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Exit 12 (findings) is routine: under {@code --quiet} a cron job that ends with it gets no mail (nothing on stderr),
 * while stdout still carries the findings. Text and JSON, {@code check} and a {@code maintain} chain ending with 12.
 */
class QuietFindingsTest {

    private final TestPostgres pg = TestPostgres.get();

    @TempDir
    Path tmp;

    private String leaked() throws Exception {
        String schema = pg.freshSchema("quiet_findings");
        try (Connection c = pg.connect()) {
            DemoScenario.build(c, schema, 3);
        }
        return schema;
    }

    @Test
    void checkWithFindingsPrintsNothingOnStderrUnderQuiet() throws Exception {
        String schema = leaked();
        CliRun loud = CliRun.run("check", "--catalog", pg.url(), "--metadata-schema", schema);
        assertThat(loud.exitCode()).as(loud.toString()).isEqualTo(12);
        for (String output : new String[] {"text", "json", "jsonl"}) {
            CliRun quiet = CliRun.run("check", "--catalog", pg.url(), "--metadata-schema", schema, "--quiet", "--output", output);
            assertThat(quiet.exitCode()).as(quiet.toString()).isEqualTo(12);
            assertThat(quiet.err()).as("--output %s: nothing for cron to mail", output).isEmpty();
            assertThat(quiet.out()).as("the findings on stdout").contains("unreachable_inlined_tables");
        }
    }

    @Test
    void maintainEndingWithFindingsPrintsNothingOnStderrUnderQuiet() throws Exception {
        String schema = leaked();
        Path cfg = tmp.resolve("maintain.yaml");
        Files.writeString(cfg, "catalogs:\n  - name: one\n    connection: " + pg.url() + "\n    metadata_schema: " + schema + "\n"
                + "maintain:\n  - check: {fail-on: any}\n");
        for (String output : new String[] {"text", "json"}) {
            CliRun quiet = CliRun.run("maintain", "--config", cfg.toString(), "--quiet", "--output", output);
            assertThat(quiet.exitCode()).as(quiet.toString()).isEqualTo(12);
            assertThat(quiet.err()).as("--output %s: nothing for cron to mail", output).isEmpty();
            assertThat(quiet.out()).as("the findings on stdout").contains("unreachable_inlined_tables");
        }
        CliRun loud = CliRun.run("maintain", "--config", cfg.toString());
        assertThat(loud.exitCode()).isEqualTo(12);
        assertThat(loud.err()).as("without --quiet the step's end is said").contains("info: check: findings");
    }

    @Test
    void aWholeChainEndingWithFindingsIsSilentOnStderrUnderQuiet() throws Exception {
        String schema = leaked();
        Path cfg = tmp.resolve("chain.yaml");
        Files.writeString(cfg, "catalogs:\n  - name: one\n    connection: " + pg.url() + "\n    metadata_schema: " + schema + "\n"
                + "maintain:\n  - expire-snapshots: {older-than: 7d}\n  - drop-orphan-inline-tables: {include-unregistered: true}\n"
                + "  - check: {fail-on: any}\n");
        // the README's cron line: --output jsonl --quiet
        CliRun quiet = CliRun.run("maintain", "--config", cfg.toString(), "--quiet", "--output", "jsonl");
        assertThat(quiet.exitCode()).as(quiet.toString()).isEqualTo(12);
        assertThat(quiet.err()).as("a routine exit 12: nothing for cron to mail").isEmpty();
        assertThat(quiet.out().strip()).as("one line").doesNotContain("\n");
        assertThat(quiet.json().get("status").asText()).isEqualTo("findings");
        assertThat(quiet.json().get("catalogs").get(0).get("steps")).hasSize(3);
    }
}
