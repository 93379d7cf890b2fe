package dev.ducklake.janitor.catalog.health;

import dev.ducklake.janitor.catalog.OrphanedStatsPredicate;
import dev.ducklake.janitor.pg.Sql;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code orphaned_stats_rows}: the rows of {@link OrphanedStatsPredicate} (the one definition of orphaned statistics rows,
 * also used by the {@code ducklake_check_findings} gauge and {@code purge-orphan-stats}, which deletes exactly these
 * rows). Unit: rows.
 * <ul>
 *   <li>table-level: {@code ducklake_table_stats} and {@code ducklake_table_column_stats} rows whose table_id has no
 *       {@code ducklake_table} row at all ({@link OrphanedStatsPredicate#tableLevelOrphan});</li>
 *   <li>per-file: {@code ducklake_file_column_stats} ({@code ducklake_file_column_statistics} before format 0.3),
 *       {@code ducklake_file_variant_stats} (from 0.4) and {@code ducklake_file_partition_value} rows whose data_file_id
 *       has no {@code ducklake_data_file} row ({@link OrphanedStatsPredicate#fileLevelOrphan}).</li>
 * </ul>
 * Rows with a NULL id are never counted (no id to tie them to; DuckLake never writes them).
 *
 * <p>Source: DuckLake's DROP TABLE leaves the stats rows, and {@code ducklake_expire_snapshots} deletes them only for
 * tables it removes through their {@code ducklake_table} rows (shared catalog notes, section 3); an expiry that removed
 * the table rows another way (older releases, hand-written SQL) leaves them for good. DuckLake's commit path reads both
 * table-stats tables in full on every commit, so orphans slow every writer: a public report found a production catalog at
 * 99.3 % orphaned column-stats rows committing 30–50× slower until purged (PostHog/millpond#102). Per-file rows of
 * deleted data files: duckdb/ducklake#986 (variant stats left behind after expiry). A table_id that has any
 * {@code ducklake_table} row is never counted: DuckLake removes those stats itself at expiry. Fix: purge-orphan-stats.
 */
public final class OrphanedStatsRowsRule extends NamedRule {

    public OrphanedStatsRowsRule() {
        super("orphaned_stats_rows",
                "ducklake-janitor purge-orphan-stats");
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        long count = 0;
        List<String> examples = new ArrayList<>();
        for (String table : OrphanedStatsPredicate.tableLevelTables(ctx.layout())) {
            count += part(ctx, table, "table_id", OrphanedStatsPredicate.tableLevelOrphan(ctx.schema(), "s"), examples);
        }
        for (String table : OrphanedStatsPredicate.fileLevelTables(ctx.layout())) {
            count += part(ctx, table, "data_file_id", OrphanedStatsPredicate.fileLevelOrphan(ctx.schema(), "s"), examples);
        }
        return finding(count, examples);
    }

    private static long part(CheckContext ctx, String table, String idColumn, String orphan, List<String> examples) throws SQLException {
        String id = "s." + Sql.ident(idColumn);
        long n = 0;
        Long first = null;
        // one scan with the anti-join gives the count and the lowest orphaned id; its rows are then counted without it
        try (java.sql.PreparedStatement ps = ctx.prepare("SELECT count(*), min(" + id + ") FROM " + ctx.t(table) + " s WHERE " + orphan);
             java.sql.ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
                n = rs.getLong(1);
                first = rs.getObject(2, Long.class);
            }
        }
        if (n > 0 && first != null && examples.size() < ctx.maxExamples()) {
            long rows = ctx.count("SELECT count(*) FROM " + ctx.t(table) + " s WHERE " + id + " = ?", first);
            examples.add(table + ": " + idColumn + "=" + first + " rows=" + rows + " (" + n + " orphaned rows in " + table + ")");
        }
        return n;
    }
}
