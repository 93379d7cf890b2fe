package dev.ducklake.janitor.catalog.health;

import java.sql.SQLException;
import java.util.List;

/**
 * {@code schema_versions_beyond_registry}: rows of {@code ducklake_schema_versions} (format 0.4 and later, where rows are
 * per table) that refer to no table of the catalog's table registry {@code ducklake_table}: a NULL table_id (a global
 * row of format 0.3 that the per-table migration should have replaced and deleted) or a table_id with no
 * {@code ducklake_table} row at all. Unit: rows.
 *
 * <p>Source: DuckLake's 0.3 to 0.4 migration ({@code MigrateV03}) turns the global rows into per-table rows and deletes
 * the global ones (duckdb/ducklake#979, #1108 on what that migration leaves); {@code ducklake_expire_snapshots} deletes a
 * table's rows only when it removes the table through its {@code ducklake_table} rows, so an expiry done another way
 * leaves them. Compaction and flush look schema versions up here. Fix: none automatic: DuckLake never reads rows of a
 * table it does not know, so they only take space; delete them by hand if wanted.
 */
final class SchemaVersionsBeyondRegistryRule extends NamedRule {

    SchemaVersionsBeyondRegistryRule() {
        super("schema_versions_beyond_registry",
                "none automatic: rows of no known table (or global rows the 0.3 to 0.4 migration left); DuckLake does not use them");
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        if (!ctx.layout().has("ducklake_schema_versions", "table_id", "begin_snapshot", "schema_version")) {
            return none();
        }
        String from = " FROM " + ctx.t("ducklake_schema_versions") + " v WHERE v.table_id IS NULL OR NOT EXISTS (SELECT 1 FROM "
                + ctx.t("ducklake_table") + " t WHERE t.table_id = v.table_id)";
        long count = ctx.count("SELECT count(*)" + from);
        List<String> examples = count == 0 ? List.of() : ctx.examples("SELECT v.table_id, v.begin_snapshot, v.schema_version" + from
                + " ORDER BY v.table_id NULLS FIRST, v.begin_snapshot LIMIT ?", List.of("table_id=", "begin_snapshot=", "schema_version="),
                ctx.maxExamples());
        return finding(count, examples);
    }
}
