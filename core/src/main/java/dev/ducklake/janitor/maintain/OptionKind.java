package dev.ducklake.janitor.maintain;

import dev.ducklake.janitor.Durations;
import dev.ducklake.janitor.JanitorException;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/**
 * The value types of step options in the maintain configuration. {@link #check} validates a YAML value and returns it
 * in a normal form (the form each step's adapter reads); a bad value is a configuration error naming file, line and key.
 */
public enum OptionKind {
    /** true or false. Normal form: Boolean. */
    BOOLEAN("true or false"),
    /** An integer of 1 or more. Normal form: Long. */
    POSITIVE_INT("an integer of 1 or more"),
    /** A duration: {@code 45s}, {@code 90m}, {@code 36h}, {@code 7d}, {@code 500ms}, or a number of seconds; 0 or more. Normal form: Duration. */
    DURATION("a duration (" + Durations.GRAMMAR + "; or a number of seconds), 0 to 100 years"),
    /** A run budget: a positive duration (as {@link #DURATION}) or {@code inf}. Normal form: Duration, or null for inf. */
    BUDGET("a positive duration (" + Durations.GRAMMAR + "; or a number of seconds) up to 100 years, or inf"),
    /** A duration counted back from now, or an ISO-8601 instant with offset. Normal form: Duration or OffsetDateTime. */
    DURATION_OR_INSTANT("a duration (" + Durations.GRAMMAR + ") up to 100 years, or an ISO-8601 instant with offset such as "
            + "2026-11-30T12:00:00Z"),
    /** A ratio above 0 and at most 1. Normal form: Double. */
    RATIO("a number above 0 and at most 1"),
    /** Non-empty text. Normal form: String. */
    TEXT("non-empty text"),
    /** Snapshot ids: a list of integers or text such as "3,5,8". Normal form: List of Long. */
    ID_LIST("a list of snapshot ids, e.g. [3, 5, 8] or \"3,5,8\""),
    /** The check step's {@code fail-on}: the lowest finding severity that fails the step. */
    SEVERITY("damage, debris or any");

    private final String expected;

    OptionKind(String expected) {
        this.expected = expected;
    }

    /** What a valid value looks like (used in messages and the README). */
    public String expected() {
        return expected;
    }

    /**
     * Validates a value.
     *
     * @param tree the document (for the error's file and line)
     * @param path the key's path
     * @param value the YAML value
     * @return the value in normal form
     * @throws JanitorException CONFIG (exit 11) naming file, line and key when the value is not of this kind
     */
    public Object check(YamlTree tree, String path, Object value) throws JanitorException {
        Object v = normal(value);
        if (v == null) {
            if (value instanceof String s) {
                Object unquoted = YamlTree.plain(s);
                if (!(unquoted instanceof String) && unquoted != null && normal(unquoted) != null) {
                    // 'false', '10': text in the file, though the same without quotes is a valid value
                    throw tree.error(path, "must be " + expected + ", got the string " + describe(value)
                            + " (quoted); write it without quotes");
                }
            }
            throw tree.error(path, "must be " + expected + ", got " + describe(value));
        }
        return v;
    }

    private Object normal(Object value) {
        switch (this) {
            case BOOLEAN:
                return value instanceof Boolean b ? b : null;
            case POSITIVE_INT:
                return value instanceof Long l && l >= 1 ? l : null;
            case DURATION:
                return duration(value);
            case BUDGET: {
                if (value instanceof String s && (s.strip().equalsIgnoreCase("inf") || s.strip().equalsIgnoreCase("infinity"))) {
                    return Unbounded.INSTANCE;
                }
                if (value instanceof Double d && d.isInfinite() && d > 0) {
                    return Unbounded.INSTANCE;
                }
                Duration d = duration(value);
                return d == null || d.isZero() ? null : d;
            }
            case DURATION_OR_INSTANT: {
                Duration d = duration(value);
                if (d != null) {
                    return d;
                }
                if (value instanceof String s) {
                    try {
                        return OffsetDateTime.parse(s.strip());
                    } catch (DateTimeParseException e) {
                        return null;
                    }
                }
                if (value instanceof OffsetDateTime t) {
                    return t;
                }
                return null;
            }
            case RATIO: {
                if (!(value instanceof Number n) || value instanceof Boolean) {
                    return null;
                }
                double r = n.doubleValue();
                return r > 0 && r <= 1 ? r : null;
            }
            case TEXT:
                return value instanceof String s && !s.isBlank() ? s : null;
            case SEVERITY: {
                String t = value instanceof String x ? x.strip().toLowerCase(java.util.Locale.ROOT) : "";
                return t.equals("damage") || t.equals("debris") || t.equals("any") ? t : null;
            }
            case ID_LIST: {
                List<Long> ids = new ArrayList<>();
                List<?> items = value instanceof List<?> l ? l
                        : value instanceof String s ? List.of((Object[]) s.split(",")) : value instanceof Long x ? List.of(x) : null;
                if (items == null || items.isEmpty()) {
                    return null;
                }
                for (Object o : items) {
                    try {
                        long id = o instanceof Long x ? x : Long.parseLong(String.valueOf(o).strip());
                        if (id < 0) {
                            return null;
                        }
                        ids.add(id);
                    } catch (NumberFormatException e) {
                        return null;
                    }
                }
                return List.copyOf(ids);
            }
            default:
                return null;
        }
    }

    /**
     * Parses a duration: {@code 500ms}, {@code 45s}, {@code 90m}, {@code 36h}, {@code 7d}, {@code 2w}, or a plain number of
     * seconds (YAML number or text).
     *
     * @param value the YAML value
     * @return the duration, or null when the value is not a finite duration of 0 or more
     */
    public static Duration duration(Object value) {
        double seconds;
        if (value instanceof Number n && !(value instanceof Boolean)) {
            seconds = n.doubleValue();
        } else if (value instanceof String s) {
            if (s.strip().matches("\\d+(\\.\\d+)?")) {
                // plain seconds (not Double.parseDouble alone: it reads "7d" as the Java literal 7.0)
                seconds = Double.parseDouble(s.strip());
            } else {
                try {
                    return Durations.parse(s);
                } catch (Durations.InvalidDuration e) {
                    return null;
                }
            }
        } else {
            return null;
        }
        if (!(seconds >= 0) || Double.isInfinite(seconds) || seconds > 100L * 365 * 86_400) {
            return null;
        }
        return Durations.ofSeconds(seconds);
    }

    /**
     * A YAML value for a message, as written: text in single quotes (redacted, cut at 80 characters), a number or
     * boolean as is.
     *
     * @param value the YAML value
     * @return the text
     */
    static String describe(Object value) {
        if (value == null) {
            return "nothing";
        }
        if (value instanceof String s) {
            String shown = dev.ducklake.janitor.Secrets.redact(s);
            return "'" + (shown.length() > 80 ? shown.substring(0, 80) + "…" : shown) + "'";
        }
        if (value instanceof java.util.Map) {
            return "a mapping";
        }
        if (value instanceof List) {
            return "a list";
        }
        return String.valueOf(value);
    }

    /** The normal form of an unbounded run budget ({@code inf}). */
    public enum Unbounded {
        /** The one value. */
        INSTANCE
    }
}
