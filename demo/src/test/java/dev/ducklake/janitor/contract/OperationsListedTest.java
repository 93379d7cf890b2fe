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
 * the picocli model (the operations of the CLI's one list, then the other commands) has a row in the README's command
 * table, and every step of the {@code maintain} registry is named in the shipped ConfigMap
 * ({@code deploy/kubernetes/configmap.yaml}), in {@code maintain}'s description and the README's example chain (in the
 * chain's order), and has a row in the step option table of docs/operating.md that names each of its options.
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
        assertThat(commands.subList(0, MaintainStepsAccess.operations().size())).as("the operations first, in the list's order")
                .containsExactlyElementsOf(MaintainStepsAccess.operations());
        assertThat(readmeTableCommands()).as("the README's command table").containsAll(commands);
    }

    /** The names in the first parenthesis after {@code prefix} in {@code text}, split at commas. */
    private static List<String> listAfter(String text, String prefix) {
        Matcher m = Pattern.compile(Pattern.quote(prefix) + "\\s*\\(([^)]*)\\)").matcher(text);
        assertThat(m.find()).as("'%s (…)' in the text", prefix).isTrue();
        return List.of(m.group(1).trim().split(",\\s*"));
    }

    @Test
    void maintainsDescriptionAndTheReadmeExampleNameTheChainInItsOrder() throws Exception {
        List<String> steps = new ArrayList<>(MaintainStepsAccess.registry().keySet());
        CommandLine maintain = new CommandLine(new JanitorCommand(Map.of())).getSubcommands().get("maintain");
        String description = String.join(" ", maintain.getCommandSpec().usageMessage().description());
        assertThat(listAfter(description, "Runs a chain of maintenance steps")).as("maintain --help").containsExactlyElementsOf(steps);
        String readme = Files.readString(Path.of("README.md"));
        String chain = readme.substring(readme.indexOf("\nmaintain:"), readme.indexOf("```", readme.indexOf("\nmaintain:")));
        Matcher step = Pattern.compile("(?m)^\\s+-\\s+([a-z-]+):").matcher(chain);
        List<String> example = new ArrayList<>();
        while (step.find()) {
            example.add(step.group(1));
        }
        assertThat(example).as("the README's example chain").containsExactlyElementsOf(steps);
    }

    @Test
    void everyMaintainStepIsInTheShippedConfigAndItsPage() throws Exception {
        String configMap = Files.readString(Path.of("deploy/kubernetes/configmap.yaml"));
        String page = Files.readString(Path.of("docs/operating.md"));
        List<String> steps = new ArrayList<>(MaintainStepsAccess.registry().keySet());
        assertThat(steps).as("the maintain registry").contains("expire-snapshots", "check");
        String previousRow = "";
        for (String step : steps) {
            assertThat(configMap).as("the shipped ConfigMap names step %s", step).containsPattern("-\\s+" + Pattern.quote(step) + ":");
            assertThat(page).as("docs/operating.md has a step option row for %s", step).contains("| `" + step + "` |");
            String row = page.lines().filter(l -> l.startsWith("| `" + step + "` |")).findFirst().orElseThrow();
            // "the same, plus …": the row above and this one
            String documented = row.contains("the same, plus") ? previousRow + row : row;
            for (String option : MaintainStepsAccess.registry().get(step).options().keySet()) {
                assertThat(documented).as("docs/operating.md's row of %s names its option %s", step, option).contains("`" + option + "`");
            }
            previousRow = documented;
        }
    }
}
