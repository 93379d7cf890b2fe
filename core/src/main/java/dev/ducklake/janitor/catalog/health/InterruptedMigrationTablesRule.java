package dev.ducklake.janitor.catalog.health;

import dev.ducklake.janitor.catalog.InlinedTableName;

import java.sql.SQLException;
import java.util.List;

/**
 * {@code interrupted_migration_tables}: tables named {@code ducklake_inlined_data_<table_id>_<v>_migrated}
 * ({@link InlinedTableName#MIGRATED_REGEX}) in the metadata schema. Unit: tables. Every format version is checked: a
 * migration interrupted before it wrote the new version leaves the catalog at 1.0.
 *
 * <p>Source: DuckLake 1.1's PostgreSQL migration rewrites an inlined-data table whose columns still have 0.3-era types
 * through such a copy (create, copy rows, drop the original, rename the copy); an interrupted run leaves the copy. If
 * the original is gone, the copy holds the only copy of its rows. No command of this tool ever drops one
 * (drop-orphan-inline-tables' surveys cannot match the name; expire-snapshots drops only registered names and
 * {@code ducklake_inlined_delete_<id>}). Each example says whether the original table is still there.
 */
final class InterruptedMigrationTablesRule extends NamedRule {

    InterruptedMigrationTablesRule() {
        super("interrupted_migration_tables",
                "back up the catalog first; if the original table (the name without _migrated) is missing, the copy holds its rows: "
                        + "ALTER TABLE <name>_migrated RENAME TO <name>; if the original is present, the copy is a partial one: drop it "
                        + "by hand once the original is checked; then run DuckLake's migration again (ATTACH ... AUTOMATIC_MIGRATION TRUE). "
                        + "ducklake-janitor never drops these tables");
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        String from = " FROM pg_catalog.pg_class c WHERE c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?)"
                + " AND c.relkind IN ('r', 'p') AND c.relname ~ ?";
        long count = ctx.count("SELECT count(*)" + from, ctx.schema(), InlinedTableName.MIGRATED_REGEX);
        if (count == 0) {
            return none();
        }
        List<String> examples = ctx.examples("SELECT c.relname::text, CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_class o"
                + " WHERE o.relnamespace = c.relnamespace AND o.relname::text = left(c.relname::text, -?)) THEN 'present' ELSE 'missing' END"
                + from + " ORDER BY 1 LIMIT ?", List.of("", "original="), InlinedTableName.MIGRATED_SUFFIX.length(), ctx.schema(),
                InlinedTableName.MIGRATED_REGEX, ctx.maxExamples());
        return finding(count, examples);
    }
}
