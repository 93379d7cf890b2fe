package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.ops.ProgressListener;
import dev.ducklake.janitor.ops.RunFigures;
import dev.ducklake.janitor.ops.RunOptions;
import dev.ducklake.janitor.ops.RunRecorder;
import dev.ducklake.janitor.storage.CallBounds;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The runtime pieces a storage command's loop checks between batches: the shared {@link RunRecorder} (batches,
 * warnings, stop reason, figures), the stop flag (SIGTERM/SIGINT), --max-batches and --run-budget. It is also the
 * {@link CallBounds} of the run's store ({@link StorageAction} binds it), so that every store call, its timeout and
 * its retries end with the budget or on the stop.
 */
public final class RunControl implements CallBounds {

    private final RunRecorder recorder;
    private final AtomicBoolean stop;
    private final int maxBatches;
    private final long deadlineNanos;
    private final long startNanos;

    /**
     * @param recorder the run's recorder
     * @param stop the stop flag
     * @param options max batches and run budget
     */
    public RunControl(RunRecorder recorder, AtomicBoolean stop, RunOptions options) {
        this(recorder, stop, options, System.nanoTime());
    }

    /**
     * @param recorder the run's recorder
     * @param stop the stop flag
     * @param options max batches and run budget
     * @param startNanos when the run started ({@link System#nanoTime()}): the budget counts from there
     */
    public RunControl(RunRecorder recorder, AtomicBoolean stop, RunOptions options, long startNanos) {
        this.startNanos = startNanos;
        this.recorder = recorder;
        this.stop = stop;
        this.maxBatches = options.maxBatches();
        this.deadlineNanos = options.runBudget() == null ? Long.MAX_VALUE : startNanos + options.runBudget().toNanos();
    }

    /** A control without limits, for direct engine calls. */
    public static RunControl unbounded(RunOptions options) {
        return new RunControl(new RunRecorder(ProgressListener.NONE), new AtomicBoolean(), options);
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
        if (stop.get()) {
            recorder.stopped(RunFigures.StopReason.STOP_REQUESTED);
            return false;
        }
        if (maxBatches > 0 && recorder.batches() >= maxBatches) {
            recorder.stopped(RunFigures.StopReason.MAX_BATCHES);
            return false;
        }
        if (System.nanoTime() >= deadlineNanos) {
            recorder.stopped(RunFigures.StopReason.RUN_BUDGET);
            return false;
        }
        return true;
    }

    @Override
    public Duration remaining() {
        return deadlineNanos == Long.MAX_VALUE ? null : Duration.ofNanos(deadlineNanos - System.nanoTime());
    }

    @Override
    public boolean stopRequested() {
        return stop.get();
    }

    /**
     * Records why the run stops now that the bounds ended it (a store call abandoned or not started, or a check
     * between units): the stop request, else the run budget.
     */
    public void stoppedByBounds() {
        recorder.stopped(stop.get() ? RunFigures.StopReason.STOP_REQUESTED : RunFigures.StopReason.RUN_BUDGET);
    }

    /** @return the figures of the run so far */
    public RunFigures figures() {
        return recorder.figures((System.nanoTime() - startNanos) / 1e9);
    }
}
