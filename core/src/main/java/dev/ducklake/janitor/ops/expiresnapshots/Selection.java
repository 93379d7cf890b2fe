package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.SqlState;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * Which snapshots a run expires, fixed once at the start of the run ({@link #resolve}) and re-applied to every batch as a
 * SQL predicate over {@code ducklake_snapshot} (values always bound, never written into the SQL).
 *
 * <p>Mirrors the selection of DuckLake's {@code ducklake_expire_snapshots} ({@code src/functions/
 * ducklake_expire_snapshots.cpp}: {@code snapshot_id != max(snapshot_id) AND snapshot_time < T}, or
 * {@code snapshot_id IN (versions)}) and adds the janitor's own guards: {@code --retain-last} (ids below the
 * N-th newest at the start), {@code --min-age} ({@code snapshot_time < now() - minAge}, skipped when minAge is
 * zero) and the newest snapshot at the start of the run ({@code snapshot_id < newest}).
 *
 * @param newestAtStart the newest snapshot id when the run started (never expired)
 * @param cutoff expire only {@code snapshot_time < cutoff}; null = no time criterion
 * @param retainBoundary expire only ids below this (the N-th newest id; {@link Long#MIN_VALUE} when the catalog has
 *     fewer snapshots than --retain-last keeps); null = no count criterion
 * @param versions expire only these ids; null = no list
 * @param minAgeCutoff expire only {@code snapshot_time < minAgeCutoff}; null when --min-age is 0
 * @param source where the criterion came from: {@code older_than}, {@code retain_last}, {@code versions},
 *     {@code catalog_option} (combinations joined with {@code +})
 */
record Selection(long newestAtStart, Instant cutoff, Long retainBoundary, long[] versions, Instant minAgeCutoff,
                 String source) {

    /** The predicate on ducklake_snapshot columns {@code snapshot_id}, {@code snapshot_time} (no alias). */
    String predicate() {
        StringBuilder sb = new StringBuilder("snapshot_id < ?");
        if (cutoff != null) {
            sb.append(" AND snapshot_time < ?");
        }
        if (retainBoundary != null) {
            sb.append(" AND snapshot_id < ?");
        }
        if (versions != null) {
            sb.append(" AND snapshot_id = ANY (?)");
        }
        if (minAgeCutoff != null) {
            sb.append(" AND snapshot_time < ?");
        }
        return sb.toString();
    }

    /**
     * Binds the values of {@link #predicate()} from position {@code first}.
     *
     * @return the next free position
     */
    int bind(Connection c, PreparedStatement ps, int first) throws SQLException {
        int i = first;
        ps.setLong(i++, newestAtStart);
        if (cutoff != null) {
            ps.setObject(i++, timestamp(cutoff));
        }
        if (retainBoundary != null) {
            ps.setLong(i++, retainBoundary);
        }
        if (versions != null) {
            Long[] boxed = new Long[versions.length];
            for (int k = 0; k < versions.length; k++) {
                boxed[k] = versions[k];
            }
            ps.setArray(i++, c.createArrayOf("bigint", boxed));
        }
        if (minAgeCutoff != null) {
            ps.setObject(i++, timestamp(minAgeCutoff));
        }
        return i;
    }

    /** An instant as a bind value, truncated to microseconds (PostgreSQL's and DuckDB's precision). */
    static OffsetDateTime timestamp(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC);
    }

    /** A one-line description for progress lines. */
    String describe() {
        List<String> parts = new ArrayList<>();
        if (cutoff != null) {
            parts.add("snapshot_time < " + cutoff);
        }
        if (retainBoundary != null) {
            // Long.MIN_VALUE: the catalog has no more snapshots than --retain-last keeps, so nothing is selected
            parts.add(retainBoundary == Long.MIN_VALUE ? "none (the catalog has no more snapshots than --retain-last keeps)"
                    : "snapshot_id < " + retainBoundary + " (retain-last)");
        }
        if (versions != null) {
            parts.add(versions.length + " listed version(s)");
        }
        if (minAgeCutoff != null) {
            parts.add("snapshot_time < " + minAgeCutoff + " (min-age)");
        }
        parts.add("snapshot_id < " + newestAtStart + " (newest kept)");
        return String.join(" AND ", parts) + " [" + source + "]";
    }

    // ---------------------------------------------------------------- resolution at the start of a run

    /**
     * What {@code --versions} names that this run will not expire, for a warning (DuckLake's own function passes them
     * over without a word): ids with no snapshot, and the newest snapshot, which is never expired.
     *
     * @return one warning per kind, naming the ids; empty when every id names an older snapshot
     */
    static List<String> versionsNotExpired(Connection c, ExpiryLayout layout, List<Long> versions) throws SQLException {
        List<Long> missing = new ArrayList<>();
        List<Long> newest = new ArrayList<>();
        String snap = layout.q("ducklake_snapshot");
        try (PreparedStatement ps = c.prepareStatement("SELECT v, NOT EXISTS (SELECT 1 FROM " + snap + " s WHERE s.snapshot_id = v)"
                + " FROM unnest(?::bigint[]) v WHERE NOT EXISTS (SELECT 1 FROM " + snap + " s WHERE s.snapshot_id = v)"
                + " OR v = (SELECT max(snapshot_id) FROM " + snap + ") ORDER BY v")) {
            ps.setArray(1, c.createArrayOf("bigint", versions.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    (rs.getBoolean(2) ? missing : newest).add(rs.getLong(1));
                }
            }
        }
        List<String> out = new ArrayList<>();
        if (!missing.isEmpty()) {
            out.add("--versions names no snapshot of the catalog for " + missing + "; nothing is expired for them");
        }
        if (!newest.isEmpty()) {
            out.add("--versions names the newest snapshot " + newest + ", which is never expired");
        }
        return out;
    }

    /**
     * Fixes the selection once: the server's now(), the cutoff, the retain-last boundary, the min-age cutoff
     * and the newest snapshot.
     *
     * @param options the run's criteria ({@code --older-than}, {@code --retain-last}, {@code --versions}, {@code --min-age});
     *     without any, the catalog option {@code expire_older_than}
     * @return the selection, its source naming the criteria used
     * @throws JanitorException {@link Reason#USAGE} when no criterion is given and the catalog has no
     *     {@code expire_older_than} option; {@link Reason#UNSAFE_CATALOG_STATE} when that option is not an interval
     */
    static Selection resolve(Connection c, ExpiryLayout layout, ExpireSnapshotsOptions options) throws SQLException, JanitorException {
        Instant now;
        long newest;
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT now(), (SELECT max(snapshot_id) FROM " + layout.q("ducklake_snapshot") + ")")) {
            rs.next();
            now = rs.getObject(1, OffsetDateTime.class).toInstant();
            newest = rs.getLong(2);
        }
        Instant cutoff = null;
        Long boundary = null;
        long[] versions = null;
        List<String> source = new ArrayList<>();
        if (options.olderThan() != null) {
            cutoff = options.olderThan().cutoff(now);
            source.add("older_than");
        }
        if (options.retainLast() != null) {
            source.add("retain_last");
            try (PreparedStatement ps = c.prepareStatement("SELECT snapshot_id FROM " + layout.q("ducklake_snapshot")
                    + " ORDER BY snapshot_id DESC OFFSET ? LIMIT 1")) {
                ps.setInt(1, options.retainLast() - 1);
                try (ResultSet rs = ps.executeQuery()) {
                    boundary = rs.next() ? rs.getLong(1) : Long.MIN_VALUE;
                }
            }
        }
        if (options.versions() != null) {
            versions = options.versions().stream().mapToLong(Long::longValue).toArray();
            source.add("versions");
        }
        if (!options.hasCriterion()) {
            String option = layout.globalOption(c, "expire_older_than");
            if (option == null || option.isEmpty()) {
                throw new JanitorException(Reason.USAGE, "No criterion: give --older-than, --retain-last or --versions, or set "
                        + "the catalog option expire_older_than (CALL <lake>.set_option('expire_older_than', '30 days')).");
            }
            cutoff = intervalBefore(c, now, option);
            source.add("catalog_option");
        }
        Instant minAgeCutoff = options.minAge().isZero() ? null : now.minus(options.minAge());
        return new Selection(newest, cutoff, boundary, versions, minAgeCutoff, String.join("+", source));
    }

    /** now − the catalog's interval text, computed by PostgreSQL (DuckDB and PostgreSQL share the common forms). */
    private static Instant intervalBefore(Connection c, Instant now, String interval) throws SQLException, JanitorException {
        try (PreparedStatement ps = c.prepareStatement("SELECT ?::timestamptz - ?::interval")) {
            ps.setObject(1, timestamp(now));
            ps.setString(2, interval);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getObject(1, OffsetDateTime.class).toInstant();
            }
        } catch (SQLException e) {
            String state = SqlState.codeOf(e);
            if ("22007".equals(state) || "22P02".equals(state) || "22015".equals(state)) {
                throw new JanitorException(Reason.UNSAFE_CATALOG_STATE, "The catalog option expire_older_than is not an interval: '"
                        + interval + "'. Fix it with set_option, or pass --older-than.", e);
            }
            throw e;
        }
    }
}
