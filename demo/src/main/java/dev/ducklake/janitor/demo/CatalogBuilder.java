package dev.ducklake.janitor.demo;

import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.pg.Sql;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a DuckLake catalog into a PostgreSQL schema the way DuckLake itself lays it out (any known format
 * version: 1.0 = 0.4, 1.1-dev1 with its {@code _ducklake_}-prefixed inlined columns, 1.1 with nested schemas
 * ({@link #createNestedSchema}) and exactness flags on the column statistics, and the older layouts 0.1 to
 * 0.4-dev1, see {@link #layoutDelta}), and replays the metadata effects of
 * DuckLake operations on it: CREATE TABLE (registry row and eagerly created inlined-data table), inlined
 * INSERT, ADD COLUMN (new schema version, new inlined table), DROP TABLE (closes the table row, leaves the
 * inlined tables), and snapshot expiry that leaves inlined tables behind (the leak).
 *
 * <p>Used by {@code ducklake-janitor demo}, the tests and the benchmark. It writes catalog rows directly
 * and is no substitute for DuckLake: it reproduces only what the janitor reads. The DDL is shipped in the
 * jar ({@code ddl/ducklake-1.0.sql}, copied from the project's catalog notes).
 *
 * <p>Not thread-safe. Each method commits its own work (the connection stays in autocommit).
 */
public final class CatalogBuilder {

    private final Connection c;
    private final String schema;
    private final FormatVersion version;
    private long snapshot;
    private long schemaVersion;
    private long nextCatalogId;
    private final Map<Long, Long> latestVersion = new HashMap<>();
    private final Map<Long, Integer> userColumns = new HashMap<>();
    private final Map<Long, Long> rowIds = new HashMap<>();

    /**
     * @param c an open connection in autocommit mode
     * @param schema the metadata schema to write into (created if missing)
     * @param version the format version to write (any {@link FormatVersion})
     */
    public CatalogBuilder(Connection c, String schema, FormatVersion version) {
        this.c = c;
        this.schema = schema;
        this.version = version;
    }

    /**
     * Creates the catalog tables and the rows of a new catalog (snapshot 0, schema main, metadata).
     *
     * @return this builder
     * @throws SQLException on database errors
     */
    public CatalogBuilder create() throws SQLException {
        StringBuilder ddl = new StringBuilder("CREATE SCHEMA IF NOT EXISTS " + Sql.ident(schema) + ";\n");
        ddl.append("SET LOCAL search_path TO ").append(Sql.ident(schema)).append(";\n");
        ddl.append(resource("ddl/ducklake-1.0.sql"));
        ddl.append(layoutDelta(version));
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            st.execute(ddl.toString());
            st.execute("SET LOCAL search_path TO " + Sql.ident(schema));
            // column lists throughout: 0.1 has no scope/scope_id, no paths, no snapshot_changes author columns
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO ducklake_metadata (key, value) VALUES ('version', ?),"
                    + " ('created_by', 'ducklake-janitor CatalogBuilder'), ('data_path', '/tmp/ducklake-demo/'), ('encrypted', 'false')")) {
                ps.setString(1, version.text());
                ps.execute();
            }
            st.execute("INSERT INTO ducklake_snapshot VALUES (0, now(), 0, 1, 0)");
            st.execute("INSERT INTO ducklake_snapshot_changes (snapshot_id, changes_made) VALUES (0, 'created_schema:\"main\"')");
            st.execute("INSERT INTO ducklake_schema (schema_id, schema_uuid, begin_snapshot, end_snapshot, schema_name) VALUES"
                    + " (0, gen_random_uuid(), 0, NULL, 'main')");
            if (version != FormatVersion.V0_1) {
                st.execute("UPDATE ducklake_schema SET path = 'main/', path_is_relative = true");
            }
            c.commit();
        } finally {
            c.setAutoCommit(auto);
        }
        snapshot = 0;
        schemaVersion = 0;
        nextCatalogId = 1;
        return this;
    }

    /** The newest snapshot id written so far. */
    public long snapshot() {
        return snapshot;
    }

    /**
     * CREATE TABLE with {@code userColumnCount} INTEGER columns: a new snapshot and schema version, the table and
     * column rows, and its registered, empty inlined-data table.
     *
     * @param name the DuckLake table name
     * @param userColumnCount number of user columns (≥ 1)
     * @return the new table_id
     * @throws SQLException on database errors
     */
    public long createTable(String name, int userColumnCount) throws SQLException {
        long tableId = nextCatalogId++;
        long snap = newSnapshot("created_table:\"main\".\"" + name.replace("\"", "\"\"") + "\"", true);
        exec("INSERT INTO " + t("ducklake_table") + " (" + TABLE_COLUMNS + ") VALUES (?, gen_random_uuid(), ?, NULL, 0, ?)",
                tableId, snap, name);
        if (version != FormatVersion.V0_1) {
            exec("UPDATE " + t("ducklake_table") + " SET path = ?, path_is_relative = true WHERE table_id = ?", name + "/", tableId);
        }
        for (int i = 1; i <= userColumnCount; i++) {
            exec("INSERT INTO " + t("ducklake_column") + " (column_id, begin_snapshot, end_snapshot, table_id, column_order, column_name,"
                    + " column_type, nulls_allowed) VALUES (?, ?, NULL, ?, ?, ?, 'int32', true)", (long) i, snap, tableId, (long) i, "c" + i);
        }
        userColumns.put(tableId, userColumnCount);
        rowIds.put(tableId, 0L);
        newInlinedTable(tableId, snap);
        return tableId;
    }

    /**
     * CREATE SCHEMA parent.name in a format 1.1 catalog: a new snapshot and schema version and a
     * {@code ducklake_schema} row whose {@code parent_schema_id} is the parent (the layout of ducklake.select's 1.1
     * specification; its {@code path} is written as {@code name/} relative, which is not a claim about where DuckLake
     * puts a nested schema's files: that rule could not be read from source, see docs/format-versions.md).
     *
     * @param name the schema's own name (its last path component)
     * @param parentSchemaId the parent's schema_id (0 is {@code main})
     * @return the new schema_id
     * @throws SQLException on database errors
     * @throws IllegalStateException when the format is not 1.1
     */
    public long createNestedSchema(String name, long parentSchemaId) throws SQLException {
        if (!version.mayNestSchemas()) {
            throw new IllegalStateException("format " + version.text() + " has no nested schemas");
        }
        long schemaId = nextCatalogId++;
        long snap = newSnapshot("created_schema:\"" + name.replace("\"", "\"\"") + "\"", true);
        exec("INSERT INTO " + t("ducklake_schema") + " (schema_id, schema_uuid, begin_snapshot, end_snapshot, schema_name, path,"
                + " path_is_relative, parent_schema_id) VALUES (?, gen_random_uuid(), ?, NULL, ?, ?, true, ?)",
                schemaId, snap, name, name + "/", parentSchemaId);
        return schemaId;
    }

    /**
     * ALTER TABLE … ADD COLUMN: a new snapshot and schema version and a new registered inlined-data table
     * (the previous ones stay, superseded).
     *
     * @param tableId the table
     * @throws SQLException on database errors
     */
    public void addColumn(long tableId) throws SQLException {
        long snap = newSnapshot("altered_table:" + tableId, true);
        int cols = userColumns.merge(tableId, 1, Integer::sum);
        exec("INSERT INTO " + t("ducklake_column") + " (column_id, begin_snapshot, end_snapshot, table_id, column_order, column_name,"
                + " column_type, nulls_allowed) VALUES (?, ?, NULL, ?, ?, ?, 'int32', true)", (long) cols, snap, tableId, (long) cols, "c" + cols);
        newInlinedTable(tableId, snap);
    }

    /**
     * An inlined INSERT of {@code rows} rows into the table's newest inlined-data table, in a new snapshot.
     *
     * @param tableId the table
     * @param rows number of rows
     * @throws SQLException on database errors
     */
    public void insertRows(long tableId, int rows) throws SQLException {
        long snap = newSnapshot("inlined_insert:" + tableId, false);
        long v = latestVersion.get(tableId);
        int cols = userColumns.get(tableId);
        long first = rowIds.get(tableId);
        StringBuilder sql = new StringBuilder("INSERT INTO ").append(t(InlinedTableName.dataTable(tableId, v)))
                .append(" SELECT ").append(first).append(" + g - 1, ").append(snap).append(", NULL");
        for (int i = 0; i < cols; i++) {
            sql.append(", g");
        }
        sql.append(" FROM generate_series(1, ").append(rows).append(") g");
        try (Statement st = c.createStatement()) {
            st.execute(sql.toString());
        }
        rowIds.put(tableId, first + rows);
    }

    /**
     * DROP TABLE: a new snapshot that closes the table's row (end_snapshot); registry and inlined tables stay,
     * as DuckLake leaves them.
     *
     * @param tableId the table
     * @return the snapshot that dropped it
     * @throws SQLException on database errors
     */
    public long dropTable(long tableId) throws SQLException {
        long snap = newSnapshot("dropped_table:" + tableId, true);
        exec("UPDATE " + t("ducklake_table") + " SET end_snapshot = ? WHERE table_id = ? AND end_snapshot IS NULL", snap, tableId);
        exec("UPDATE " + t("ducklake_column") + " SET end_snapshot = ? WHERE table_id = ? AND end_snapshot IS NULL", snap, tableId);
        return snap;
    }

    /**
     * Deletes every snapshot older than {@code keepFrom} (what an expiry that leaks leaves: the inlined tables
     * and registry rows stay).
     *
     * @param keepFrom the oldest snapshot id to keep
     * @throws SQLException on database errors
     */
    public void expireBefore(long keepFrom) throws SQLException {
        exec("DELETE FROM " + t("ducklake_snapshot") + " WHERE snapshot_id < ?", keepFrom);
        exec("DELETE FROM " + t("ducklake_snapshot_changes") + " WHERE snapshot_id < ?", keepFrom);
    }

    /**
     * Removes every ducklake_table row of a table_id (as an older DuckLake expiry did) while its registry rows
     * and inlined tables stay.
     *
     * @param tableId the table
     * @throws SQLException on database errors
     */
    public void forgetTable(long tableId) throws SQLException {
        exec("DELETE FROM " + t("ducklake_table") + " WHERE table_id = ?", tableId);
    }

    /**
     * The DROP + CREATE churn of sync jobs, in bulk: {@code count} tables, each created (with a registered, empty
     * inlined-data table of {@code userColumnCount} columns) and then dropped. Written in transactions of
     * {@code perTransaction} tables, with one multi-statement round trip each.
     *
     * @param namePrefix DuckLake table name prefix
     * @param count number of tables
     * @param userColumnCount user columns per inlined table
     * @param perTransaction tables per transaction (mind max_locks_per_transaction: about 3 entries each)
     * @return the table_ids, in creation order
     * @throws SQLException on database errors
     */
    public List<Long> bulkCreateAndDrop(String namePrefix, int count, int userColumnCount, int perTransaction) throws SQLException {
        long createSnap = newSnapshot("created_table:bulk", true);
        long dropSnap = createSnap + 1;
        long firstId = nextCatalogId;
        nextCatalogId += count;
        List<Long> ids = new ArrayList<>(count);
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            for (int from = 0; from < count; from += perTransaction) {
                int to = Math.min(count, from + perTransaction);
                StringBuilder sql = new StringBuilder();
                for (int i = from; i < to; i++) {
                    long id = firstId + i;
                    ids.add(id);
                    sql.append(createInlinedSql(id, createSnap, userColumnCount)).append(";\n");
                }
                sql.append("INSERT INTO ").append(t("ducklake_table")).append(" (").append(TABLE_COLUMNS).append(")")
                   .append(" SELECT g, gen_random_uuid(), ").append(createSnap)
                   .append(", ").append(dropSnap).append(", 0, '").append(namePrefix.replace("'", "''")).append("' || g")
                   .append(" FROM generate_series(").append(firstId + from).append(", ").append(firstId + to - 1).append(") g;\n");
                if (version != FormatVersion.V0_1) {
                    sql.append("UPDATE ").append(t("ducklake_table")).append(" SET path = 'x/', path_is_relative = true WHERE table_id BETWEEN ")
                       .append(firstId + from).append(" AND ").append(firstId + to - 1).append(";\n");
                }
                sql.append("INSERT INTO ").append(t("ducklake_inlined_data_tables")).append(" SELECT g, 'ducklake_inlined_data_' || g || '_")
                   .append(schemaVersion).append("', ").append(schemaVersion)
                   .append(" FROM generate_series(").append(firstId + from).append(", ").append(firstId + to - 1).append(") g;\n");
                st.execute(sql.toString());
                c.commit();
            }
        } finally {
            c.setAutoCommit(auto);
        }
        for (long id : ids) {
            latestVersion.put(id, schemaVersion);
            userColumns.put(id, userColumnCount);
            rowIds.put(id, 0L);
        }
        newSnapshot("dropped_table:bulk", true);
        return ids;
    }

    /** The total of registry rows now in the catalog. */
    public long registryRows() throws SQLException {
        try (Statement st = c.createStatement();
             var rs = st.executeQuery("SELECT count(*) FROM " + t("ducklake_inlined_data_tables"))) {
            rs.next();
            return rs.getLong(1);
        }
    }

    // ------------------------------------------------------------------ internals

    /** The ducklake_table columns every format version has (0.1 lacks path and path_is_relative). */
    private static final String TABLE_COLUMNS = "table_id, table_uuid, begin_snapshot, end_snapshot, schema_id, table_name";

    /**
     * The DDL turning the format 1.0 layout ({@code ddl/ducklake-1.0.sql}) into the layout of {@code version}.
     * Written from the migration chain in the project's catalog notes (shared/ducklake/catalog.md, section 1,
     * read from DuckLake's {@code ducklake_metadata_manager.cpp} migrations), undone step by step; not copied from
     * any DuckLake test catalog. Table counts: 0.1 = 19, 0.2 = 21, 0.3(-dev1) = 22, 0.4(-dev1) = 28, 1.0 = 28,
     * 1.1-dev1 = 29, 1.1 = 29. Column order of altered tables differs from DuckLake's (added columns go last); the janitor
     * reads columns by name. Not checked against DuckLake (no extension here): whether {@code ducklake_delete_file}
     * had {@code partial_file_info} before 0.4 (written here without it), and the exact 0.3-dev1 layout (written as
     * 0.3; DuckLake migrates dev catalogs with IF NOT EXISTS).
     *
     * @param version the target format version
     * @return SQL statements (unqualified; run with the search_path on the catalog schema), possibly empty
     */
    static String layoutDelta(FormatVersion version) {
        StringBuilder d = new StringBuilder("\n");
        switch (version) {
            // 1.1 = 1.1-dev1 plus the columns the released format added (docs/format-versions.md: from ducklake.select's
            // 1.1 specification, not from readable source); added columns are NULL on existing rows, as the migration leaves them
            case V1_1 -> d.append(layoutDelta(FormatVersion.V1_1_DEV1))
                    .append("ALTER TABLE ducklake_schema ADD COLUMN parent_schema_id bigint;\n")
                    .append("ALTER TABLE ducklake_file_column_stats ADD COLUMN min_is_exact boolean, ADD COLUMN max_is_exact boolean;\n")
                    .append("ALTER TABLE ducklake_table_column_stats ADD COLUMN min_is_exact boolean, ADD COLUMN max_is_exact boolean;\n");
            case V1_1_DEV1 -> d.append("ALTER TABLE ducklake_data_file ADD COLUMN row_group_count bigint;\n")
                    .append("ALTER TABLE ducklake_delete_file ADD COLUMN row_group_count bigint;\n")
                    .append("CREATE TABLE ducklake_view_column_tag(view_id bigint, column_name varchar, begin_snapshot bigint,"
                            + " end_snapshot bigint, key varchar, value varchar);\n");
            case V1_0, V0_4 -> { }
            // 0.4-dev1: data_file still carried the string column that 0.4 replaced with partial_max
            case V0_4_DEV1 -> d.append("ALTER TABLE ducklake_data_file ADD COLUMN partial_file_info varchar;\n");
            default -> {
                // undo 0.3 -> 0.4
                d.append("DROP TABLE ducklake_macro, ducklake_macro_impl, ducklake_macro_parameters, ducklake_sort_info,"
                        + " ducklake_sort_expression, ducklake_file_variant_stats;\n")
                 .append("ALTER TABLE ducklake_column DROP COLUMN default_value_type, DROP COLUMN default_value_dialect;\n")
                 .append("ALTER TABLE ducklake_schema_versions DROP COLUMN table_id;\n")
                 .append("ALTER TABLE ducklake_data_file DROP COLUMN partial_max, ADD COLUMN partial_file_info varchar;\n")
                 .append("ALTER TABLE ducklake_delete_file DROP COLUMN partial_max;\n");
                if (version.compareTo(FormatVersion.V0_3_DEV1) < 0) {
                    // undo 0.2 -> 0.3
                    d.append("ALTER TABLE ducklake_name_mapping DROP COLUMN is_partition;\n")
                     .append("ALTER TABLE ducklake_snapshot_changes DROP COLUMN author, DROP COLUMN commit_message,"
                             + " DROP COLUMN commit_extra_info;\n")
                     .append("DROP TABLE ducklake_schema_versions;\n")
                     .append("ALTER TABLE ducklake_file_column_stats DROP COLUMN extra_stats;\n")
                     .append("ALTER TABLE ducklake_file_column_stats RENAME TO ducklake_file_column_statistics;\n")
                     .append("ALTER TABLE ducklake_table_column_stats DROP COLUMN extra_stats;\n");
                }
                if (version == FormatVersion.V0_1) {
                    // undo 0.1 -> 0.2
                    d.append("ALTER TABLE ducklake_schema DROP COLUMN path, DROP COLUMN path_is_relative;\n")
                     .append("ALTER TABLE ducklake_table DROP COLUMN path, DROP COLUMN path_is_relative;\n")
                     .append("ALTER TABLE ducklake_metadata DROP COLUMN scope, DROP COLUMN scope_id;\n")
                     .append("ALTER TABLE ducklake_data_file DROP COLUMN mapping_id;\n")
                     .append("DROP TABLE ducklake_column_mapping, ducklake_name_mapping;\n");
                }
            }
        }
        return d.toString();
    }

    private void newInlinedTable(long tableId, long snap) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(createInlinedSql(tableId, snap, userColumns.get(tableId)));
        }
        exec("INSERT INTO " + t("ducklake_inlined_data_tables") + " VALUES (?, ?, ?)", tableId,
                InlinedTableName.dataTable(tableId, schemaVersion), schemaVersion);
        if (version.compareTo(FormatVersion.V0_4_DEV1) >= 0) {
            exec("INSERT INTO " + t("ducklake_schema_versions") + " (begin_snapshot, schema_version, table_id) VALUES (?, ?, ?)",
                    snap, schemaVersion, tableId);
        } else if (version.compareTo(FormatVersion.V0_3_DEV1) >= 0) {
            exec("INSERT INTO " + t("ducklake_schema_versions") + " (begin_snapshot, schema_version) VALUES (?, ?)", snap, schemaVersion);
        }
        latestVersion.put(tableId, schemaVersion);
    }

    private String createInlinedSql(long tableId, long snap, int cols) {
        FormatVersion.InlinedColumns n = version.inlinedColumns();
        StringBuilder sql = new StringBuilder("CREATE TABLE ").append(t(InlinedTableName.dataTable(tableId, schemaVersion)))
                .append(" (").append(Sql.ident(n.rowId())).append(" bigint, ").append(Sql.ident(n.beginSnapshot())).append(" bigint, ")
                .append(Sql.ident(n.endSnapshot())).append(" bigint");
        for (int i = 1; i <= cols; i++) {
            sql.append(", ").append(Sql.ident("c" + i)).append(" integer");
        }
        return sql.append(')').toString();
    }

    private long newSnapshot(String change, boolean schemaChange) throws SQLException {
        snapshot++;
        if (schemaChange) {
            schemaVersion++;
        }
        exec("INSERT INTO " + t("ducklake_snapshot") + " VALUES (?, now(), ?, ?, 0)", snapshot, schemaVersion, nextCatalogId);
        exec("INSERT INTO " + t("ducklake_snapshot_changes") + " (snapshot_id, changes_made) VALUES (?, ?)", snapshot, change);
        return snapshot;
    }

    private String t(String table) {
        return Sql.qualified(schema, table);
    }

    private void exec(String sql, Object... args) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            ps.execute();
        }
    }

    private static String resource(String name) {
        try (InputStream in = CatalogBuilder.class.getResourceAsStream("/dev/ducklake/janitor/" + name)) {
            if (in == null) {
                throw new IllegalStateException("resource missing from the jar: " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
