package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.retry.RetryPolicy;
import dev.ducklake.janitor.testsupport.CliRun;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 25: the retry figures the help quotes come from the engine's constants ({@link HelpConstants}), not from a copy
 * (expire-snapshots' help said "retried up to 5 times" while the policy makes 5 attempts, 4 of them retries).
 */
class HelpConstantsTest {

    @Test
    void theRetryFiguresInTheHelpAreThePolicysAndNoVariableIsLeftUnresolved() {
        String attempts = RetryPolicy.DEFAULT.maxAttempts() + " attempts in all";
        String backoff = HelpConstants.duration(RetryPolicy.DEFAULT.backoff().firstMillis()) + " doubling to "
                + HelpConstants.duration(RetryPolicy.DEFAULT.backoff().maxMillis());
        for (String cmd : List.of("expire-snapshots", "purge-orphan-stats")) {
            String help = String.join(" ", CliRun.run(cmd, "--help").out().lines().map(String::strip).toList());
            assertThat(help).as(cmd).contains("a backoff of " + backoff + ", " + attempts).doesNotContain("up to 5 times");
        }
        List<String> commands = new ArrayList<>(List.of(""));
        commands.addAll(new picocli.CommandLine(new JanitorCommand(java.util.Map.of())).getSubcommands().keySet());
        for (String cmd : commands) {
            String help = cmd.isEmpty() ? CliRun.run("--help").out() : CliRun.run(cmd, "--help").out();
            assertThat(help).as(cmd).doesNotContain("${").doesNotContain("null attempts");
        }
    }

    @Test
    void durationsAreSpelledInTheirUnit() {
        assertThat(HelpConstants.duration(200)).isEqualTo("200 ms");
        assertThat(HelpConstants.duration(5_000)).isEqualTo("5 s");
        assertThat(HelpConstants.duration(1_500)).isEqualTo("1.5 s");
    }
}
