package dev.ducklake.janitor.retry;

import java.time.Duration;

/**
 * The one wait of every retry loop: a backoff that is not started when it would outlast the run budget and that
 * wakes on a stop request (looked at every {@value #STOP_POLL_MILLIS} ms), so that no loop sleeps through SIGTERM or
 * past {@code --run-budget}.
 */
public final class Pause {

    /** How often a wait looks at the stop request, milliseconds. */
    public static final long STOP_POLL_MILLIS = 50;

    private Pause() {
    }

    /**
     * Whether {@link #pause} would start a wait of {@code millis} now: no stop was requested and the budget (if any)
     * outlasts it.
     *
     * @param millis the backoff, milliseconds
     * @param bounds the run's budget and stop request
     * @return false when the wait would be refused up front
     */
    public static boolean wouldStart(long millis, Bounds bounds) {
        Duration left = bounds.remaining();
        return !bounds.stopRequested() && (left == null || left.toMillis() > millis);
    }

    /**
     * Waits {@code millis}, unless the bounds end it.
     *
     * @param millis the backoff, milliseconds
     * @param bounds the run's budget and stop request
     * @return true when the whole wait passed; false when it was not started (the budget would be spent by its end, or
     *     it already is, or a stop was requested) or was cut short by a stop request or an interrupt (the thread's
     *     interrupt flag is then set again)
     */
    public static boolean pause(long millis, Bounds bounds) {
        if (!wouldStart(millis, bounds)) {
            return false;
        }
        long until = System.nanoTime() + millis * 1_000_000;
        try {
            for (long now = System.nanoTime(); now - until < 0; now = System.nanoTime()) {
                if (bounds.stopRequested()) {
                    return false;
                }
                Thread.sleep(Math.max(1, Math.min(STOP_POLL_MILLIS, (until - now) / 1_000_000)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return true;
    }
}
