package dev.ducklake.janitor.ops.check;

import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.testsupport.Catalogs;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A catalog written by {@link CatalogBuilder} and seeded with exactly one instance of every finding kind (test support).
 * The ids are fixed so that the tests can assert the examples.
 */
public final class DamagedCatalog {

    /** A live table (reachable, open): its inlined table gets one dead row, its data file is queued by mistake. */
    public long live;
    /** A table dropped and expired: its registry row is the unreachable inlined table; one live data file is left. */
    public long gone;
    /** The newest schema version of {@link #live}'s inlined tables. */
    public long liveVersion;
    /** A table dropped but still reachable, whose data file was left open (duckdb/ducklake#956). */
    public long dropped;
    /** A table_id with no ducklake_table row at all (stats, schema versions, leftovers). */
    public static final long NO_TABLE = 900;
    /** A data_file_id with no ducklake_data_file row (per-file stats). */
    static final long NO_FILE = 901;
    /** The table_id of the unregistered leftover. */
    static final long LEFTOVER = 910;
    /** The table_id of the unreachable inlined deletion table. */
    static final long DELETE_TABLE = 911;

    final String schema;
    final FormatVersion version;

    public DamagedCatalog(String schema, FormatVersion version) {
        this.schema = schema;
        this.version = version;
    }

    private String t(String table) {
        return Sql.qualified(schema, table);
    }

