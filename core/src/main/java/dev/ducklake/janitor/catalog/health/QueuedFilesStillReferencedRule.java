package dev.ducklake.janitor.catalog.health;

import dev.ducklake.janitor.catalog.CatalogLayout;
import java.sql.SQLException;
import java.util.List;

/**
 * {@code queued_files_still_referenced}: rows of {@code ducklake_files_scheduled_for_deletion} whose full path is also the
 * full path of a {@code ducklake_data_file} or {@code ducklake_delete_file} row still in the catalog (open, or closed but
 * still readable by time travel). Deleting such a file loses data. Unit: queue rows.
 *
 * <p>Paths are resolved as DuckLake resolves them: a queue row relative to {@code data_path}; a file relative to its
 * table's path, the table's relative to its schema's, the schema's relative to {@code data_path} (each only when its
 * {@code path_is_relative} is true; format 0.1 has no schema or table paths). The newest row of a schema or table gives its
 * path. The comparison is on exact strings, in SQL. (A shared path resolver for the storage commands is being built
 * separately; this rule keeps its own minimal resolution.)
 *
 * <p>Source: DuckLake queues a file only when it removes the file's catalog row in the same transaction (expire, merge,
 * overwritten delete files; shared catalog notes, section 3), and {@code ducklake_cleanup_old_files} deletes queued files
 * without looking at the file tables; a row in both is damage. Public report: duckdb/ducklake#1354 (a Parquet file
 * registered for two tables with {@code ducklake_add_data_files}; expiring one table queued the path the other table still
 * reads, and cleanup deleted it); also hand-made queue entries and restores of file rows. Fix: none automatic: find out why the file is queued; remove the queue row by hand
 * only when the file must stay.
 */
final class QueuedFilesStillReferencedRule extends NamedRule {

    QueuedFilesStillReferencedRule() {
        super("queued_files_still_referenced",
                "none automatic: do not run cleanup-old-files until each is explained; a catalog file row still points at the "
                        + "queued file, so deleting it would lose data (remove the queue row by hand if the file must stay)");
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        CatalogLayout l = ctx.layout();
        if (!l.has("ducklake_files_scheduled_for_deletion", "data_file_id", "path", "path_is_relative")
                || !l.has("ducklake_metadata", "key", "value")) {
            return none();
        }
        String sql = resolvedQueue(ctx);
        long count = ctx.count("SELECT count(*) FROM (" + sql + ") x");
        List<String> examples = count == 0 ? List.of() : ctx.examples("SELECT data_file_id, path FROM (" + sql + ") x"
                + " ORDER BY data_file_id LIMIT ?", List.of("queued data_file_id=", "path="), ctx.maxExamples());
        return finding(count, examples);
    }

    /** The queue rows whose resolved path is a catalog file's resolved path (columns data_file_id, path). */
    private static String resolvedQueue(CheckContext ctx) {
        CatalogLayout l = ctx.layout();
        String dataPath = "(SELECT max(value) FROM " + ctx.t("ducklake_metadata") + " WHERE key = 'data_path'"
                + (l.has("ducklake_metadata", "scope") ? " AND scope IS NULL" : "") + ")";
        boolean schemaPaths = l.has("ducklake_schema", "schema_id", "path", "path_is_relative", "begin_snapshot");
        boolean tablePaths = l.has("ducklake_table", "table_id", "schema_id", "path", "path_is_relative", "begin_snapshot");
        StringBuilder sql = new StringBuilder("WITH dp AS (SELECT ").append(dataPath).append(" AS p)");
        if (schemaPaths) {
            sql.append(", sp AS (SELECT DISTINCT ON (schema_id) schema_id, CASE WHEN coalesce(path_is_relative, true)")
               .append(" THEN (SELECT p FROM dp) || coalesce(path, '') ELSE path END AS p FROM ").append(ctx.t("ducklake_schema"))
               .append(" ORDER BY schema_id, begin_snapshot DESC)");
        }
        if (tablePaths) {
            String base = schemaPaths ? "coalesce(sp.p, (SELECT p FROM dp))" : "(SELECT p FROM dp)";
            sql.append(", tp AS (SELECT DISTINCT ON (t.table_id) t.table_id, CASE WHEN coalesce(t.path_is_relative, true) THEN ")
               .append(base).append(" || coalesce(t.path, '') ELSE t.path END AS p FROM ").append(ctx.t("ducklake_table")).append(" t")
               .append(schemaPaths ? " LEFT JOIN sp ON sp.schema_id = t.schema_id" : "")
               .append(" ORDER BY t.table_id, t.begin_snapshot DESC)");
        }
        String tableBase = tablePaths ? "tp.p" : "(SELECT p FROM dp)";
        StringBuilder files = new StringBuilder();
        for (String f : List.of("ducklake_data_file", "ducklake_delete_file")) {
            if (!l.has(f, "table_id", "path", "path_is_relative")) {
                continue;
            }
            files.append(files.length() == 0 ? "" : " UNION ALL ")
                 .append("SELECT CASE WHEN coalesce(f.path_is_relative, true) THEN ").append(tableBase)
                 .append(" || f.path ELSE f.path END AS p FROM ").append(ctx.t(f)).append(" f")
                 .append(tablePaths ? " LEFT JOIN tp ON tp.table_id = f.table_id" : "");
        }
        if (files.length() == 0) {
            files.append("SELECT NULL::text AS p WHERE false");
        }
        sql.append(", files AS (").append(files).append(")")
           .append(" SELECT q.data_file_id, q.path FROM ").append(ctx.t("ducklake_files_scheduled_for_deletion")).append(" q")
           .append(" WHERE (CASE WHEN coalesce(q.path_is_relative, true) THEN (SELECT p FROM dp) || q.path ELSE q.path END)")
           .append(" IN (SELECT p FROM files WHERE p IS NOT NULL)");
        return sql.toString();
    }
}
