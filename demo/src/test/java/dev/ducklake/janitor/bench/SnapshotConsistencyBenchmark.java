package dev.ducklake.janitor.bench;

import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.catalog.SnapshotConsistency;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.sql.Connection;
import java.sql.Statement;
import java.util.Locale;

/**
 * Issue 10, item 1: the cost of the snapshot-consistency check next to the survey (dry run) on the benchmark catalog.
 * Not part of the default run; prints numbers, asserts only correctness:
 * {@code mvn -B -q test -Dtest=SnapshotConsistencyBenchmark -Dducklake.bench=true [-Dducklake.bench.n=230000]}.
 * Each leaked table also gets three ducklake_column rows (as DuckLake writes one per column), so the check scans
 * realistic ducklake_table and ducklake_column sizes.
 */
@EnabledIfSystemProperty(named = "ducklake.bench", matches = "true")
class SnapshotConsistencyBenchmark {

    @Test
    void checkCostNextToTheSurvey() throws Exception {
        int n = Integer.getInteger("ducklake.bench.n", 230_000);
        TestPostgres pg = TestPostgres.get();
        String schema = pg.freshSchema("consistency_bench");
        long t0 = System.nanoTime();
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            BenchCatalog.build(c, schema, n, 500);
            st.execute("INSERT INTO " + Sql.qualified(schema, "ducklake_column") + " (column_id, begin_snapshot, end_snapshot, table_id,"
                    + " column_order, column_name, column_type, nulls_allowed) SELECT k, t.begin_snapshot, t.end_snapshot, t.table_id, k,"
                    + " 'c' || k, 'int32', true FROM " + Sql.qualified(schema, "ducklake_table") + " t, generate_series(1, 3) k"
                    + " WHERE t.table_name LIKE 'sync_events_%'");
            st.execute("ANALYZE " + Sql.qualified(schema, "ducklake_column"));
        }
        System.out.printf(Locale.ROOT, "built %d leaked tables in %.1f s%n", n, (System.nanoTime() - t0) / 1e9);
        try (Connection c = pg.connect()) {
            for (int i = 1; i <= 5; i++) {
                long a = System.nanoTime();
                SnapshotConsistency.Report r = SnapshotConsistency.check(c, schema, SnapshotConsistency.SAMPLE_IDS);
                double check = (System.nanoTime() - a) / 1e9;
                if (!r.consistent()) {
                    throw new AssertionError(r.describe());
                }
                a = System.nanoTime();
                CatalogInspector.inspect(c, schema, false);
                double inspect = (System.nanoTime() - a) / 1e9;
                System.out.printf(Locale.ROOT, "check %d: %.3f s (rest of the inspection %.3f s; rows per table %s)%n", i, check,
                        inspect, r.rowsPerTable());
            }
        }
        for (int i = 1; i <= 2; i++) {
            long a = System.nanoTime();
            DropOrphanInlineTablesResult dry = new DropOrphanInlineTables(pg.spec(), DropOrphanInlineTablesOptions.builder()
                    .metadataSchema(schema).dryRun(true).build(), ProgressListener.NONE).execute();
            System.out.printf(Locale.ROOT, "dry run %d (survey + probe, check included): %.3f s, orphan_rows %d%n", i,
                    (System.nanoTime() - a) / 1e9, dry.orphanRows());
        }
        // one DROP SCHEMA ... CASCADE of 230,000 tables would exceed the lock table: drop the tables in chunks first
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            while (true) {
                java.util.List<String> names = new java.util.ArrayList<>();
                try (java.sql.ResultSet rs = st.executeQuery("SELECT relname::text FROM pg_class WHERE relkind = 'r' AND relnamespace = '"
                        + Sql.ident(schema).replace("'", "''") + "'::regnamespace LIMIT 500")) {
                    while (rs.next()) {
                        names.add(Sql.qualified(schema, rs.getString(1)));
                    }
                }
                if (names.isEmpty()) {
                    break;
                }
                st.execute("DROP TABLE " + String.join(", ", names));
            }
            st.execute("DROP SCHEMA " + Sql.ident(schema) + " CASCADE");
        }
    }
}
