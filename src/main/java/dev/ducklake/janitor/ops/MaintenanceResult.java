package dev.ducklake.janitor.ops;

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
}
