package dev.ducklake.janitor.catalog;

import dev.ducklake.janitor.pg.Sql;

/**
 * The one definition of "this DuckLake table_id is unreachable", shared by every command and metric that
 * needs it ({@code drop-orphan-inline-tables}, the {@code ducklake_unreachable_inline_tables} metric, the
 * search for unregistered leftovers). Do not write this SQL anywhere else.
 *
 * <p>A table_id is unreachable when no {@code ducklake_table} row of it is open or covers a retained snapshot:
 * no row satisfies {@code end_snapshot IS NULL OR EXISTS (SELECT 1 FROM ducklake_snapshot s WHERE
 * s.snapshot_id >= begin_snapshot AND s.snapshot_id < end_snapshot)}. That is DuckLake's own visibility rule (a
 * version row is visible at snapshot S when {@code begin_snapshot <= S AND (end_snapshot IS NULL OR S < end_snapshot)})
 * tested against every retained snapshot id, not against the range [min, max] of them: after an expiry of snapshots in
 * the middle of the history ({@code ducklake_expire_snapshots(versions => [...])}, or a hand-written expiry that keeps
 * the oldest snapshot) a table that lived only in the gap is unreachable although older and newer snapshots remain.
 * {@code end_snapshot} is exclusive: a row ending at a retained snapshot id is not visible there, a row beginning at
 * one is. A table_id with no {@code ducklake_table} row at all is unreachable.
 *
 * <p>Source: the removable-tables query of {@code DuckLakeMetadataManager::DeleteSnapshots},
 * {@code src/storage/ducklake_metadata_manager.cpp} of duckdb/ducklake at commit 2ed0a0be (the same text in DuckLake
 * 1.5.5): a table goes when none of its rows is open or holds a remaining snapshot id in {@code [begin, end)}. Every
 * table_id DuckLake's expiry would remove is unreachable here, and so are table_ids without any ducklake_table row
 * (which DuckLake never looks at).
 *
 * <p>An open row ({@code end_snapshot IS NULL}) always makes its table_id reachable, whatever its
 * {@code begin_snapshot}: on a consistent catalog every open row begins at or before the newest snapshot, so
 * this changes nothing there; on a damaged catalog whose newest {@code ducklake_snapshot} rows are gone (a
 * hand-written expiry, a partial restore) it keeps the live tables' inlined data, which a plain
 * visibility test would call unreachable (issue 10). Such a catalog is refused anyway before any work by
 * {@link SnapshotConsistency}; this is the second, independent guard.
 *
 * <p>Cost: {@code ducklake_snapshot} has a primary key on {@code snapshot_id}, so the coverage test of one closed row
 * is one index range probe that stops at the first id found, whatever the number of snapshots.
 *
 * <p>Safety: the expression is false for every row when {@code ducklake_snapshot} is empty (no closed row could
 * cover a snapshot, so every table would otherwise be unreachable); callers also refuse to run on such a catalog.
 */
public final class OrphanPredicate {

    private OrphanPredicate() {
    }

    /**
     * A boolean SQL expression, true when the table_id given by {@code tableIdExpr} is unreachable.
     *
     * @param schema the metadata schema (quoted here through {@link Sql})
     * @param tableIdExpr an SQL expression of the outer query giving the table_id, e.g. {@code r.table_id};
     *     must be engine-written SQL, never user input
     * @return the parenthesised expression; it uses no bind parameters
     */
    public static String unreachable(String schema, String tableIdExpr) {
        String snapshot = Sql.qualified(schema, "ducklake_snapshot");
        String table = Sql.qualified(schema, "ducklake_table");
        return "(EXISTS (SELECT 1 FROM " + snapshot + ")"
                + " AND NOT EXISTS (SELECT 1 FROM " + table + " dt"
                + " WHERE dt.table_id = " + tableIdExpr
                + " AND (dt.end_snapshot IS NULL"
                + " OR EXISTS (SELECT 1 FROM " + snapshot + " s"
                + " WHERE s.snapshot_id >= dt.begin_snapshot AND s.snapshot_id < dt.end_snapshot))))";
    }

    /**
     * A CTE definition {@code unreachable AS MATERIALIZED (...)}: the distinct table_ids of {@code source} that
     * {@link #unreachable} calls unreachable, computed once (hash anti-join), for queries that need the complement: a row is
     * reachable when its id is not in the CTE ({@link #notInUnreachable}). Written as {@code NOT <unreachable>} instead, the
     * predicate's {@code NOT EXISTS} is no longer a top-level conjunct and PostgreSQL runs a correlated scan of the unindexed
     * {@code ducklake_table} per row (quadratic: minutes at 230,000 tables).
     *
     * @param schema the metadata schema
     * @param source a quoted table name or the name of an earlier CTE with a {@code table_id} column
     * @return the CTE definition, without bind parameters
     */
    public static String unreachableCte(String schema, String source) {
        return "unreachable AS MATERIALIZED (SELECT DISTINCT u.table_id FROM " + source + " u WHERE "
                + unreachable(schema, "u.table_id") + ")";
    }

    /**
     * A boolean SQL expression, true when the table_id expression is reachable: not in the CTE of {@link #unreachableCte}.
     *
     * @param tableIdExpr the outer query's table_id expression (engine-written SQL)
     * @return the parenthesised expression
     */
    public static String notInUnreachable(String tableIdExpr) {
        return "(NOT EXISTS (SELECT 1 FROM unreachable WHERE unreachable.table_id = " + tableIdExpr + "))";
    }

    /**
     * A query with one bigint column: the number of {@code ducklake_inlined_data_tables} rows whose
     * table_id is unreachable (orphan registry rows, whatever their table_name). This is the figure of
     * both the dry run's {@code orphan_rows} and the {@code ducklake_unreachable_inline_tables} metric.
     *
     * @param schema the metadata schema
     * @return the SQL text, without bind parameters
     */
    public static String countOrphanRegistryRows(String schema) {
        return "SELECT count(*) FROM " + Sql.qualified(schema, "ducklake_inlined_data_tables") + " r WHERE "
                + unreachable(schema, "r.table_id");
    }

    /**
     * A query with one bigint column and one bind parameter (the metadata schema's name, text): an upper bound of
     * the orphan registry rows whose inlined table still holds rows, i.e. what {@code drop-orphan-inline-tables}
     * keeps unless {@code --include-nonempty} is given. It counts the orphan registry rows whose table exists and
     * has at least one heap block ({@code pg_relation_size > 0}): a table without blocks holds no row (the dry run
     * uses the same fact), but a table whose rows were all deleted (flushed) keeps its blocks until VACUUM truncates
     * it, so the figure can exceed the exact count, which only the dry run's per-table probe gives. Cost: one
     * file-size call per orphan table (no table is read or locked beyond the instant of the size call).
     *
     * @param schema the metadata schema (quoted here)
     * @return the SQL text
     */
    public static String countOrphanRegistryRowsWithHeapBlocks(String schema) {
        return "SELECT count(*) FROM " + Sql.qualified(schema, "ducklake_inlined_data_tables") + " r"
                + " JOIN pg_catalog.pg_class c ON c.relname::text = r.table_name AND c.relkind = 'r'"
                + " AND c.relnamespace = (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = ?)"
                + " WHERE pg_catalog.pg_relation_size(c.oid) > 0 AND " + unreachable(schema, "r.table_id");
    }
}
