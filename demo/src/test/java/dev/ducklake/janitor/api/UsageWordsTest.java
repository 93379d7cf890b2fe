package dev.ducklake.janitor.api;

import dev.ducklake.janitor.Durations;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Options whose range and words have one source in core, which the library and the CLI share: expire-snapshots' minimum
 * age ({@link Durations}: the library's {@code minAge(Duration)} and the CLI's {@code --min-age} refuse the same
 * durations with the same words and accept the same bounds) and the storage commands' delete concurrency.
 */
class UsageWordsTest {

    private final TestPostgres pg = TestPostgres.get();

    /** A fresh schema holding a catalog with one table. */
    private String catalog(String prefix) throws Exception {
        String s = pg.freshSchema(prefix);
        try (Connection c = pg.connect()) {
            new CatalogBuilder(c, s, FormatVersion.V1_0).create().createTable("t", 1);
        }
        return s;
    }

    @Test
    void theLibraryAndTheCliRefuseTheSameMinAgesWithTheSameWords() throws Exception {
        String s = catalog("min_age_words");
        Janitor lake = Janitor.on(pg.url(), s);
        Map<Duration, String> refused = new LinkedHashMap<>();
        refused.put(Duration.ofHours(-1), "-1h");
        refused.put(Duration.ofMinutes(-90), "-90m");
        refused.put(Durations.MAX.plusDays(1), "36501d");
        refused.put(Durations.MAX.plusMillis(1), "3153600000001ms");
        for (Map.Entry<Duration, String> e : refused.entrySet()) {
            JanitorException api = catchThrowableOfType(() -> lake.expireSnapshots().retainLast(1).minAge(e.getKey()).dryRun(true).execute(),
                    JanitorException.class);
            assertThat(api).as("library, %s", e.getKey()).isNotNull();
            assertThat(api.reason()).isEqualTo(Reason.USAGE);
            assertThat(api.getMessage()).startsWith("--min-age: '" + e.getValue() + "' is ");
            CliRun cli = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", s, "--retain-last", "1",
                    "--min-age=" + e.getValue(), "--dry-run");
            assertThat(cli.exitCode()).as(cli.err()).isEqualTo(2);
            assertThat(cli.err()).as("the CLI's words for %s", e.getValue()).contains(api.getMessage());
        }
        // the bounds are accepted by both
        for (Duration ok : new Duration[] {Duration.ZERO, Durations.MAX}) {
            assertThat(lake.expireSnapshots().retainLast(1).minAge(ok).dryRun(true).execute().dryRun()).isTrue();
            CliRun cli = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", s, "--retain-last", "1",
                    "--min-age=" + Durations.format(ok), "--dry-run");
            assertThat(cli.exitCode()).as(cli.err()).isZero();
        }
    }

    @Test
    void theLibraryAndTheCliRefuseTheSameDeleteConcurrencyWithTheSameWords() throws Exception {
        String s = catalog("concurrency_words");
        Janitor lake = Janitor.on(pg.url(), s);
        for (int n : new int[] {-1, 65}) {
            JanitorException api = catchThrowableOfType(() -> lake.cleanupOldFiles().deleteConcurrency(n).execute(), JanitorException.class);
            assertThat(api).as("library, %d", n).isNotNull();
            assertThat(api.getMessage()).isEqualTo("--delete-concurrency must be between 1 and 64, got " + n + ".");
            CliRun cli = CliRun.run("cleanup-old-files", "--catalog", pg.url(), "--metadata-schema", s, "--delete-concurrency=" + n);
            assertThat(cli.exitCode()).as(cli.err()).isEqualTo(2);
            assertThat(cli.err()).contains(api.getMessage());
        }
        // 0 is the library's "the store's default"; the flag does not take it, in the same words
        CliRun zero = CliRun.run("cleanup-old-files", "--catalog", pg.url(), "--metadata-schema", s, "--delete-concurrency=0");
        assertThat(zero.exitCode()).as(zero.err()).isEqualTo(2);
        assertThat(zero.err()).contains("--delete-concurrency must be between 1 and 64, got 0.");
    }
}
