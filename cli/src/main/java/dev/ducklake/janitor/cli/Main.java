package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
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
        SignalExit.install();
        PrintWriter out = new PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8), true);
        // stderr goes through the log writer (--log-format); so do the slf4j lines the libraries write to System.err
        StructuredLog log = new StructuredLog(new java.io.OutputStreamWriter(System.err, StandardCharsets.UTF_8));
        System.setErr(new java.io.PrintStream(new LogLineStream(log), true, StandardCharsets.UTF_8));
        // java.util.logging (client_java's HTTP server): one line per event, the stack trace inside it under --log-format json
        JulLines.install(new PrintWriter(log, true));
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
        Render.preScan(args);
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
        cl.setParameterExceptionHandler((ex, a) -> {
            String message = parameterMessage(ex);
            ex.getCommandLine().getErr().println("error: " + message);
            ex.getCommandLine().getErr().println("hint: see '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
            ex.getCommandLine().getErr().flush();
            errorDocument(out, operationOf(ex.getCommandLine()), JanitorException.Reason.USAGE, message);
            return ExitCodes.USAGE;
        });
        cl.setExecutionStrategy(parsed -> {
            log.configure(parsed);
            for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
                Object o = p.matchedOptionValue("--output", null);
                if (o instanceof OutputOptions.Output output) {
                    Render.output(output);
                }
            }
            return new CommandLine.RunLast().execute(parsed);
        });
        if (args.length > 0 && !args[0].startsWith("-") && !cl.getSubcommands().containsKey(args[0])) {
            // an unknown command (also when --help follows it: picocli would print the top-level help and exit 0)
            err.println("error: unknown command " + dev.ducklake.janitor.pg.Sql.printable(args[0]) + ".");
            String closest = closestCommand(args[0], cl.getSubcommands().keySet());
            err.println("hint: " + (closest == null ? "" : "did you mean '" + closest + "'? ")
                    + "See 'ducklake-janitor --help' for the commands.");
            err.flush();
            errorDocument(out, null, JanitorException.Reason.USAGE, "unknown command " + dev.ducklake.janitor.pg.Sql.printable(args[0]) + ".");
            return ExitCodes.USAGE;
        }
        int code = cl.execute(args);
        if (code != ExitCodes.OK && code < 128) {
            // an exit without a document (no command given, an error before the command printed one): every exit
            // code under --output json has its document; 130/143 (signals) print theirs as the run stops
            errorDocument(out, operationOf(cl, args), reasonOf(code), "The command ended with exit code " + code + ".");
        }
        out.flush();
        err.flush();
        return code;
    }

    /**
     * Prints the JSON error document of a command that ends before printing one, under {@code --output json|jsonl}
     * (nothing in text output, nothing when a document was printed already).
     */
    static void errorDocument(PrintWriter out, String operation, JanitorException.Reason reason, String message) {
        if (Render.jsonRequested() && !Render.printed()) {
            Render.json(out, Render.error(operation, reason, message));
        }
    }

    /** @return the reason of an exit code (INTERNAL for a code no reason has) */
    private static JanitorException.Reason reasonOf(int code) {
        for (JanitorException.Reason r : JanitorException.Reason.values()) {
            if (r.exitCode() == code) {
                return r;
            }
        }
        return JanitorException.Reason.INTERNAL;
    }

    /** @return the subcommand's name, or null for the top-level command */
    static String operationOf(CommandLine cl) {
        return cl.getParent() == null ? null : cl.getCommandName();
    }

    /** @return the subcommand the arguments name, or null */
    private static String operationOf(CommandLine root, String[] args) {
        return args.length > 0 && root.getSubcommands().containsKey(args[0]) ? args[0] : null;
    }

    /**
     * The message of a flag error, without echoing values the user typed after an unknown option: {@code --password
     * S3cret} (no such flag) would otherwise print the password, as picocli quotes every unmatched token. Unknown
     * options are named (a value after {@code =} is masked); other unmatched tokens are counted, not shown.
     *
     * @param ex picocli's error
     * @return the message to print after {@code error: }
     */
    static String parameterMessage(CommandLine.ParameterException ex) {
        if (!(ex instanceof CommandLine.UnmatchedArgumentException ua) || ua.getUnmatched().isEmpty()) {
            return ex.getMessage();
        }
        java.util.List<String> options = new java.util.ArrayList<>();
        int values = 0;
        for (String t : ua.getUnmatched()) {
            if (t.startsWith("-") && t.length() > 1) {
                int eq = t.indexOf('=');
                options.add("'" + (eq < 0 ? t : t.substring(0, eq) + "=***") + "'");
            } else {
                values++;
            }
        }
        StringBuilder m = new StringBuilder(options.isEmpty() ? "Unexpected argument" : "Unknown option");
        if (options.size() > 1 || options.isEmpty() && values > 1) {
            m.append('s');
        }
        if (!options.isEmpty()) {
            m.append(": ").append(String.join(", ", options));
        }
        if (values > 0) {
            m.append(options.isEmpty() ? ": " : " and ").append(values).append(values == 1 ? " value" : " values")
                    .append(" not shown (a value may hold a password)");
        }
        return m.toString();
    }

    /**
     * The command closest to a mistyped one by edit distance (at most a third of its length, at least 2), or null.
     *
     * @param typed what was typed
     * @param commands the command names
     * @return the closest name, or null when none is close
     */
    static String closestCommand(String typed, java.util.Collection<String> commands) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String c : commands) {
            int d = editDistance(typed.toLowerCase(java.util.Locale.ROOT), c);
            if (d < bestDistance || (d == bestDistance && best != null && c.compareTo(best) < 0)) {
                best = c;
                bestDistance = d;
            }
        }
        return best != null && (bestDistance <= Math.max(2, best.length() / 3) || best.startsWith(typed)) ? best : null;
    }

    /** Levenshtein distance (insertions, deletions, substitutions), with adjacent transpositions counting one. */
    private static int editDistance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
