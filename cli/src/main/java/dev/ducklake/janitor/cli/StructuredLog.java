package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.ducklake.janitor.Secrets;
import com.fasterxml.jackson.databind.ObjectMapper;
import picocli.CommandLine;

import java.io.IOException;
import java.io.Writer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code --log-format text|json}: the writer behind stderr. Every command writes its log lines as text
 * ({@code error: …}, {@code hint: …}, {@code WARN: …}, {@code info: …}, {@code note: …}, progress lines, slf4j lines);
 * in json mode this writer turns each line into one JSON object on one line, so that Kubernetes log pipelines parse it
 * without regexes:
 * <pre>{"timestamp":"2026-12-01T04:52:00.123Z","level":"info","catalog":"lake","schema":"public",
 *  "operation":"drop-orphan-inline-tables","message":"batch 3: dropped 500, ...","batch":3,"dropped":500,...}</pre>
 * {@code level} is error, warn, info or debug (stack-trace lines); {@code hint} lines are level error with
 * {@code "hint": true}. The catalog, schema and operation come from the thread's {@link #context} (set by the command or
 * the maintain chain; inherited by threads it starts); progress lines carry the batch fields handed over with
 * {@link #nextLineFields}. Registered redactors (connection strings' passwords) and {@link Secrets#redact} are applied to every
 * line in both modes.
 * In text mode lines pass through unchanged, prefixed with {@code [catalog/schema operation]} when the context asks for it
 * (maintain with several catalogs).
 */
public final class StructuredLog extends Writer {

    /** The log formats. */
    public enum Format { text, json }

    /**
     * The log levels, most severe first: {@code --log-level} keeps the lines of its level and the more severe ones
     * ({@code --quiet} is {@code warn}). A line's level is the one its JSON form carries: {@code error:} and
     * {@code hint:} lines are error, {@code WARN:} lines warn, every other line (progress, {@code info:}, {@code note:},
     * unprefixed) info; stack-trace lines (only printed with {@code --verbose}) go with the error they belong to and are
     * never dropped.
     */
    public enum Level {
        error, warn, info, debug;

        /** @return whether a line of level {@code line} is written when this is the threshold */
        boolean keeps(Level line) {
            return line.ordinal() <= ordinal();
        }
    }

    /**
     * Who is logging.
     *
     * @param catalog the catalog label, or null
     * @param schema the metadata schema, or null
     * @param operation the command or step name, or null
     * @param prefixText whether text lines get a {@code [catalog/schema operation]} prefix
     */
    public record Context(String catalog, String schema, String operation, boolean prefixText) {
    }

    private static final InheritableThreadLocal<Context> CONTEXT = new InheritableThreadLocal<>();
    private static final ThreadLocal<Map<String, Object>> NEXT_FIELDS = new ThreadLocal<>();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SLF4J = Pattern.compile("^\\[([^\\]]*)\\] (TRACE|DEBUG|INFO|WARN|ERROR) (\\S+) - (.*)$");
    /** The first line of a printed stack trace ({@code java.sql.SQLException: ...}). */
    private static final Pattern THROWABLE = Pattern.compile("^[a-zA-Z_$][\\w$]*(\\.[a-zA-Z_$][\\w$]*)+(Exception|Error|Throwable)(: .*)?$");
    private static final List<UnaryOperator<String>> REDACTORS = new CopyOnWriteArrayList<>();

    private final Writer target;
    private final ThreadLocal<StringBuilder> line = ThreadLocal.withInitial(StringBuilder::new);
    /** The level of the line this thread wrote last: an indented line after it continues it (PostgreSQL's "  Position: …"). */
    private final ThreadLocal<Level> lastLevel = new ThreadLocal<>();
    private static volatile Format format = Format.text;
    private static volatile Level level = Level.info;

    /** @param target where the lines go (stderr) */
    public StructuredLog(Writer target) {
        this.target = target;
    }

    /** Sets the context of the current thread (and of threads it starts afterwards); null clears it. */
    public static void context(Context c) {
        CONTEXT.set(c);
    }

    /** The current thread's context, or null. */
    public static Context context() {
        return CONTEXT.get();
    }

    /** Structured fields for the next line this thread writes (json mode; ignored in text mode). */
    public static void nextLineFields(Map<String, Object> fields) {
        NEXT_FIELDS.set(new LinkedHashMap<>(fields));
    }

    /** Adds a redactor applied to every line (e.g. a connection's {@code redact}, which removes its password). */
    public static void addRedactor(UnaryOperator<String> redactor) {
        REDACTORS.add(redactor);
    }

    /**
     * A message as one log record: in json mode its line breaks become spaces (a PostgreSQL error's
     * {@code "\n  Position: 19"} would otherwise be a second record, of level info); text mode keeps the lines.
     *
     * @param message a message that may span lines
     * @return the message to print after its {@code error: } prefix
     */
    static String oneRecord(String message) {
        return format == Format.json && message != null ? message.replaceAll("\\s*\\R\\s*", " ") : message;
    }

    /** The format in use (one per process: there is one stderr). */
    public static Format format() {
        return format;
    }

    /** Sets the format. */
    public static void format(Format f) {
        format = f;
    }

    /** The threshold in use (one per process, like the format). */
    public static Level level() {
        return level;
    }

    /** Sets the threshold. */
    public static void level(Level l) {
        level = l;
    }

    /**
     * @param l a line's level
     * @return whether lines of that level are written (progress lines printed on stdout in text mode ask this too)
     */
    public static boolean enabled(Level l) {
        return level.keeps(l);
    }

    /**
     * The threshold that {@code --log-level} and {@code --quiet} give together: {@code --quiet} alone is warn, and
     * with a level it keeps the stricter of the two.
     *
     * @param given the {@code --log-level} value, or null when not given
     * @param quiet whether {@code --quiet} was given
     * @return the threshold
     */
    static Level threshold(Level given, boolean quiet) {
        Level l = given == null ? Level.info : given;
        return quiet && l.ordinal() > Level.warn.ordinal() ? Level.warn : l;
    }

    /** Whether log lines are JSON: progress lines then go to stderr whatever --output says. */
    public static boolean json() {
        return format == Format.json;
    }

    /**
     * Reads {@code --log-format} from the raw arguments before picocli parses them, so that even a usage error is logged
     * in the requested format.
     *
     * @param args the command-line arguments
     */
    static void preScan(String[] args) {
        format = Format.text;
        CONTEXT.remove();
        Level given = null;
        boolean quiet = false;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--")) {
                break;
            }
            quiet |= args[i].equals("--quiet");
            String l = args[i].startsWith("--log-level=") ? args[i].substring("--log-level=".length())
                    : args[i].equals("--log-level") && i + 1 < args.length ? args[i + 1] : null;
            if (l != null) {
                for (Level candidate : Level.values()) {
                    if (candidate.name().equalsIgnoreCase(l)) {
                        given = candidate;
                    }
                }
            }
            String v = args[i].startsWith("--log-format=") ? args[i].substring("--log-format=".length())
                    : args[i].equals("--log-format") && i + 1 < args.length ? args[i + 1] : null;
            if (v != null && v.equalsIgnoreCase("json")) {
                format = Format.json;
            } else if (v != null && v.equalsIgnoreCase("text")) {
                format = Format.text;
            }
        }
        level = threshold(given, quiet);
    }

    /** Forgets the context and redactors of a finished command (in-process runs, tests). */
    static void reset() {
        CONTEXT.remove();
        REDACTORS.clear();
        NEXT_FIELDS.remove();
    }

    /**
     * Reads {@code --log-format} from a parse result (the root or any subcommand) and sets the format and the context's
     * operation (the subcommand name); called once before the command runs.
     *
     * @param parsed picocli's parse result
     */
    void configure(CommandLine.ParseResult parsed) {
        CommandLine.ParseResult p = parsed;
        String op = null;
        Level given = null;
        boolean quiet = false;
        while (p != null) {
            Object v = p.matchedOptionValue("--log-format", null);
            if (v != null) {
                format = v instanceof Format f ? f : Format.valueOf(String.valueOf(v).toLowerCase(Locale.ROOT));
            }
            Object l = p.matchedOptionValue("--log-level", null);
            if (l != null) {
                given = l instanceof Level lv ? lv : Level.valueOf(String.valueOf(l).toLowerCase(Locale.ROOT));
            }
            quiet |= p.hasMatchedOption("--quiet");
            if (p != parsed) {
                op = p.commandSpec().name();
            }
            p = p.subcommand();
        }
        level = threshold(given, quiet);
        if (op != null) {
            context(new Context(null, null, op, false));
        }
    }

    @Override
    public void write(char[] buf, int off, int len) throws IOException {
        StringBuilder b = line.get();
        for (int i = off; i < off + len; i++) {
            char c = buf[i];
            if (c == '\n') {
                emit(b.toString());
                b.setLength(0);
            } else if (c != '\r') {
                b.append(c);
            }
        }
    }

    @Override
    public void flush() throws IOException {
        StringBuilder b = line.get();
        if (b.length() > 0 && format == Format.text) {
            // a partial line (a prompt, a last line without newline): text mode passes it on as it is
            String text = redact(b.toString());
            b.setLength(0);
            synchronized (target) {
                target.write(text);
            }
        }
        synchronized (target) {
            target.flush();
        }
    }

    @Override
    public void close() throws IOException {
        StringBuilder b = line.get();
        if (b.length() > 0) {
            emit(b.toString());
            b.setLength(0);
        }
        flush();
    }

    /** The registered redactors, then {@link Secrets#redact} (anything that could be a password, even in text that does not parse). */
    private static String redact(String raw) {
        String text = raw;
        for (UnaryOperator<String> r : REDACTORS) {
            text = r.apply(text);
        }
        return Secrets.redact(text);
    }

    private void emit(String raw) throws IOException {
        String text = redact(raw);
        Map<String, Object> fields = NEXT_FIELDS.get();
        NEXT_FIELDS.remove();
        Level lineLevel = levelOf(text);
        Level previous = lastLevel.get();
        if (previous != null && !text.isBlank() && Character.isWhitespace(text.charAt(0)) && !text.startsWith("\tat ")
                && !text.startsWith("\t... ")) {
            lineLevel = previous; // a continuation: kept or dropped with the line it continues
        } else {
            lastLevel.set(lineLevel);
        }
        if (!level.keeps(lineLevel)) {
            return;
        }
        Context ctx = CONTEXT.get();
        String out;
        if (format == Format.json) {
            out = json(text, ctx, fields);
        } else {
            out = ctx != null && ctx.prefixText() && !text.isEmpty()
                    ? "[" + ctx.catalog() + (ctx.schema() == null ? "" : "/" + ctx.schema()) + " " + ctx.operation() + "] " + text : text;
        }
        if (out == null) {
            return;
        }
        synchronized (target) {
            target.write(out);
            target.write('\n');
            target.flush();
        }
    }

    /**
     * The level of a text line for the threshold: as {@link #json} classifies it, except that stack-trace lines count as
     * error (they follow the error they belong to, and only with {@code --verbose}).
     */
    static Level levelOf(String text) {
        Matcher m = SLF4J.matcher(text);
        if (m.matches()) {
            String l = m.group(2);
            return l.equals("ERROR") ? Level.error : l.equals("WARN") ? Level.warn : l.equals("INFO") ? Level.info : Level.debug;
        }
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.startsWith("error: ") || lower.startsWith("hint: ") || text.startsWith("\tat ") || text.startsWith("Caused by: ")
                || text.startsWith("\t... ") || THROWABLE.matcher(text).matches()) {
            return Level.error;
        }
        if (lower.startsWith("warn: ") || lower.startsWith("warning: ")) {
            return Level.warn;
        }
        return Level.info;
    }

    /** One JSON line, or null for a blank text line (nothing to log). */
    static String json(String text, Context ctx, Map<String, Object> fields) {
        if (text.isBlank()) {
            return null;
        }
        String level = "info";
        String message = text;
        boolean hint = false;
        String logger = null;
        Matcher m = SLF4J.matcher(text);
        if (m.matches()) {
            level = m.group(2).toLowerCase(Locale.ROOT);
            logger = m.group(3);
            message = m.group(4);
        } else {
            String lower = text.toLowerCase(Locale.ROOT);
            for (String[] p : new String[][] {{"error: ", "error"}, {"hint: ", "error"}, {"warn: ", "warn"}, {"warning: ", "warn"},
                {"info: ", "info"}, {"note: ", "info"}}) {
                if (lower.startsWith(p[0])) {
                    level = p[1];
                    hint = p[0].equals("hint: ");
                    message = text.substring(p[0].length());
                    break;
                }
            }
            if (text.startsWith("\tat ") || text.startsWith("Caused by: ") || text.startsWith("\t... ")) {
                level = "debug";
            }
        }
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("timestamp", Instant.now().toString());
        o.put("level", level);
        o.put("catalog", ctx == null ? null : ctx.catalog());
        o.put("schema", ctx == null ? null : ctx.schema());
        o.put("operation", ctx == null ? null : ctx.operation());
        o.put("message", message);
        if (hint) {
            o.put("hint", true);
        }
        if (logger != null) {
            o.put("logger", logger);
        }
        if (fields != null) {
            List<String> reserved = new ArrayList<>(o.keySet());
            fields.forEach((k, v) -> {
                if (!reserved.contains(k)) {
                    o.put(k, v);
                }
            });
        }
        try {
            return JSON.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            return "{\"level\":\"error\",\"message\":\"unloggable line\"}";
        }
    }
}
