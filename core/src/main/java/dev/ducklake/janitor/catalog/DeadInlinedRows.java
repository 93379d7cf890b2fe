package dev.ducklake.janitor.catalog;

import dev.ducklake.janitor.pg.Sql;

/**
 * The one definition of a dead inlined row: a row of an inlined-data table whose interval
 * {@code [begin_snapshot, end_snapshot)} holds no retained snapshot id, so no reader at any retained snapshot can see it
 * (DuckLake's visibility rule: visible at S when {@code begin_snapshot <= S AND (end_snapshot IS NULL OR S < end_snapshot)};
 * an open row is never dead). Used by {@code check}'s {@code dead_inlined_rows} and by {@code expire-snapshots}, which deletes
 * them. Do not write this SQL anywhere else.
 *
 * <p>Source: duckdb/ducklake commit e2355911 ("Reclaim inlined rows that no surviving snapshot can read", PR #1391, fixing
 * #1390; in {@code DuckLakeMetadataManager::DeleteSnapshots}, {@code src/storage/ducklake_metadata_manager.cpp}, after DuckLake
 * 1.5.5): after removing the expired snapshots and the removable tables, expiry deletes from every registered inlined-data table
 * the rows with {@code end_snapshot IS NOT NULL AND NOT EXISTS (a snapshot_id in [begin_snapshot, end_snapshot))}, with the
 * version's column names ({@code _ducklake_begin_snapshot} / {@code _ducklake_end_snapshot} from 1.1-dev1 on). It covers only
 * the registered inlined-data tables: inlined deletions ({@code ducklake_inlined_delete_<id>}) have no end snapshot.
 *
 * <p>Cost: {@code ducklake_snapshot} has a primary key on {@code snapshot_id}, so the test of one row is one index range probe.
 */
public final class DeadInlinedRows {

    private DeadInlinedRows() {
    }

    /**
     * A boolean SQL expression, true for a dead row.
     *
     * @param alias the inlined table's alias in the outer query (engine-written SQL)
     * @param snapshots the relation of retained snapshot ids (a quoted, qualified {@code ducklake_snapshot}, or a dry run's
     *     private copy with a {@code snapshot_id} column)
     * @param version the catalog format version (names the system columns)
     * @return the parenthesised expression, without bind parameters
     */
    public static String where(String alias, String snapshots, FormatVersion version) {
        String begin = alias + "." + Sql.ident(version.inlinedSystemColumn("begin_snapshot"));
        String end = alias + "." + Sql.ident(version.inlinedSystemColumn("end_snapshot"));
        return "(" + end + " IS NOT NULL AND NOT EXISTS (SELECT 1 FROM " + snapshots + " s WHERE s.snapshot_id >= " + begin
                + " AND s.snapshot_id < " + end + "))";
    }
}
