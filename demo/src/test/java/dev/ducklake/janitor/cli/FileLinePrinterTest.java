package dev.ducklake.janitor.cli;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The re-trial of 2026-12-06 (stop 38): a path with a newline (a queue row or a folder name an attacker chose) was
 * printed raw in the storage commands' file event lines, forging a second line. One event is one line.
 */
class FileLinePrinterTest {

    @Test
    void oneEventIsOneLineWhateverThePathHolds() {
        StringWriter w = new StringWriter();
        StorageOptions.printer(new PrintWriter(w), false).file("deleted", "/lake/main/nl\ndeleted\t/other/lake/f.parquet", 7,
                null, "reason\nwith a newline");
        assertThat(w.toString().lines()).hasSize(1);
        assertThat(w.toString()).startsWith("deleted\t/lake/main/nl\\ndeleted\\t/other/lake/f.parquet\t7 B\t(reason\\nwith");

        StringWriter plain = new StringWriter();
        StorageOptions.printer(new PrintWriter(plain), false).file("kept", "/lake/main/t/a b.parquet", -1, null, null);
        assertThat(plain.toString()).isEqualTo("kept\t/lake/main/t/a b.parquet\t-" + System.lineSeparator());
    }

    /** The same for the summary's findings and the warnings on stderr (the re-trial forged lines through both). */
    @Test
    void aFindingOrAWarningIsOneLineToo() {
        StringWriter out = new StringWriter();
        StorageCommand.printFindings(new PrintWriter(out), java.util.List.of("kept (outside the data path): /x\nfailed\t/y"), 1);
        assertThat(out.toString().lines()).hasSize(1);
        StringWriter err = new StringWriter();
        new ProgressPrinter(new PrintWriter(new StringWriter()), new PrintWriter(err), false, true, true)
                .warn("1 queued files were not found (first: /tmp/zz\n  kept (a live data or delete file resolves to it): /x)");
        assertThat(err.toString().lines()).hasSize(1).allSatisfy(l -> assertThat(l).startsWith("WARN: "));
    }
}
