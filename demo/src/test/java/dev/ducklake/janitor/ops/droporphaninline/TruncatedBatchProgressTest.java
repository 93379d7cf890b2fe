package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Found by trying it: with --run-budget spent inside the first batch (1 table dropped of a batch of 50), the progress
 * line said "2952 left" for 3002 orphans, as if the whole batch had been handled; the result said 3001 remaining.
 */
class TruncatedBatchProgressTest {

    private final TestPostgres pg = TestPostgres.get();

    @Test
    void progressOfABatchCutByTheBudgetCountsOnlyWhatItHandled() throws Exception {
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, pg.freshSchema("trunc_progress"), 300);
        }
        List<ProgressListener.BatchProgress> progress = new ArrayList<>();
        ProgressListener listener = new ProgressListener() {
            @Override
            public void batch(BatchProgress b) {
                progress.add(b);
            }
        };
        // a budget this small is spent before the first batch: one table goes through, then the batch is cut
        DropOrphanInlineTablesResult r = new DropOrphanInlineTables(pg.spec(), DropOrphanInlineTablesOptions.builder()
                .metadataSchema(cat.schema).batchSize(50).runBudget(Duration.ofNanos(1)).build(), listener).execute();
        assertThat(r.budgetExhausted()).isTrue();
        assertThat(r.dropped()).as("one table goes through").isEqualTo(1);
        assertThat(progress).hasSize(1);
        assertThat(progress.get(0).tablesLeft()).as("progress 'left' agrees with the result's remaining orphan rows")
                .isEqualTo(r.remaining());
    }
}
