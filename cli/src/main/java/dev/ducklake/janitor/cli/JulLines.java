package dev.ducklake.janitor.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * java.util.logging (used by Prometheus client_java's HTTP server and the JDK's) as one log line per event. The JDK's
 * console handler prints a record with an exception as some 29 lines (date line, level line, the stack trace), each of
 * which {@code --log-format json} would turn into its own JSON object; this handler writes one line,
 * {@code WARN: <logger>: <message>: <exception>}, and under {@code --log-format json} the stack trace goes into that
 * line's {@code stack_trace} field (in text mode the line alone: one line per event in both formats).
 */
final class JulLines extends Handler {

    private final PrintWriter err;

    /** @param err the log writer (stderr through {@link StructuredLog}) */
    JulLines(PrintWriter err) {
        this.err = err;
    }

    /**
     * Replaces the root logger's handlers with one writing to {@code err}.
     *
     * @param err the log writer
     */
    static void install(PrintWriter err) {
        LogManager.getLogManager().reset();
        Logger root = Logger.getLogger("");
        root.setLevel(Level.INFO);
        root.addHandler(new JulLines(err));
    }

    @Override
    public void publish(LogRecord r) {
        if (r == null || !isLoggable(r)) {
            return;
        }
        String prefix = r.getLevel().intValue() >= Level.SEVERE.intValue() ? "error: "
                : r.getLevel().intValue() >= Level.WARNING.intValue() ? "WARN: " : "info: ";
        String message = r.getMessage() == null ? "" : r.getMessage();
        Object[] params = r.getParameters();
        if (params != null && params.length > 0) {
            try {
                message = java.text.MessageFormat.format(message, params);
            } catch (IllegalArgumentException ignored) {
                // not a pattern: the message as it is
            }
        }
        StringBuilder line = new StringBuilder(prefix);
        if (r.getLoggerName() != null && !r.getLoggerName().isEmpty()) {
            line.append(r.getLoggerName()).append(": ");
        }
        line.append(message.replace('\n', ' '));
        Throwable t = r.getThrown();
        if (t != null) {
            line.append(": ").append(t.getClass().getName()).append(t.getMessage() == null ? "" : ": " + t.getMessage().replace('\n', ' '));
        }
        synchronized (err) {
            if (t != null && StructuredLog.json()) {
                StringWriter trace = new StringWriter();
                t.printStackTrace(new PrintWriter(trace));
                StructuredLog.nextLineFields(Map.of("stack_trace", trace.toString()));
            }
            err.println(line);
            err.flush();
        }
    }

    @Override
    public void flush() {
        err.flush();
    }

    @Override
    public void close() {
        flush();
    }
}
