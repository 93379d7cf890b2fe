package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.ops.ProgressListener;
import dev.ducklake.janitor.ops.RunFigures;
import dev.ducklake.janitor.ops.RunOptions;
import dev.ducklake.janitor.ops.RunRecorder;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The runtime pieces a storage command's loop checks between batches: the shared {@link RunRecorder} (batches,
 * warnings, stop reason, figures), the stop flag (SIGTERM/SIGINT), --max-batches and --run-budget.
 */
public final class RunControl {

    private final RunRecorder recorder;
    private final AtomicBoolean stop;
    private final int maxBatches;
    private final long deadlineNanos;
    private final long startNanos = System.nanoTime();

    /**
     * @param recorder the run's recorder
     * @param stop the stop flag
     * @param options max batches and run budget
     */
    public RunControl(RunRecorder recorder, AtomicBoolean stop, RunOptions options) {
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

    /** @return the figures of the run so far */
    public RunFigures figures() {
        return recorder.figures((System.nanoTime() - startNanos) / 1e9);
    }
}
