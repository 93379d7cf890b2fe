package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class StorageCommandsTest {

    private static final Duration OLD = Duration.ofDays(3);

    @TempDir
    Path dir;

    private static String url() {
        return TestPostgres.get().url();
    }

    @Test
    void cleanupOldFilesDryRunThenExecuteWithFindingsExitCode() throws Exception {
        Path lake = dir.resolve("lake");
        FileCatalog cat = FileCatalog.create("cli_cof", lake + "/");
        Path a = FileCatalog.file(lake.resolve("main/test/a.parquet"), OLD);
        Path live = FileCatalog.file(lake.resolve("main/test/live.parquet"), OLD);
        cat.queue("main/test/a.parquet", true, OLD);
        cat.queue("main/test/live.parquet", true, OLD);
        cat.dataFile(1, "live.parquet", true);

        CliRun dry = CliRun.run("cleanup-old-files", "--catalog", url(), "--metadata-schema", cat.schema, "--dry-run", "--verbose");
        assertThat(dry.exitCode()).as(dry.toString()).isEqualTo(12);
        assertThat(dry.out()).contains("would_delete\t" + a + "\t7 B").contains("files that would be deleted: 1");
        assertThat(Files.exists(a)).isTrue();

        CliRun run = CliRun.run("cleanup-old-files", "--catalog", url(), "--metadata-schema", cat.schema,
                "--output", "json");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(12);
        assertThat(run.json().get("files_deleted").asLong()).isEqualTo(1);
        assertThat(run.json().get("batches").asLong()).as("the generic run figures are in the document").isEqualTo(1);
        assertThat(run.json().get("kept_live").asLong()).isEqualTo(1);
        assertThat(run.json().get("status").asText()).as("the document agrees with exit 12").isEqualTo("findings");
        assertThat(run.json().get("exit_code").asInt()).isEqualTo(12);
        assertThat(run.json().get("cutoff_source").asText()).isEqualTo("default 2 days");
        assertThat(Files.exists(a)).isFalse();
        assertThat(Files.exists(live)).isTrue();

        CliRun bad = CliRun.run("cleanup-old-files", "--catalog", url(), "--metadata-schema", cat.schema, "--older-than", "5m",
                "--dry-run");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("--min-age");
        CliRun lowered = CliRun.run("cleanup-old-files", "--catalog", url(), "--metadata-schema", cat.schema, "--older-than", "5m",
                "--min-age", "0s", "--allow-short-retention", "--dry-run");
        assertThat(lowered.exitCode()).as(lowered.toString()).isEqualTo(12);
    }

    /** Issue 28 item 6, issue 21 item 3: negative ages are refused; going below a floor needs the explicit flag. */
    @Test
    void retentionFloorsNeedTheExplicitFlag() throws Exception {
        Path lake = dir.resolve("floors");
        FileCatalog cat = FileCatalog.create("cli_floor", lake.toString());
        FileCatalog.file(lake.resolve("main/test/k.parquet"), OLD);
        cat.dataFile(1, "k.parquet", true);
        String[] base = {"--catalog", url(), "--metadata-schema", cat.schema, "--dry-run", "--output", "json"};
        for (String[] bad : List.of(new String[] {"delete-orphan-files", "--min-age", "0s"},
                new String[] {"delete-orphan-files", "--min-age", "23h"},
                new String[] {"delete-orphan-files", "--older-than", "2h"},
                new String[] {"delete-orphan-files", "--min-age", "-1h", "--allow-short-retention"},
                new String[] {"delete-orphan-files", "--older-than", "PT-5H", "--min-age", "0s", "--allow-short-retention"},
                new String[] {"cleanup-old-files", "--min-age", "0s"},
                new String[] {"cleanup-old-files", "--older-than", "10m"})) {
            CliRun r = CliRun.run(concat(bad, base));
            assertThat(r.exitCode()).as(String.join(" ", bad) + ": " + r).isEqualTo(2);
            assertThat(r.err()).as(String.join(" ", bad)).containsAnyOf("--allow-short-retention", "negative", "--min-age");
        }
        CliRun ok = CliRun.run(concat(new String[] {"delete-orphan-files", "--min-age", "1h", "--older-than", "2h",
            "--allow-short-retention"}, base));
        assertThat(ok.exitCode()).as(ok.toString()).isZero();
        assertThat(ok.json().get("allow_short_retention").asBoolean()).isTrue();
        assertThat(ok.err()).as("logged").contains("--allow-short-retention");
        CliRun plain = CliRun.run(concat(new String[] {"delete-orphan-files"}, base));
        assertThat(plain.json().get("allow_short_retention").asBoolean()).isFalse();
        // the catalog's own option below the floor is raised to it
        cat.setOption("delete_older_than", "1 hour");
        CliRun raised = CliRun.run(concat(new String[] {"delete-orphan-files"}, base));
        assertThat(raised.exitCode()).as(raised.toString()).isZero();
        assertThat(raised.json().get("cutoff_source").asText()).contains("raised to --min-age");
        assertThat(java.time.Instant.parse(raised.json().get("cutoff").asText()))
                .isBefore(java.time.Instant.now().minus(java.time.Duration.ofHours(23)));
    }

    /**
     * Trial 42, item 4: the floor's usage error and the --allow-short-retention warning quoted --min-age as Java's ISO
     * form ({@code PT5M}, {@code PT0S}); docs/durations.md promises the text as written or the project's own form.
     * Guard: no usage error or warning of the storage commands holds an ISO duration the operator did not write.
     */
    @Test
    void minAgeMessagesQuoteTheDurationAsWrittenNeverIso() throws Exception {
        Path lake = dir.resolve("iso");
        FileCatalog cat = FileCatalog.create("cli_iso", lake.toString());
        FileCatalog.file(lake.resolve("main/test/k.parquet"), OLD);
        cat.dataFile(1, "k.parquet", true);
        String[] base = {"--catalog", url(), "--metadata-schema", cat.schema, "--dry-run"};
        CliRun floor = CliRun.run(concat(new String[] {"delete-orphan-files", "--older-than", "10m", "--min-age", "5m"}, base));
        assertThat(floor.exitCode()).as(floor.toString()).isEqualTo(2);
        assertThat(floor.err()).contains("--min-age 5m is below the 24 h floor");
        CliRun warned = CliRun.run(concat(new String[] {"cleanup-old-files", "--older-than", "0s", "--min-age", "0s",
            "--allow-short-retention"}, base));
        assertThat(warned.exitCode()).as(warned.toString()).isIn(0, 12);
        assertThat(warned.err()).contains("--min-age 0s is below the 1 h floor");
        CliRun orphanWarned = CliRun.run(concat(new String[] {"delete-orphan-files", "--older-than", "90m", "--min-age", "1.5h",
            "--allow-short-retention"}, base));
        assertThat(orphanWarned.err()).as(orphanWarned.toString()).contains("--min-age 90m is below the 24 h floor");
        java.util.regex.Pattern iso = java.util.regex.Pattern.compile("\\bP(T[0-9]|[0-9]+[DW])");
        for (String command : List.of("delete-orphan-files", "cleanup-old-files")) {
            for (String[] args : List.of(new String[] {"--min-age", "0s"}, new String[] {"--min-age", "30m"},
                    new String[] {"--min-age", "90 minutes"}, new String[] {"--min-age", "1500ms"},
                    new String[] {"--min-age", "-1h", "--allow-short-retention"},
                    new String[] {"--older-than", "10m"}, new String[] {"--older-than", "2h", "--min-age", "1d"},
                    new String[] {"--older-than", "0s", "--min-age", "0s", "--allow-short-retention"},
                    new String[] {"--older-than", "5m", "--min-age", "10m", "--allow-short-retention"})) {
                CliRun r = CliRun.run(concat(concat(new String[] {command}, args), base));
                assertThat(iso.matcher(r.err()).find()).as(command + " " + String.join(" ", args) + ": " + r.err()).isFalse();
            }
        }
    }

    private static String[] concat(String[] a, String[] b) {
        return java.util.stream.Stream.concat(java.util.Arrays.stream(a), java.util.Arrays.stream(b)).toArray(String[]::new);
    }

    @Test
    void deleteOrphanFilesBrakeAndExecute() throws Exception {
        Path lake = dir.resolve("olake");
        FileCatalog cat = FileCatalog.create("cli_dof", lake.toString());
        FileCatalog.file(lake.resolve("main/test/k.parquet"), OLD);
        cat.dataFile(1, "k.parquet", true);
        Path stray = FileCatalog.file(lake.resolve("main/test/stray.parquet"), OLD);
        CliRun brake = CliRun.run("delete-orphan-files", "--catalog", url(), "--metadata-schema", cat.schema,
                "--max-orphan-ratio", "0.4");
        assertThat(brake.exitCode()).as(brake.toString()).isEqualTo(16);
        assertThat(brake.err()).contains("--max-orphan-ratio");
        assertThat(Files.exists(stray)).isTrue();
        CliRun root = CliRun.run("delete-orphan-files", "--catalog", url(), "--metadata-schema", cat.schema, "--data-path", "/",
                "--dry-run");
        assertThat(root.exitCode()).isEqualTo(14);
        CliRun run = CliRun.run("delete-orphan-files", "--catalog", url(), "--metadata-schema", cat.schema,
                "--output", "json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.json().get("files_deleted").asLong()).isEqualTo(1);
        assertThat(run.json().get("kept_known").asLong()).isEqualTo(1);
        assertThat(Files.exists(stray)).isFalse();
    }

    @Test
    void severalSchemasRunInTurnAndTheWorstExitCodeWins() throws Exception {
        Path lake1 = dir.resolve("m1");
        Path lake2 = dir.resolve("m2");
        FileCatalog one = FileCatalog.create("cli_multi1", lake1 + "/");
        FileCatalog two = FileCatalog.create("cli_multi2", lake2 + "/");
        Path a = FileCatalog.file(lake1.resolve("main/test/a.parquet"), OLD);
        one.queue("main/test/a.parquet", true, OLD);
        Path live = FileCatalog.file(lake2.resolve("main/test/live.parquet"), OLD);
        two.queue("main/test/live.parquet", true, OLD);
        two.dataFile(1, "live.parquet", true);
        CliRun run = CliRun.run("cleanup-old-files", "--catalog", url(), "--metadata-schema", one.schema, "--metadata-schema",
                two.schema, "--output", "json");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(12);
        assertThat(Files.exists(a)).isFalse();
        assertThat(Files.exists(live)).isTrue();
        assertThat(one.queueRows()).isZero();
        assertThat(two.queueRows()).isEqualTo(1);
    }

    @Test
    void helpExplainsEveryFlagWithDefaultAndUnit() {
        CliRun h = CliRun.run("delete-orphan-files", "--help");
        assertThat(h.out()).contains("--data-path", "--older-than", "--min-age", "--allow-short-retention", "24h", "--s3-region", "--s3-endpoint",
                "--s3-path-style", "--max-orphan-ratio", "Default: 0.5", "--allow-root-data-path", "default chain");
        CliRun c = CliRun.run("cleanup-old-files", "--help");
        assertThat(c.out()).contains("--dry-run", "--batch-size", "queue entries", "2 days", "--all-metadata-schemas");
    }
}
