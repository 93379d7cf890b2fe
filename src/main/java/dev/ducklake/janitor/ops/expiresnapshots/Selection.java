package dev.ducklake.janitor.ops.expiresnapshots;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * Which snapshots a run expires, fixed once at the start of the run and re-applied to every batch as a SQL
 * predicate over {@code ducklake_snapshot} (values always bound, never written into the SQL).
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
}
