package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.pg.LockBudget;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The adaptive batch size: halve on 53200, grow back after 10 clean batches, never past the start. */
class BatchSizerTest {

    @Test
    void halvesDownToTheFloorAndNoFurther() {
        BatchSizer s = new BatchSizer(320);
        assertThat(s.halve(320)).isEqualTo(160);
        assertThat(s.halve(160)).isEqualTo(80);
        assertThat(s.halve(15)).as("not below the floor").isEqualTo(LockBudget.MIN_BATCH);
        assertThat(s.halve(LockBudget.MIN_BATCH)).as("at the floor it stays").isEqualTo(LockBudget.MIN_BATCH);
        assertThat(s.halve(3)).as("a short last batch is kept as is").isEqualTo(3);
    }

    @Test
    void growsAfterTenCleanBatchesUpToTheStartOnly() {
        BatchSizer s = new BatchSizer(300);
        s.halve(300);
        s.halve(150);
        assertThat(s.size()).isEqualTo(75);
        for (int i = 1; i < BatchSizer.CLEAN_BATCHES_TO_GROW; i++) {
            assertThat(s.committed(false)).as("clean batch %d", i).isEqualTo(-1);
        }
        assertThat(s.committed(false)).isEqualTo(150);
        for (int i = 0; i < BatchSizer.CLEAN_BATCHES_TO_GROW - 1; i++) {
            s.committed(false);
        }
        assertThat(s.committed(false)).as("capped at the start").isEqualTo(300);
        for (int i = 0; i < 3 * BatchSizer.CLEAN_BATCHES_TO_GROW; i++) {
            assertThat(s.committed(false)).isEqualTo(-1);
        }
        assertThat(s.size()).isEqualTo(300);
    }

    @Test
    void aBatchWithARetryRestartsTheStreak() {
        BatchSizer s = new BatchSizer(100);
        s.halve(100);
        for (int i = 0; i < BatchSizer.CLEAN_BATCHES_TO_GROW - 1; i++) {
            s.committed(false);
        }
        assertThat(s.committed(true)).isEqualTo(-1);
        for (int i = 0; i < BatchSizer.CLEAN_BATCHES_TO_GROW - 1; i++) {
            assertThat(s.committed(false)).isEqualTo(-1);
        }
        assertThat(s.committed(false)).isEqualTo(100);
    }
}
