package dev.ducklake.janitor.ops.files;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An age limit given as a duration ("older than 2 days") or an instant ("older than 2026-11-30T00:00:00Z"),
 * turned into the instant before which a file or queue row counts as old.
 *
 * <p>Accepted spellings: ISO-8601 instants with an offset ({@code 2026-11-30T00:00:00Z},
 * {@code 2026-11-30T01:00:00+01:00}); ISO-8601 durations ({@code P2D}, {@code PT36H}); compact durations
 * ({@code 2d}, {@code 36h}, {@code 90m}, {@code 45s}, {@code 1w}); and DuckDB interval text as DuckLake stores it
 * in the {@code delete_older_than} option ({@code 2 days}, {@code 1 week}, {@code 3 hours 30 minutes},
 * {@code 1 month} = calendar month, {@code 1 year}).
 *
 * @param text the spelling given
 * @param duration the duration, or null when an instant was given
 * @param instant the instant, or null when a duration was given
 * @param months calendar months to go back besides the duration (from the interval text)
 */
public record AgeThreshold(String text, Duration duration, Instant instant, long months) {

    private static final Pattern COMPACT = Pattern.compile("(\\d+)\\s*(w|d|h|m|s)");
    private static final Pattern WORDS = Pattern.compile("(\\d+)\\s*([a-z]+)");

    /**
     * Parses a spelling.
     *
     * @param text the value of a flag or of the catalog option
     * @return the threshold
     * @throws IllegalArgumentException naming what is accepted, when the text is none of the spellings
     */
    public static AgeThreshold parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("empty age");
        }
        String t = text.trim();
        try {
            return new AgeThreshold(text, null, OffsetDateTime.parse(t).toInstant(), 0);
        } catch (DateTimeParseException ignored) {
            // not an instant
        }
        if (t.startsWith("P") || t.startsWith("p")) {
            try {
                return new AgeThreshold(text, Duration.parse(t.toUpperCase(Locale.ROOT)), null, 0);
            } catch (DateTimeParseException e) {
                throw bad(text);
            }
        }
        String l = t.toLowerCase(Locale.ROOT);
        Matcher c = COMPACT.matcher(l);
        if (c.matches()) {
            long n = Long.parseLong(c.group(1));
            Duration d = switch (c.group(2)) {
                case "w" -> Duration.ofDays(7 * n);
                case "d" -> Duration.ofDays(n);
                case "h" -> Duration.ofHours(n);
                case "m" -> Duration.ofMinutes(n);
                default -> Duration.ofSeconds(n);
            };
            return new AgeThreshold(text, d, null, 0);
        }
        Matcher w = WORDS.matcher(l);
        Duration d = Duration.ZERO;
        long months = 0;
        int end = 0;
        boolean any = false;
        while (w.find()) {
            if (!l.substring(end, w.start()).isBlank()) {
                throw bad(text);
            }
            end = w.end();
            any = true;
            long n = Long.parseLong(w.group(1));
            String unit = w.group(2).replaceAll("s$", "");
            switch (unit) {
                case "year" -> months += 12 * n;
                case "mon", "month" -> months += n;
                case "week" -> d = d.plusDays(7 * n);
                case "day" -> d = d.plusDays(n);
                case "hour" -> d = d.plusHours(n);
                case "minute", "min" -> d = d.plusMinutes(n);
                case "second", "sec" -> d = d.plusSeconds(n);
                default -> throw bad(text);
            }
        }
        if (!any || !l.substring(end).isBlank()) {
            throw bad(text);
        }
        return new AgeThreshold(text, d, null, months);
    }

    private static IllegalArgumentException bad(String text) {
        return new IllegalArgumentException("'" + text + "' is neither a duration (2d, 36h, 90m, P2D, '2 days') nor an"
                + " ISO-8601 instant with an offset (2026-11-30T00:00:00Z)");
    }

    /**
     * The instant before which things are old.
     *
     * @param now the current time
     * @return {@code now} minus the duration, or the instant given
     */
    public Instant cutoff(Instant now) {
        if (instant != null) {
            return instant;
        }
        return now.atOffset(ZoneOffset.UTC).minusMonths(months).toInstant().minus(duration);
    }
}
