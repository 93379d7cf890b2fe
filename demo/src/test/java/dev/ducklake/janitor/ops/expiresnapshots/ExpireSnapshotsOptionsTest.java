package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Issue 25: expire-snapshots' options hold a {@link RunOptions} and check it with their own batch unit. */
class ExpireSnapshotsOptionsTest {

    @Test
    void theDefaultsDifferFromTheRunDefaultsOnlyInBatchSizeAndStatementTimeout() {
        ExpireSnapshotsOptions d = ExpireSnapshotsOptions.defaults();
        assertThat(d.run().batchSize()).isEqualTo(5_000);
        assertThat(d.run().statementTimeout()).as("the library's").isEqualTo(Duration.ofSeconds(300));
        assertThat(RunOptions.defaults().statementTimeout()).as("the CLI's and maintain's").isEqualTo(Duration.ofSeconds(120));
        assertThat(d.run().toBuilder().batchSize(RunOptions.DEFAULT_BATCH_SIZE)
                .statementTimeout(RunOptions.defaults().statementTimeout()).build()).isEqualTo(RunOptions.defaults());
        assertThat(d.minAge()).isEqualTo(Duration.ofHours(1));
        assertThat(d.hasCriterion()).isFalse();
    }

    @Test
    void aBatchCountsSnapshotsUpToAMillion() throws JanitorException {
        ExpireSnapshotsOptions.builder().batchSize(ExpireSnapshotsOptions.MAX_BATCH_SIZE).build().validate();
        assertThatThrownBy(() -> ExpireSnapshotsOptions.builder().batchSize(ExpireSnapshotsOptions.MAX_BATCH_SIZE + 1).build()
                .validate()).hasMessage("--batch-size must be between 1 and 1000000 snapshots, got 1000001.");
        assertThatThrownBy(() -> RunOptions.builder().batchSize(ExpireSnapshotsOptions.MAX_BATCH_SIZE).build().validate())
                .hasMessageContaining("tables, got 1000000.");
    }

    @Test
    void toBuilderKeepsEverythingAndVersionsAreCopied() {
        List<Long> ids = new java.util.ArrayList<>(List.of(3L, 4L));
        ExpireSnapshotsOptions o = ExpireSnapshotsOptions.builder().metadataSchema("lake").dryRun(true).versions(ids)
                .minAge(Duration.ZERO).lockName("x").build();
        ids.add(5L);
        assertThat(o.versions()).containsExactly(3L, 4L);
        assertThat(o.toBuilder().build()).isEqualTo(o);
        assertThat(o.toBuilder().retainLast(2).build().run()).isEqualTo(o.run());
    }
}
