package dev.ducklake.janitor.interop;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ATTACH-cost benchmark (scenario 6) with many leaked tables. Not part of the normal test run (the
 * class name does not match Surefire's test patterns); run it explicitly:
 *
 * <pre>
 * mvn -B test -Dtest=AttachCostBenchmark -Dducklake.bench.n=20000
 * </pre>
 *
 * It prints ATTACH + first-query time before and after the janitor and their ratio, and writes the same
 * text to {@code target/attach-cost-benchmark.txt}.
 */
@Tag("benchmark")
class AttachCostBenchmark {

    @Test
    void attachCostBeforeAndAfterJanitor() throws Exception {
        int n = Integer.getInteger("ducklake.bench.n", 20_000);
        int repeats = Integer.getInteger("ducklake.bench.repeats", 5);
        InteropCatalog lake = InteropCatalog.fresh("il_bench");
        try {
            AttachCost.Figures f = AttachCost.measure(lake, n, repeats);
            String report = f.report();
            System.out.println(report);
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "attach-cost-benchmark.txt"), report + System.lineSeparator());
            assertThat(f.dropped()).isEqualTo(n);
        } finally {
            lake.deleteDataDir();
        }
    }
}
