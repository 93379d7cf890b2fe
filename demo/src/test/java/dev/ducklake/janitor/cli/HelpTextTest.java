package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.testsupport.CliRun;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 10, messages: help texts wrap as paragraphs, numbers are echoed as typed. */
class HelpTextTest {

    /** The lines of the paragraph that starts with {@code first}, up to the next empty line. */
    private static List<String> paragraph(String text, String first) {
        List<String> lines = text.lines().toList();
        int i = 0;
        while (i < lines.size() && !lines.get(i).startsWith(first)) {
            i++;
        }
        assertThat(i).as("paragraph starting with %s", first).isLessThan(lines.size());
        int j = i;
        while (j < lines.size() && !lines.get(j).isBlank()) {
            j++;
        }
        return lines.subList(i, j);
    }

    private static void assertWrapsCleanly(List<String> para) {
        assertThat(para).allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(80));
        // a paragraph filled by the wrapper, not hard line breaks in the middle of sentences
        assertThat(para.subList(0, para.size() - 1)).allSatisfy(l -> assertThat(l.length()).as(l).isGreaterThan(60));
    }

    @Test
    void theTopLevelFooterIsOneCleanlyWrappedParagraphNamingEveryExitCode() {
        CliRun r = CliRun.run("--help");
        assertThat(r.exitCode()).isZero();
        List<String> footer = paragraph(r.out(), "Exit codes:");
        assertWrapsCleanly(footer);
        String text = String.join(" ", footer);
        assertThat(text).contains("6 unsafe catalog state").contains("12 done with findings").contains("13 storage error")
                .contains("14 to 18").contains("19 connection pooler").contains("143 / 130");
    }

    @Test
    void benchHelpTellsAnOperatorWhatItIsForAndWraps() {
        CliRun r = CliRun.run("bench", "--help");
        assertThat(r.exitCode()).isZero();
        List<String> intro = paragraph(r.out(), "Measures how drop-orphan-inline-tables scales");
        assertThat(String.join(" ", intro)).contains("never on your catalog").contains("--batch-size");
        assertThat(intro).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(80));
    }

    @Test
    void serveAndMetricsHelpDoNotSuggestARepeatableMetadataSchema() {
        for (String cmd : List.of("metrics", "serve")) {
            String help = CliRun.run(cmd, "--help").out();
            assertThat(help).as(cmd).contains("--metadata-schema").contains("--all-metadata-schemas")
                    .doesNotContain("accept it several times");
        }
        assertThat(CliRun.run("serve", "--help").out()).contains("--ready-policy");
    }

    @Test
    void numbersInErrorsAreEchoedAsTyped() {
        CliRun r = CliRun.run("serve", "--catalog", "postgresql://x@127.0.0.1:1/d", "--interval", "0");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("got 0.").doesNotContain("0.0");
        CliRun m = CliRun.run("metrics", "--catalog", "postgresql://x@127.0.0.1:1/d", "--statement-timeout", "100000");
        assertThat(m.exitCode()).isEqualTo(2);
        assertThat(m.err()).contains("got 100000.").doesNotContain("100000.0");
    }
}
