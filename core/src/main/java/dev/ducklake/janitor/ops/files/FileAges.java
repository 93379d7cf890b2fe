package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.Durations;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;

/**
 * The age limit of both storage commands: {@code --older-than}, else the catalog's {@code delete_older_than}
 * option, else 2 days (DuckLake 1.5.5, {@code CleanupBind} in {@code src/functions/ducklake_cleanup_files.cpp}:
 * the same default for ducklake_cleanup_old_files and ducklake_delete_orphaned_files), never under
 * {@code --min-age}.
 */
public final class FileAges {

    /** DuckLake's default when the catalog sets no delete_older_than. */
    public static final String DUCKLAKE_DEFAULT = "2 days";

    private FileAges() {
    }

    /**
     * The one check of a storage command's age floor: refuses a negative {@code --min-age}, and one below the
     * command's floor unless {@code --allow-short-retention} is given (Iceberg's DeleteOrphanFiles procedure refuses
     * an age under 24 h, Delta's VACUUM one under 168 h; a file younger than that may belong to a commit in flight or
     * be read by a query planned on an old snapshot). Every way of setting the age goes through the floor:
     * {@code --older-than} younger than {@code --min-age} is refused and the catalog's {@code delete_older_than}
     * option is raised to it ({@link #cutoff}); maintain steps pass the same flags.
     *
     * @param minAge the floor in use
     * @param floor the command's floor (delete-orphan-files 24 h, cleanup-old-files 1 h)
     * @param allowShort whether --allow-short-retention was given
     * @param command the command name, for the message
     * @throws JanitorException USAGE
     */
    public static void checkFloor(Duration minAge, Duration floor, boolean allowShort, String command) throws JanitorException {
        if (minAge == null || minAge.isNegative()) {
            throw new JanitorException(Reason.USAGE, "--min-age must be a duration of 0 or more, got "
                    + (minAge == null ? "none" : "-" + Durations.format(minAge.negated())) + ".");
        }
        if (minAge.compareTo(floor) < 0 && !allowShort) {
            throw new JanitorException(Reason.USAGE, "--min-age " + Durations.format(minAge) + " is below the " + floor.toHours()
                    + " h floor of " + command + " (a younger file may belong to a commit in flight or be read by a running query);"
                    + " pass --allow-short-retention as well to go below it (logged and shown in the result).");
        }
    }

    /**
     * The one check of an age limit on its own: a duration must be 0 or more and at most {@link Durations#MAX}
     * (the grammar refuses both when the limit is spelled; a library caller gives it as a {@link Duration}).
     *
     * @param olderThan the limit, or null (the catalog's option, else the default)
     * @throws JanitorException USAGE
     */
    public static void checkOlderThan(AgeThreshold olderThan) throws JanitorException {
        if (olderThan == null || olderThan.duration() == null) {
            return;
        }
        if (olderThan.duration().isNegative()) {
            throw new JanitorException(Reason.USAGE, "--older-than " + olderThan.text() + " is negative; give a duration"
                    + " of 0 or more.");
        }
        if (olderThan.duration().compareTo(Durations.MAX) > 0) {
            throw new JanitorException(Reason.USAGE, "--older-than " + olderThan.text() + " is longer than 100 years, the"
                    + " longest duration accepted.");
        }
    }

    /**
     * The cutoff and where it came from.
     *
     * @param cutoff files / rows strictly older than this instant are acted on
     * @param source {@code --older-than}, {@code delete_older_than option} or {@code default 2 days}
     * @param text the spelling used
     */
    public record Cutoff(Instant cutoff, String source, String text) {
    }

    /**
     * Works out the cutoff.
     *
     * @param c an open connection
     * @param schema the metadata schema (for the delete_older_than option)
     * @param olderThan the flag's value, or null
     * @param minAge the floor
     * @param now the current time
     * @return the cutoff
     * @throws JanitorException USAGE when --older-than is younger than --min-age; UNSAFE_CATALOG_STATE when the catalog option
     *     cannot be parsed
     * @throws SQLException on database errors
     */
    public static Cutoff cutoff(Connection c, String schema, AgeThreshold olderThan, Duration minAge, Instant now)
            throws JanitorException, SQLException {
        Instant floor = now.minus(minAge);
        if (olderThan != null) {
            Instant cut = olderThan.cutoff(now);
            checkOlderThan(olderThan);
            if (cut.isAfter(floor)) {
                throw new JanitorException(Reason.USAGE, "--older-than " + olderThan.text() + " reaches files younger than --min-age "
                        + Durations.format(minAge) + " (files still being written or committed); lower --min-age explicitly to go"
                        + " under it.");
            }
            return new Cutoff(cut, "--older-than", olderThan.text());
        }
        String opt = CatalogFiles.option(c, schema, "delete_older_than");
        String source = "delete_older_than option";
        if (opt == null || opt.isBlank()) {
            opt = DUCKLAKE_DEFAULT;
            source = "default 2 days";
        }
        AgeThreshold t;
        try {
            t = AgeThreshold.parse(opt);
        } catch (IllegalArgumentException e) {
            // a catalog option, not the janitor's configuration file (exit 11): the catalog state, as expire-snapshots
            // reports an unreadable expire_older_than
            throw new JanitorException(Reason.UNSAFE_CATALOG_STATE, "The catalog option delete_older_than cannot be read: "
                    + e.getMessage() + "; fix it with set_option, or pass --older-than. Nothing was deleted.");
        }
        Instant cut = t.cutoff(now);
        if (cut.isAfter(floor)) {
            return new Cutoff(floor, source + " raised to --min-age", Durations.format(minAge));
        }
        return new Cutoff(cut, source, opt);
    }
}
