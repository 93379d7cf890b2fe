package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.JanitorException;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Base class of operations: the stop flag, the "finished" latch and the {@link #execute()} frame. Subclasses
 * implement {@link #run()} and poll {@link #stopRequested()} (the {@link MaintenanceRun} they open does it for
 * them in its batch loop, query runner and reconnect backoff).
 *
 * @param <R> the result record
 */
public abstract class StoppableOperation<R extends MaintenanceResult> implements MaintenanceOperation<R> {

    private final AtomicBoolean stop = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);

    @Override
    public final R execute() throws JanitorException {
        try {
            return run();
        } finally {
            finished.countDown();
        }
    }

    /**
     * The operation's work, called once by {@link #execute()}.
     *
     * @return the result
     * @throws JanitorException as documented on {@link MaintenanceOperation#execute()}
     */
    protected abstract R run() throws JanitorException;

    /** Sets the stop flag, then interrupts this operation's login to the catalog if one is in progress. */
    @Override
    public final void requestStop() {
        stop.set(true);
        // after the flag: a login that starts later sees it, one in progress is interrupted (MaintenanceSession logs in
        // with this flag as its stop condition)
        dev.ducklake.janitor.pg.ConnectionSpec.abortStoppedConnects();
    }

    /** @return the flag set by {@link #requestStop()}, to hand to the {@link MaintenanceRun} */
    protected final AtomicBoolean stopFlag() {
        return stop;
    }

    /** @return whether a stop was requested */
    protected final boolean stopRequested() {
        return stop.get();
    }

    @Override
    public final boolean awaitFinished(Duration timeout) {
        try {
            return finished.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
