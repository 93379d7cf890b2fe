package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code --older-than} criterion: either a fixed instant, or a duration counted back from the catalog
 * server's {@code now()}. The duration is turned into an instant once, at the start of a run
 * ({@link ExpireSnapshots}), so that every batch of the run uses the same cutoff.
 *
 * @param at the instant (non-null for the instant form)
 * @param ago the duration (non-null for the duration form)
 */
public record OlderThan(Instant at, Duration ago) {

    private static final Pattern DURATION = Pattern.compile("(\\d+)(s|m|h|d)");

    /**
     * Parses an ISO-8601 instant with offset or {@code Z} ({@code 2026-11-30T12:00:00Z}, fractional seconds
     * allowed; a space instead of {@code T} and an hour-only offset {@code +00}, as psql prints timestamptz, are
     * accepted too) or a duration {@code <n>s|m|h|d} ({@code 45s}, {@code 90m}, {@code 36h}, {@code 7d}).
     *
     * @param text the flag value
     * @param flag the flag name, for the error message
     * @return the parsed value
     * @throws JanitorException {@link Reason#USAGE} naming the flag and both accepted forms
     */
    public static OlderThan parse(String text, String flag) throws JanitorException {
        Duration d = parseDuration(text);
        if (d != null) {
            return new OlderThan(null, d);
        }
        try {
            String t = text.strip().replaceFirst("^(\\d{4}-\\d{2}-\\d{2}) ", "$1T").replaceFirst("([+-]\\d{2})$", "$1:00");
            return new OlderThan(OffsetDateTime.parse(t).toInstant(), null);
        } catch (DateTimeParseException | NullPointerException e) {
            throw new JanitorException(Reason.USAGE, flag + " '" + text + "' is neither an ISO-8601 instant with offset "
                    + "(2026-11-30T12:00:00Z, 2026-11-30T12:00:00.5+01:00) nor a duration (45s, 90m, 36h, 7d).");
        }
    }

    /**
     * Parses a duration {@code <n>s|m|h|d}.
     *
     * @param text the value
     * @return the duration, or null when the text is not of that form
     */
    public static Duration parseDuration(String text) {
        if (text == null) {
            return null;
        }
        Matcher m = DURATION.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            return null;
        }
        long n;
        try {
            n = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            return null;
        }
        try {
            return switch (m.group(2)) {
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        } catch (ArithmeticException e) {
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
        return at != null ? at.toString() : ago.toString();
    }
}
