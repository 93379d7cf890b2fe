package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.pg.LockBudget;

/**
 * The adaptive batch size: starts at the size the lock budget allows, is halved when the lock table is full
 * (53200, down to {@value LockBudget#MIN_BATCH}), and doubles back towards the start after
 * {@value #CLEAN_BATCHES_TO_GROW} batches in a row that committed without any retry.
 */
public final class BatchSizer {

    /** Clean batches in a row before the size grows again. */
    public static final int CLEAN_BATCHES_TO_GROW = 10;

    private final int start;
    private int size;
    private int cleanStreak;

    /** @param start the starting size and ceiling, units */
    public BatchSizer(int start) {
        this.start = start;
        this.size = start;
    }

    /** @return the size to use for the next attempt */
    public int size() {
        return size;
    }

    /** @return the starting size (the ceiling of growth) */
    public int start() {
        return start;
    }

    /**
     * The lock table was full with {@code attemptedSize} units: halve (not below {@value LockBudget#MIN_BATCH};
     * a batch already at or below it is kept as is).
     *
     * @param attemptedSize the size of the attempt that failed
     * @return the new size
     */
    public int halve(int attemptedSize) {
        size = attemptedSize > LockBudget.MIN_BATCH ? Math.max(LockBudget.MIN_BATCH, attemptedSize / 2) : attemptedSize;
        cleanStreak = 0;
        return size;
    }

    /**
     * A batch committed.
     *
     * @param hadRetry whether it needed a retry, a halving or a reconnect
     * @return the grown size when this batch made it grow, else -1
     */
    public int committed(boolean hadRetry) {
        if (hadRetry) {
            cleanStreak = 0;
            return -1;
        }
        cleanStreak++;
        if (cleanStreak >= CLEAN_BATCHES_TO_GROW && size < start) {
            size = Math.min(start, size * 2);
            cleanStreak = 0;
            return size;
        }
        return -1;
    }
}
