package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.metrics.PushChannel;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.Map;

/**
 * Pushgateway options shared by maintenance commands: where to push the run's outcome, under which job and catalog
 * label. Builds a {@link MaintenanceRunReporter}; dry runs get a reporter that pushes nothing.
 */
@StepOptions.CliOnly
public final class PushOptions {

    /** Environment variable read when --pushgateway-url is not given. */
    static final String ENV_URL = "PUSHGATEWAY_URL";

    @Option(names = "--pushgateway-url", paramLabel = "URL",
            description = "Push the run's outcome to this Prometheus Pushgateway (or a receiver accepting the Prometheus text format "
                    + "at <URL>/metrics/job/<job>/...), e.g. http://pushgateway:9091. Default: $PUSHGATEWAY_URL; none when unset. "
                    + "Dry runs push nothing; a failed push is a warning, never a failure of the run.")
    String url;

    @Option(names = "--pushgateway-job", paramLabel = "NAME", defaultValue = MaintenanceRunReporter.DEFAULT_JOB,
            description = "Pushgateway job name. Default: ${DEFAULT-VALUE}.")
    String job;

    @Option(names = "--pushgateway-timeout", paramLabel = "SECONDS", defaultValue = "5",
            description = "Longest time one push may take (connect, send and answer), in seconds. After a failed push no "
                    + "further push is attempted in this run (one warning). Push time counts inside --run-budget. "
                    + "Default: ${DEFAULT-VALUE}.")
    double timeout;

    /** The channel of this command invocation, shared by the reporters of every schema. */
    private PushChannel channel;

    @Option(names = "--catalog-label", paramLabel = "NAME",
            description = "Value of the catalog label on pushed metrics (use the name the metrics daemon gives this catalog). "
                    + "Default: the database name.")
    String catalogLabel;

    /**
     * Checks the Pushgateway flags before anything runs.
     *
     * @param env the environment (PUSHGATEWAY_URL)
     * @return the parsed target, or null when no URL is set
     * @throws JanitorException USAGE when the URL or the job name is malformed
     */
    MaintenanceRunReporter.Target validate(Map<String, String> env) throws JanitorException {
        String u = url != null ? url : env.get(ENV_URL);
        MaintenanceRunReporter.Target target = u == null || u.isBlank() ? null : MaintenanceRunReporter.parseUrl(u);
        if (job == null || job.isBlank() || job.contains("/")) {
            throw new JanitorException(JanitorException.Reason.USAGE, "--pushgateway-job must be a non-empty name without '/'.");
        }
        if (!(timeout > 0) || timeout > 600) {
            throw new JanitorException(JanitorException.Reason.USAGE, "--pushgateway-timeout must be more than 0 and at most 600 "
                    + "seconds, got " + Render.number(timeout) + ".");
        }
        if (target != null && channel == null) {
            channel = new PushChannel(target, dev.ducklake.janitor.Durations.ofSeconds(timeout));
        }
        return target;
    }

    /**
     * Builds the reporter of one run (one schema: the schema is a grouping label).
     *
     * @param env the environment (PUSHGATEWAY_URL)
     * @param conn the catalog connection (its database name is the default catalog label)
     * @param schema the metadata schema
     * @param operation the operation name
     * @param dryRun whether the run changes nothing (then nothing is pushed)
     * @param err where push failures are reported
     * @return the reporter (disabled when no URL is set or on a dry run)
     * @throws JanitorException USAGE when the URL is malformed
     */
    /**
     * Wall time spent pushing in this command invocation so far (zero when nothing was pushed): the CLI deducts it
     * from --run-budget.
     *
     * @return the time spent
     */
    java.time.Duration timeSpent() {
        return channel == null ? java.time.Duration.ZERO : channel.timeSpent();
    }

    /**
     * The run options with the push time so far deducted from --run-budget (unchanged without a budget).
     *
     * @param options the run options
     * @return the options to run with
     */
    dev.ducklake.janitor.ops.runtime.RunOptions deductFrom(dev.ducklake.janitor.ops.runtime.RunOptions options) {
        if (options.runBudget() == null) {
            return options;
        }
        java.time.Duration left = options.runBudget().minus(timeSpent());
        return options.toBuilder().runBudget(left.isNegative() ? java.time.Duration.ZERO : left).build();
    }

    /**
     * @param conn the catalog database
     * @return the catalog's name on pushed metrics and on JSON log lines: --catalog-label, else the database name
     */
    String label(ConnectionSpec conn) {
        return catalogLabel != null ? catalogLabel : conn.database();
    }

    MaintenanceRunReporter reporter(Map<String, String> env, ConnectionSpec conn, String schema, String operation, boolean dryRun,
                                    PrintWriter err) throws JanitorException {
        MaintenanceRunReporter.Target target = validate(env);
        String label = label(conn);
        return MaintenanceRunReporter.create(dryRun || target == null ? null : channel, job, label, schema, operation, msg -> {
            err.println("WARN: " + msg);
            err.flush();
        });
    }
}
