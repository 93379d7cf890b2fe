package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.JanitorException;

import java.time.Duration;

/**
 * The contract of every maintenance operation: options in (given to the constructor), one {@link #execute()}
 * that returns a result record, and a cooperative stop for SIGTERM/SIGINT. Implementations extend
 * {@link StoppableOperation}, which provides the stop and wait; see {@code package-info} for how a new operation
 * plugs into the runtime.
 *
 * @param <R> the result record; carries the generic {@link RunFigures}
 */
public interface MaintenanceOperation<R extends MaintenanceResult> {

    /**
     * Runs the operation once. Not reentrant: one instance per run.
     *
     * @return what the run found and did
     * @throws JanitorException with the {@link JanitorException.Reason} of the failure; whatever committed before
     *     a failure is consistent
     */
    R execute() throws JanitorException;

    /**
     * Asks a running {@link #execute()} to stop at its next safe point (the unit of work in flight commits).
     * Safe to call from any thread, e.g. a shutdown hook; a no-op once finished. A stop that comes while the
     * operation is still logging in to the catalog ends the login at once: {@link #execute()} then throws a
     * {@link JanitorException.Reason#CONNECTION} error that
     * {@link dev.ducklake.janitor.pg.ConnectionSpec#loginStopped} recognises (nothing was done).
     */
    void requestStop();

    /**
     * Waits until a running {@link #execute()} has returned or thrown.
     *
     * @param timeout the longest wait
     * @return true when it finished within the timeout
     */
    boolean awaitFinished(Duration timeout);
}
