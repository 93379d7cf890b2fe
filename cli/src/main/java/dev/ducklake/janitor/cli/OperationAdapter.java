package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.ops.runtime.Figure;
import dev.ducklake.janitor.ops.runtime.MaintenanceOperation;
import dev.ducklake.janitor.ops.runtime.MaintenanceResult;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.pg.ConnectionSpec;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

/**
 * What the generic {@link MaintenanceRunner} needs from one maintenance command: how to build the operation for
 * one schema, how to print its result as text, what it pushes, what it asks before changing anything.
 *
 * @param <R> the operation's result
 */
interface OperationAdapter<R extends MaintenanceResult> {

    /** @return the command name, also the {@code operation} of the JSON and the Pushgateway */
    String operation();

    /**
     * @return the result record: a multi-schema total sums its counts, and reads from its {@link Figure} annotations
     *     which numbers are not counts and which say what is left
     */
    Class<R> resultType();

    /**
     * Turns the command's own parsed flags into its operation's options, checking them (called once before
     * {@link #create}; {@code maintain} calls it on a command parsed from a step's options).
     *
     * @throws JanitorException USAGE naming the first bad flag
     */
    default void prepare() throws JanitorException {
    }

    /**
     * Told once, before the first {@link #create}, which schemas a multi-schema run will work on, in order (a storage
     * command counts a file found under two schemas' data paths once). Default: ignored.
     *
     * @param schemas the schemas
     */
    default void runSchemas(List<String> schemas) {
    }

    /**
     * @param spec the catalog database
     * @param run the run options, with the schema of this run
     * @param listener where progress goes
     * @return a fresh operation for one schema
     */
    MaintenanceOperation<R> create(ConnectionSpec spec, RunOptions run, ProgressListener listener);

    /**
     * @param result a successful execute run's result
     * @return the per-run gauges pushed after it ({@code ducklake_maintenance_<what>_last_run})
     */
    Map<String, MaintenanceRunReporter.PerRun> pushedGauges(R result);

    /**
     * Prints one schema's result as text.
     *
     * @param out stdout
     * @param conn the catalog database
     * @param result the result
     * @param signalled whether the run was stopped by SIGTERM/SIGINT (a stop then reads as such, not as a spent budget)
     */
    void printText(PrintWriter out, ConnectionSpec conn, R result, boolean signalled);

    /**
     * The question asked on a terminal before an execute run; it says how much would change (an operation may
     * run its dry run to count it).
     *
     * @param conn the catalog database
     * @param schemas the schema(s) the run will work on
     * @param options the run options (an execute run's)
     * @return the question, ending in "[y/N] "
     * @throws JanitorException when counting failed (the run does not start)
     */
    String confirmation(ConnectionSpec conn, List<String> schemas, RunOptions options) throws JanitorException;

    /**
     * @param result a result
     * @return relations this run dropped (0 for none): their dead pg_class/pg_attribute/pg_type rows earn the VACUUM note
     */
    default long relationsDropped(R result) {
        return 0;
    }

    /**
     * @param dryRun whether the runs were dry runs
     * @return the result fields (snake_case JSON names) printed as the total of a multi-schema text output, in order
     *     (TotalFieldsTest checks that each is a JSON field of {@link #resultType()} in a run of that kind)
     */
    List<String> totalFields(boolean dryRun);

    /**
     * @param result a completed run's result
     * @return the exit code of a run that completed (0; a command whose runs can end "done with findings" returns
     *     12, or 13 for objects its store could not delete)
     */
    default int exitCode(R result) {
        return 0;
    }
}
