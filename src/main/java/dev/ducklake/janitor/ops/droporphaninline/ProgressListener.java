package dev.ducklake.janitor.ops.droporphaninline;

/**
 * Receives progress from {@link DropOrphanInlineTables}; the engine never prints. All methods have empty
 * defaults. Called on the thread that runs the operation.
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
     * A warning (a kept table, a retry, a skipped row).
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
     * Figures of one committed batch.
     *
     * @param number the batch number, from 1
     * @param dropped tables dropped in this batch
     * @param skippedNonempty non-empty tables skipped in this batch
     * @param missing registry rows deleted whose table was already gone
     * @param batchSeconds how long this batch took, seconds
     * @param elapsedSeconds time since the run started, seconds
     * @param tablesLeft candidate registry rows not yet handled
     * @param estimatedSecondsLeft estimate of the time left at the rate so far, seconds (-1 when unknown)
     * @param batchSize the batch size in use
     */
    record BatchProgress(int number, int dropped, int skippedNonempty, int missing, double batchSeconds,
                         double elapsedSeconds, long tablesLeft, double estimatedSecondsLeft, int batchSize) {
    }
}
