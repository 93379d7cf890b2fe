package dev.ducklake.janitor.ops;

import dev.ducklake.janitor.pg.SqlState;

import java.sql.SQLException;

/**
 * The one retry policy of every operation: what to do about a failed unit of work, by its SQLSTATE
 * ({@link SqlState#classify}). Used by the batch loop ({@link BatchLoop}) and the read-only path
 * ({@link QueryRunner}) alike: one backoff formula, one attempt limit.
 *
 * <ul>
 *   <li>connection lost (class 08, 57P01-03, 25P03): {@link Action#RECONNECT}, up to
 *       {@value #MAX_RECONNECTS_PER_UNIT} times per unit of work (the reconnect has its own backoff and
 *       timeout, {@link MaintenanceSession#reconnect()});</li>
 *   <li>lock table full (53200): {@link Action#HALVE} the batch, when the unit can be halved, up to
 *       {@value #MAX_ATTEMPTS} attempts; a unit that cannot be halved (a read-only query) fails;</li>
 *   <li>serialization failure, deadlock, lock or statement timeout, vanished table (40001, 40P01, 55P03, 57014,
 *       42P01): {@link Action#RETRY} after {@link #backoffMillis} up to {@value #MAX_ATTEMPTS} attempts;</li>
 *   <li>anything else, a missing privilege included: {@link Action#FAIL}.</li>
 * </ul>
 */
public final class RetryPolicy {

    /** Attempts of one unit of work (the first included) before it fails. */
    public static final int MAX_ATTEMPTS = 5;
    /** Reconnects within one unit of work before the run fails. */
    public static final int MAX_RECONNECTS_PER_UNIT = 10;
    /** First backoff, milliseconds; doubles per attempt. */
    public static final long FIRST_BACKOFF_MILLIS = 200;
    /** Longest backoff, milliseconds. */
    public static final long MAX_BACKOFF_MILLIS = 5_000;

    /** What to do. */
    public enum Action {
        /** Roll back, wait {@link Decision#backoffMillis()}, try the same unit again. */
        RETRY,
        /** Roll back, reopen the session (re-taking the advisory lock), try the same unit again. */
        RECONNECT,
        /** Roll back, halve the batch, try again. */
        HALVE,
        /** Roll back and fail the run with the failure's reason. */
        FAIL
    }

    /**
     * @param action what to do
     * @param kind the failure's classification
     * @param backoffMillis how long to wait before a {@link Action#RETRY}, milliseconds (0 otherwise)
     */
    public record Decision(Action action, SqlState.Kind kind, long backoffMillis) {
    }

    /** The policy (stateless; one shared instance). */
    public static final RetryPolicy DEFAULT = new RetryPolicy();

    private RetryPolicy() {
    }

    /**
     * Decides what to do about a failure of a unit of work.
     *
     * @param e the failure
     * @param attempt the attempt that failed, from 1 (reconnects do not count as attempts)
     * @param reconnects reconnects already made within this unit of work
     * @param canHalve whether the unit is a batch that can be halved
     * @return the decision
     */
    public Decision decide(SQLException e, int attempt, int reconnects, boolean canHalve) {
        return decide(SqlState.classify(e), attempt, reconnects, canHalve);
    }

    /**
     * Decides by classification (see {@link #decide(SQLException, int, int, boolean)}).
     *
     * @param kind the failure's classification
     * @param attempt the attempt that failed, from 1
     * @param reconnects reconnects already made within this unit of work
     * @param canHalve whether the unit is a batch that can be halved
     * @return the decision
     */
    public Decision decide(SqlState.Kind kind, int attempt, int reconnects, boolean canHalve) {
        return switch (kind) {
            case CONNECTION_LOST -> new Decision(reconnects < MAX_RECONNECTS_PER_UNIT ? Action.RECONNECT : Action.FAIL, kind, 0);
            case LOCK_TABLE_FULL -> new Decision(canHalve && attempt < MAX_ATTEMPTS ? Action.HALVE : Action.FAIL, kind, 0);
            case RETRYABLE -> attempt < MAX_ATTEMPTS ? new Decision(Action.RETRY, kind, backoffMillis(attempt))
                    : new Decision(Action.FAIL, kind, 0);
            default -> new Decision(Action.FAIL, kind, 0);
        };
    }

    /**
     * The backoff after a failed attempt: {@value #FIRST_BACKOFF_MILLIS} ms doubling per attempt, at most
     * {@value #MAX_BACKOFF_MILLIS} ms.
     *
     * @param attempt the attempt that failed, from 1
     * @return milliseconds
     */
    public static long backoffMillis(int attempt) {
        return Math.min(MAX_BACKOFF_MILLIS, FIRST_BACKOFF_MILLIS << Math.min(20, attempt - 1));
    }
}
