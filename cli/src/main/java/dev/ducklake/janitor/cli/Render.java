package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.pg.ConnectionSpec;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** Turns engine results into text or JSON; the only place that knows the output formats. */
final class Render {

    static final ObjectMapper JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(SerializationFeature.INDENT_OUTPUT);

    /** The same mapper writing one line ({@code --output jsonl}). */
    private static final ObjectMapper COMPACT = JSON.copy().disable(SerializationFeature.INDENT_OUTPUT);

    /**
     * What this process's command line asked for and did (one command per process, like {@link StructuredLog}'s format):
     * the --output format, when the command started, and whether a JSON document went to stdout already.
     */
    private static volatile OutputOptions.Output requested = OutputOptions.Output.text;
    private static volatile Instant started = Instant.now();
    private static volatile boolean printed;

    private Render() {
    }

    /**
     * Reads {@code --output} from the raw arguments before picocli parses them, so that a usage error (exit 2) still
     * prints its JSON document, and notes the start of the run ({@code started_at}).
     *
     * @param args the command-line arguments
     */
    static void preScan(String[] args) {
        requested = OutputOptions.Output.text;
        started = Instant.now();
        printed = false;
        for (int i = 0; i < args.length && !args[i].equals("--"); i++) {
            String v = args[i].startsWith("--output=") ? args[i].substring("--output=".length())
                    : args[i].equals("--output") && i + 1 < args.length ? args[i + 1] : null;
            for (OutputOptions.Output o : OutputOptions.Output.values()) {
                if (o.name().equalsIgnoreCase(v)) {
                    requested = o;
                }
            }
        }
    }

    /** Sets the output format the parsed command line gives (called before the command runs). */
    static void output(OutputOptions.Output o) {
        requested = o;
    }

    /** @return whether stdout carries JSON (--output json or jsonl) */
    static boolean jsonRequested() {
        return requested != OutputOptions.Output.text;
    }

    /** @return whether a JSON document was printed on stdout by this command already */
    static boolean printed() {
        return printed;
    }

    /** @return when this command started (ISO-8601 UTC) */
    static String startedAt() {
        return started.toString();
    }

    /**
     * The document of an error that ended the command before it printed one (a usage error, an unknown command, an
     * internal error): the error document without a catalog connection.
     *
     * @param operation the command name, or null when none was recognised
     * @param reason the exit reason
     * @param message the message (values the user typed are never echoed: the caller passes the redacted text)
     * @return the document
     */
    static Map<String, Object> error(String operation, JanitorException.Reason reason, String message) {
        return error(operation, null, null, new JanitorException(reason, message));
    }

    /**
     * The JSON document of a result: operation, tool version, status, catalog (never the password), then the
     * result's own fields in snake_case.
     */
    static Map<String, Object> envelope(String operation, ConnectionSpec spec, String schema, Object result) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("operation", operation);
        doc.put("tool_version", VersionProvider.version());
        doc.put("status", "ok");
        doc.put("catalog", catalog(spec, schema));
        @SuppressWarnings("unchecked")
        Map<String, Object> fields = JSON.convertValue(result, Map.class);
        doc.putAll(fields);
        return doc;
    }

    static Map<String, Object> catalog(ConnectionSpec spec, String schema) {
        Map<String, Object> cat = new LinkedHashMap<>();
        if (spec != null) {
            cat.put("host", spec.host());
            cat.put("port", spec.port());
            cat.put("database", spec.database());
            cat.put("user", spec.user());
        }
        cat.put("schema", schema);
        return cat;
    }

    /** The JSON document printed on stdout when a run fails in --output json mode. */
    static Map<String, Object> error(String operation, ConnectionSpec spec, String schema, JanitorException e) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("operation", operation);
        doc.put("tool_version", VersionProvider.version());
        doc.put("status", "error");
        doc.put("catalog", catalog(spec, schema));
        doc.put("reason", e.reason().name().toLowerCase(java.util.Locale.ROOT));
        doc.put("exit_code", e.reason().exitCode());
        doc.put("message", spec == null ? dev.ducklake.janitor.Secrets.redact(e.getMessage()) : spec.redact(e.getMessage()));
        doc.put("hint", e.reason().hint());
        return doc;
    }

    /**
     * Prints one JSON document on stdout: indented with {@code --output json}, on one line with {@code --output jsonl}
     * (a log file that gets one line per run). A result document (one with an {@code operation} and a {@code status})
     * gets {@code started_at} and {@code finished_at} (ISO-8601 UTC) when it does not carry them yet.
     *
     * @param out stdout
     * @param doc the document
     */
    static void json(PrintWriter out, Object doc) {
        try {
            if (doc instanceof Map<?, ?> m && m.containsKey("operation") && m.containsKey("status") && !m.containsKey("started_at")) {
                @SuppressWarnings("unchecked")
                Map<String, Object> d = (Map<String, Object>) m;
                d.put("started_at", startedAt());
                d.put("finished_at", Instant.now().toString());
            }
            out.println((requested == OutputOptions.Output.jsonl ? COMPACT : JSON).writeValueAsString(doc));
            out.flush();
            printed = true;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static String seconds(double s) {
        if (s < 0) {
            return "?";
        }
        if (s < 60) {
            return String.format(java.util.Locale.ROOT, "%.1f s", s);
        }
        long t = Math.round(s);
        return t >= 3600 ? String.format(java.util.Locale.ROOT, "%dh%02dm%02ds", t / 3600, t / 60 % 60, t % 60)
                : String.format(java.util.Locale.ROOT, "%dm%02ds", t / 60, t % 60);
    }

    /** One labelled count of a text result. */
    static void row(PrintWriter out, String label, long value) {
        out.printf(java.util.Locale.ROOT, "  %-30s %d%n", label, value);
    }

    /**
     * Several labelled counts, one line each.
     *
     * @param labelsAndValues label, value, label, value, ... (values are numbers)
     */
    static void rows(PrintWriter out, Object... labelsAndValues) {
        for (int i = 0; i + 1 < labelsAndValues.length; i += 2) {
            row(out, (String) labelsAndValues[i], ((Number) labelsAndValues[i + 1]).longValue());
        }
    }

    /**
     * Where an execute run would act, for its confirmation question: {@code database 'lake' on host db:5432
     * (schema a, b)} (never the password).
     *
     * @param conn the catalog database
     * @param schemas the metadata schemas the run covers
     * @return the text
     */
    static String where(dev.ducklake.janitor.pg.ConnectionSpec conn, java.util.List<String> schemas) {
        return String.format(java.util.Locale.ROOT, "database '%s' on host %s:%s (schema %s)", conn.database(), conn.host(),
                conn.port(), String.join(", ", schemas));
    }

    /**
     * A count with its noun in the right number: {@code 1 row}, {@code 2 rows}, {@code 0 rows}.
     *
     * @param n the count
     * @param singular the noun for exactly one
     * @param plural the noun otherwise
     * @return the text
     */
    static String count(long n, String singular, String plural) {
        return n + " " + (n == 1 ? singular : plural);
    }

    /**
     * A number as an operator typed it: no trailing {@code .0} for whole values, no exponent ({@code 5}, {@code 0.25},
     * {@code 100000}), {@code NaN} / {@code Infinity} as such.
     *
     * @param v the value picocli parsed
     * @return the text
     */
    static String number(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return Double.toString(v);
        }
        return new java.math.BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
    }
}
