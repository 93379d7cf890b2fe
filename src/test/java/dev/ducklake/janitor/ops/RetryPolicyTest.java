package dev.ducklake.janitor.ops;

import dev.ducklake.janitor.ops.RetryPolicy.Action;
import dev.ducklake.janitor.pg.SqlState;
import org.junit.jupiter.api.Test;

import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/** The one retry policy: SQLSTATE to retry / reconnect / halve / fail, with one backoff and one attempt limit. */
class RetryPolicyTest {

    private static RetryPolicy.Decision decide(String state, int attempt, int reconnects, boolean canHalve) {
        return RetryPolicy.DEFAULT.decide(new SQLException("x", state), attempt, reconnects, canHalve);
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
        assertThat(d.kind()).isEqualTo(SqlState.Kind.PERMISSION_DENIED);
        assertThat(decide("42P07", 1, 0, true).action()).isEqualTo(Action.FAIL);
        assertThat(RetryPolicy.DEFAULT.decide(new SQLException("no state"), 1, 0, true).action()).isEqualTo(Action.FAIL);
    }

    @Test
    void theStateIsFoundOnTheCauseChain() {
        SQLException wrapped = new SQLException("outer", (String) null, new SQLException("inner", "40P01"));
        assertThat(RetryPolicy.DEFAULT.decide(wrapped, 1, 0, true).action()).isEqualTo(Action.RETRY);
        assertThat(SqlState.DEADLOCK_DETECTED.is(wrapped)).isTrue();
    }
}
