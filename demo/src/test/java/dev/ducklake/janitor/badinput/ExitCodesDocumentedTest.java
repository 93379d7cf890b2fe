package dev.ducklake.janitor.badinput;

import dev.ducklake.janitor.JanitorException;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every failure reason has its own exit code, and the README's exit-code table lists exactly those (plus 0 and the codes
 * reserved for reasons being added on other branches).
 */
class ExitCodesDocumentedTest {

    /**
     * Exit codes reserved and documented ahead of their reasons (18: the near-match brake of delete-orphan-files, issue 21;
     * 19: connection pooler mode unsupported, issue 23). Once a reason carries the code this changes nothing; it never
     * lets a code outside this set go undocumented or be documented without a reason.
     */
    private static final Set<Integer> RESERVED = Set.of(18, 19);

    @Test
    void exitCodesAreDistinctAndDocumented() throws Exception {
        JanitorException.Reason[] reasons = JanitorException.Reason.values();
        Set<Integer> codes = Arrays.stream(reasons).map(JanitorException.Reason::exitCode).collect(Collectors.toCollection(TreeSet::new));
        assertThat(codes).as("one exit code per reason").hasSize(reasons.length).doesNotContain(0);
        for (JanitorException.Reason r : reasons) {
            assertThat(r.hint()).as("reason %s tells the operator what to do", r).isNotBlank();
        }
        String readme = Files.readString(Path.of("README.md"));
        Matcher heading = Pattern.compile("(?m)^#+ Exit codes$").matcher(readme);
        assertThat(heading.find()).as("the README has an exit-code section").isTrue();
        int start = heading.start();
        String section = readme.substring(start, readme.indexOf("\n#", start + 5));
        Matcher m = Pattern.compile("(?m)^\\| (\\d+) \\|").matcher(section);
        Set<Integer> documented = new TreeSet<>();
        while (m.find()) {
            documented.add(Integer.parseInt(m.group(1)));
        }
        Set<Integer> expected = new TreeSet<>(codes);
        expected.add(0);
        expected.addAll(RESERVED);
        assertThat(documented).as("the README table lists 0, every reason's code and the reserved ones").isEqualTo(expected);
    }

    /**
     * The README's list of document {@code status} values names every value a command's top-level document can carry
     * ({@code doc.put("status", ...)} in the cli sources, the whole statement).
     */
    @Test
    void documentStatusValuesAreListed() throws Exception {
        Set<String> emitted = new TreeSet<>();
        try (var files = Files.walk(Path.of("cli/src/main/java"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher put = Pattern.compile("doc\\.put\\(\"status\",([^;]*);").matcher(Files.readString(f));
                while (put.find()) {
                    Matcher value = Pattern.compile("\"([a-z_]+)\"").matcher(put.group(1));
                    while (value.find()) {
                        emitted.add(value.group(1));
                    }
                }
            }
        }
        assertThat(emitted).as("the scan finds the statuses").contains("ok", "error", "partial", "stopped");
        String readme = Files.readString(Path.of("README.md")).replaceAll("\\s+", " ");
        Matcher list = Pattern.compile("`status` that agrees with it: ([^.]*)\\.").matcher(readme);
        assertThat(list.find()).as("the README lists the status values").isTrue();
        for (String s : emitted) {
            assertThat(list.group(1)).as("README's status list names %s", s).contains("`" + s + "`");
        }
    }
}
