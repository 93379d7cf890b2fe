package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.testsupport.CliRun;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 24 "one syntax for durations" and issue 28 item 16 on the command line: every duration flag takes the one
 * grammar, and a duration out of range is a usage error (exit 2) in the grammar, never exit 1. A flag that parses lets
 * the run go on to connect (here to a closed port: exit 3), which is how acceptance is told from refusal.
 */
class DurationSyntaxTest {

    private static final String NOWHERE = "postgresql://janitor@127.0.0.1:1/lake?connect_timeout=2";

    private static CliRun run(String... args) {
        return CliRun.run(Map.of(), args);
    }

    @Test
    void expireSnapshotsTakesEveryDurationSpelling() {
        for (String d : List.of("1w", "P7D", "7 days", "36h", "2w", "PT12H")) {
            CliRun r = run("expire-snapshots", "--catalog", NOWHERE, "--older-than", d, "--dry-run");
            assertThat(r.exitCode()).as("--older-than %s: %s", d, r.err()).isEqualTo(3);
            CliRun m = run("expire-snapshots", "--catalog", NOWHERE, "--older-than", "30d", "--min-age", d, "--dry-run");
            assertThat(m.exitCode()).as("--min-age %s: %s", d, m.err()).isEqualTo(3);
        }
    }

    @Test
    void runBudgetTakesADurationOnTheCommandLine() {
        for (String d : List.of("40m", "2h", "PT1H", "90 minutes", "900", "inf")) {
            CliRun r = run("drop-orphan-inline-tables", "--catalog", NOWHERE, "--run-budget", d, "--dry-run");
            assertThat(r.exitCode()).as("--run-budget %s: %s", d, r.err()).isEqualTo(3);
        }
        CliRun bad = run("drop-orphan-inline-tables", "--catalog", NOWHERE, "--run-budget", "40x", "--dry-run");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("'40x' is not a duration").contains("40m");
        CliRun zero = run("drop-orphan-inline-tables", "--catalog", NOWHERE, "--run-budget", "0s", "--dry-run");
        assertThat(zero.exitCode()).isEqualTo(2);
    }

    @Test
    void hugeDurationsAreUsageErrorsNamingTheLimit() {
        List<String[]> cases = List.of(
                new String[] {"expire-snapshots", "--older-than", "9999999999999d"},
                new String[] {"expire-snapshots", "--older-than", "1w", "--min-age", "9999999999999d"},
                new String[] {"cleanup-old-files", "--older-than", "9999999999999d"},
                new String[] {"delete-orphan-files", "--min-age", "9999999999999d"},
                new String[] {"delete-orphan-files", "--older-than", "9999999999999w"},
                new String[] {"drop-orphan-inline-tables", "--run-budget", "9999999999999d"},
                new String[] {"drop-orphan-inline-tables", "--run-budget", "99999999999999"});
        for (String[] c : cases) {
            for (String[] mode : List.of(new String[] {}, new String[] {"--output", "json"})) {
                List<String> args = new java.util.ArrayList<>(List.of(c[0], "--catalog", NOWHERE, "--dry-run"));
                args.addAll(List.of(c).subList(1, c.length));
                args.addAll(List.of(mode));
                CliRun r = run(args.toArray(String[]::new));
                assertThat(r.exitCode()).as("%s: %s", args, r.err()).isEqualTo(2);
                assertThat(r.err()).as(String.join(" ", args)).contains("longer than").contains("100 years")
                        .doesNotContain("This is a bug");
            }
        }
    }

    @Test
    void errorsQuoteWhatTheOperatorWroteNeverIso() {
        CliRun r = run("delete-orphan-files", "--catalog", NOWHERE, "--min-age", "1 fortnight", "--dry-run");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("'1 fortnight'").doesNotContain("'PT");
        CliRun e = run("expire-snapshots", "--catalog", NOWHERE, "--older-than", "7 fortnights", "--dry-run");
        assertThat(e.exitCode()).isEqualTo(2);
        assertThat(e.err()).contains("'7 fortnights'").contains("7 days").doesNotContain("'PT");
    }
}
