package dev.ducklake.janitor.contract;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.cli.JanitorCommand;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.TestPostgres;
import dev.ducklake.janitor.testsupport.FileCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static dev.ducklake.janitor.testsupport.Catalogs.exec;
import static dev.ducklake.janitor.testsupport.Catalogs.inlinedDeleteTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pins what users and scripts depend on, so that moving code cannot change it unnoticed: the JSON member paths
 * of dry and execute runs (one and several metadata schemas) and the {@code --help} text of every command.
 *
 * <p>The expected texts live in {@code src/test/resources/contract/}; they are the contract. A deliberate change
 * (a new flag, a new command, a new JSON member) regenerates them with {@code -Dcontract.update=true} and the
 * diff is reviewed in the commit. JSON member order is not part of the contract (JSON objects are unordered);
 * the set of member paths is, with {@code []} standing for the elements of an array.
 */
class OutputContractTest {

    private static final Path DIR = Path.of("demo/src/test/resources/contract");
    private static final boolean UPDATE = Boolean.getBoolean("contract.update");

    private final TestPostgres pg = TestPostgres.get();

    /** A catalog with one of everything the result lists: empty and non-empty orphans, leftovers, an anomaly. */
    private void fixture(Connection c, String schema) throws Exception {
        CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
        long empty = b.createTable("empty_dead", 1);
        long full = b.createTable("full_dead", 1);
        long live = b.createTable("live", 1);
        b.insertRows(full, 2);
        b.dropTable(empty);
        b.dropTable(full);
        b.expireBefore(b.snapshot());
        inlinedDeleteTable(c, schema, empty, 0);
        exec(c, "CREATE TABLE " + Sql.qualified(schema, "ducklake_inlined_data_" + empty + "_99")
                + " (row_id bigint, begin_snapshot bigint, end_snapshot bigint, c1 integer)");
        // an unregistered data table of a reachable id: an anomaly
        exec(c, "CREATE TABLE " + Sql.qualified(schema, "ducklake_inlined_data_" + live + "_77")
                + " (row_id bigint, begin_snapshot bigint, end_snapshot bigint, c1 integer)");
    }

