package dev.ducklake.janitor.ops.runtime;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The run's clock: when it started, its --run-budget deadline, and the stop flag. Checked by the batch loop
 * between batches, by the operation's batch work between units, and by retry backoffs.
 */
public final class RunBudget implements dev.ducklake.janitor.retry.Bounds {

    private final long started;
    private final Long deadline;
    private final AtomicBoolean stop;

    /**
     * @param budget the run budget, or null for none
     * @param stop the stop flag ({@link MaintenanceOperation#requestStop()})
     */
    public RunBudget(Duration budget, AtomicBoolean stop) {
        this.started = System.nanoTime();
        this.deadline = budget == null ? null : started + budget.toNanos();
        this.stop = stop;
    }

    /** @return whether a run budget is set */
    public boolean bounded() {
        return deadline != null;
    }

    /** @return whether the run budget is spent */
    public boolean pastDeadline() {
        return deadline != null && System.nanoTime() - deadline >= 0;
    }

    /** @return the time left of the run budget (negative once spent), or null for none */
    @Override
    public Duration remaining() {
        return deadline == null ? null : Duration.ofNanos(deadline - System.nanoTime());
    }

    /** @return whether a stop was requested */
    @Override
    public boolean stopRequested() {
        return stop.get();
    }

    /** @return whether the work should stop at the next safe point (budget spent or stop requested) */
    public boolean shouldStop() {
        return pastDeadline() || stopRequested();
    }

    /**
     * @param millis a wait about to start, milliseconds
     * @return whether the run budget would be spent by the end of it
     */
    public boolean wouldPassDeadlineAfter(long millis) {
        return deadline != null && System.nanoTime() + millis * 1_000_000 - deadline >= 0;
    }

    /** @return seconds since the run started */
    public double elapsedSeconds() {
        return (System.nanoTime() - started) / 1e9;
    }
}
