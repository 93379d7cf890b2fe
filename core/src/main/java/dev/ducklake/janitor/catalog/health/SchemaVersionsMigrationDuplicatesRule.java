package dev.ducklake.janitor.catalog.health;

import java.sql.SQLException;
import java.util.List;

/**
 * {@code schema_versions_migration_duplicates}: rows of {@code ducklake_schema_versions} repeating an earlier row's
 * (table_id, begin_snapshot) with another schema_version. Unit: surplus rows.
 *
 * <p>Source: duckdb/ducklake#1108. DuckLake's 0.3 to 0.4 migration joined the global schema-version rows with every table
 * alive at the time, giving a table many rows with its creation snapshot and schema versions from the whole catalog's
 * history; {@code ducklake_merge_adjacent_files} and CHECKPOINT then fail with "DuckLakeCompactor: failed to find table
 * entry for given snapshot id". A DuckLake commit writes at most one row per table (one snapshot, one schema version),
 * so a repeat is migration damage. Fix: none automatic: the repair (keep, per table, the rows of the snapshots where its
 * definition changed) needs the table's history; see duckdb/ducklake#979 and #1108.
 */
final class SchemaVersionsMigrationDuplicatesRule extends NamedRule {

    SchemaVersionsMigrationDuplicatesRule() {
        super("schema_versions_migration_duplicates",
                "none automatic: rows written by DuckLake's 0.3 to 0.4 migration (duckdb/ducklake#1108); compaction fails on these "
                        + "tables until the rows are repaired by hand");
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        if (!ctx.layout().has("ducklake_schema_versions", "table_id", "begin_snapshot", "schema_version")) {
            return none();
        }
        String groups = "SELECT table_id, begin_snapshot, count(*) AS n FROM " + ctx.t("ducklake_schema_versions")
                + " WHERE table_id IS NOT NULL GROUP BY table_id, begin_snapshot HAVING count(*) > 1";
        long count = ctx.count("SELECT coalesce(sum(n - 1), 0) FROM (" + groups + ") g");
        List<String> examples = count == 0 ? List.of() : ctx.examples("SELECT table_id, begin_snapshot, n FROM (" + groups + ") g"
                + " ORDER BY table_id, begin_snapshot LIMIT ?", List.of("table_id=", "begin_snapshot=", "rows="), ctx.maxExamples());
        return finding(count, examples);
    }
}