    /** Builds the catalog and seeds every kind; returns this. */
    public DamagedCatalog build(Connection c) throws SQLException {
        CatalogBuilder b = new CatalogBuilder(c, schema, version).create();
        gone = b.createTable("gone", 1);
        b.dropTable(gone);
        live = b.createTable("live", 2);
        b.insertRows(live, 3);
        dropped = b.createTable("dropped", 1);
        long keepFrom = b.snapshot();
        b.dropTable(dropped);
        b.expireBefore(keepFrom); // gone is now unreachable; dropped is still visible at keepFrom
        liveVersion = Catalogs.scalar(c, "SELECT max(schema_version) FROM " + t("ducklake_inlined_data_tables")
                + " WHERE table_id = " + live);
        boolean prefixed = version.prefixedInlinedColumns();
        String p = prefixed ? "_ducklake_" : "";
        // registry_rows_without_table: a registry row of an unreachable table_id (no table row) whose table is missing
        // (also one of the unreachable_inlined_tables)
        Catalogs.exec(c, "INSERT INTO " + t("ducklake_inlined_data_tables") + " VALUES (" + NO_TABLE + ", '"
                + InlinedTableName.dataTable(NO_TABLE, 1) + "', 1)");
        // registry_rows_without_table_of_reachable_tables: a registry row of the live table whose table is missing
        Catalogs.exec(c, "INSERT INTO " + t("ducklake_inlined_data_tables") + " VALUES (" + live + ", '"
                + InlinedTableName.dataTable(live, 99) + "', 99)");
        // unregistered_inlined_tables, unreachable_inlined_delete_tables, inlined_table_anomalies
        Catalogs.exec(c, "CREATE TABLE " + t(InlinedTableName.dataTable(LEFTOVER, 1)) + " (" + p + "row_id bigint, " + p
                + "begin_snapshot bigint, " + p + "end_snapshot bigint, c1 integer)");
        Catalogs.inlinedDeleteTable(c, schema, DELETE_TABLE, 0);
        Catalogs.exec(c, "CREATE TABLE " + t("ducklake_inlined_data_0912_1") + " (row_id bigint)");
        // live_files_of_unreachable_tables and live_files_of_dropped_tables: open data files of gone and dropped
        dataFile(c, 501, gone, "gone-1.parquet");
        dataFile(c, 502, dropped, "dropped-1.parquet");
        // a live file of the live table (never a finding), and its per-file stats
        dataFile(c, 503, live, "live-1.parquet");
        Catalogs.exec(c, "INSERT INTO " + t("ducklake_file_column_stats") + " (data_file_id, table_id, column_id, value_count)"
                + " VALUES (503, " + live + ", 1, 10)");
        // orphaned_stats_rows: 1 table stats row + 2 column stats rows of NO_TABLE; 1 file column stats, 1 partition value and
        // 1 variant stats row of NO_FILE = 6
        Catalogs.exec(c, "INSERT INTO " + t("ducklake_table_stats") + " VALUES (" + NO_TABLE + ", 10, 10, 100)");
        Catalogs.exec(c, "INSERT INTO " + t("ducklake_table_column_stats") + " (table_id, column_id, contains_null) VALUES ("
                + NO_TABLE + ", 1, false), (" + NO_TABLE + ", 2, true)");
        Catalogs.exec(c, "INSERT INTO " + t("ducklake_file_column_stats") + " (data_file_id, table_id, column_id, value_count)"
                + " VALUES (" + NO_FILE + ", " + NO_TABLE + ", 1, 10)");
        Catalogs.exec(c, "INSERT INTO " + t("ducklake_file_partition_value") + " VALUES (" + NO_FILE + ", " + NO_TABLE + ", 0, 'x')");
        Catalogs.exec(c, "INSERT INTO " + t("ducklake_file_variant_stats") + " (data_file_id, table_id, column_id, variant_path)"
                + " VALUES (" + NO_FILE + ", " + NO_TABLE + ", 1, 'a')");
        // stats of the live table and of the dropped (still known) table: never orphaned
        Catalogs.exec(c, "INSERT INTO " + t("ducklake_table_stats") + " VALUES (" + live + ", 3, 3, 0), (" + gone + ", 1, 1, 0)");
        Catalogs.exec(c, "INSERT INTO " + t("ducklake_table_column_stats") + " (table_id, column_id, contains_null) VALUES ("
                + live + ", 1, false), (" + gone + ", 1, false)");
        // duplicate_deletion_queue_rows: one file queued twice
        Catalogs.exec(c, "INSERT INTO " + t("ducklake_files_scheduled_for_deletion") + " VALUES (600, 'main/x/old.parquet', true, now()),"
                + " (600, 'main/x/old.parquet', true, now())");
        // queued_files_still_referenced: the live table's file, queued by mistake (data_path + schema path + table path + file)
        Catalogs.exec(c, "INSERT INTO " + t("ducklake_files_scheduled_for_deletion") + " VALUES (503, 'main/live/live-1.parquet', true, now())");
        // dead_inlined_rows: a row of the live table deleted at a snapshot that no retained snapshot sees
        Catalogs.exec(c, "INSERT INTO " + t(InlinedTableName.dataTable(live, liveVersion)) + " (" + p + "row_id, " + p + "begin_snapshot, "
                + p + "end_snapshot, c1, c2) VALUES (100, 1, 2, 7, 7)");
        // snapshot_changes_without_snapshot: a change row of an expired snapshot
        Catalogs.exec(c, "INSERT INTO " + t("ducklake_snapshot_changes") + " (snapshot_id, changes_made) VALUES (1, 'created_table:x')");
        // schema_versions_beyond_registry and schema_versions_migration_duplicates
        Catalogs.exec(c, "INSERT INTO " + t("ducklake_schema_versions") + " (begin_snapshot, schema_version, table_id) VALUES (1, 1, "
                + NO_TABLE + ")");
        long liveBegin = Catalogs.scalar(c, "SELECT begin_snapshot FROM " + t("ducklake_table") + " WHERE table_id = " + live);
        Catalogs.exec(c, "INSERT INTO " + t("ducklake_schema_versions") + " (begin_snapshot, schema_version, table_id) VALUES ("
                + liveBegin + ", 77, " + live + ")");
        // interrupted_migration_tables: the _migrated copy of the live table's inlined table that an interrupted 1.1
        // migration on PostgreSQL leaves (the original is still there)
        String original = InlinedTableName.dataTable(live, liveVersion);
        Catalogs.exec(c, "CREATE TABLE " + t(original + InlinedTableName.MIGRATED_SUFFIX) + " AS SELECT * FROM " + t(original));
        // rows_beyond_last_snapshot: a column row of the live table that names a snapshot the catalog does not have
        long max = Catalogs.scalar(c, "SELECT max(snapshot_id) FROM " + t("ducklake_snapshot"));
        Catalogs.exec(c, "INSERT INTO " + t("ducklake_column") + " (column_id, begin_snapshot, end_snapshot, table_id, column_order,"
                + " column_name, column_type, nulls_allowed) VALUES (99, " + (max + 10) + ", NULL, " + live + ", 99, 'future', 'int32', true)");
        return this;
    }

    private void dataFile(Connection c, long id, long tableId, String path) throws SQLException {
        long begin = Catalogs.scalar(c, "SELECT min(begin_snapshot) FROM " + t("ducklake_table") + " WHERE table_id = " + tableId);
        Catalogs.exec(c, "INSERT INTO " + t("ducklake_data_file") + " (data_file_id, table_id, begin_snapshot, end_snapshot, file_order,"
                + " path, path_is_relative, file_format, record_count, file_size_bytes, footer_size, row_id_start) VALUES (" + id + ", "
                + tableId + ", " + begin + ", NULL, 0, '" + path + "', true, 'parquet', 1, 100, 10, 0)");
    }
}
