package dev.ducklake.janitor.ops.check;

import dev.ducklake.janitor.pg.Sql;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code orphaned_stats_rows}: the one definition of orphaned statistics rows, used by {@code check}, the
 * {@code ducklake_check_findings} gauge and {@code purge-orphan-stats} (which deletes exactly these rows). Unit: rows.
 * <ul>
 *   <li>table-level: {@code ducklake_table_stats} and {@code ducklake_table_column_stats} rows whose table_id has no
 *       {@code ducklake_table} row at all ({@link #tableLevelOrphan});</li>
 *   <li>per-file: {@code ducklake_file_column_stats} ({@code ducklake_file_column_statistics} before format 0.3),
 *       {@code ducklake_file_variant_stats} (from 0.4) and {@code ducklake_file_partition_value} rows whose data_file_id
 *       has no {@code ducklake_data_file} row ({@link #fileLevelOrphan}).</li>
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

    /** The table-level statistics tables, in the order purge-orphan-stats deletes from them (table stats first). */
    public static final List<String> TABLE_LEVEL = List.of("ducklake_table_stats", "ducklake_table_column_stats");

    /**
     * A boolean SQL expression: the row {@code alias} of a table-level stats table is orphaned (its table_id is not NULL
     * and has no {@code ducklake_table} row). Uses no bind parameters; hash anti-join on {@code ducklake_table}.
     *
     * @param schema the metadata schema
     * @param alias the alias of the stats table in the outer query (engine-written SQL)
     * @return the parenthesised expression
     */
    public static String tableLevelOrphan(String schema, String alias) {
        return "(" + alias + ".table_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM " + Sql.qualified(schema, "ducklake_table")
                + " dt WHERE dt.table_id = " + alias + ".table_id))";
    }

    /**
     * A boolean SQL expression: the row {@code alias} of a per-file stats table is orphaned (its data_file_id is not NULL
     * and has no {@code ducklake_data_file} row).
     *
     * @param schema the metadata schema
     * @param alias the alias of the stats table in the outer query
     * @return the parenthesised expression
     */
    public static String fileLevelOrphan(String schema, String alias) {
        return "(" + alias + ".data_file_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM " + Sql.qualified(schema, "ducklake_data_file")
                + " df WHERE df.data_file_id = " + alias + ".data_file_id))";
    }

    /**
     * The table-level stats tables present in this catalog (with a table_id column), in deletion order.
     *
     * @param layout the catalog layout
     * @return a subset of {@link #TABLE_LEVEL}
     */
    public static List<String> tableLevelTables(CatalogLayout layout) {
        return layout.has("ducklake_table", "table_id")
                ? TABLE_LEVEL.stream().filter(t -> layout.has(t, "table_id")).toList() : List.of();
    }

    /**
     * The per-file stats tables present in this catalog (with a data_file_id column).
     *
     * @param layout the catalog layout
     * @return the table names
     */
    public static List<String> fileLevelTables(CatalogLayout layout) {
        if (!layout.has("ducklake_data_file", "data_file_id")) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        String fcs = layout.fileColumnStatsTable();
        if (fcs != null) {
            out.add(fcs);
        }
        out.add("ducklake_file_variant_stats");
        out.add("ducklake_file_partition_value");
        return out.stream().filter(t -> layout.has(t, "data_file_id")).toList();
    }

    public OrphanedStatsRowsRule() {
        super("orphaned_stats_rows",
                "ducklake-janitor purge-orphan-stats");
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        long count = 0;
        List<String> examples = new ArrayList<>();
        for (String table : tableLevelTables(ctx.layout())) {
            count += part(ctx, table, "table_id", tableLevelOrphan(ctx.schema(), "s"), examples);
        }
        for (String table : fileLevelTables(ctx.layout())) {
            count += part(ctx, table, "data_file_id", fileLevelOrphan(ctx.schema(), "s"), examples);
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
                first = (Long) rs.getObject(2, Long.class);
            }
        }
        if (n > 0 && first != null && examples.size() < ctx.maxExamples()) {
            long rows = ctx.count("SELECT count(*) FROM " + ctx.t(table) + " s WHERE " + id + " = ?", first);
            examples.add(table + ": " + idColumn + "=" + first + " rows=" + rows + " (" + n + " orphaned rows in " + table + ")");
        }
        return n;
    }
}
