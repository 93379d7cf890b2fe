package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.Durations;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.Sql;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;

/**
 * The {@code --older-than} criterion: either a fixed instant, or a duration counted back from the catalog
 * server's {@code now()}. The duration is turned into an instant once, at the start of a run
 * ({@link ExpireSnapshots}), so that every batch of the run uses the same cutoff.
 *
 * @param at the instant (non-null for the instant form)
 * @param ago the duration (non-null for the duration form)
 */
public record OlderThan(Instant at, Duration ago) {

    /**
     * Parses an ISO-8601 instant with offset or {@code Z} ({@code 2026-11-30T12:00:00Z}, fractional seconds
     * allowed; a space instead of {@code T} and an hour-only offset {@code +00}, as psql prints timestamptz, are
     * accepted too) or a duration in the one grammar of {@link Durations} ({@code 45s}, {@code 90m}, {@code 1w},
     * {@code P7D}, {@code 7 days}).
     *
     * @param text the flag value
     * @param flag the flag name, for the error message
     * @return the parsed value
     * @throws JanitorException {@link Reason#USAGE} naming the flag and both accepted forms, or the range of durations
     */
    public static OlderThan parse(String text, String flag) throws JanitorException {
        try {
            return new OlderThan(null, Durations.parse(text));
        } catch (Durations.InvalidDuration e) {
            if (e.outOfRange()) {
                throw new JanitorException(Reason.USAGE, flag + ": " + e.getMessage() + ".");
            }
            // not a duration: perhaps an instant
        }
        try {
            String t = text.strip().replaceFirst("^(\\d{4}-\\d{2}-\\d{2}) ", "$1T").replaceFirst("([+-]\\d{2})$", "$1:00");
            return new OlderThan(OffsetDateTime.parse(t).toInstant(), null);
        } catch (DateTimeParseException | NullPointerException e) {
            throw new JanitorException(Reason.USAGE, flag + " " + Sql.printable(String.valueOf(text)) + " is neither an ISO-8601 instant "
                    + "with offset (2026-11-30T12:00:00Z, 2026-11-30T12:00:00.5+01:00) nor a duration (" + Durations.GRAMMAR + ").");
        }
    }

    /**
     * Parses a duration of the one grammar ({@link Durations#parse}).
     *
     * @param text the value
     * @return the duration, or null when the text is not a duration in range
     */
    public static Duration parseDuration(String text) {
        try {
            return Durations.parse(text);
        } catch (Durations.InvalidDuration e) {
            return null;
        }
    }

    /**
     * The cutoff instant for a run that started at {@code now}.
     *
     * @param now the server's now() at the start of the run
     * @return {@code at}, or {@code now - ago}
     */
    public Instant cutoff(Instant now) {
        return at != null ? at : now.minus(ago);
    }

    @Override
    public String toString() {
        return at != null ? at.toString() : Durations.format(ago);
    }
}
