package dev.ducklake.janitor.ops.runtime;

/**
 * What one batch attempt did, as the {@link BatchLoop} needs to know it. An operation's outcome class holds its
 * own counts besides; they are taken over into the run's figures only once the batch committed
 * ({@link BatchWork#committed}).
 */
public interface BatchOutcome {

    /** @return units of the slice this batch used up (the loop moves on by this many) */
    int consumed();

    /** @return units actually handled (fewer than {@link #consumed()} when {@link #truncated()}) */
    int handled();

    /** @return whether the batch stopped inside its slice because the run budget was spent or a stop requested */
    boolean truncated();

    /** @return units acted on (for the progress line: tables dropped, snapshots expired, ...) */
    int acted();

    /** @return units skipped (for the progress line) */
    int skipped();

    /** @return units already gone (for the progress line) */
    int missing();
}
