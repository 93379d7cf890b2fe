package dev.ducklake.janitor.contract;

import dev.ducklake.janitor.cli.JanitorCommand;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 24: the commands the README and the docs pages show can be run as written. In every code block, a line that
 * starts the jar ({@code java … -jar …/ducklake-janitor.jar COMMAND …}) names a command of the picocli model and only
 * flags that command has; no line calls a {@code ducklake-janitor} binary, which the build does not produce.
 *
 * <p>A flag that another change is adding may be shown before it exists when the page says so in an HTML comment
 * {@code <!-- pending: … -->} naming it; once the flag exists the comment is no longer needed.
 */
class DocumentedCommandsTest {

    private static final Pattern JAR = Pattern.compile("\\bjava\\b.*?-jar\\s+\\S*ducklake-janitor\\.jar(.*)");
    private static final Pattern FLAG = Pattern.compile("(?<![\\w-])(--[a-z][a-z0-9-]*)");
    private static final Pattern PENDING = Pattern.compile("<!--\\s*pending:(.*?)-->", Pattern.DOTALL);

    static List<Path> pages() throws Exception {
        List<Path> pages = new ArrayList<>(List.of(Path.of("README.md")));
        try (Stream<Path> docs = Files.list(Path.of("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The lines of the fenced code blocks of a Markdown text, with backslash continuations joined. */
    static List<String> codeLines(String markdown) {
        List<String> out = new ArrayList<>();
        boolean fence = false;
        StringBuilder pending = new StringBuilder();
        for (String line : markdown.split("\n", -1)) {
            if (line.startsWith("```")) {
                fence = !fence;
                continue;
            }
            if (!fence) {
                continue;
            }
            if (line.endsWith("\\")) {
                pending.append(line, 0, line.length() - 1).append(' ');
                continue;
            }
            out.add(pending + line);
            pending.setLength(0);
        }
        return out;
    }

    /** A shell line without its trailing comment ({@code # …} after a blank). */
    private static String withoutComment(String line) {
        int hash = line.indexOf(" #");
        return hash < 0 ? line : line.substring(0, hash);
    }

    @Test
    void everyDocumentedInvocationNamesARealCommandAndRealFlags() throws Exception {
        CommandLine root = new CommandLine(new JanitorCommand(Map.of()));
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            String text = Files.readString(page);
            Set<String> pendingFlags = new TreeSet<>();
            Matcher pm = PENDING.matcher(text);
            while (pm.find()) {
                Matcher f = FLAG.matcher(pm.group(1));
                while (f.find()) {
                    pendingFlags.add(f.group(1));
                }
            }
            for (String raw : codeLines(text)) {
                String line = withoutComment(raw).strip();
                if (line.startsWith("ducklake-janitor ") || line.contains("| ducklake-janitor ") || line.matches("^\\S+\\s+\\S+\\s+\\S+\\s+\\S+\\s+\\S+\\s+ducklake-janitor .*")) {
                    problems.add(page + ": calls a ducklake-janitor binary the build does not produce: " + raw);
                    continue;
                }
                Matcher m = JAR.matcher(line);
                if (!m.find()) {
                    continue;
                }
                String[] words = m.group(1).strip().split("\\s+");
                if (words.length == 0 || words[0].isEmpty() || words[0].startsWith("-")) {
                    continue; // the top level (--help, --version)
                }
                CommandLine sub = root.getSubcommands().get(words[0]);
                if (sub == null) {
                    problems.add(page + ": unknown command '" + words[0] + "' in: " + raw);
                    continue;
                }
                checked++;
                Matcher f = FLAG.matcher(m.group(1));
                while (f.find()) {
                    String flag = f.group(1);
                    if (sub.getCommandSpec().findOption(flag) == null && !pendingFlags.contains(flag)) {
                        problems.add(page + ": " + words[0] + " has no flag " + flag + " (nor a pending comment naming it): " + raw);
                    }
                }
            }
        }
        assertThat(checked).as("invocations checked").isGreaterThan(20);
        assertThat(problems).as("documented invocations that cannot run as written").isEmpty();
    }
}
