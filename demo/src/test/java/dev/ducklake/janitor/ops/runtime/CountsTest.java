package dev.ducklake.janitor.ops.runtime;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Issue 25: enum-keyed counters add a batch's counts to a run's in one call. */
class CountsTest {

    @Test
    void addAllAddsEveryCountOfTheOther() {
        Counts<TimeUnit> run = Counts.of(TimeUnit.class).add(TimeUnit.SECONDS, 5);
        Counts<TimeUnit> batch = Counts.of(TimeUnit.class).increment(TimeUnit.SECONDS).add(TimeUnit.DAYS, 3);
        run.addAll(batch);
        assertThat(run.get(TimeUnit.SECONDS)).as("added to what was there").isEqualTo(6);
        assertThat(run.get(TimeUnit.DAYS)).as("taken over").isEqualTo(3);
        assertThat(run.get(TimeUnit.HOURS)).as("untouched counts stay zero").isZero();
        assertThat(batch.get(TimeUnit.SECONDS)).as("the other is not changed").isEqualTo(1);
        assertThat(run.toString()).contains("SECONDS=6", "DAYS=3", "HOURS=0");
    }

    @Test
    void countsOfAnotherEnumAreRefused() {
        @SuppressWarnings({"unchecked", "rawtypes"})
        Counts<TimeUnit> other = (Counts) Counts.of(Thread.State.class);
        assertThatThrownBy(() -> Counts.of(TimeUnit.class).addAll(other)).isInstanceOf(IllegalArgumentException.class);
    }
}
