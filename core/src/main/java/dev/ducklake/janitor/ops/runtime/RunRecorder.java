package dev.ducklake.janitor.ops.runtime;

import java.util.ArrayList;
import java.util.List;

/**
 * The mutable side of {@link RunFigures}: the runtime counts batches, retries and reconnects here, collects the
 * warnings (capped) and forwards messages to the {@link ProgressListener}. One per run; not thread-safe.
 */
public final class RunRecorder {

    /** Warnings kept in the result (all are still sent to the listener). */
    public static final int MAX_WARNINGS = 100;
    /** Warnings about individual catalog rows shown before they are only counted. */
    public static final int MAX_ROW_WARNINGS = 20;

    private final ProgressListener listener;
    private final List<String> warnings = new ArrayList<>();
    private int rowWarnings;
    private long warningsTotal;
    private int batches;
    private int retries;
    private int reconnects;
    private int batchSizeRequested;
    private int batchSizeStart;
    private int batchSizeFinal;
    /** Volatile: the run's watchdog reads it on its own thread ({@link #stoppedEarly()}). */
    private volatile RunFigures.StopReason stopReason = RunFigures.StopReason.COMPLETED;

    /** @param listener where messages and events go */
    public RunRecorder(ProgressListener listener) {
        this.listener = listener;
    }

    /** @return the listener messages go to */
    public ProgressListener listener() {
        return listener;
    }

    /** @param message an informational line for the listener */
    public void info(String message) {
        listener.info(message);
    }

    /** @param message a warning: kept in the result (up to {@value #MAX_WARNINGS}) and sent to the listener */
    public void warn(String message) {
        keep(message);
        listener.warn(message);
    }

    /** @param message a detail line, shown only with --verbose ({@link ProgressListener#detail}) */
    public void detail(String message) {
        listener.detail(message);
    }

    /**
     * A warning about one object of many that a summary warning covers: kept in the result (up to
     * {@value #MAX_WARNINGS}) but sent to the listener as a {@link ProgressListener#detail} line.
     *
     * @param message the warning
     */
    public void warnDetail(String message) {
        keep(message);
        listener.detail(message);
    }

    private void keep(String message) {
        warningsTotal++;
        if (warnings.size() < MAX_WARNINGS) {
            warnings.add(message);
        }
    }

    /**
     * A warning about one catalog row; after {@value #MAX_ROW_WARNINGS} of them one line says further ones are
     * only counted.
     *
     * @param message the warning
     */
    public void rowWarning(String message) {
        rowWarnings++;
        if (rowWarnings <= MAX_ROW_WARNINGS) {
            warn(message);
        } else if (rowWarnings == MAX_ROW_WARNINGS + 1) {
            warn("more rows kept; further warnings of this kind are not shown (see the counts)");
        }
    }

    /**
     * @param phase a phase event for the listener
     * @param detail its detail
     */
    public void phase(ProgressListener.Phase phase, String detail) {
        listener.phase(phase, detail);
    }

    /** Counts one committed batch. */
    public void batchCommitted() {
        batches++;
    }

    /** @return batches committed so far */
    public int batches() {
        return batches;
    }

    /** Counts one retried attempt. */
    public void retried() {
        retries++;
    }

    /** Counts one reconnect. */
    public void reconnected() {
        reconnects++;
    }

    /**
     * @param requested the batch size asked for
     * @param start the batch size after the lock budget
     */
    public void batchSizes(int requested, int start) {
        this.batchSizeRequested = requested;
        this.batchSizeStart = start;
        this.batchSizeFinal = start;
    }

    /** @param size the batch size at the end of the batch loop */
    public void finalBatchSize(int size) {
        this.batchSizeFinal = size;
    }

    /** @param reason why the run stops early (the first reason recorded wins) */
    public void stopped(RunFigures.StopReason reason) {
        if (stopReason == RunFigures.StopReason.COMPLETED) {
            stopReason = reason;
        }
    }

    /**
     * @return whether the run's work has ended early (a stop reason was recorded: the stop request, the budget,
     *     --max-batches): what the operation runs after that is its result's reads, which the watchdog leaves alone
     */
    public boolean stoppedEarly() {
        return stopReason != RunFigures.StopReason.COMPLETED;
    }

    /** @return why the run stopped so far ({@link RunFigures.StopReason#COMPLETED} when it did not) */
    public RunFigures.StopReason stopReason() {
        return stopReason;
    }

    /**
     * @param elapsedSeconds the run's duration, seconds
     * @return the immutable figures
     */
    public RunFigures figures(double elapsedSeconds) {
        return new RunFigures(batches, retries, reconnects, batchSizeRequested, batchSizeStart, batchSizeFinal, stopReason,
                elapsedSeconds, List.copyOf(warnings), warningsTotal > warnings.size(), warningsTotal);
    }
}
