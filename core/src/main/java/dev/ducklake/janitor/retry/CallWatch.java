package dev.ducklake.janitor.retry;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Watches the {@link Bounds} while a call that cannot look at them itself runs on the caller's thread (a DuckDB
 * statement inside native code): every {@value Pause#STOP_POLL_MILLIS} ms, as {@link Pause} looks, and once they are
 * {@link Bounds#exhausted() exhausted} (a stop request, the run budget spent) it runs the cancel action, once. The
 * call itself then ends on the caller's thread the way the callee ends a cancelled call (DuckDB: an "Interrupted"
 * error after rolling its transaction back), so nothing is abandoned half-way.
 *
 * <pre>
 *     try (CallWatch w = CallWatch.start(bounds, statement::cancel)) {
 *         statement.execute(sql);
 *     } // w.fired(): whether the cancel was sent
 * </pre>
 *
 * {@link #close()} waits for a cancel being sent at that moment, so that no cancel reaches a later call.
 */
public final class CallWatch implements AutoCloseable {

    /** The cancel action: may throw (a cancel that fails leaves the call to run to its end). */
    @FunctionalInterface
    public interface Cancel {
        void cancel() throws Exception;
    }

    /** One daemon thread for every watch of the process (each check is a few comparisons). */
    private static final ScheduledExecutorService WATCHER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "ducklake-janitor-call-watch");
        t.setDaemon(true);
        return t;
    });

    private final Bounds bounds;
    private final Cancel cancel;
    private final Object lock = new Object();
    private boolean closed;
    private boolean fired;
    private ScheduledFuture<?> task;

    private CallWatch(Bounds bounds, Cancel cancel) {
        this.bounds = bounds;
        this.cancel = cancel;
    }

    /**
     * Starts watching.
     *
     * @param bounds the run's budget and stop request
     * @param cancel what ends the call in flight (called at most once, on the watch thread)
     * @return the watch; close it when the call has returned
     */
    public static CallWatch start(Bounds bounds, Cancel cancel) {
        CallWatch w = new CallWatch(bounds, cancel);
        w.task = WATCHER.scheduleWithFixedDelay(w::check, Pause.STOP_POLL_MILLIS, Pause.STOP_POLL_MILLIS, TimeUnit.MILLISECONDS);
        return w;
    }

    private void check() {
        synchronized (lock) {
            if (closed || fired || !bounds.exhausted()) {
                return;
            }
            fired = true;
            try {
                cancel.cancel();
            } catch (Exception ignored) {
                // the call runs to its end; the caller sees that it was not cut short
            }
        }
    }

    /** @return whether the cancel action was run (the call may still have completed before it reached it) */
    public boolean fired() {
        synchronized (lock) {
            return fired;
        }
    }

    /** Stops watching; returns after a cancel being sent has been sent. */
    @Override
    public void close() {
        task.cancel(false);
        synchronized (lock) {
            closed = true;
        }
    }
}
