package dev.ducklake.janitor.contract;

import dev.ducklake.janitor.cli.JanitorCommand;
import dev.ducklake.janitor.cli.MaintainStepsAccess;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 25: an operation added to the code cannot be forgotten in the places an operator reads. Every subcommand of
 * the picocli model has a row in the README's command table, and every step of the {@code maintain} registry is
 * named in the shipped ConfigMap ({@code deploy/kubernetes/configmap.yaml}) and has a row in the step option table of
 * docs/operating.md.
 */
class OperationsListedTest {

    /** The first cell of a README table row: one or more {@code `command`} names separated by commas. */
    private static final Pattern ROW = Pattern.compile("^\\|\\s*((?:`[a-z-]+`(?:,\\s*)?)+)\\s*\\|", Pattern.MULTILINE);

    private static List<String> readmeTableCommands() throws Exception {
        List<String> names = new ArrayList<>();
        Matcher m = ROW.matcher(Files.readString(Path.of("README.md")));
        while (m.find()) {
            Matcher name = Pattern.compile("`([a-z-]+)`").matcher(m.group(1));
            while (name.find()) {
                names.add(name.group(1));
            }
        }
        return names;
    }

    @Test
    void everyCommandHasAReadmeRow() throws Exception {
        List<String> commands = new ArrayList<>(new CommandLine(new JanitorCommand(Map.of())).getSubcommands().keySet());
        commands.remove("help");
        assertThat(commands).as("the picocli model").contains("maintain", "check");
        assertThat(readmeTableCommands()).as("the README's command table").containsAll(commands);
    }

    @Test
    void everyMaintainStepIsInTheShippedConfigAndItsPage() throws Exception {
        String configMap = Files.readString(Path.of("deploy/kubernetes/configmap.yaml"));
        String page = Files.readString(Path.of("docs/operating.md"));
        List<String> steps = new ArrayList<>(MaintainStepsAccess.registry().keySet());
        assertThat(steps).as("the maintain registry").contains("expire-snapshots", "check");
        for (String step : steps) {
            assertThat(configMap).as("the shipped ConfigMap names step %s", step).containsPattern("-\\s+" + Pattern.quote(step) + ":");
            assertThat(page).as("docs/operating.md has a step option row for %s", step).contains("| `" + step + "` |");
        }
    }
}
