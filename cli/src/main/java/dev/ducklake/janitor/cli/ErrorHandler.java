package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import picocli.CommandLine;

import java.io.PrintWriter;

/**
 * Turns an exception from a subcommand into a clean message, a hint and the exit code of its reason. Stack
 * traces only with --verbose.
 */
final class ErrorHandler implements CommandLine.IExecutionExceptionHandler {

    @Override
    public int handleExecutionException(Exception ex, CommandLine cl, CommandLine.ParseResult parseResult) {
        PrintWriter err = cl.getErr();
        boolean verbose = parseResult.hasMatchedOption("--verbose")
                || (parseResult.subcommand() != null && parseResult.subcommand().hasMatchedOption("--verbose"));
        String operation = Main.operationOf(cl);
        if (ex instanceof JanitorException je) {
            err.println("error: " + StructuredLog.oneRecord(je.getMessage()));
            err.println("hint: " + je.reason().hint());
            if (verbose && je.getCause() != null) {
                je.getCause().printStackTrace(err);
            }
            err.flush();
            // --output json: a failure before the command printed its document (e.g. a bad flag value found by prepare)
            Main.errorDocument(cl.getOut(), operation, je.reason(), je.getMessage());
            return je.reason().exitCode();
        }
        if (ex instanceof CommandLine.ParameterException pe) {
            String message = Main.parameterMessage(pe);
            err.println("error: " + StructuredLog.oneRecord(message));
            err.flush();
            Main.errorDocument(cl.getOut(), operation, JanitorException.Reason.USAGE, message);
            return ExitCodes.USAGE;
        }
        err.println("error: unexpected " + ex.getClass().getSimpleName() + ": " + StructuredLog.oneRecord(ex.getMessage()));
        err.println("hint: " + JanitorException.Reason.INTERNAL.hint());
        if (verbose) {
            ex.printStackTrace(err);
        }
        err.flush();
        Main.errorDocument(cl.getOut(), operation, JanitorException.Reason.INTERNAL,
                "unexpected " + ex.getClass().getSimpleName() + ": " + ex.getMessage());
        return JanitorException.Reason.INTERNAL.exitCode();
    }
}
