package dev.ducklake.janitor.maintain;

import dev.ducklake.janitor.JanitorException;

import java.util.Map;

/**
 * One step of the maintain chain: an adapter from a YAML option map to the library call of an operation (the same call
 * its command makes; no second implementation) and back to a result.
 *
 * <p>Adding an operation is: declare its options ({@link #options()}; the CLI's steps read them from their command's
 * picocli model, one line of the CLI's operation list registers the step), build its Options record from
 * {@link StepConfig#options()} in {@link #validate} (so that bad combinations fail before anything runs), call its engine
 * in {@link #run}, and return the result with the gauges its command pushes.
 */
public interface MaintenanceStep {

    /** The step name in the {@code maintain:} list: the command name, e.g. {@code expire-snapshots}. */
    String name();

    /**
     * The step's own options and their kinds (the common {@code batch-size}, {@code max-batches}, {@code run-budget} and
     * {@code required} are added by {@link MaintainConfig}). Names are the command's flag names without {@code --}.
     */
    Map<String, OptionKind> options();

    /**
     * Why this step cannot run in this build (e.g. "not available in this build"), or null when it can. A step that is
     * not available is reported as skipped; a {@code required: true} one is a configuration error.
     */
    default String unavailableReason() {
        return null;
    }

    /**
     * Checks the options as a whole before anything runs (each value was already checked against its kind).
     *
     * @param step the step's configuration
     * @param tree the document (for file/line/key in errors)
     * @param path the step's path in the document, e.g. {@code maintain[1].drop-orphan-inline-tables}
     * @throws JanitorException CONFIG (exit 11) naming file, line and key
     */
    default void validate(StepConfig step, YamlTree tree, String path) throws JanitorException {
    }

    /**
     * Why the step is not possible on this catalog, found before it starts (so that nothing is pushed for a step that
     * is skipped), or null to run it. The step may still return {@link StepResult#skipped} from {@link #run}.
     *
     * @param ctx the catalog and schema
     * @param step the step's configuration
     * @return the skip reason, or null
     */
    default String notPossibleBecause(StepContext ctx, StepConfig step) {
        return null;
    }

    /**
     * What the step would do on one schema, for {@code maintain}'s confirmation on a terminal: the question its command
     * asks without the question mark (with a dry run's count where the command asks with one, e.g. {@code Expire 3
     * snapshot(s) in database 'lake' ...}). Nothing is changed and no lock is taken.
     *
     * @param ctx the catalog and schema (dry run)
     * @param step the step's configuration
     * @return the text, or null when the step changes nothing (check)
     * @throws JanitorException when the count cannot be had (the confirmation says so and still asks)
     */
    default String plan(StepContext ctx, StepConfig step) throws JanitorException {
        return null;
    }

    /**
     * Runs the step on one metadata schema of one catalog.
     *
     * @param ctx the catalog, schema, effective run budget, dry-run flag and stop registration
     * @param step the step's configuration
     * @return the result (or {@link StepResult#skipped} when the step is not possible on this catalog)
     * @throws JanitorException as the operation's own command would fail (its reason fixes the exit code)
     */
    StepResult run(StepContext ctx, StepConfig step) throws JanitorException;
}
