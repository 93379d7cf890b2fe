package dev.ducklake.janitor.interop;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario 6 at test size: ATTACH + first query before and after the janitor with a few hundred leaked
 * tables. Timings are printed, not asserted (too noisy at this size); what is asserted is that the
 * janitor removed the leaked relations DuckDB's ATTACH reflects, and that DuckLake reads the same data
 * afterwards. The 20,000-table figures come from {@link AttachCostBenchmark}.
 */
class AttachCostInteropTest {

    private InteropCatalog lake;

    @AfterEach
    void cleanup() {
        if (lake != null) {
            lake.deleteDataDir();
        }
    }

    @Test
    void attachBeforeAndAfterTheJanitor() throws Exception {
        lake = InteropCatalog.fresh("il_attach");
        int n = 400;
        AttachCost.Figures f = AttachCost.measure(lake, n, 3);
        System.out.println(f.report());
        assertThat(f.dropped()).isEqualTo(n);
        assertThat(f.relationsBefore() - f.relationsAfter()).as("leaked relations removed").isEqualTo(n);
        assertThat(lake.registry()).hasSize(1);
        assertThat(f.attachBefore()).isPositive();
        assertThat(f.attachAfter()).isPositive();
    }
}
