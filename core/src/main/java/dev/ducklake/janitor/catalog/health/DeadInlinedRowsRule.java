package dev.ducklake.janitor.catalog.health;

import dev.ducklake.janitor.catalog.DeadInlinedRows;
import dev.ducklake.janitor.pg.SqlState;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code dead_inlined_rows}: rows of the registered inlined-data tables of reachable tables whose interval
 * {@code [begin_snapshot, end_snapshot)} holds no retained snapshot ({@code end_snapshot} set and no
 * {@code ducklake_snapshot} row with {@code begin_snapshot <= snapshot_id < end_snapshot}): no reader can see them any
 * more. Format 1.1-dev1 names the columns {@code _ducklake_begin_snapshot} / {@code _ducklake_end_snapshot}. Unit: rows.
 * Inlined tables of unreachable tables are {@code unreachable_inlined_tables}, not counted here.
 *
 * <p>Cost: only tables with at least one heap block are read (a zero-block heap holds no row), in UNION ALL statements of
 * {@value #CHUNK} tables; a table dropped meanwhile (DuckLake's own post-flush cleanup) is skipped.
 *
 * <p>Source: duckdb/ducklake#1390 ("Dead inlined rows are never reclaimed by expire_snapshots + cleanup_old_files",
 * fixed after DuckLake 1.5.5 by #1391; also #1067): a DELETE or UPDATE of an inlined row only sets its end snapshot, and
 * only {@code ducklake_flush_inlined_data} removes it. Fix: DuckLake's {@code ducklake_flush_inlined_data} (or
 * CHECKPOINT), which writes the table's inlined rows to Parquet; a DuckLake release with #1391 reclaims them at expiry.
 */
final class DeadInlinedRowsRule extends NamedRule {

    static final int CHUNK = 250;

    DeadInlinedRowsRule() {
        super("dead_inlined_rows",
                "ducklake-janitor expire-snapshots (deletes them, as DuckLake's expiry does after 1.5.5; 1.5.5's does not: "
                        + "duckdb/ducklake#1390), or DuckLake's CALL ducklake_flush_inlined_data('<catalog>') or CHECKPOINT");
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        if (!ctx.info().hasInlinedRegistry()) {
            return none();
        }
        String begin = ctx.info().version().inlinedSystemColumn("begin_snapshot");
        String end = ctx.info().version().inlinedSystemColumn("end_snapshot");
        Map<Long, String> nameOf = new HashMap<>();
        List<Long> oids = new ArrayList<>();
        // the reachable registry rows and their relations first (materialized CTEs: PostgreSQL would otherwise push the
        // column check and pg_relation_size down into the pg_class scan and run them for every leaked table)
        try (PreparedStatement ps = ctx.prepare(Reachability.with(ctx.schema(), "ducklake_inlined_data_tables")
                + ", live AS MATERIALIZED (SELECT c.oid, r.table_name FROM " + ctx.t("ducklake_inlined_data_tables") + " r"
                + " JOIN pg_catalog.pg_class c ON c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?)"
                + " AND c.relname::text = r.table_name AND c.relkind = 'r' WHERE " + Reachability.reachable("r.table_id") + ")"
                + " SELECT l.oid::bigint, l.table_name FROM live l"
                + " WHERE (SELECT count(*) FROM pg_catalog.pg_attribute a WHERE a.attrelid = l.oid AND NOT a.attisdropped"
                + " AND a.attname::text = ANY (?)) = 2 AND pg_catalog.pg_relation_size(l.oid) > 0 ORDER BY l.table_name",
                ctx.schema(), ctx.conn().createArrayOf("text", new String[] {begin, end}));
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                if (nameOf.putIfAbsent(rs.getLong(1), rs.getString(2)) == null) {
                    oids.add(rs.getLong(1));
                }
            }
        }
        Map<Long, Long> dead = new HashMap<>();
        for (int i = 0; i < oids.size(); i += CHUNK) {
            List<Long> chunk = oids.subList(i, Math.min(oids.size(), i + CHUNK));
            Savepoint sp = ctx.conn().setSavepoint();
            try {
                dead.putAll(countDead(ctx, chunk, nameOf));
                ctx.conn().releaseSavepoint(sp);
            } catch (SQLException e) {
                if (!"42P01".equals(SqlState.codeOf(e))) {
                    throw e;
                }
                ctx.conn().rollback(sp);
                // a table went away since the listing: one at a time, skipping those that are gone
                for (Long oid : chunk) {
                    Savepoint one = ctx.conn().setSavepoint();
                    try {
                        dead.putAll(countDead(ctx, List.of(oid), nameOf));
                        ctx.conn().releaseSavepoint(one);
                    } catch (SQLException gone) {
                        if (!"42P01".equals(SqlState.codeOf(gone))) {
                            throw gone;
                        }
                        ctx.conn().rollback(one);
                    }
                }
            }
        }
        long total = dead.values().stream().mapToLong(Long::longValue).sum();
        List<String> examples = dead.entrySet().stream().filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<Long, Long>comparingByValue().reversed().thenComparing(e -> nameOf.get(e.getKey())))
                .limit(ctx.maxExamples()).map(e -> nameOf.get(e.getKey()) + ": " + e.getValue() + " dead rows").toList();
        return finding(total, examples);
    }

    private static Map<Long, Long> countDead(CheckContext ctx, List<Long> oids, Map<Long, String> nameOf)
            throws SQLException {
        StringBuilder sql = new StringBuilder();
        for (Long oid : oids) {
            sql.append(sql.length() == 0 ? "" : " UNION ALL ")
               .append("SELECT x.tableoid::bigint, count(*) FROM ").append(ctx.t(nameOf.get(oid))).append(" x WHERE ")
               .append(DeadInlinedRows.where("x", ctx.t("ducklake_snapshot"), ctx.info().version())).append(" GROUP BY 1");
        }
        Map<Long, Long> out = new HashMap<>();
        try (PreparedStatement ps = ctx.conn().prepareStatement(sql.toString()); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.put(rs.getLong(1), rs.getLong(2));
            }
        }
        return out;
    }
}
