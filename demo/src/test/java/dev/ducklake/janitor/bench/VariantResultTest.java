package dev.ducklake.janitor.bench;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The flatness figures of the benchmark: medians of the first/last 5 full batches, partial batches ignored. */
class VariantResultTest {

    @Test
    void firstAndLastAreMediansOfFullBatchesOnly() {
        List<BatchTiming> batches = new ArrayList<>();
        double[] ms = {100, 300, 110, 90, 105, 500, 200, 210, 190, 205, 220, 5};
        for (int i = 0; i < ms.length; i++) {
            // the last batch is partial (3 tables of 500): it must not count as "last"
            batches.add(new BatchTiming(i + 1, i == ms.length - 1 ? 3 : 500, ms[i]));
        }
        VariantResult r = new VariantResult(5503, "a-janitor", 500, 500, 10.0, 5500, batches, 0, Double.NaN, 0, "ok");
        assertThat(r.firstBatchMs()).as("median of 100, 300, 110, 90, 105").isEqualTo(105.0);
        assertThat(r.lastBatchMs()).as("median of 200, 210, 190, 205, 220; the partial 5 ms batch ignored").isEqualTo(205.0);
        assertThat(r.flatness()).isCloseTo(205.0 / 105.0, within(1e-9));
        assertThat(r.tablesPerSecond()).isEqualTo(550.0);
    }

    @Test
    void noBatchesGiveNaNNotAnError() {
        VariantResult r = new VariantResult(10, "d-dry-run", 0, 0, 0.5, 13, List.of(), 0, Double.NaN, 0, "ok");
        assertThat(r.firstBatchMs()).isNaN();
        assertThat(r.flatness()).isNaN();
    }
}
