package dev.ducklake.janitor.retry;

/**
 * The one retry policy of every operation: what to do about a failed unit of work, by its {@link FailureKind}.
 * Used by the batch loop and the read-only path ({@code ops.runtime.BatchLoop}, {@code ops.runtime.QueryRunner}), the
 * storage commands' catalog transactions ({@code ops.files.CatalogRetry}: retried in the session only, never
 * reconnected), DuckLake's calls ({@code ops.compact.CompactTables}) and every store call ({@code storage.StorageRetry})
 * alike: one backoff, one
 * attempt limit; every wait goes through {@link Pause} (budget and stop), and the loops are one {@link RetryLoop}.
 *
 * <ul>
 *   <li>connection lost (PostgreSQL class 08, 57P01-03, 25P03): {@link Action#RECONNECT}, up to
 *       {@link #maxReconnectsPerUnit()} times per unit of work (the reconnect has its own backoff and timeout,
 *       {@code ops.MaintenanceSession#reconnect()});</li>
 *   <li>lock table full (53200): {@link Action#HALVE} the batch, when the unit can be halved, up to
 *       {@link #maxAttempts()} attempts; a unit that cannot be halved (a read-only query) fails;</li>
 *   <li>transient (serialization failure, deadlock, lock or statement timeout, vanished table: 40001, 40P01, 55P03,
 *       57014, 42P01; a DuckLake transaction conflict; a transient or throttled store call): {@link Action#RETRY} after
 *       {@link #backoff()} up to {@link #maxAttempts()} attempts;</li>
 *   <li>anything else, a missing privilege included: {@link Action#FAIL}.</li>
 * </ul>
 *
 * @param maxAttempts attempts of one unit of work (the first included) before it fails
 * @param maxReconnectsPerUnit reconnects within one unit of work before the run fails
 * @param backoff the wait before a {@link Action#RETRY}
 */
public record RetryPolicy(int maxAttempts, int maxReconnectsPerUnit, Backoff backoff) {

    /** Attempts of one unit of work of the default policy. */
    public static final int MAX_ATTEMPTS = 5;
    /** Reconnects within one unit of work of the default policy. */
    public static final int MAX_RECONNECTS_PER_UNIT = 10;
    /** First backoff of the default policy, milliseconds; doubles per attempt. */
    public static final long FIRST_BACKOFF_MILLIS = 200;
    /** Longest backoff of the default policy, milliseconds. */
    public static final long MAX_BACKOFF_MILLIS = 5_000;

    /** The policy every operation uses: {@value #MAX_ATTEMPTS} attempts, 200 ms doubling to 5 s, 10 reconnects. */
    public static final RetryPolicy DEFAULT = new RetryPolicy(MAX_ATTEMPTS, MAX_RECONNECTS_PER_UNIT,
            new Backoff(FIRST_BACKOFF_MILLIS, MAX_BACKOFF_MILLIS));

    /** Checks the values. */
    public RetryPolicy {
        if (maxAttempts < 1 || maxReconnectsPerUnit < 0 || backoff == null) {
            throw new IllegalArgumentException("a retry policy needs maxAttempts >= 1, maxReconnectsPerUnit >= 0 and a backoff");
        }
    }

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
    public record Decision(Action action, FailureKind kind, long backoffMillis) {
    }

    /**
     * Decides what to do about a failure of a unit of work.
     *
     * @param kind the failure's classification
     * @param attempt the attempt that failed, from 1 (reconnects do not count as attempts)
     * @param reconnects reconnects already made within this unit of work
     * @param canHalve whether the unit is a batch that can be halved
     * @return the decision
     */
    public Decision decide(FailureKind kind, int attempt, int reconnects, boolean canHalve) {
        return switch (kind) {
            case CONNECTION_LOST -> new Decision(reconnects < maxReconnectsPerUnit ? Action.RECONNECT : Action.FAIL, kind, 0);
            case LOCK_TABLE_FULL -> new Decision(canHalve && attempt < maxAttempts ? Action.HALVE : Action.FAIL, kind, 0);
            case RETRYABLE, THROTTLED -> attempt < maxAttempts ? new Decision(Action.RETRY, kind, backoff.millis(attempt))
                    : new Decision(Action.FAIL, kind, 0);
            default -> new Decision(Action.FAIL, kind, 0);
        };
    }

    /**
     * The default policy's backoff after a failed attempt: {@value #FIRST_BACKOFF_MILLIS} ms doubling per attempt, at
     * most {@value #MAX_BACKOFF_MILLIS} ms.
     *
     * @param attempt the attempt that failed, from 1
     * @return milliseconds
     */
    public static long backoffMillis(int attempt) {
        return DEFAULT.backoff().millis(attempt);
    }
}
