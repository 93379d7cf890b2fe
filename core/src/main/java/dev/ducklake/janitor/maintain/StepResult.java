package dev.ducklake.janitor.maintain;

import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;

import java.util.Map;

/**
 * What a step returned.
 *
 * @param result the operation's own Result record (rendered as its command renders it), or null when skipped
 * @param gauges the per-run gauges its command pushes after a success (name to value and help)
 * @param exitCode the exit code its command gives a completed run: 0, 12 (done with findings), or another reason's
 *     code (e.g. 13 when the store could not delete some files); the step is then a failure that still has a result
 * @param skippedReason why the step was not possible on this catalog, or null when it ran
 * @param skippedBecause the reason a required step's skip fails with (e.g. {@link Reason#STORAGE}), or null
 */
public record StepResult(Object result, Map<String, MaintenanceRunReporter.PerRun> gauges, int exitCode, String skippedReason,
                         Reason skippedBecause) {

    /** A step that ran. */
    public static StepResult ran(Object result, Map<String, MaintenanceRunReporter.PerRun> gauges, int exitCode) {
        return new StepResult(result, Map.copyOf(gauges), exitCode, null, null);
    }

    /** A step that is not possible on this catalog (skipped unless required; then a failure with {@code because}). */
    public static StepResult skipped(String reason, Reason because) {
        return new StepResult(null, Map.of(), 0, reason, because);
    }
}
