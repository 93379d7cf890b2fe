package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.pg.Sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
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
 * <p>It also holds, per catalog, the highest {@code data_file_id} and {@code delete_file_id} at that reading
 * ({@link #idsAtLoad}): DuckLake 1.5.5 gives every file it commits the next id of its commit snapshot
 * ({@code commit_snapshot.next_file_id++} in {@code DuckLakeTransaction}'s commit, in
 * {@code src/storage/ducklake_transaction.cpp}), and a commit that loses the race for a snapshot id retries from the
 * newer snapshot, so a file row committed after the reading has an id above every id at the reading. The re-check
 * reads only those rows, a range of each file table's primary key, instead of a sequential scan of the whole
 * table per batch. A row inserted outside DuckLake with an id at or below them is not seen, like a change without a
 * snapshot.
 *
 * <p>One statement per database (a {@code UNION ALL} over its catalogs), each in its own short transaction on the
 * connection that database is read through (the swept session's transaction is committed first). Not thread-safe.
 */
public final class CatalogWatermark {

    private final Map<Connection, List<ConsultedCatalogs.Catalog>> byConnection = new LinkedHashMap<>();
    /** A catalog of the database being read (for a lock wait's message), and its schema when one catalog is read. */
    private ConsultedCatalogs.Catalog reading;
    private String readingSchema;
    /** The reading's statement of each connection, built on first use. */
    private final Map<Connection, String> statements = new IdentityHashMap<>();
    /** The highest file ids of each catalog whose file tables could be read at the reading, by identity. */
    private final Map<ConsultedCatalogs.Catalog, FileIds> idsAtLoad = new IdentityHashMap<>();
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

    /**
     * The highest ids of a catalog's file rows at a reading: every file row DuckLake commits after it has an id above
     * the one of its table.
     *
     * @param dataFile the highest {@code data_file_id}, -1 without rows
     * @param deleteFile the highest {@code delete_file_id}, -1 without rows
     */
    record FileIds(long dataFile, long deleteFile) {
    }

    private static boolean readable(Connection c, String schema) throws SQLException {
        return readable(c, schema, "ducklake_snapshot");
    }

    private static boolean readable(Connection c, String schema, String table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT coalesce(pg_catalog.has_table_privilege(pg_catalog.to_regclass(?), 'SELECT'), false)")) {
            ps.setString(1, Sql.qualified(schema, table));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        } finally {
            c.commit();
        }
    }

    /** Reads {@link #idsAtLoad} of every catalog whose two file tables can be read (an index lookup each). */
    private void readIds(ConsultedCatalogs consulted, List<ConsultedCatalogs.Catalog> all) throws SQLException {
        for (ConsultedCatalogs.Catalog cat : all) {
            Connection c = consulted.connection(cat);
            reading = cat;
            readingSchema = cat.schema();
            if (!readable(c, cat.schema(), "ducklake_data_file") || !readable(c, cat.schema(), "ducklake_delete_file")) {
                continue; // re-checked by a scan of all its rows
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT (SELECT coalesce(max(data_file_id), -1) FROM "
                    + Sql.qualified(cat.schema(), "ducklake_data_file") + "), (SELECT coalesce(max(delete_file_id), -1) FROM "
                    + Sql.qualified(cat.schema(), "ducklake_delete_file") + ")");
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                idsAtLoad.put(cat, new FileIds(rs.getLong(1), rs.getLong(2)));
            } finally {
                c.commit();
            }
        }
    }

    /**
     * The highest file ids of a catalog at the reading taken before the known set: the re-check reads only its rows
     * above them.
     *
     * @param cat a consulted catalog of the run
     * @return its ids, or null when its file tables could not be read then (its re-check reads every row)
     */
    FileIds idsAtLoad(ConsultedCatalogs.Catalog cat) {
        return idsAtLoad.get(cat);
    }

    /**
     * The watermark of a run's consulted catalogs, read now: call before the known set is loaded, so that a commit
     * between the two shows as a change.
     *
     * @param session the swept session (autocommit off; its transaction is committed)
     * @param consulted the catalogs the known set is loaded from
     * @return the watermark
     * @throws JanitorException {@link JanitorException.Reason#DATABASE_ERROR} naming the database (and catalog) when a
     *     read waited past the lock timeout ({@link ConsultedCatalogs#lockWait})
     * @throws SQLException on other database errors
     */
    public static CatalogWatermark read(Connection session, ConsultedCatalogs consulted) throws JanitorException, SQLException {
        CatalogWatermark w = new CatalogWatermark(session, consulted);
        try {
            w.atLoad = w.now();
            List<ConsultedCatalogs.Catalog> all = new ArrayList<>(consulted.catalogs());
            all.addAll(consulted.reachOnly());
            w.readIds(consulted, all);
        } catch (SQLException e) {
            JanitorException named = w.reading == null ? null
                    : ConsultedCatalogs.lockWait(e, w.reading.database(), w.readingSchema);
            if (named != null) {
                throw named;
            }
            throw e;
        }
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

    /** One database's reading: the newest snapshot of each of its catalogs, in the order of {@code cats}. */
    private static String statement(List<ConsultedCatalogs.Catalog> cats) {
        StringBuilder sql = new StringBuilder();
        for (ConsultedCatalogs.Catalog cat : cats) {
            sql.append(sql.length() == 0 ? "" : " UNION ALL ").append("(SELECT ?::int, coalesce(max(snapshot_id), -1) FROM ")
                    .append(Sql.qualified(cat.schema(), "ducklake_snapshot")).append(")");
        }
        return sql.append(" ORDER BY 1").toString();
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
            reading = cats.get(0);
            readingSchema = cats.size() == 1 ? reading.schema() : null;
            String sql = statements.computeIfAbsent(c, k -> statement(cats));
            c.commit();
            try (PreparedStatement ps = c.prepareStatement(sql)) {
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
