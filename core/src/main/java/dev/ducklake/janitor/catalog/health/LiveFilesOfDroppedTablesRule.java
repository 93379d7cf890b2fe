package dev.ducklake.janitor.catalog.health;

import dev.ducklake.janitor.pg.Sql;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code live_files_of_dropped_tables}: {@code ducklake_data_file} / {@code ducklake_delete_file} rows with
 * {@code end_snapshot IS NULL} whose table has {@code ducklake_table} rows, none of them open, and is still reachable
 * from a retained snapshot ({@link Reachability}) (the unreachable ones are {@code live_files_of_unreachable_tables}). Unit: file rows.
 *
 * <p>Source: duckdb/ducklake#956. DuckLake's DROP TABLE closes the table's file rows in the same commit
 * ({@code DropTables}: {@code UPDATE ducklake_data_file SET end_snapshot = …}), so an open file of a dropped table is
 * damage; {@code ducklake_merge_adjacent_files} (and CHECKPOINT) then picks it up and fails with "DuckLakeCompactor:
 * failed to find table entry for given snapshot id". Fix: none automatic now: once the drop is older than the retention,
 * expire-snapshots removes the files with the table; until then avoid whole-catalog compaction.
 */
final class LiveFilesOfDroppedTablesRule extends NamedRule {

    LiveFilesOfDroppedTablesRule() {
        super("live_files_of_dropped_tables",
                "none automatic now: once the drop is older than your retention, ducklake-janitor expire-snapshots removes these "
                        + "files with their table; until then whole-catalog compaction (merge_adjacent_files, CHECKPOINT) fails on them");
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        long count = 0;
        List<String> examples = new ArrayList<>();
        String table = ctx.t("ducklake_table");
        for (String[] f : List.of(new String[] {"ducklake_data_file", "data_file_id"}, new String[] {"ducklake_delete_file", "delete_file_id"})) {
            if (!ctx.layout().has(f[0], f[1], "table_id", "end_snapshot")) {
                continue;
            }
            String with = Reachability.with(ctx.schema(), f[0]);
            String where = " FROM " + ctx.t(f[0]) + " f WHERE f.end_snapshot IS NULL"
                    + " AND EXISTS (SELECT 1 FROM " + table + " t WHERE t.table_id = f.table_id)"
                    + " AND NOT EXISTS (SELECT 1 FROM " + table + " t WHERE t.table_id = f.table_id AND t.end_snapshot IS NULL)"
                    + " AND " + Reachability.reachable("f.table_id");
            long n = ctx.count(with + "SELECT count(*)" + where);
            count += n;
            if (n > 0 && examples.size() < ctx.maxExamples()) {
                examples.addAll(ctx.examples(with + "SELECT f." + Sql.ident(f[1]) + ", f.table_id, f.path" + where + " ORDER BY 1 LIMIT ?",
                        List.of(f[0] + " id=", "table_id=", "path="), ctx.maxExamples() - examples.size()));
            }
        }
        return finding(count, examples);
    }
}
