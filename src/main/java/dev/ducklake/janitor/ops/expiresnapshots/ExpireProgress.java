package dev.ducklake.janitor.ops.expiresnapshots;

/** Where {@link ExpireSnapshots} reports progress; the CLI renders it. Every method may be called from the run's thread only. */
public interface ExpireProgress {

    /** Reports nothing. */
    ExpireProgress NONE = new ExpireProgress() { };

    /** A line of information (catalog, selection, budget). */
    default void info(String message) {
    }

    /** Something the operator should look at. */
    default void warn(String message) {
    }

    /** A batch committed (execute) or was simulated (dry run). */
    default void batch(ExpireSnapshotsResult.Batch batch, boolean dryRun) {
    }
}
