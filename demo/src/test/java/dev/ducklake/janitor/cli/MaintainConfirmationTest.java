package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code maintain} on a terminal asks first, as every single command does: the question names each catalog, schema
 * and step with the dry-run counts the single commands ask with; "n" is exit 10 with nothing changed; {@code --yes},
 * a dry run and no terminal never ask. The terminal is replaced by a recording one.
 */
class MaintainConfirmationTest {

    static final ObjectMapper JSON = new ObjectMapper();
    final Supplier<UnaryOperator<String>> real = MaintainCommand.terminal;
    final List<String> asked = new CopyOnWriteArrayList<>();

    @TempDir
    Path tmp;

    @AfterEach
    void restore() {
        MaintainCommand.terminal = real;
    }

    void answer(String reply) {
        MaintainCommand.terminal = () -> question -> {
            asked.add(question);
            return reply;
        };
    }

    static String leaked(String prefix, int n) throws Exception {
        String schema = TestPostgres.get().freshSchema(prefix);
        try (Connection c = TestPostgres.get().connect()) {
            DemoScenario.build(c, schema, n);
        }
        return schema;
    }

    Path config(String a, String b) throws Exception {
        Path missing = tmp.resolve("gone");
        return Files.writeString(tmp.resolve("m.yaml"), "catalogs:\n"
                + "  - {name: first, connection: '" + TestPostgres.get().url() + "', metadata_schema: " + a + "}\n"
                + "  - {name: second, connection: '" + TestPostgres.get().url() + "', metadata_schema: " + b + "}\n"
                + "  - {name: nopw, connection: '" + TestPostgres.get().url() + "', password_file: '" + missing + "'}\n"
                + "maintain:\n  - expire-snapshots: {older-than: 7d}\n  - drop-orphan-inline-tables: {}\n  - check: {}\n");
    }

    @Test
    void onATerminalItAsksWithCatalogsSchemasStepsAndCountsAndNoChangesNothingWithExit10() throws Exception {
        String a = leaked("confirm_a", 3);
        String b = leaked("confirm_b", 5);
        Path cfg = config(a, b);
        answer("n");

        CliRun declined = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");

        assertThat(declined.exitCode()).as(declined.all()).isEqualTo(10);
        assertThat(asked).hasSize(1);
        String q = asked.get(0);
        assertThat(q).contains("catalog first (").contains("schema " + a + ":").contains("catalog second (").contains("schema " + b + ":")
                .contains("drop-orphan-inline-tables: Drop 6 orphaned inlined table(s) (1 non-empty kept) in database")
                .contains("drop-orphan-inline-tables: Drop 4 orphaned inlined table(s) (1 non-empty kept) in database")
                .contains("expire-snapshots: Expire 0 snapshot(s)").contains("check: read-only")
                .contains("catalog nopw (").contains("cannot be maintained: The password file").contains("cannot be read")
                .endsWith("Run them on 3 catalog(s)? [y/N] ");
        JsonNode doc = JSON.readTree(declined.out());
        assertThat(doc.get("exit_code").asInt()).isEqualTo(10);
        assertThat(doc.get("reason").asText()).isEqualTo("aborted");
        assertThat(Catalogs.run(a, o -> o.dryRun(true)).wouldDrop()).as("nothing changed").isEqualTo(4);
        assertThat(Catalogs.run(b, o -> o.dryRun(true)).wouldDrop()).isEqualTo(6);

        answer("y");
        CliRun confirmed = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--only-catalog", "first");
        assertThat(confirmed.exitCode()).as(confirmed.all()).isZero();
        assertThat(asked).hasSize(2);
        assertThat(asked.get(1)).contains("catalog first").doesNotContain("catalog second").endsWith("on 1 catalog(s)? [y/N] ");
        assertThat(Catalogs.run(a, o -> o.dryRun(true)).wouldDrop()).isZero();
    }

    @Test
    void yesADryRunAndNoTerminalNeverAsk() throws Exception {
        String a = leaked("confirm_yes_a", 2);
        String b = leaked("confirm_yes_b", 2);
        Path cfg = config(a, b);
        answer("n");
        CliRun dry = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--dry-run", "--only-catalog", "first");
        assertThat(dry.exitCode()).as(dry.all()).isZero();
        CliRun yes = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--yes", "--only-catalog", "first");
        assertThat(yes.exitCode()).as(yes.all()).isZero();
        assertThat(asked).as("--yes and --dry-run do not ask").isEmpty();
        assertThat(Catalogs.run(a, o -> o.dryRun(true)).wouldDrop()).isZero();

        // cron / Kubernetes: no terminal, no question, the run goes ahead (as the single commands do)
        MaintainCommand.terminal = () -> null;
        CliRun cron = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--only-catalog", "second");
        assertThat(cron.exitCode()).as(cron.all()).isZero();
        assertThat(Catalogs.run(b, o -> o.dryRun(true)).wouldDrop()).isZero();
    }
}
