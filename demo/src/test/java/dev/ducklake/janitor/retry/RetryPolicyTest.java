package dev.ducklake.janitor.retry;

import dev.ducklake.janitor.retry.RetryPolicy.Action;
import dev.ducklake.janitor.pg.SqlState;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/** The one retry policy: SQLSTATE to retry / reconnect / halve / fail, with one backoff and one attempt limit. */
class RetryPolicyTest {

    private static RetryPolicy.Decision decide(String state, int attempt, int reconnects, boolean canHalve) {
        return RetryPolicy.DEFAULT.decide(SqlState.classify(new SQLException("x", state)), attempt, reconnects, canHalve);
    }

    @Test
    void transientStatesAreRetriedWithDoublingBackoffUpToTheAttemptLimit() {
        for (SqlState s : new SqlState[] {SqlState.SERIALIZATION_FAILURE, SqlState.DEADLOCK_DETECTED,
            SqlState.LOCK_NOT_AVAILABLE, SqlState.QUERY_CANCELED, SqlState.UNDEFINED_TABLE}) {
            assertThat(decide(s.code(), 1, 0, true).action()).as(s.name()).isEqualTo(Action.RETRY);
            assertThat(decide(s.code(), RetryPolicy.MAX_ATTEMPTS - 1, 0, false).action()).as(s.name()).isEqualTo(Action.RETRY);
            assertThat(decide(s.code(), RetryPolicy.MAX_ATTEMPTS, 0, true).action()).as(s.name() + " at the limit").isEqualTo(Action.FAIL);
        }
        assertThat(decide("40001", 1, 0, true).backoffMillis()).isEqualTo(200);
        assertThat(decide("40001", 2, 0, true).backoffMillis()).isEqualTo(400);
        assertThat(decide("40001", 4, 0, true).backoffMillis()).isEqualTo(1600);
        assertThat(RetryPolicy.backoffMillis(10)).as("capped").isEqualTo(RetryPolicy.MAX_BACKOFF_MILLIS);
        assertThat(RetryPolicy.backoffMillis(100)).as("no shift overflow").isEqualTo(RetryPolicy.MAX_BACKOFF_MILLIS);
    }

    @Test
    void lockTableFullHalvesABatchButFailsAQueryThatCannotBeHalved() {
        assertThat(decide("53200", 1, 0, true).action()).isEqualTo(Action.HALVE);
        assertThat(decide("53200", RetryPolicy.MAX_ATTEMPTS, 0, true).action()).isEqualTo(Action.FAIL);
        assertThat(decide("53200", 1, 0, false).action()).isEqualTo(Action.FAIL);
    }

    @Test
    void aLostConnectionReconnectsUpToTheReconnectLimitWhateverTheAttempt() {
        for (String s : new String[] {"08006", "08003", "57P01", "57P02", "57P03", "25P03"}) {
            assertThat(decide(s, RetryPolicy.MAX_ATTEMPTS, 0, false).action()).as(s).isEqualTo(Action.RECONNECT);
            assertThat(decide(s, 1, RetryPolicy.MAX_RECONNECTS_PER_UNIT - 1, true).action()).as(s).isEqualTo(Action.RECONNECT);
            assertThat(decide(s, 1, RetryPolicy.MAX_RECONNECTS_PER_UNIT, true).action()).as(s + " past the limit").isEqualTo(Action.FAIL);
        }
    }

    @Test
    void privilegeAndUnknownErrorsFailAtOnce() {
        RetryPolicy.Decision d = decide("42501", 1, 0, true);
        assertThat(d.action()).isEqualTo(Action.FAIL);
        assertThat(d.kind()).isEqualTo(FailureKind.PERMISSION_DENIED);
        assertThat(decide("42P07", 1, 0, true).action()).isEqualTo(Action.FAIL);
        assertThat(RetryPolicy.DEFAULT.decide(SqlState.classify(new SQLException("no state")), 1, 0, true).action()).isEqualTo(Action.FAIL);
    }

    @Test
    void theStateIsFoundOnTheCauseChain() {
        SQLException wrapped = new SQLException("outer", (String) null, new SQLException("inner", "40P01"));
        assertThat(RetryPolicy.DEFAULT.decide(SqlState.classify(wrapped), 1, 0, true).action()).isEqualTo(Action.RETRY);
        assertThat(SqlState.DEADLOCK_DETECTED.is(wrapped)).isTrue();
    }

    @Test
    void aThrottledCallIsRetriedLikeATransientOne() {
        assertThat(RetryPolicy.DEFAULT.decide(FailureKind.THROTTLED, 1, 0, false).action()).isEqualTo(Action.RETRY);
        assertThat(RetryPolicy.DEFAULT.decide(FailureKind.THROTTLED, RetryPolicy.MAX_ATTEMPTS, 0, false).action()).isEqualTo(Action.FAIL);
    }

    @Test
    void aConfiguredPolicyUsesItsOwnLimitsAndBackoff() {
        RetryPolicy p = new RetryPolicy(2, 0, new Backoff(10, 25));
        assertThat(p.decide(FailureKind.RETRYABLE, 1, 0, false).backoffMillis()).isEqualTo(10);
        assertThat(p.decide(FailureKind.RETRYABLE, 2, 0, false).action()).isEqualTo(Action.FAIL);
        assertThat(p.decide(FailureKind.CONNECTION_LOST, 1, 0, false).action()).as("no reconnects allowed").isEqualTo(Action.FAIL);
        assertThat(new Backoff(10, 25).millis(2)).isEqualTo(20);
        assertThat(new Backoff(10, 25).millis(3)).as("capped").isEqualTo(25);
        assertThat(new Backoff(10, 25).millis(1_000)).isEqualTo(25);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Backoff(0, 10)).isInstanceOf(IllegalArgumentException.class);
    }
}
