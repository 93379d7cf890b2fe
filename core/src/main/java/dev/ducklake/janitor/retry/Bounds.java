package dev.ducklake.janitor.retry;

import java.time.Duration;

/**
 * What bounds a retry loop beyond its attempts: the time left of the run's budget and the run's stop request
 * (SIGTERM/SIGINT). The run's clock ({@code ops.RunBudget}) and a store's call bounds ({@code storage.CallBounds})
 * are bounds; {@link Pause} waits within them.
 */
public interface Bounds {

    /** No budget, never stopped. */
    Bounds NONE = new Bounds() {
        @Override
        public Duration remaining() {
            return null;
        }

        @Override
        public boolean stopRequested() {
            return false;
        }
    };

    /**
     * Bounds with no budget, only a stop request (a wait bounded by its own deadline, such as a reconnect's).
     *
     * @param stop whether the run was asked to stop
     * @return the bounds
     */
    static Bounds stopOnly(java.util.function.BooleanSupplier stop) {
        return new Bounds() {
            @Override
            public Duration remaining() {
                return null;
            }

            @Override
            public boolean stopRequested() {
                return stop.getAsBoolean();
            }
        };
    }

    /** @return the time left of the run budget (zero or negative once spent), or null for no budget */
    Duration remaining();

    /** @return whether the run was asked to stop */
    boolean stopRequested();

    /** @return whether no further attempt may start: a stop was requested or the budget is spent */
    default boolean exhausted() {
        Duration r = remaining();
        return stopRequested() || r != null && (r.isNegative() || r.isZero());
    }
}
