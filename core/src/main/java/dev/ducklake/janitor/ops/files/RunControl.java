package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.ops.runtime.MaintenanceRun;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunBudget;
import dev.ducklake.janitor.ops.runtime.RunFigures;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.runtime.RunRecorder;
import dev.ducklake.janitor.ops.runtime.RunWatchdog;
import dev.ducklake.janitor.storage.CallBounds;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The runtime pieces a storage command's loop checks between batches: the shared {@link RunRecorder} (batches,
 * warnings, stop reason, figures) and the run's one clock, {@link RunBudget} (the stop flag of SIGTERM/SIGINT and
 * --run-budget, counted from the run's start), with --max-batches. It is also the {@link CallBounds} of the run's store
 * ({@link StorageOperation} binds it), so that every store call, its timeout and its retries end with the budget or on the
 * stop. The catalog connections the run opens besides its session (the consulted catalogs' other databases) are
 * registered with the run's {@link RunWatchdog} through it, so that a stop or the budget cancels their statements too.
 */
public final class RunControl implements CallBounds {

    private final RunRecorder recorder;
    private final RunBudget budget;
    private final int maxBatches;
    private final Duration statementTimeout;
    private final Duration lockTimeout;
    private final RunWatchdog watchdog;

    /**
     * @param recorder the run's recorder
     * @param budget the run's clock, deadline and stop flag ({@link dev.ducklake.janitor.ops.runtime.MaintenanceRun#budget()})
     * @param maxBatches --max-batches (0 = no limit)
     * @param statementTimeout --statement-timeout of each catalog transaction ({@link CatalogRetry}), zero = none,
     *     null = the session's
     * @param lockTimeout --lock-timeout of each catalog transaction, zero = none, null = the session's
     */
    public RunControl(RunRecorder recorder, RunBudget budget, int maxBatches, Duration statementTimeout, Duration lockTimeout) {
        this(recorder, budget, maxBatches, statementTimeout, lockTimeout, null);
    }

    private RunControl(RunRecorder recorder, RunBudget budget, int maxBatches, Duration statementTimeout, Duration lockTimeout,
                       RunWatchdog watchdog) {
        this.watchdog = watchdog;
        this.recorder = recorder;
        this.budget = budget;
        this.maxBatches = maxBatches;
        this.statementTimeout = statementTimeout;
        this.lockTimeout = lockTimeout;
    }

    /** @return the run's watchdog, or null for a direct engine call (no cancels) */
    RunWatchdog watchdog() {
        return watchdog;
    }

    /** @return the run options' bounds: --max-batches, and the statement and lock timeouts of each catalog transaction */
    public static RunControl of(RunRecorder recorder, RunBudget budget, RunOptions options) {
        return new RunControl(recorder, budget, options.maxBatches(), options.statementTimeout(), options.lockTimeout());
    }

    /**
     * The control of a run on the shared runtime: its recorder, its one clock, its watchdog and its options' bounds.
     *
     * @param run the open run
     * @return the control
     */
    public static RunControl of(MaintenanceRun run) {
        RunOptions options = run.options();
        return new RunControl(run.recorder(), run.budget(), options.maxBatches(), options.statementTimeout(),
                options.lockTimeout(), run.watchdog());
    }

    /**
     * Registers a connection of the run besides its session with the run's watchdog (none for a direct engine call).
     *
     * @param c the connection
     */
    public void watch(Connection c) {
        if (watchdog != null) {
            watchdog.watch(c);
        }
    }

    /**
     * Forgets a connection {@link #watch} registered, about to be closed.
     *
     * @param c the connection
     */
    public void forget(Connection c) {
        if (watchdog != null) {
            watchdog.forget(c);
        }
    }

    /**
     * @param e a catalog statement's failure
     * @return whether it is the statement the stop request or the spent budget cancelled ({@link RunWatchdog#cancelledBy}):
     *     the run stops by its bounds, the statement is not retried
     */
    public boolean cancelledByBounds(Throwable e) {
        return RunWatchdog.cancelledBy(this, e);
    }

    /** @return statement_timeout of each catalog transaction, or null for the session's */
    public Duration statementTimeout() {
        return statementTimeout;
    }

    /** @return lock_timeout of each catalog transaction, or null for the session's */
    public Duration lockTimeout() {
        return lockTimeout;
    }

    /**
     * A control for direct engine calls: no stop flag, the options' --max-batches, timeouts and --run-budget from now.
     *
     * @param options max batches and run budget
     * @return the control
     */
    public static RunControl unbounded(RunOptions options) {
        return of(new RunRecorder(ProgressListener.NONE), new RunBudget(options.runBudget(), new AtomicBoolean()), options);
    }

    /** @return the recorder */
    public RunRecorder recorder() {
        return recorder;
    }

    /**
     * Counts a committed batch and says whether another may start.
     *
     * @return false when a stop was requested, --max-batches is reached or --run-budget is spent (the reason is recorded)
     */
    public boolean batchDone() {
        recorder.batchCommitted();
        if (budget.stopRequested()) {
            recorder.stopped(RunFigures.StopReason.STOP_REQUESTED);
            return false;
        }
        if (maxBatches > 0 && recorder.batches() >= maxBatches) {
            recorder.stopped(RunFigures.StopReason.MAX_BATCHES);
            return false;
        }
        if (budget.pastDeadline()) {
            recorder.stopped(RunFigures.StopReason.RUN_BUDGET);
            return false;
        }
        return true;
    }

    @Override
    public Duration remaining() {
        return budget.remaining();
    }

    @Override
    public boolean stopRequested() {
        return budget.stopRequested();
    }

    /**
     * Records why the run stops now that the bounds ended it (a store call abandoned or not started, or a check
     * between units): the stop request, else the run budget.
     */
    public void stoppedByBounds() {
        recorder.stopped(budget.stopRequested() ? RunFigures.StopReason.STOP_REQUESTED : RunFigures.StopReason.RUN_BUDGET);
    }

    /** @return the figures of the run so far (elapsed from the run's start) */
    public RunFigures figures() {
        return recorder.figures(budget.elapsedSeconds());
    }
}
