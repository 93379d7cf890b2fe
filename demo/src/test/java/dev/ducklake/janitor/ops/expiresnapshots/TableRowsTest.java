package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.SqlCapture;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27: an execute batch deletes and reads the per-table catalog rows of its tables at the addresses the run recorded
 * ({@link TableRows}), not by a pass over each table, and a stale address (a row updated or moved after the run's build)
 * falls back to the statement by table_id, leaving the catalog exactly as the batch with fresh addresses does.
 */
class TableRowsTest {

    private final TestPostgres pg = TestPostgres.get();

    /** Tables of the catalog built by {@link #catalog}: the live one and the dropped ones. */
    private record Catalog(String schema, long live, List<Long> gone, long newest) {
    }

    /**
     * A live table whose file is replaced at each of 5 snapshots, 40 tables created and dropped (every 4th with a second
     * schema version and an open data file that goes with its table), 5 snapshots after the last drop.
     */
    private Catalog catalog(String prefix) throws Exception {
        String s = pg.freshSchema(prefix);
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, s, FormatVersion.V1_0).create();
            long live = b.createTable("live", 1);
            List<Long> gone = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                long t = b.createTable("g" + i, 1);
                if (i % 4 == 0) {
                    b.addColumn(t);
                }
                gone.add(t);
            }
            long firstFile = b.snapshot();
            for (long t : gone) {
                b.dropTable(t);
            }
            long n = b.snapshot();
            try (Statement st = c.createStatement()) {
                st.execute("INSERT INTO " + Sql.qualified(s, "ducklake_snapshot") + " SELECT g, x.snapshot_time, x.schema_version,"
                        + " x.next_catalog_id, x.next_file_id FROM " + Sql.qualified(s, "ducklake_snapshot") + " x"
                        + " CROSS JOIN generate_series(" + (n + 1) + ", " + (n + 5) + ") g WHERE x.snapshot_id = " + n);
                st.execute("INSERT INTO " + Sql.qualified(s, "ducklake_data_file") + " (data_file_id, table_id, begin_snapshot,"
                        + " end_snapshot, path, path_is_relative, file_format) SELECT 700000 + g, " + live + ", g, g + 1,"
                        + " 'f-' || g || '.parquet', true, 'parquet' FROM generate_series(" + n + ", " + (n + 4) + ") g");
                st.execute("INSERT INTO " + Sql.qualified(s, "ducklake_data_file") + " (data_file_id, table_id, begin_snapshot,"
                        + " end_snapshot, path, path_is_relative, file_format) SELECT 800000 + t, t, " + firstFile + ", NULL,"
                        + " 'o-' || t || '.parquet', true, 'parquet' FROM unnest(ARRAY" + gone + "::bigint[]) t WHERE t % 4 = "
                        + (gone.get(0) % 4));
            }
            return new Catalog(s, live, gone, n + 5);
        }
    }

    /** One execute batch over every selectable snapshot; {@code afterBuild} runs between the run's build and the batch. */
    private static ExpireBatch.Figures batch(Connection c, Catalog k, ExpiryLayout layout, String afterBuild) throws Exception {
        Selection sel = new Selection(k.newest(), null, null, null, null, "older_than");
        new RunCandidates(c, Duration.ofMinutes(5), Duration.ofSeconds(30)).build(layout, sel);
        try (Statement st = c.createStatement()) {
            st.execute("SET search_path TO " + Sql.ident(k.schema()));
            if (afterBuild != null) {
                st.execute(afterBuild);
            }
        }
        c.setAutoCommit(false);
        try {
            ExpireBatch batch = new ExpireBatch(c, layout, false);
            batch.createTempTables();
            long[] taken = batch.takeSnapshots(sel, -1, 1000, false);
            batch.useRunSets(Long.MIN_VALUE, taken[2]);
            ExpireBatch.Figures f = batch.clean(taken, 1000, false);
            c.commit();
            return f;
        } finally {
            c.setAutoCommit(true);
            RunCandidates.drop(c);
        }
    }

    @Test
    void aBatchDeletesItsTablesRowsAtTheirAddressesNotByAPassOverEachTable() throws Exception {
        Catalog k = catalog("exp_rows_plan");
        try (Connection c = pg.connect()) {
            // a wide live table: ducklake_column holds 20,001 rows that no batch touches (a catalog of many tables)
            exec(c, "INSERT INTO " + Sql.qualified(k.schema(), "ducklake_column") + " (column_id, begin_snapshot, end_snapshot, table_id,"
                    + " column_order, column_name, column_type, nulls_allowed) SELECT g, 1, NULL, " + k.live() + ", g, 'x' || g, 'int32',"
                    + " true FROM generate_series(2, 20001) g");
            exec(c, "ANALYZE " + Sql.qualified(k.schema(), "ducklake_column"));
            ExpiryLayout layout = ExpiryLayout.read(c, k.schema(), FormatVersion.V1_0);
            Selection sel = new Selection(k.newest(), null, null, null, null, "older_than");
            new RunCandidates(c, Duration.ofMinutes(5), Duration.ofSeconds(30)).build(layout, sel);
            c.setAutoCommit(false);
            try {
                ExpireBatch batch = new ExpireBatch(c, layout, false);
                batch.createTempTables();
                long[] taken = batch.takeSnapshots(sel, -1, 1000, false);
                batch.useRunSets(Long.MIN_VALUE, taken[2]);
                assertThat(batch.collectRemovable()).as("every dropped table").isEqualTo(k.gone().size());
                exec(c, "INSERT INTO pg_temp.dj_exp_tables SELECT table_id FROM pg_temp.dj_exp_removable");
                int column = ExpireBatch.PER_TABLE.indexOf("ducklake_column");
                String plan = explain(c, "DELETE FROM " + TableRows.byAddress(layout, column, "pg_temp.dj_exp_tables"));
                assertThat(plan).as(plan).contains("Tid Scan on ducklake_column").doesNotContain("Seq Scan on ducklake_column");
                long rows = count(c, "SELECT count(*) FROM " + layout.q("ducklake_column")
                        + " WHERE table_id IN (SELECT table_id FROM pg_temp.dj_exp_tables)");
                assertThat(rows).as("the dropped tables' columns (every 4th table has two)").isEqualTo(50);
                assertThat(TableRows.recorded(c, column, "pg_temp.dj_exp_tables")).isEqualTo(rows);
                // the counts of every catalog table at once probe dj_run_rows' index too, once the run recorded many rows (here
                // 120,000 of other tables)
                exec(c, "INSERT INTO pg_temp.dj_run_rows SELECT g % " + ExpireBatch.PER_TABLE.size() + ", 1000000 + g, '(0,1)'::tid"
                        + " FROM generate_series(1, 120000) g");
                exec(c, "ANALYZE pg_temp.dj_run_rows");
                String counts = explain(c, TableRows.recordedPerTableSql("pg_temp.dj_exp_tables"));
                assertThat(counts).as(counts).contains("Index Cond").doesNotContain("Seq Scan on dj_run_rows");
                long[] recorded = TableRows.recordedPerTable(c, "pg_temp.dj_exp_tables");
                assertThat(recorded[column]).as("the count of all tables at once, for this one").isEqualTo(rows);
                for (int t = 0; t < recorded.length; t++) {
                    assertThat(recorded[t]).as(ExpireBatch.PER_TABLE.get(t)).isEqualTo(TableRows.recorded(c, t, "pg_temp.dj_exp_tables"));
                }
                assertThat(TableRows.delete(c, layout, column, recorded[column])).isEqualTo(rows);
                assertThat(count(c, "SELECT count(*) FROM " + layout.q("ducklake_column"))).as("the live table's columns").isEqualTo(20_001);
            } finally {
                c.rollback();
                c.setAutoCommit(true);
                RunCandidates.drop(c);
            }
        }
    }

    @Test
    void aBatchCountsTheAddressesOfAllItsCatalogTablesInOneStatement() throws Exception {
        Catalog k = catalog("exp_rows_trips");
        ExpiryLayout layout;
        try (Connection c = pg.connect()) {
            layout = ExpiryLayout.read(c, k.schema(), FormatVersion.V1_0);
        }
        long perTable = ExpireBatch.PER_TABLE.stream().filter(t -> layout.has(t, "table_id")).count();
        List<String> sent;
        ExpireBatch.Figures f;
        try (SqlCapture capture = SqlCapture.install(); Connection c = pg.connect()) {
            f = batch(c, k, layout, null);
            sent = capture.statements();
        }
        assertThat(f.tables()).isEqualTo(40);
        List<String> byAddress = sent.stream().filter(s -> s.startsWith("DELETE FROM") && s.contains("pg_temp.dj_run_rows")).toList();
        assertThat(byAddress).as("one delete by address per catalog table with a table_id").hasSize((int) perTable);
        List<String> counts = sent.stream().filter(s -> s.startsWith("SELECT") && s.contains("count(*)") && s.contains("pg_temp.dj_run_rows"))
                .toList();
        // the registry's rows of the removable tables (read before the batch's tables are chosen), then every per-table
        // delete's expected count at once: not one statement per catalog table
        assertThat(counts).as(String.join("\n", counts)).hasSize(2);
    }

    @Test
    void staleAddressesFallBackToTheStatementByTableIdAndTheCatalogEndsTheSame() throws Exception {
        Catalog fresh = catalog("exp_rows_fresh");
        Catalog stale = catalog("exp_rows_stale");
        try (Connection c = pg.connect()) {
            ExpiryLayout freshLayout = ExpiryLayout.read(c, fresh.schema(), FormatVersion.V1_0);
            ExpiryLayout staleLayout = ExpiryLayout.read(c, stale.schema(), FormatVersion.V1_0);
            ExpireBatch.Figures f = batch(c, fresh, freshLayout, null);
            long g = stale.gone().get(0);
            // after the build, each row moves to a new address (an update writes a new row version): the removable tables'
            // columns and registry rows, and the live table's open row (where its files' paths are resolved)
            ExpireBatch.Figures s = batch(c, stale, staleLayout, "UPDATE ducklake_column SET column_name = column_name WHERE table_id <= "
                    + (g + 20) + "; UPDATE ducklake_inlined_data_tables SET table_name = table_name WHERE table_id = " + g
                    + "; UPDATE ducklake_schema_versions SET table_id = table_id; UPDATE ducklake_table SET table_name = table_name"
                    + " WHERE table_id = " + stale.live());
            assertThat(s.tables()).isEqualTo(f.tables()).isEqualTo(40);
            assertThat(s.inlinedTables()).as("the moved registry rows' inlined tables too").isEqualTo(f.inlinedTables()).isEqualTo(50);
            assertThat(s.dataFiles()).isEqualTo(f.dataFiles()).isEqualTo(15);
            for (String t : List.of("ducklake_table", "ducklake_column", "ducklake_schema_versions", "ducklake_inlined_data_tables")) {
                List<String> left = rows(c, stale.schema(), t, "table_id");
                assertThat(left).as(t).isEqualTo(rows(c, fresh.schema(), t, "table_id")).isNotEmpty();
                assertThat(count(c, "SELECT count(*) FROM " + Sql.qualified(stale.schema(), t) + " WHERE table_id <> " + stale.live()))
                        .as("%s: only the live table's rows are left", t).isZero();
            }
            List<String> queued = rows(c, stale.schema(), "ducklake_files_scheduled_for_deletion", "data_file_id");
            assertThat(queued).isEqualTo(rows(c, fresh.schema(), "ducklake_files_scheduled_for_deletion", "data_file_id")).hasSize(15);
            assertThat(queued.stream().filter(q -> q.contains("live/f-")).count())
                    .as("the live table's files, their paths resolved through its moved row: %s", queued).isEqualTo(5);
            assertThat(count(c, "SELECT count(*) FROM pg_tables WHERE schemaname = '" + stale.schema() + "' AND tablename LIKE"
                    + " 'ducklake\\_inlined\\_%' AND tablename <> 'ducklake_inlined_data_tables'")).as("only the live table's inlined table is left").isEqualTo(1);
        }
    }

    /** A catalog table's rows, ordered by {@code key}, as {@code a|b|…} without the queue's schedule_start. */
    private static List<String> rows(Connection c, String schema, String table, String key) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT * FROM " + Sql.qualified(schema, table)
                + " ORDER BY " + Sql.ident(key) + ", 2, 3")) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder sb = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    String col = rs.getMetaData().getColumnName(i);
                    if (col.equals("schedule_start") || col.equals("table_uuid")) {
                        continue;
                    }
                    sb.append(i == 1 ? "" : "|").append(rs.getString(i));
                }
                out.add(sb.toString());
            }
        }
        return out;
    }

    private static String explain(Connection c, String sql) throws SQLException {
        StringBuilder sb = new StringBuilder();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("EXPLAIN (COSTS OFF) " + sql)) {
            while (rs.next()) {
                sb.append(rs.getString(1)).append('\n');
            }
        }
        return sb.toString();
    }

    private static long count(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
