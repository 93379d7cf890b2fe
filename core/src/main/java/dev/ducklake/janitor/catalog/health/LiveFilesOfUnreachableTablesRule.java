package dev.ducklake.janitor.catalog.health;

import dev.ducklake.janitor.catalog.OrphanPredicate;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code live_files_of_unreachable_tables}: {@code ducklake_data_file} and {@code ducklake_delete_file} rows with
 * {@code end_snapshot IS NULL} whose table_id no retained snapshot can see ({@link OrphanPredicate}). Unit: file rows.
 *
 * <p>Source: duckdb/ducklake#956 (a dropped table's data files kept {@code end_snapshot} NULL; whole-catalog compaction
 * then fails with "DuckLakeCompactor: failed to find table entry"), and expiries that removed the snapshots but not the
 * files (the leak of older releases). The files still take storage and are never scheduled for deletion. Fix:
 * expire-snapshots, which removes the files of unreachable tables and schedules them for deletion.
 */
final class LiveFilesOfUnreachableTablesRule extends NamedRule {

    LiveFilesOfUnreachableTablesRule() {
        super("live_files_of_unreachable_tables",
                "ducklake-janitor expire-snapshots (removes the files of unreachable tables and schedules them for deletion)");
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        long count = 0;
        List<String> examples = new ArrayList<>();
        for (String[] f : List.of(new String[] {"ducklake_data_file", "data_file_id"}, new String[] {"ducklake_delete_file", "delete_file_id"})) {
            if (!ctx.layout().has(f[0], f[1], "table_id", "end_snapshot")) {
                continue;
            }
            String where = " FROM " + ctx.t(f[0]) + " f WHERE f.end_snapshot IS NULL AND "
                    + OrphanPredicate.unreachable(ctx.schema(), "f.table_id");
            long n = ctx.count("SELECT count(*)" + where);
            count += n;
            if (n > 0 && examples.size() < ctx.maxExamples()) {
                examples.addAll(ctx.examples("SELECT f." + dev.ducklake.janitor.pg.Sql.ident(f[1]) + ", f.table_id, f.path" + where
                        + " ORDER BY 1 LIMIT ?", List.of(f[0] + " id=", "table_id=", "path="), ctx.maxExamples() - examples.size()));
            }
        }
        return finding(count, examples);
    }
}
