package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.catalog.DeadInlinedRows;
import dev.ducklake.janitor.catalog.OrphanPredicate;
import dev.ducklake.janitor.pg.SqlState;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The reclamation of dead inlined rows ({@link DeadInlinedRows}) that follows the snapshot batches of an expiry: DuckLake's
 * fix for duckdb/ducklake#1390 (commit e2355911, PR #1391, after DuckLake 1.5.5), which deletes, at the end of
 * {@code DeleteSnapshots}, the rows of every registered inlined-data table that no remaining snapshot can see.
 *
 * <p>Which tables: the registered inlined-data tables of reachable DuckLake tables ({@link OrphanPredicate}) whose registry
 * name is exactly {@code ducklake_inlined_data_<table_id>_<schema_version>}, that exist as plain tables of the schema with
 * both snapshot columns of the format version, and that have at least one heap block (a table without blocks holds no row).
 * Tables of unreachable table_ids are left to drop-orphan-inline-tables, which drops them whole (DuckLake 1.5.5's own expiry
 * leaves none: it drops the inlined tables of the tables it removes).
 *
 * <p>Locks: each DELETE holds a row-exclusive lock on its table until commit, so the execute run deletes in transactions of
 * at most the run's lock budget of tables ({@code ExpireSnapshots}); a table dropped meanwhile (DuckLake's own post-flush
 * cleanup) is skipped through a savepoint. The dry run counts the same rows against its private copy of the remaining
 * snapshots.
 */
final class InlinedRowSweep {

    /** An inlined-data table to sweep: its relation oid and name. */
    record Target(long oid, String name) {
    }

    private InlinedRowSweep() {
    }

    /**
     * The tables to sweep, in name order.
     *
     * @param excluded null, or a relation with a {@code table_id} column whose tables are left out (the dry run's tables that
     *     its simulated expiry removes)
     */
    static List<Target> targets(Connection c, ExpiryLayout layout, String excluded) throws SQLException {
        List<Target> out = new ArrayList<>();
        if (!layout.has("ducklake_inlined_data_tables", "table_id", "table_name", "schema_version")) {
            return out;
        }
        String registry = layout.q("ducklake_inlined_data_tables");
        String sql = "WITH " + OrphanPredicate.unreachableCte(layout.schema(), registry)
                + ", live AS MATERIALIZED (SELECT c.oid, r.table_name FROM " + registry + " r"
                + " JOIN pg_catalog.pg_class c ON c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?)"
                + " AND c.relname::text = r.table_name AND c.relkind = 'r'"
                + " WHERE r.table_name = 'ducklake_inlined_data_' || r.table_id || '_' || r.schema_version"
                + " AND " + OrphanPredicate.notInUnreachable("r.table_id")
                + (excluded == null ? "" : " AND r.table_id NOT IN (SELECT table_id FROM " + excluded + ")") + ")"
                + " SELECT DISTINCT l.oid::bigint, l.table_name FROM live l"
                + " WHERE (SELECT count(*) FROM pg_catalog.pg_attribute a WHERE a.attrelid = l.oid AND NOT a.attisdropped"
                + " AND a.attname::text = ANY (?)) = 2 AND pg_catalog.pg_relation_size(l.oid) > 0 ORDER BY l.table_name";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, layout.schema());
            ps.setArray(2, c.createArrayOf("text", new String[] {layout.version().inlinedSystemColumn("begin_snapshot"),
                layout.version().inlinedSystemColumn("end_snapshot")}));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Target(rs.getLong(1), rs.getString(2)));
                }
            }
        }
        return out;
    }

    /**
     * Deletes (or, for a dry run, counts) the dead rows of the given tables inside the caller's transaction.
     *
     * @param snapshots the relation of remaining snapshot ids ({@code ducklake_snapshot}, or the dry run's copy)
     * @param delete true to delete, false to count only
     * @return rows deleted (or that would be)
     */
    static long sweep(Connection c, ExpiryLayout layout, List<Target> tables, String snapshots, boolean delete) throws SQLException {
        long total = 0;
        for (Target t : tables) {
            String where = DeadInlinedRows.where("x", snapshots, layout.version());
            String sql = delete ? "DELETE FROM " + layout.q(t.name()) + " x WHERE " + where
                    : "SELECT count(*) FROM " + layout.q(t.name()) + " x WHERE " + where;
            Savepoint sp = c.setSavepoint();
            try (Statement st = c.createStatement()) {
                if (delete) {
                    total += st.executeUpdate(sql);
                } else {
                    try (ResultSet rs = st.executeQuery(sql)) {
                        rs.next();
                        total += rs.getLong(1);
                    }
                }
                c.releaseSavepoint(sp);
            } catch (SQLException e) {
                if (!"42P01".equals(SqlState.codeOf(e))) {
                    throw e;
                }
                c.rollback(sp); // dropped since the listing: nothing left to reclaim there
            }
        }
        return total;
    }
}
