package dev.ducklake.janitor.testsupport;

import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.pg.Sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Test support: turns a DuckLake 1.0 catalog on PostgreSQL (written by real DuckLake 1.5.5) into a format 1.1 catalog
 * the way DuckLake's own migration does, because no DuckLake that writes 1.1 is installable here (the package index
 * stops at {@code duckdb-extension-ducklake} 1.5.5, which cannot load into DuckDB 2.x).
 *
 * <p>Written from DuckLake's source, duckdb/ducklake commit {@code 2ed0a0be8931f23959b2fc9fc089bb5f71207817}
 * (2026-08-20), {@code src/storage/ducklake_metadata_manager.cpp}: {@code MigrateV10} (the 1.0 → 1.1-dev1 step) and
 * {@code MigrateInlinedColumnNames}, which it runs first "so a conflict aborts while the catalog is still at v1.0":
 * <ol>
 *   <li>for every row of {@code ducklake_inlined_data_tables}: the table's first three columns must be
 *       {@code row_id, begin_snapshot, end_snapshot} (or already the new names, skipped); each is renamed to its
 *       {@code _ducklake_} name; a user column already holding a new name, or a different layout, is an error; a
 *       registered table that is missing is an error (DuckLake's probe {@code SELECT * … LIMIT 0} fails);
 *       unregistered inlined tables and {@code ducklake_inlined_delete_<id>} are not touched;</li>
 *   <li>{@code row_group_count BIGINT} on {@code ducklake_data_file} and {@code ducklake_delete_file}, the new table
 *       {@code ducklake_view_column_tag};</li>
 * </ol>
 * then, for the released 1.1 (whose source is not readable here; the layout of ducklake.select's 1.1 specification and
 * issue 22's delta): {@code parent_schema_id BIGINT} on {@code ducklake_schema}, {@code min_is_exact BOOLEAN} and
 * {@code max_is_exact BOOLEAN} on {@code ducklake_file_column_stats} and {@code ducklake_table_column_stats} (NULL for
 * existing rows, as the 1.1 docs say of every added column), and the version {@code 1.1}. The whole migration is one
 * transaction. Not reproduced: the metadata repairs the 1.1 docs mention (missing schema_versions rows of inlined tables,
 * struct-field defaults, wrongly typed column bounds: they change no row the janitor reads on these catalogs) and the
 * PostgreSQL {@code _migrated} rewrite of 0.3-era typed inlined tables (DuckLake 1.5.5 writes 1.0-era types), whose
 * interrupted form {@link #leaveInterruptedCopy} makes by hand.
 */
public final class Migrate11 {

    private Migrate11() {
    }

    /**
     * Migrates the catalog in {@code schema} from 1.0 to 1.1.
     *
     * @param c an open connection (its autocommit state is restored)
     * @param schema the metadata schema
     * @return the registered inlined tables whose columns were renamed, in registry order
     * @throws SQLException on database errors, or (SQLSTATE 22023) when an inlined table has a layout DuckLake refuses
     * @throws IllegalStateException when the catalog is not at 1.0
     */
    public static List<String> apply(Connection c, String schema) throws SQLException {
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try (Statement st = c.createStatement()) {
            String version = one(c, "SELECT value FROM " + Sql.qualified(schema, "ducklake_metadata") + " WHERE key = 'version'");
            if (!FormatVersion.V1_0.text().equals(version)) {
                throw new IllegalStateException("Migrate11 starts from format 1.0, the catalog is at " + version);
            }
            List<String> renamed = renameInlinedColumns(c, schema);
            String q = Sql.ident(schema) + ".";
            st.execute("ALTER TABLE " + q + "ducklake_data_file ADD COLUMN row_group_count BIGINT");
            st.execute("ALTER TABLE " + q + "ducklake_delete_file ADD COLUMN row_group_count BIGINT");
            st.execute("CREATE TABLE " + q + "ducklake_view_column_tag(view_id BIGINT, column_name VARCHAR, begin_snapshot BIGINT,"
                    + " end_snapshot BIGINT, key VARCHAR, value VARCHAR)");
            st.execute("ALTER TABLE " + q + "ducklake_schema ADD COLUMN parent_schema_id BIGINT");
            st.execute("ALTER TABLE " + q + "ducklake_file_column_stats ADD COLUMN min_is_exact BOOLEAN, ADD COLUMN max_is_exact BOOLEAN");
            st.execute("ALTER TABLE " + q + "ducklake_table_column_stats ADD COLUMN min_is_exact BOOLEAN, ADD COLUMN max_is_exact BOOLEAN");
            st.execute("UPDATE " + q + "ducklake_metadata SET value = '1.1' WHERE key = 'version'");
            c.commit();
            return renamed;
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(auto);
        }
    }

    private static List<String> renameInlinedColumns(Connection c, String schema) throws SQLException {
        List<String> names = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT table_name FROM " + Sql.qualified(schema, "ducklake_inlined_data_tables")
                + " ORDER BY table_id, schema_version"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        List<String> oldNames = FormatVersion.InlinedColumns.PLAIN.all();
        List<String> newNames = FormatVersion.InlinedColumns.PREFIXED.all();
        List<String> renamed = new ArrayList<>();
        for (String table : names) {
            List<String> cols = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT attname::text FROM pg_catalog.pg_attribute WHERE attrelid = "
                    + "(quote_ident(?) || '.' || quote_ident(?))::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum")) {
                ps.setString(1, schema);
                ps.setString(2, table);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        cols.add(rs.getString(1));
                    }
                }
            }
            StringBuilder sql = new StringBuilder();
            for (int i = 0; i < 3; i++) {
                if (cols.size() < 3) {
                    throw new SQLException("inlined table " + table + " has an unexpected column layout", "22023");
                }
                if (cols.get(i).equalsIgnoreCase(newNames.get(i))) {
                    continue;
                }
                if (!cols.get(i).equalsIgnoreCase(oldNames.get(i))) {
                    throw new SQLException("inlined table " + table + " has an unexpected column layout", "22023");
                }
                for (String user : cols.subList(3, cols.size())) {
                    if (user.equalsIgnoreCase(newNames.get(i))) {
                        throw new SQLException("inlined table " + table + " has a user column colliding with " + newNames.get(i), "22023");
                    }
                }
                sql.append("ALTER TABLE ").append(Sql.qualified(schema, table)).append(" RENAME COLUMN ").append(Sql.ident(cols.get(i)))
                   .append(" TO ").append(Sql.ident(newNames.get(i))).append(";");
            }
            if (sql.length() > 0) {
                try (Statement st = c.createStatement()) {
                    st.execute(sql.toString());
                }
                renamed.add(table);
            }
        }
        return renamed;
    }

    /**
     * Adds a nested schema by hand as the 1.1 layout defines it: a {@code ducklake_schema} row with {@code parent_schema_id},
     * begun at the newest snapshot, with a relative path {@code <name>/} and an id above every catalog id in use.
     *
     * @return the new schema_id
     */
    public static long addNestedSchema(Connection c, String schema, String name, long parentSchemaId) throws SQLException {
        String q = Sql.ident(schema) + ".";
        long id = Long.parseLong(one(c, "SELECT max(next_catalog_id) + 1000 FROM " + q + "ducklake_snapshot"));
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + q + "ducklake_schema (schema_id, schema_uuid, begin_snapshot,"
                + " end_snapshot, schema_name, path, path_is_relative, parent_schema_id) SELECT ?, gen_random_uuid(), max(snapshot_id), NULL,"
                + " ?, ?, true, ? FROM " + q + "ducklake_snapshot")) {
            ps.setLong(1, id);
            ps.setString(2, name);
            ps.setString(3, name + "/");
            ps.setLong(4, parentSchemaId);
            ps.executeUpdate();
        }
        return id;
    }

    /**
     * Leaves what an interrupted PostgreSQL rewrite of a 0.3-era inlined table leaves: the {@code <name>_migrated} copy
     * with the rows; with {@code originalDropped}, also the original dropped (the step after the copy).
     *
     * @return the copy's name
     */
    public static String leaveInterruptedCopy(Connection c, String schema, String inlinedTable, boolean originalDropped)
            throws SQLException {
        String copy = inlinedTable + InlinedTableName.MIGRATED_SUFFIX;
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + Sql.qualified(schema, copy) + " AS SELECT * FROM " + Sql.qualified(schema, inlinedTable));
            if (originalDropped) {
                st.execute("DROP TABLE " + Sql.qualified(schema, inlinedTable));
            }
        }
        return copy;
    }

    private static String one(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }
}
