package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.pg.Sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The inlined-data relations that the tables an {@link ExpireBatch} removes take with them: which removable tables fit the
 * batch's lock budget, and which of their relations may be dropped.
 *
 * <p>Lock budget: the chosen tables' relations stay within {@code tableBudget} (the lock arithmetic of
 * drop-orphan-inline-tables, {@link dev.ducklake.janitor.pg.LockBudget}); the rest waits for a later batch. Guard beyond
 * DuckLake: a registry name that is not exactly {@code ducklake_inlined_data_<table_id>_<v>} or not a plain table of the
 * schema is never dropped. Both run inside the batch's transaction on its temporary tables ({@code pg_temp.dj_exp_removable}
 * in, {@code pg_temp.dj_exp_tables} chosen), read the removable tables' registry rows from {@code pg_temp.dj_exp_reg}
 * ({@link TableRows#registryRows}: no pass over the registry per batch) and match each relation name in {@code pg_class}
 * by one index probe.
 */
final class InlinedTableDrops {

    private InlinedTableDrops() {
    }

    /**
     * Removable tables in table_id order while the inlined relations they would drop stay within the budget
     * (always at least the first).
     *
     * @param registry whether the layout has {@code ducklake_inlined_data_tables} with table_id and table_name
     * @param tableBudget most inlined relations to drop in the batch; fills {@code pg_temp.dj_exp_tables} from
     *     {@code pg_temp.dj_exp_removable}
     */
    static void chooseWithinBudget(Connection c, ExpiryLayout layout, boolean registry, int tableBudget) throws SQLException {
        String names = registry
                ? "SELECT g.table_id, g.table_name FROM " + "pg_temp.dj_exp_reg g"
                    + " WHERE g.table_id IN (SELECT table_id FROM pg_temp.dj_exp_removable) UNION ALL "
                : "";
        String sql = "WITH n AS (" + names + "SELECT r.table_id, 'ducklake_inlined_delete_' || r.table_id FROM pg_temp.dj_exp_removable r),"
                // one probe of pg_class's (relname, relnamespace) index per name: a join let the planner hash all of
                // pg_class in every batch (a relation per leaked table, 94,000 rows at 10,000,000 snapshots)
                + " c AS (SELECT r.table_id, coalesce(sum((SELECT count(*) FROM pg_catalog.pg_class pc"
                + " WHERE pc.relname = n.table_name::name AND pc.relkind = 'r'"
                + " AND pc.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?))), 0) AS rels"
                + " FROM pg_temp.dj_exp_removable r LEFT JOIN n ON n.table_id = r.table_id"
                + " GROUP BY r.table_id),"
                + " s AS (SELECT table_id, sum(rels) OVER (ORDER BY table_id) AS cum, row_number() OVER (ORDER BY table_id) AS rn FROM c)"
                + " INSERT INTO pg_temp.dj_exp_tables SELECT table_id FROM s WHERE cum <= ? OR rn = 1";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, layout.schema());
            ps.setInt(2, tableBudget);
            ps.executeUpdate();
        }
    }

    /**
     * Names of the inlined relations the chosen tables drop: registered data tables whose name passes the
     * guard, and {@code ducklake_inlined_delete_<id>}; only those that exist as plain tables of the schema.
     *
     * @param registry as for {@link #chooseWithinBudget}
     * @param warnings receives one line per relation kept by the guard
     * @return the relation names (unquoted), for one {@code DROP TABLE IF EXISTS}
     */
    static List<String> inlinedTablesToDrop(Connection c, ExpiryLayout layout, boolean registry, List<String> warnings)
            throws SQLException {
        String names = (registry
                ? "SELECT g.table_id, g.schema_version, g.table_name FROM " + "pg_temp.dj_exp_reg g"
                    + " WHERE g.table_id IN (SELECT table_id FROM pg_temp.dj_exp_tables) UNION ALL "
                : "")
                + "SELECT t.table_id, NULL::bigint, 'ducklake_inlined_delete_' || t.table_id FROM pg_temp.dj_exp_tables t";
        String sql = "SELECT n.table_name, n.schema_version IS NULL OR n.table_name = 'ducklake_inlined_data_' || n.table_id || '_' || n.schema_version,"
                + " pc.relkind FROM (" + names + ") n(table_id, schema_version, table_name)"
                // an index probe per name (LIMIT keeps the planner from flattening it into a hash join over pg_class)
                + " CROSS JOIN LATERAL (SELECT p.relkind FROM pg_catalog.pg_class p WHERE p.relname = n.table_name::name"
                + " AND p.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?) LIMIT 1) pc";
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, layout.schema());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String name = rs.getString(1);
                    if (!rs.getBoolean(2)) {
                        warnings.add("registry name " + Sql.ident(name) + " is not ducklake_inlined_data_<table_id>_<schema_version>;"
                                + " its registry row goes with its table, the relation is kept");
                    } else if (!"r".equals(rs.getString(3))) {
                        warnings.add(Sql.ident(name) + " is not a plain table (relkind " + rs.getString(3) + "); kept");
                    } else {
                        out.add(name);
                    }
                }
            }
        }
        return out;
    }
}
