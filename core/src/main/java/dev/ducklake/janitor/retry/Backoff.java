package dev.ducklake.janitor.retry;

/**
 * An exponential backoff: {@code firstMillis} after the first failed attempt, doubling per attempt, at most
 * {@code maxMillis}.
 *
 * @param firstMillis the wait after the first failed attempt, milliseconds (at least 1)
 * @param maxMillis the longest wait, milliseconds (at least {@code firstMillis})
 */
public record Backoff(long firstMillis, long maxMillis) {

    /** Checks the values. */
    public Backoff {
        if (firstMillis < 1 || maxMillis < firstMillis) {
            throw new IllegalArgumentException("a backoff needs 1 <= firstMillis <= maxMillis, got " + firstMillis + ", " + maxMillis);
        }
    }

    /**
     * @param attempt the attempt that failed, from 1
     * @return the wait before the next attempt, milliseconds
     */
    public long millis(int attempt) {
        int doublings = Math.max(0, Math.min(40, attempt - 1));
        long m = firstMillis;
        for (int i = 0; i < doublings && m < maxMillis; i++) {
            m <<= 1;
        }
        return Math.min(maxMillis, m);
    }
}
