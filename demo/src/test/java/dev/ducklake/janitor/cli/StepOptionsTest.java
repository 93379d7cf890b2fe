package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.maintain.OptionKind;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Issue 25: a maintain step's options are read from its command's picocli model, by rule. */
class StepOptionsTest {

    @StepOptions.CliOnly
    static final class Where {
        @Option(names = "--host")
        String host;
    }

    @Command(name = "toy")
    static final class Toy {
        @Mixin
        Where where;

        @Option(names = "--fast")
        boolean fast;

        @Option(names = "--limit")
        Long limit;

        @Option(names = "--share")
        double share;

        @Option(names = "--path")
        java.nio.file.Path path;

        @Option(names = "--ids", split = ",")
        List<Long> ids;

        @StepOptions.Kind(OptionKind.DURATION)
        @Option(names = "--wait")
        double waitSeconds;

        @StepOptions.CliOnly
        @Option(names = "--interactive")
        boolean interactive;

        @Option(names = "--run-budget")
        String runBudget;
    }

    @Command(name = "odd")
    static final class Odd {
        @Option(names = "--when")
        Duration when;
    }

    @Test
    void kindsFollowTheTypeOrTheMarkAndCliOnlyFlagsAndCommonOptionsAreLeftOut() {
        Map<String, OptionKind> options = StepOptions.of(new CommandLine(new Toy()).getCommandSpec());
        assertThat(options).as("--host (a CliOnly mixin), --interactive (CliOnly), --run-budget (common to every step) left out")
                .containsExactlyInAnyOrderEntriesOf(Map.of("fast", OptionKind.BOOLEAN, "limit", OptionKind.POSITIVE_INT,
                        "share", OptionKind.RATIO, "path", OptionKind.TEXT, "ids", OptionKind.ID_LIST,
                        "wait", OptionKind.DURATION));
    }

    @Test
    void aFlagOfATypeWithoutAKindFailsTheRegistryInsteadOfBeingDroppedSilently() {
        assertThatThrownBy(() -> StepOptions.of(new CommandLine(new Odd()).getCommandSpec()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("--when");
    }

    @Test
    void everyStepOfTheListIsInTheRegistryInTheChainOrder() {
        assertThat(MaintainStepsAccess.registry().keySet()).as("Operations.steps()")
                .containsExactlyElementsOf(Operations.steps().stream().map(Operations.Operation::name).toList());
        assertThat(MaintainStepsAccess.registry().get("check").options()).as("check's own step option")
                .containsEntry("fail-on", OptionKind.SEVERITY).doesNotContainKey("all-metadata-schemas");
    }
}
