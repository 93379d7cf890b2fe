package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.testsupport.CliRun;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 10: an unknown command, even followed by --help, is a usage error naming it and the closest command. */
class UnknownCommandTest {

    @Test
    void unknownCommandFollowedByHelpSaysSoSuggestsTheClosestAndExits2() {
        CliRun run = CliRun.run("drop-orphan-inline-tabels", "--help");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("unknown command 'drop-orphan-inline-tabels'")
                .contains("did you mean 'drop-orphan-inline-tables'?");
        assertThat(run.out()).as("no top-level help on stdout as if all were well").isEmpty();
    }

    @Test
    void unknownCommandWithoutHelpIsAlsoExit2() {
        CliRun run = CliRun.run("metrix", "--catalog", "x");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("unknown command 'metrix'").contains("did you mean 'metrics'?");
    }

    @Test
    void closestCommandIsOnlySuggestedWhenClose() {
        List<String> commands = List.of("drop-orphan-inline-tables", "metrics", "serve", "demo", "bench", "maintain");
        assertThat(Main.closestCommand("maintian", commands)).isEqualTo("maintain");
        assertThat(Main.closestCommand("serv", commands)).isEqualTo("serve");
        assertThat(Main.closestCommand("completely-different", commands)).isNull();
        assertThat(CliRun.run("help").exitCode()).as("the help command still works").isZero();
        assertThat(CliRun.run("--help").exitCode()).isZero();
    }
}
