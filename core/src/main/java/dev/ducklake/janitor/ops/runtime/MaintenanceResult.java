package dev.ducklake.janitor.ops.runtime;

/**
 * What every operation's result record offers the generic CLI runner and reporters. The record itself carries
 * a {@link RunFigures} component annotated {@code @JsonUnwrapped}, so the generic figures appear as top-level
 * members of the result's JSON.
 */
public interface MaintenanceResult {

    /** @return the metadata schema the run worked on */
    String schema();

    /** @return whether this was a dry run (nothing changed) */
    boolean dryRun();

    /** @return the generic figures of the run (batches, retries, reconnects, sizes, stop reason, elapsed, warnings) */
    RunFigures run();

    /** @return warnings raised during the run (at most 100 listed; see {@link RunFigures#warningsTotal()}) */
    default java.util.List<String> warnings() {
        return run().warnings();
    }

    /** @return whether the run stopped because the run budget was spent (a stop request is {@link #stopRequested()}) */
    default boolean budgetExhausted() {
        return run().budgetExhausted();
    }

    /** @return whether the run stopped early because a stop was requested (SIGTERM/SIGINT, {@code requestStop()}) */
    default boolean stopRequested() {
        return run().stopRequested();
    }

    /** @return whether the run stopped because --max-batches was reached */
    default boolean maxBatchesReached() {
        return run().maxBatchesReached();
    }

    /**
     * @return whether the run was cut short inside a unit of work (a storage call or a DuckLake call ran out of the run
     *     budget or was stopped): its counts are what was done so far, not the outcome of a completed pass. Default: false (the
     *     batch loops stop between units only)
     */
    default boolean cutShort() {
        return false;
    }

    /** @return what a {@link #cutShort()} run was cut short in, for messages: "a store call" unless the result says */
    default String cutShortDuring() {
        return "a store call";
    }

    /** @return wall-clock duration of the run, seconds */
    default double elapsedSeconds() {
        return run().elapsedSeconds();
    }
}
