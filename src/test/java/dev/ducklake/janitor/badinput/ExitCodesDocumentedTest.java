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

/** Every failure reason has its own exit code, and the README's exit-code table lists exactly those (plus 0). */
class ExitCodesDocumentedTest {

    @Test
    void exitCodesAreDistinctAndDocumented() throws Exception {
        JanitorException.Reason[] reasons = JanitorException.Reason.values();
        Set<Integer> codes = Arrays.stream(reasons).map(JanitorException.Reason::exitCode).collect(Collectors.toCollection(TreeSet::new));
        assertThat(codes).as("one exit code per reason").hasSize(reasons.length).doesNotContain(0);
        for (JanitorException.Reason r : reasons) {
            assertThat(r.hint()).as("reason %s tells the operator what to do", r).isNotBlank();
        }
        String readme = Files.readString(Path.of("README.md"));
        int start = readme.indexOf("### Exit codes");
        assertThat(start).as("the README has an exit-code section").isPositive();
        String section = readme.substring(start, readme.indexOf("\n#", start + 5));
        Matcher m = Pattern.compile("(?m)^\\| (\\d+) \\|").matcher(section);
        Set<Integer> documented = new TreeSet<>();
        while (m.find()) {
            documented.add(Integer.parseInt(m.group(1)));
        }
        Set<Integer> expected = new TreeSet<>(codes);
        expected.add(0);
        assertThat(documented).as("the README table lists 0 and every reason's code").isEqualTo(expected);
    }
}