    @Test
    void jsonMemberPathsOfDryAndExecuteRuns() throws Exception {
        String a = pg.freshSchema("contract_a");
        String b = pg.freshSchema("contract_b");
        try (Connection c = pg.connect()) {
            fixture(c, a);
            fixture(c, b);
        }
        StringBuilder actual = new StringBuilder();
        section(actual, "single dry run", CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(),
                "--metadata-schema", a, "--dry-run", "--output", "json"));
        section(actual, "multi-schema dry run", CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(),
                "--metadata-schema", a, "--metadata-schema", b, "--dry-run", "--output", "json"));
        section(actual, "single execute run", CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(),
                "--metadata-schema", a, "--yes", "--include-unregistered", "--output", "json"));
        section(actual, "multi-schema execute run", CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(),
                "--metadata-schema", a, "--metadata-schema", b, "--yes", "--include-nonempty", "--output", "json"));
        section(actual, "error document", CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(),
                "--metadata-schema", "no_such_schema_contract", "--dry-run", "--output", "json"));
        compare("drop-orphan-inline-tables-json-paths.txt", actual.toString());
    }

    /**
     * expire-snapshots and purge-orphan-stats, dry and execute runs, one and several schemas: a dry run's figures are
     * {@code would} keys ({@code snapshots_would_expire}, {@code rows_would_delete_total}), an execute run's what it did.
     */
    @Test
    void jsonMemberPathsOfExpireAndPurge() throws Exception {
        StringBuilder actual = new StringBuilder();
        for (String command : List.of("expire-snapshots", "purge-orphan-stats")) {
            String a = pg.freshSchema("contract_" + command.charAt(0) + "a");
            String b = pg.freshSchema("contract_" + command.charAt(0) + "b");
            try (Connection c = pg.connect()) {
                fixture(c, a);
                fixture(c, b);
            }
            List<String> extra = command.equals("expire-snapshots") ? List.of("--retain-last", "1") : List.of();
            section(actual, command + " single dry run", ok(run(command, extra, "--metadata-schema", a, "--dry-run")));
            section(actual, command + " multi-schema dry run", ok(run(command, extra, "--metadata-schema", a,
                    "--metadata-schema", b, "--dry-run")));
            section(actual, command + " single execute run", ok(run(command, extra, "--metadata-schema", a, "--yes")));
            section(actual, command + " multi-schema execute run", ok(run(command, extra, "--metadata-schema", a,
                    "--metadata-schema", b, "--yes")));
        }
        compare("expire-purge-json-paths.txt", actual.toString());
    }

    private CliRun run(String command, List<String> extra, String... args) {
        List<String> all = new ArrayList<>(List.of(command, "--catalog", pg.url(), "--output", "json"));
        all.addAll(extra);
        all.addAll(List.of(args));
        return CliRun.run(all.toArray(new String[0]));
    }

    @TempDir
    Path dir;

    /**
     * The two storage commands, dry and execute runs, one and several schemas: their keys follow one schema
     * ({@code files_deleted} / {@code files_would_delete}, {@code bytes_deleted} / {@code bytes_would_delete}).
     */
    @Test
    void jsonMemberPathsOfTheStorageCommands() throws Exception {
        Duration old = Duration.ofDays(3);
        StringBuilder actual = new StringBuilder();
        for (String command : List.of("cleanup-old-files", "delete-orphan-files")) {
            List<FileCatalog> cats = new ArrayList<>();
            for (String tenant : List.of("a", "b")) {
                Path lake = dir.resolve(command + "-" + tenant);
                FileCatalog cat = FileCatalog.create("contract_" + command.charAt(0) + tenant, lake + "/");
                FileCatalog.file(lake.resolve("main/t/known.parquet"), old);
                cat.dataFile(1, "main/t/known.parquet", true);
                FileCatalog.file(lake.resolve("main/t/gone.parquet"), old);
                FileCatalog.file(lake.resolve("main/t/stray.parquet"), old);
                cat.queue("main/t/gone.parquet", true, old);
                cats.add(cat);
            }
            String a = cats.get(0).schema;
            String b = cats.get(1).schema;
            // delete-orphan-files: one stray of three files is over the default ratio brake (0.5) for a small fixture
            String ratio = command.equals("delete-orphan-files") ? "--max-orphan-ratio=1" : "--no-consult-server";
            section(actual, command + " single dry run", ok(CliRun.run(command, "--catalog", pg.url(), "--metadata-schema", a,
                    "--dry-run", ratio, "--output", "json")));
            section(actual, command + " multi-schema dry run", ok(CliRun.run(command, "--catalog", pg.url(), "--metadata-schema", a,
                    "--metadata-schema", b, "--dry-run", ratio, "--output", "json")));
            section(actual, command + " single execute run", ok(CliRun.run(command, "--catalog", pg.url(), "--metadata-schema", a,
                    "--yes", ratio, "--output", "json")));
            section(actual, command + " multi-schema execute run", ok(CliRun.run(command, "--catalog", pg.url(),
                    "--metadata-schema", a, "--metadata-schema", b, "--yes", ratio, "--output", "json")));
        }
        compare("storage-json-paths.txt", actual.toString());
    }

    private static CliRun ok(CliRun run) {
        assertThat(run.json().get("status").asText()).as(run.toString()).isNotEqualTo("error");
        return run;
    }

    private static void section(StringBuilder sb, String title, CliRun run) {
        JsonNode doc = run.json();
        sb.append("## ").append(title).append('\n');
        TreeSet<String> paths = new TreeSet<>();
        collect(doc, "", paths);
        paths.forEach(p -> sb.append(p).append('\n'));
    }

    /** Member paths of a JSON value; array elements are merged under {@code []}. */
    static void collect(JsonNode node, String prefix, TreeSet<String> out) {
        if (node.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> it = node.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                String p = prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey();
                out.add(p);
                collect(e.getValue(), p, out);
            }
        } else if (node.isArray()) {
            for (JsonNode el : node) {
                collect(el, prefix + "[]", out);
            }
        }
    }

    @Test
    void helpTextOfEveryCommand() throws Exception {
        CommandLine root = new CommandLine(new JanitorCommand(Map.of()));
        List<List<String>> commands = new ArrayList<>();
        commands.add(List.of());
        for (String name : root.getSubcommands().keySet()) {
            if (!name.equals("help")) {
                commands.add(List.of(name));
            }
        }
        List<String> failures = new ArrayList<>();
        for (List<String> command : commands) {
            List<String> args = new ArrayList<>(command);
            args.add("--help");
            CliRun run = CliRun.run(args.toArray(new String[0]));
            assertThat(run.exitCode()).as("exit code of %s --help", command).isZero();
            String file = "help/" + (command.isEmpty() ? "ducklake-janitor" : command.get(0)) + ".txt";
            try {
                compare(file, run.out());
            } catch (AssertionError e) {
                failures.add(e.getMessage());
            }
        }
        assertThat(failures).as("help texts that differ from demo/src/test/resources/contract/help").isEmpty();
    }

    private static void compare(String file, String actual) throws IOException {
        Path p = DIR.resolve(file);
        if (UPDATE) {
            Files.createDirectories(p.getParent());
            Files.writeString(p, actual, StandardCharsets.UTF_8);
            return;
        }
        assertThat(p).as("expected text %s is missing: run this test once with -Dcontract.update=true and review it", p)
                .exists();
        assertThat(actual).as("%s (regenerate with -Dcontract.update=true only for a deliberate change)", p)
                .isEqualTo(Files.readString(p, StandardCharsets.UTF_8));
    }
}
