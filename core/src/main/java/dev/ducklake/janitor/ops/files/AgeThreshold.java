package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.Durations;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * An age limit given as a duration ("older than 2 days") or an instant ("older than 2026-11-30T00:00:00Z"),
 * turned into the instant before which a file or queue row counts as old.
 *
 * <p>Accepted spellings: ISO-8601 instants with an offset ({@code 2026-11-30T00:00:00Z},
 * {@code 2026-11-30T01:00:00+01:00}), and durations of the one grammar ({@link Durations}: {@code 2d}, {@code 36h},
 * {@code 1w}, {@code P2D}, {@code PT36H}, {@code 2 days}), which also reads DuckDB interval text as DuckLake stores it
 * in the {@code delete_older_than} option ({@code 3 hours 30 minutes}, {@code 1 month} = calendar month, {@code 1 year}).
 *
 * @param text the spelling given
 * @param duration the duration, or null when an instant was given
 * @param instant the instant, or null when a duration was given
 * @param months calendar months to go back besides the duration (from the interval text)
 */
public record AgeThreshold(String text, Duration duration, Instant instant, long months) {

    /**
     * Parses a spelling: an ISO-8601 instant with an offset, else a duration of the one grammar
     * ({@link Durations#parseSpan}, calendar months and years in words included).
     *
     * @param text the value of a flag or of the catalog option
     * @return the threshold
     * @throws IllegalArgumentException naming what is accepted, when the text is none of the spellings, or the range
     *     when the duration is negative or longer than {@link Durations#MAX}
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
        Durations.Span span;
        try {
            span = Durations.parseSpan(t);
        } catch (Durations.InvalidDuration e) {
            if (e.outOfRange()) {
                throw e;
            }
            throw new IllegalArgumentException("'" + t + "' is neither a duration (" + Durations.GRAMMAR + ") nor an"
                    + " ISO-8601 instant with an offset (2026-11-30T00:00:00Z)");
        }
        return new AgeThreshold(text, span.duration(), null, span.months());
    }

    /**
     * A duration given as such (a library caller's), spelled in the grammar's compact form ({@code 3d}) for messages.
     * Its range is checked where the runs check it ({@link FileAges#checkOlderThan}).
     *
     * @param age how old
     * @return the threshold
     */
    public static AgeThreshold of(Duration age) {
        return new AgeThreshold(Durations.format(age), age, null, 0);
    }

    /**
     * An instant given as such (a library caller's), spelled in ISO-8601 for messages.
     *
     * @param cutoff things older than this instant are old
     * @return the threshold
     */
    public static AgeThreshold of(Instant cutoff) {
        return new AgeThreshold(cutoff.toString(), null, cutoff, 0);
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
