package dev.ducklake.janitor.testsupport;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.runtime.ProgressListener;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.UnaryOperator;

/** Small helpers for tests that shape a catalog by hand and run drop-orphan-inline-tables on it. */
public final class Catalogs {

    private Catalogs() {
    }

    /** Runs the engine on a schema of the test server with the given option changes ({@code o -> o.dryRun(true)}). */
    public static DropOrphanInlineTablesResult run(String schema, UnaryOperator<DropOrphanInlineTablesOptions.Builder> opts)
            throws JanitorException {
        return run(TestPostgres.get().spec(), schema, opts);
    }

    /** Runs the engine on a schema of the given database. */
    public static DropOrphanInlineTablesResult run(ConnectionSpec spec, String schema,
                                                   UnaryOperator<DropOrphanInlineTablesOptions.Builder> opts)
            throws JanitorException {
        DropOrphanInlineTablesOptions o = opts.apply(DropOrphanInlineTablesOptions.builder().metadataSchema(schema)).build();
        return new DropOrphanInlineTables(spec, o, ProgressListener.NONE).execute();
    }

    /** Whether a relation of that name exists in the schema. */
    public static boolean exists(Connection c, String schema, String name) throws SQLException {
        return scalar(c, "SELECT count(*) FROM pg_catalog.pg_class WHERE relnamespace = '" + Sql.ident(schema).replace("'", "''")
                + "'::regnamespace AND relname = '" + name.replace("'", "''") + "'") > 0;
    }

    /** The first column of the first row, as a long. */
    public static long scalar(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Runs statements (no results). */
    public static void exec(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /** Deletes the registry rows of a table_id, as older DuckLake versions did while leaving the tables (a leftover). */
    public static void unregister(Connection c, String schema, long tableId) throws SQLException {
        exec(c, "DELETE FROM " + Sql.qualified(schema, "ducklake_inlined_data_tables") + " WHERE table_id = " + tableId);
    }

    /** Creates DuckLake's inlined deletion table of a table_id with {@code rows} rows. */
    public static void inlinedDeleteTable(Connection c, String schema, long tableId, int rows) throws SQLException {
        String t = Sql.qualified(schema, "ducklake_inlined_delete_" + tableId);
        exec(c, "CREATE TABLE " + t + " (file_id bigint, row_id bigint, begin_snapshot bigint)");
        if (rows > 0) {
            exec(c, "INSERT INTO " + t + " SELECT 1, g, 1 FROM generate_series(1, " + rows + ") g");
        }
    }

    /** The number of DuckLake catalog tables in the schema (ducklake_* without the per-table inlined tables). */
    public static long catalogTables(Connection c, String schema) throws SQLException {
        return scalar(c, "SELECT count(*) FROM pg_catalog.pg_class WHERE relkind = 'r' AND relnamespace = '"
                + Sql.ident(schema).replace("'", "''") + "'::regnamespace AND relname ~ '^ducklake_'"
                + " AND relname !~ '^ducklake_inlined_(data_[0-9]+_[0-9]+|delete_[0-9]+)$'");
    }

    /**
     * Loads the real DuckLake 0.4 catalog of the test resources ({@code fixtures/ducklake-0.4-catalog.sql}) into a
     * new schema.
     */
    public static void loadFixture04(Connection c, String schema) throws SQLException {
        String sql;
        try (InputStream in = Catalogs.class.getResourceAsStream("/fixtures/ducklake-0.4-catalog.sql")) {
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        exec(c, "CREATE SCHEMA " + Sql.ident(schema));
        exec(c, "SET search_path TO " + Sql.ident(schema));
        try {
            exec(c, sql);
        } finally {
            exec(c, "RESET search_path");
        }
    }
}
