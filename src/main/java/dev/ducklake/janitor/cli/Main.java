package dev.ducklake.janitor.cli;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Entry point of the {@code ducklake-janitor} command. */
public final class Main {

    private Main() {
    }

    /**
     * Runs the command and exits with its exit code (see README: exit codes).
     *
     * @param args command-line arguments
     */
    public static void main(String[] args) {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        PrintWriter out = new PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        // stderr goes through the log writer (--log-format); so do the slf4j lines the libraries write to System.err
        StructuredLog log = new StructuredLog(new java.io.OutputStreamWriter(System.err, StandardCharsets.UTF_8));
        System.setErr(new java.io.PrintStream(new LogLineStream(log), true, StandardCharsets.UTF_8));
        int code = execute(args, out, log, System.getenv());
        out.flush();
        try {
            log.flush();
        } catch (java.io.IOException ignored) {
            // stderr is gone; nothing left to tell
        }
        System.exit(code);
    }

    /**
     * Runs the command in-process (for tests and embedding) with the process environment.
     *
     * @param args command-line arguments
     * @param out where results go (text or the JSON document)
     * @param err where progress, warnings and errors go
     * @return the exit code
     */
    public static int execute(String[] args, PrintWriter out, PrintWriter err) {
        return execute(args, out, err, System.getenv());
    }

    /**
     * Runs the command in-process with a given environment (DUCKLAKE_JANITOR_CATALOG, PG*, PUSHGATEWAY_URL).
     *
     * @param args command-line arguments
     * @param out where results go
     * @param err where progress, warnings and errors go
     * @param env the environment variables to use instead of the process's
     * @return the exit code
     */
    public static int execute(String[] args, PrintWriter out, PrintWriter err, Map<String, String> env) {
        return execute(args, out, new StructuredLog(err), env);
    }

    private static int execute(String[] args, PrintWriter out, StructuredLog log, Map<String, String> env) {
        StructuredLog.preScan(args);
        PrintWriter err = new PrintWriter(log, true);
        try {
            return run(args, out, err, log, env);
        } finally {
            err.flush();
            StructuredLog.reset();
        }
    }

    private static int run(String[] args, PrintWriter out, PrintWriter err, StructuredLog log, Map<String, String> env) {
        JanitorCommand root = new JanitorCommand(env);
        CommandLine cl = new CommandLine(root);
        cl.setOut(out);
        cl.setErr(err);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setExecutionExceptionHandler(new ErrorHandler());
        ServeCommand.dropInapplicableOptions(cl);
        cl.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("error: " + ex.getMessage());
            ex.getCommandLine().getErr().println("hint: see '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
            ex.getCommandLine().getErr().flush();
            return ExitCodes.USAGE;
        });
        cl.setExecutionStrategy(parsed -> {
            log.configure(parsed);
            return new CommandLine.RunLast().execute(parsed);
        });
        int code = cl.execute(args);
        out.flush();
        err.flush();
        return code;
    }
}
