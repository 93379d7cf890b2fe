package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.Map;

/**
 * Pushgateway options shared by maintenance commands: where to push the run's outcome, under which job and catalog
 * label. Builds a {@link MaintenanceRunReporter}; dry runs get a reporter that pushes nothing.
 */
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
    MaintenanceRunReporter reporter(Map<String, String> env, ConnectionSpec conn, String schema, String operation, boolean dryRun,
                                    PrintWriter err) throws JanitorException {
        MaintenanceRunReporter.Target target = validate(env);
        String label = catalogLabel != null ? catalogLabel : conn.database();
        return MaintenanceRunReporter.create(dryRun ? null : target, job, label, schema, operation, msg -> {
            err.println("WARN: " + msg);
            err.flush();
        });
    }
}
