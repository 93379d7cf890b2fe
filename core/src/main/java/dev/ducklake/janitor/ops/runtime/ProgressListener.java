package dev.ducklake.janitor.ops.runtime;

/**
 * Receives progress from an operation; the engine never prints. All methods have empty defaults. Called on the
 * thread that runs the operation. Tests react to {@link #phase} events instead of matching log text.
 */
public interface ProgressListener {

    /** A listener that ignores everything. */
    ProgressListener NONE = new ProgressListener() { };

    /**
     * An informational message (survey figures, batch-size decisions).
     *
     * @param message the message, without trailing newline
     */
    default void info(String message) {
    }

    /**
     * A detail for operators who asked for it ({@code --verbose}): one line per object where a summary line is
     * the default (each kept non-empty table, a batch size lowered to the lock budget).
     *
     * @param message the message, without trailing newline
     */
    default void detail(String message) {
    }

    /**
     * A warning (a kept object, a retry, a skipped row).
     *
     * @param message the message, without trailing newline
     */
    default void warn(String message) {
    }

    /**
     * One batch committed.
     *
     * @param batch the batch's figures
     */
    default void batch(BatchProgress batch) {
    }

    /**
     * A phase of the run began or ended (typed, for tests and tools; the text goes through {@link #info}).
     *
     * @param phase which phase
     * @param detail a short description (the schema, the SQLSTATE of a retry, ...); may be empty
     */
    default void phase(Phase phase, String detail) {
    }

    /** The phases every run goes through, in order; RETRYING and RECONNECTING/RECONNECTED may repeat. */
    enum Phase {
        /** The catalog was opened and inspected (format version, snapshots). */
        INSPECTED,
        /** The advisory lock was taken (execute runs only). */
        LOCKED,
        /** The survey listed the work; no batch has run yet. */
        SURVEYED,
        /** A unit of work failed with a retryable SQLSTATE and is retried (detail: the SQLSTATE). */
        RETRYING,
        /** The connection was lost; reconnecting (detail: the SQLSTATE). */
        RECONNECTING,
        /** A new session is open (and the lock re-taken on execute runs). */
        RECONNECTED,
        /** The batch loop stopped before the work was done (detail: the stop reason). */
        STOPPED,
        /** The run finished and its result is built. */
        FINISHED
    }

    /**
     * Figures of one committed batch.
     *
     * @param number the batch number, from 1
     * @param dropped units acted on in this batch (tables dropped, snapshots expired, ...)
     * @param skippedNonempty units skipped in this batch (for drop-orphan-inline-tables: non-empty tables)
     * @param missing units already gone (for drop-orphan-inline-tables: registry rows whose table was gone)
     * @param batchSeconds how long this batch took, seconds
     * @param elapsedSeconds time since the run started, seconds
     * @param tablesLeft units not yet handled
     * @param estimatedSecondsLeft estimate of the time left at the rate so far, seconds (-1 when unknown)
     * @param batchSize the batch size in use
     */
    record BatchProgress(int number, int dropped, int skippedNonempty, int missing, double batchSeconds,
                         double elapsedSeconds, long tablesLeft, double estimatedSecondsLeft, int batchSize) {
    }
}
