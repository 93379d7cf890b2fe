package dev.ducklake.janitor.contract;

import dev.ducklake.janitor.cli.JanitorCommand;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.codegen.docgen.manpage.ManPageGenerator;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 24: the per-command flag reference in {@code docs/reference/} is generated from the picocli model by picocli's
 * own documentation generator ({@code picocli-codegen}'s {@link ManPageGenerator}, one AsciiDoc man page per command),
 * so it cannot drift from {@code --help}: this test regenerates every page in memory (a few milliseconds) and fails when
 * the committed copy differs, has a page too many or one too few. {@code docs/reference/README.md}, the index, is
 * generated with them.
 *
 * <p>After a deliberate change of a flag or command, regenerate with the help contracts:
 * {@code mvn -B -q -Dcontract.update=true -Dtest='OutputContractTest,HelpTextTest,FlagReferenceTest' test}, and commit
 * the regenerated pages with the change.
 */
class FlagReferenceTest {

    /** Where the committed pages live (relative to the project root, the tests' working directory). */
    static final Path DIR = Path.of("docs/reference");
    private static final boolean UPDATE = Boolean.getBoolean("contract.update");

    /**
     * The pages the generator writes for the current picocli model: file name ({@code <command>.adoc},
     * {@code ducklake-janitor.adoc} for the top level) to AsciiDoc text. picocli's {@code help} command has no page.
     */
    static Map<String, String> generate() {
        CommandLine root = new CommandLine(new JanitorCommand(Map.of()));
        Map<String, String> pages = new TreeMap<>();
        pages.put("ducklake-janitor.adoc", page(root.getCommandSpec()));
        StringBuilder index = new StringBuilder("# Flag reference\n\n"
                + "Generated from the picocli model by picocli's ManPageGenerator (`FlagReferenceTest` fails when a page is "
                + "stale; regenerate with `mvn -B -q -Dcontract.update=true -Dtest=FlagReferenceTest test`). Do not edit by "
                + "hand. The same text is `java -jar target/ducklake-janitor.jar <command> --help`.\n\n"
                + "| command | what it does |\n|---|---|\n"
                + "| [`ducklake-janitor`](ducklake-janitor.adoc) | the top level: global flags, the commands, exit codes |\n");
        for (Map.Entry<String, CommandLine> e : root.getSubcommands().entrySet()) {
            if (!e.getKey().equals("help")) {
                CommandLine.Model.CommandSpec spec = e.getValue().getCommandSpec();
                pages.put(e.getKey() + ".adoc", page(spec));
                String first = spec.usageMessage().description().length == 0 ? "" : spec.usageMessage().description()[0];
                int dot = first.indexOf(". ");
                index.append("| [`").append(e.getKey()).append("`](").append(e.getKey()).append(".adoc) | ")
                        .append((dot < 0 ? first : first.substring(0, dot + 1)).replace("|", "\\|").replace("<", "&lt;")).append(" |\n");
            }
        }
        pages.put("README.md", index.toString());
        return pages;
    }

    private static String page(CommandLine.Model.CommandSpec spec) {
        StringWriter sw = new StringWriter();
        try (PrintWriter pw = new PrintWriter(sw)) {
            ManPageGenerator.writeSingleManPage(pw, spec);
        }
        // one line ending whatever the platform, and no trailing blanks (the generator pads some lines)
        return sw.toString().replace("\r\n", "\n").replaceAll("(?m)[ \t]+$", "");
    }

    @Test
    void theCommittedFlagReferenceIsWhatThePicocliModelGenerates() throws IOException {
        Map<String, String> pages = generate();
        assertThat(pages).as("one page per command").containsKeys("ducklake-janitor.adoc", "maintain.adoc",
                "drop-orphan-inline-tables.adoc", "check.adoc", "serve.adoc");
        if (UPDATE) {
            Files.createDirectories(DIR);
            try (Stream<Path> old = Files.list(DIR)) {
                for (Path p : old.toList()) {
                    Files.delete(p);
                }
            }
            for (Map.Entry<String, String> e : pages.entrySet()) {
                Files.writeString(DIR.resolve(e.getKey()), e.getValue(), StandardCharsets.UTF_8);
            }
            return;
        }
        TreeSet<String> committed = new TreeSet<>();
        try (Stream<Path> files = Files.list(DIR)) {
            files.map(p -> p.getFileName().toString()).forEach(committed::add);
        }
        assertThat(committed).as("pages in %s (regenerate with -Dcontract.update=true -Dtest=FlagReferenceTest)", DIR)
                .isEqualTo(pages.keySet());
        List<String> stale = new ArrayList<>();
        for (Map.Entry<String, String> e : pages.entrySet()) {
            if (!Files.readString(DIR.resolve(e.getKey()), StandardCharsets.UTF_8).equals(e.getValue())) {
                stale.add(e.getKey());
            }
        }
        assertThat(stale).as("pages of %s that no longer match the picocli model: regenerate with -Dcontract.update=true "
                + "-Dtest=FlagReferenceTest and commit them", DIR).isEmpty();
    }
}
