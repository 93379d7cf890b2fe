package dev.ducklake.janitor;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration grammar of every flag and configuration value that is a duration (docs/durations.md has the
 * same table, and so does {@link #GRAMMAR}), and the conversion of operator-given seconds.
 *
 * <table>
 *   <caption>Accepted spellings</caption>
 *   <tr><th>form</th><th>examples</th></tr>
 *   <tr><td>a number and a unit: ms, s, m (minutes), h, d, w (7 days)</td><td>{@code 500ms 30s 40m 1.5h 12h 7d 2w}</td></tr>
 *   <tr><td>ISO-8601 (also {@code PnW})</td><td>{@code PT30S PT1H P7D P1DT12H P2W}</td></tr>
 *   <tr><td>words (DuckDB interval text, as DuckLake's {@code delete_older_than} option holds it)</td>
 *       <td>{@code 7 days}, {@code 1 week}, {@code 3 hours 30 minutes}, {@code 90 seconds}</td></tr>
 * </table>
 * Case does not matter. Every duration is 0 or more and at most {@link #MAX} (100 years): a longer one is a usage error
 * naming the limit, not an overflow. Calendar months and years ({@code 1 month}) are only read where DuckLake's own
 * interval text may hold them ({@link #parseSpan}).
 */
public final class Durations {

    /** The longest duration accepted anywhere: 36500 days (100 years). */
    public static final Duration MAX = Duration.ofDays(36_500);

    /** The grammar in one line, for --help texts and error messages. */
    public static final String GRAMMAR = "30s, 40m, 12h, 7d, 2w, ISO-8601 P7D/PT1H, or '7 days'";

    private static final Pattern COMPACT = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h|d|w)");
    private static final Pattern WORD = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([a-z]+)");
    private static final Pattern ISO_WEEKS = Pattern.compile("p(\\d+)w");

    private Durations() {
    }

    /** A duration that is not in the grammar, negative, or longer than {@link #MAX}; the message says which, in the grammar. */
    public static final class InvalidDuration extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;
        private final boolean outOfRange;

        InvalidDuration(String message, boolean outOfRange) {
            super(message);
            this.outOfRange = outOfRange;
        }

        /** Whether the text is in the grammar but negative or too long (rather than not a duration at all). */
        public boolean outOfRange() {
            return outOfRange;
        }
    }

    /**
     * A duration with calendar months (DuckDB interval text such as {@code 1 month 2 days}).
     *
     * @param months calendar months (12 per year), 0 or more
     * @param duration the fixed-length part
     */
    public record Span(long months, Duration duration) {
    }

    /**
     * Parses a duration in the grammar of this class.
     *
     * @param text the text as the operator wrote it
     * @return the duration, 0 to {@link #MAX}, in whole milliseconds
     * @throws InvalidDuration naming the text as written and the grammar (never a normalised form such as PT1H)
     */
    public static Duration parse(String text) {
        Span s = parseSpan(text);
        if (s.months() != 0) {
            throw new InvalidDuration("'" + text.strip() + "' counts calendar months or years, which have no fixed length; use days or "
                    + "weeks (e.g. 30d, 52w)", false);
        }
        return s.duration();
    }

    /**
     * Parses a duration that may also count calendar months and years in words ({@code 1 month}, {@code 2 years};
     * DuckDB's interval text, which DuckLake's {@code delete_older_than} option holds).
     *
     * @param text the text
     * @return the months and the fixed part
     * @throws InvalidDuration as {@link #parse}
     */
    public static Span parseSpan(String text) {
        if (text == null || text.isBlank()) {
            throw new InvalidDuration("an empty duration; use e.g. " + GRAMMAR, false);
        }
        String shown = text.strip();
        String t = shown.toLowerCase(Locale.ROOT);
        if (t.startsWith("-")) {
            throw negative(shown);
        }
        if (t.startsWith("+")) {
            t = t.substring(1);
        }
        BigDecimal seconds;
        long months = 0;
        Matcher c = COMPACT.matcher(t);
        Matcher w = ISO_WEEKS.matcher(t);
        if (c.matches()) {
            seconds = new BigDecimal(c.group(1)).multiply(unitSeconds(c.group(2)));
        } else if (w.matches()) {
            seconds = new BigDecimal(w.group(1)).multiply(unitSeconds("w"));
        } else if (t.startsWith("p")) {
            Duration d;
            try {
                d = Duration.parse(t.toUpperCase(Locale.ROOT));
            } catch (java.time.format.DateTimeParseException | ArithmeticException e) {
                throw notADuration(shown, t);
            }
            if (d.isNegative()) {
                throw negative(shown);
            }
            seconds = new BigDecimal(d.getSeconds()).add(BigDecimal.valueOf(d.getNano(), 9));
        } else {
            Matcher m = WORD.matcher(t);
            int end = 0;
            boolean any = false;
            seconds = BigDecimal.ZERO;
            while (m.find()) {
                if (!t.substring(end, m.start()).isBlank()) {
                    throw notADuration(shown, t);
                }
                end = m.end();
                any = true;
                BigDecimal n = new BigDecimal(m.group(1));
                String unit = m.group(2).length() > 3 ? m.group(2).replaceAll("s$", "") : m.group(2);
                switch (unit) {
                    case "year", "years", "yr" -> months = addMonths(months, n, 12, shown);
                    case "mon", "mons", "month" -> months = addMonths(months, n, 1, shown);
                    case "week" -> seconds = seconds.add(n.multiply(unitSeconds("w")));
                    case "day" -> seconds = seconds.add(n.multiply(unitSeconds("d")));
                    case "hour" -> seconds = seconds.add(n.multiply(unitSeconds("h")));
                    case "minute", "min", "mins" -> seconds = seconds.add(n.multiply(unitSeconds("m")));
                    case "second", "sec", "secs" -> seconds = seconds.add(n);
                    case "millisecond", "ms" -> seconds = seconds.add(n.movePointLeft(3));
                    default -> throw notADuration(shown, t);
                }
            }
            if (!any || !t.substring(end).isBlank()) {
                throw notADuration(shown, t);
            }
        }
        BigDecimal total = seconds.add(BigDecimal.valueOf(months).multiply(unitSeconds("d")).multiply(BigDecimal.valueOf(31)));
        if (total.compareTo(BigDecimal.valueOf(MAX.getSeconds())) > 0) {
            throw tooLong(shown);
        }
        long ms = seconds.movePointRight(3).setScale(0, RoundingMode.HALF_UP).longValueExact();
        return new Span(months, Duration.ofMillis(ms));
    }

    /**
     * Checks a duration given as a value (the library's {@link Duration} arguments) against the range of the grammar, with
     * the words {@link #parse} uses for the same duration written in the grammar ({@link #format}).
     *
     * @param d the duration
     * @return {@code d}, 0 to {@link #MAX}
     * @throws InvalidDuration when {@code d} is negative or longer than {@link #MAX} ({@link InvalidDuration#outOfRange()})
     */
    public static Duration checkRange(Duration d) {
        if (d.isNegative()) {
            throw negative("-" + format(d.negated()));
        }
        if (d.compareTo(MAX) > 0) {
            throw tooLong(format(d));
        }
        return d;
    }

    private static InvalidDuration negative(String shown) {
        return new InvalidDuration("'" + shown + "' is negative; a duration is 0 or more", true);
    }

    private static InvalidDuration tooLong(String shown) {
        return new InvalidDuration("'" + shown + "' is longer than " + format(MAX) + " (100 years), the longest duration accepted", true);
    }

    private static long addMonths(long months, BigDecimal n, int per, String shown) {
        if (n.stripTrailingZeros().scale() > 0) {
            throw new InvalidDuration("'" + shown + "': months and years must be whole numbers", false);
        }
        if (n.compareTo(BigDecimal.valueOf(1200)) > 0) {
            throw tooLong(shown);
        }
        return months + n.longValueExact() * per;
    }

    private static BigDecimal unitSeconds(String unit) {
        return switch (unit) {
            case "ms" -> new BigDecimal("0.001");
            case "s" -> BigDecimal.ONE;
            case "m" -> BigDecimal.valueOf(60);
            case "h" -> BigDecimal.valueOf(3600);
            case "d" -> BigDecimal.valueOf(86_400);
            default -> BigDecimal.valueOf(7 * 86_400);
        };
    }

    private static InvalidDuration notADuration(String shown, String lower) {
        String why = lower.matches("\\d+(\\.\\d+)?") ? " (a number needs a unit, e.g. " + shown + "s)" : "";
        return new InvalidDuration("'" + shown + "' is not a duration" + why + "; use e.g. " + GRAMMAR, false);
    }

    /**
     * A duration in the grammar's compact form, in the largest unit that divides it ({@code 1h}, {@code 90m},
     * {@code 7d}, {@code 2w}, {@code 1500ms}), for messages: never ISO-8601 ({@code PT1H}) to an operator who wrote {@code 1h}.
     *
     * @param d a duration, 0 or more
     * @return the text
     */
    public static String format(Duration d) {
        long ms = d.toMillis();
        if (ms == 0) {
            return "0s";
        }
        if (ms % 1000 != 0) {
            return ms + "ms";
        }
        long s = ms / 1000;
        if (s % (7 * 86_400) == 0) {
            return s / (7 * 86_400) + "w";
        }
        if (s % 86_400 == 0) {
            return s / 86_400 + "d";
        }
        if (s % 3600 == 0) {
            return s / 3600 + "h";
        }
        if (s % 60 == 0) {
            return s / 60 + "m";
        }
        return s + "s";
    }

    /**
     * Seconds to a duration in whole milliseconds. A positive value never becomes zero: anything below one
     * millisecond is rounded up to 1 ms, because PostgreSQL reads a timeout of 0 as "no timeout".
     *
     * @param seconds a finite number of seconds, 0 or more
     * @return the duration, rounded to the nearest millisecond (at least 1 ms when {@code seconds > 0})
     */
    public static Duration ofSeconds(double seconds) {
        long ms = Math.round(seconds * 1000);
        if (seconds > 0 && ms == 0) {
            ms = 1;
        }
        return Duration.ofMillis(ms);
    }
}
