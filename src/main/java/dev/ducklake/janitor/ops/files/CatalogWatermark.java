package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.pg.Sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The newest snapshot of every consulted catalog, read cheaply to tell whether any of them committed since the known set
 * was read: DuckLake registers a file only in a commit, and every commit adds a snapshot ({@code ducklake_snapshot}'s
 * primary key, so {@code max(snapshot_id)} is an index lookup). cleanup-old-files reads it before each batch and runs
 * the full {@link CatalogRecheck} of the batch's files once a catalog moved since the known set was read (from then on
 * for every batch: the known set is not reloaded), instead of a sequential scan of every catalog's file tables per
 * batch of 1,000 on a quiet server. A change made to a catalog's tables outside DuckLake, without a snapshot,
 * is not seen.
 *
 * <p>One statement per database (a {@code UNION ALL} over its catalogs), each in its own short transaction on the
 * connection that database is read through (the swept session's transaction is committed first). Not thread-safe.
 */
public final class CatalogWatermark {

    private final Map<Connection, List<ConsultedCatalogs.Catalog>> byConnection = new LinkedHashMap<>();
    /** The reading taken before the known set was loaded. */
    private List<Long> atLoad;

    /**
     * Whether a consulted catalog's {@code ducklake_snapshot} cannot be read (not granted, or missing): then no reading
     * can tell a commit apart, and {@link #moved} always answers true (every batch is re-checked).
     */
    private boolean blind;

    private CatalogWatermark(Connection session, ConsultedCatalogs consulted) throws SQLException {
        List<ConsultedCatalogs.Catalog> all = new ArrayList<>(consulted.catalogs());
        all.addAll(consulted.reachOnly());
        for (ConsultedCatalogs.Catalog cat : all) {
            Connection c = consulted.connection(cat);
            if (readable(c, cat.schema())) {
                byConnection.computeIfAbsent(c, k -> new ArrayList<>()).add(cat);
            } else {
                blind = true;
            }
        }
    }

    private static boolean readable(Connection c, String schema) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT coalesce(pg_catalog.has_table_privilege(pg_catalog.to_regclass(?), 'SELECT'), false)")) {
            ps.setString(1, Sql.qualified(schema, "ducklake_snapshot"));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        } finally {
            c.commit();
        }
    }

    /**
     * The watermark of a run's consulted catalogs, read now: call before the known set is loaded, so that a commit
     * between the two shows as a change.
     *
     * @param session the swept session (autocommit off; its transaction is committed)
     * @param consulted the catalogs the known set is loaded from
     * @return the watermark
     * @throws SQLException on database errors
     */
    public static CatalogWatermark read(Connection session, ConsultedCatalogs consulted) throws SQLException {
        CatalogWatermark w = new CatalogWatermark(session, consulted);
        w.atLoad = w.now();
        return w;
    }

    /**
     * Whether a catalog committed a snapshot since the known set was read: then the known set may miss a file
     * registered since, and every batch from now on is re-checked (snapshots only grow, so once moved, a reading stays
     * moved: the mark is never advanced, since the known set is not reloaded).
     *
     * @param reading a reading of {@link #now}
     * @return whether it differs from the reading taken before the known set (always, when a catalog cannot be read)
     */
    public boolean moved(List<Long> reading) {
        return blind || !reading.equals(atLoad);
    }

    /**
     * The newest snapshot of each consulted catalog now, in a fixed order.
     *
     * @return the reading
     * @throws SQLException on database errors
     */
    public List<Long> now() throws SQLException {
        List<Long> out = new ArrayList<>();
        for (Map.Entry<Connection, List<ConsultedCatalogs.Catalog>> e : byConnection.entrySet()) {
            Connection c = e.getKey();
            List<ConsultedCatalogs.Catalog> cats = e.getValue();
            StringBuilder sql = new StringBuilder();
            for (ConsultedCatalogs.Catalog cat : cats) {
                sql.append(sql.length() == 0 ? "" : " UNION ALL ").append("(SELECT ?::int, coalesce(max(snapshot_id), -1) FROM ")
                        .append(Sql.qualified(cat.schema(), "ducklake_snapshot")).append(")");
            }
            sql.append(" ORDER BY 1");
            c.commit();
            try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
                for (int i = 0; i < cats.size(); i++) {
                    ps.setInt(i + 1, i);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(rs.getLong(2));
                    }
                }
            } finally {
                c.commit();
            }
        }
        return out;
    }
}
