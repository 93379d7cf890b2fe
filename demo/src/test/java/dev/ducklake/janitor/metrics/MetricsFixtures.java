package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.demo.DemoScenario;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/** A leaked demo catalog plus the oddities the metrics must see: files, bands, partitions, scheduled deletions. */
final class MetricsFixtures {

    static final long MIB = 1024L * 1024L;

    private MetricsFixtures() {
    }

    /**
     * Writes the demo scenario ({@code leaked + 2} orphan registry rows) and then:
     * <ul>
     *   <li>one unregistered inlined-data table {@code ducklake_inlined_data_999999_1};</li>
     *   <li>one registry row without its table (table_id 888888, an orphan);</li>
     *   <li>one inlined deletion table;</li>
     *   <li>live data files of 100 B, 2 MiB, 20 MiB and 100 MiB, and one closed (not live) file;
     *       three of the live ones in partition {@code 2026/11} of table 1;</li>
     *   <li>one live and one closed delete file; two files scheduled for deletion, the oldest 1 hour old.</li>
     * </ul>
     */
    static CatalogBuilder build(Connection c, String schema, int leaked) throws SQLException {
        CatalogBuilder b = DemoScenario.build(c, schema, leaked);
        String s = Sql.ident(schema);
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + s + ".ducklake_inlined_data_999999_1 (row_id bigint, begin_snapshot bigint, end_snapshot bigint)");
            st.execute("INSERT INTO " + s + ".ducklake_inlined_data_tables VALUES (888888, 'ducklake_inlined_data_888888_3', 3)");
            st.execute("CREATE TABLE " + s + ".ducklake_inlined_delete_1 (file_id bigint, row_id bigint, begin_snapshot bigint)");
            st.execute("INSERT INTO " + s + ".ducklake_data_file (data_file_id, table_id, begin_snapshot, end_snapshot, path,"
                    + " file_size_bytes, record_count) VALUES"
                    + " (1, 1, 1, NULL, 'a.parquet', 100, 1),"
                    + " (2, 1, 1, NULL, 'b.parquet', " + 2 * MIB + ", 1),"
                    + " (3, 1, 1, NULL, 'c.parquet', " + 20 * MIB + ", 1),"
                    + " (4, 2, 1, NULL, 'd.parquet', " + 100 * MIB + ", 1),"
                    + " (5, 2, 1, 2, 'e.parquet', " + 5 * MIB + ", 1)");
            st.execute("INSERT INTO " + s + ".ducklake_file_partition_value VALUES"
                    + " (1, 1, 0, '2026'), (1, 1, 1, '11'), (2, 1, 0, '2026'), (2, 1, 1, '11'), (3, 1, 0, '2026'), (3, 1, 1, '11')");
            st.execute("INSERT INTO " + s + ".ducklake_delete_file (delete_file_id, table_id, begin_snapshot, end_snapshot, data_file_id,"
                    + " path, file_size_bytes) VALUES (10, 1, 1, NULL, 1, 'x.puffin', 500), (11, 1, 1, 2, 2, 'y.puffin', 700)");
            st.execute("INSERT INTO " + s + ".ducklake_files_scheduled_for_deletion VALUES"
                    + " (20, 'old.parquet', true, now() - interval '1 hour'), (21, 'new.parquet', true, now())");
        }
        return b;
    }
}
