package dev.ducklake.janitor.cli;

import picocli.CommandLine.Command;

import java.util.Map;
import java.util.concurrent.Callable;

/** The top-level {@code ducklake-janitor} command; it only groups the subcommands ({@link Operations} registers them). */
@Command(name = "ducklake-janitor", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Maintains DuckLake catalogs stored in PostgreSQL, directly over JDBC (never through DuckDB's ATTACH).",
        modelTransformer = Operations.Subcommands.class,
        footer = {"", "Exit codes: 0 ok, 1 internal error, 2 usage error, 3 connection failed, 4 not a DuckLake catalog, "
            + "5 unsupported catalog format version, 6 unsafe catalog state, 7 advisory lock held, 8 permission denied, "
            + "9 database error after retries, 10 confirmation declined, 11 configuration error, 12 done with findings, "
            + "13 storage error, 14 to 18 delete-orphan-files brakes, 19 connection pooler in transaction mode, 20 catalog too bloated for DuckDB's ATTACH, "
            + "21 engine unavailable (DuckDB driver or extension missing, a catalog format it cannot write, or the embedded PostgreSQL of demo/bench not next to the jar); 143 / 130 stopped by SIGTERM / SIGINT. "
            + "Without a command: the usage on stderr, exit 2."})
public final class JanitorCommand implements Callable<Integer> {

    static {
        HelpConstants.publish(); // the retry figures the descriptions quote
    }

    private final Map<String, String> env;

    @picocli.CommandLine.Option(names = "--log-format", paramLabel = "FORMAT", defaultValue = "text",
            scope = picocli.CommandLine.ScopeType.INHERIT,
            description = "Format of the log lines on stderr: text, or json (one JSON object per line with timestamp, level, "
                    + "catalog, schema, operation, message, and the batch fields on progress lines; progress then goes to stderr). "
                    + "Passwords never appear. Default: ${DEFAULT-VALUE}.")
    StructuredLog.Format logFormat;

    @picocli.CommandLine.Option(names = "--log-level", paramLabel = "LEVEL", scope = picocli.CommandLine.ScopeType.INHERIT,
            description = "Lowest level of the log lines written to stderr: error, warn, info or debug (debug adds the detail "
                    + "lines of --verbose). Progress lines are info. The result on stdout is not affected. Default: info.")
    StructuredLog.Level logLevel;

    @picocli.CommandLine.Option(names = "--quiet", scope = picocli.CommandLine.ScopeType.INHERIT,
            description = "Write only warnings and errors to stderr (as --log-level warn; with --log-level the stricter of the "
                    + "two), e.g. so that cron mails only when something needs a look. Default: off.")
    boolean quiet;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    /** @param env the environment variables the subcommands read */
    public JanitorCommand(Map<String, String> env) {
        this.env = env;
    }

    /** The environment variables the subcommands read. */
    Map<String, String> env() {
        return env;
    }

    /**
     * No subcommand given (e.g. an empty variable in a cron line): a usage error, not a silent success.
     *
     * @return 2, after printing the usage on stderr
     */
    @Override
    public Integer call() {
        spec.commandLine().getErr().println("error: no command given.");
        spec.commandLine().usage(spec.commandLine().getErr());
        Main.errorDocument(spec.commandLine().getOut(), null, dev.ducklake.janitor.JanitorException.Reason.USAGE, "no command given.");
        return 2;
    }
}
