package dev.ducklake.janitor.interop;

import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.TestPostgres;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Test support for the expire-snapshots differential tests: a source database whose DuckLake catalog (metadata
 * schema {@link #SCHEMA}) was written by the real DuckLake extension, copied with
 * {@code CREATE DATABASE … TEMPLATE} into twins, and a row-for-row dump of every relation of the metadata schema.
 */
final class ExpireTwins implements AutoCloseable {

    static final String SCHEMA = "lake_meta";
    private static final AtomicInteger DBS = new AtomicInteger();

    final TestPostgres pg = TestPostgres.get();
    final String source;
    final Path dataDir;
    /** Every database these twins created (the source, each copy), for {@link #close()}. */
    private final List<String> created = new java.util.concurrent.CopyOnWriteArrayList<>();

    ExpireTwins(String prefix) throws SQLException, IOException {
        this.source = newDatabaseName(prefix);
        this.dataDir = Files.createTempDirectory("ducklake-expire-" + source + "-");
        admin("CREATE DATABASE " + Sql.ident(source));
        created.add(source);
    }

    private static String newDatabaseName(String prefix) {
        return (prefix + "_" + ProcessHandle.current().pid() + "_" + DBS.incrementAndGet()).toLowerCase();
    }

    /** Runs a statement on the server's maintenance database (autocommit). */
    void admin(String sql) throws SQLException {
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    ConnectionSpec spec(String db) {
        return pg.spec().withDatabase(db);
    }

    /** The --catalog value for a database. */
    String catalogArg(String db) {
        ConnectionSpec s = spec(db);
        return s.jdbcUrl() + "?user=" + s.user();
    }

    /** ATTACH options for a database's catalog (alias lake). */
    RealDuckLake.Attach attach(String db) {
        ConnectionSpec s = spec(db);
        return new RealDuckLake.Attach("host=" + s.host() + " port=" + s.port() + " dbname=" + db + " user=" + s.user(),
                dataDir + "/").metadataSchema(SCHEMA);
    }

    /** A copy of the source database, taken now. */
    String copy(String suffix) throws SQLException {
        String name = newDatabaseName(source + "_" + suffix);
        admin("CREATE DATABASE " + Sql.ident(name) + " TEMPLATE " + Sql.ident(source));
        created.add(name);
        return name;
    }

    /** A copy of another database. */
    String copyOf(String db, String suffix) throws SQLException {
        String name = newDatabaseName(db + "_" + suffix);
        admin("CREATE DATABASE " + Sql.ident(name) + " TEMPLATE " + Sql.ident(db));
        created.add(name);
        return name;
    }

    Connection connect(String db) throws SQLException {
        return spec(db).openRaw();
    }

    /** Snapshot id → snapshot_time as PostgreSQL prints it in UTC (ISO form). */
    Map<Long, String> snapshotTimes(String db) throws SQLException {
        Map<Long, String> out = new TreeMap<>();
        try (Connection c = connect(db); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT snapshot_id, to_char(snapshot_time AT TIME ZONE 'UTC', "
                     + "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') FROM " + Sql.qualified(SCHEMA, "ducklake_snapshot") + " ORDER BY 1")) {
            while (rs.next()) {
                out.put(rs.getLong(1), rs.getString(2));
            }
        }
        return out;
    }

    /** Rows of a query, each row's columns joined by '|'. */
    List<String> rows(String db, String sql, Object... binds) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = connect(db); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < binds.length; i++) {
                ps.setObject(i + 1, binds[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    StringBuilder sb = new StringBuilder();
                    for (int i = 1; i <= n; i++) {
                        sb.append(i == 1 ? "" : "|").append(rs.getString(i));
                    }
                    out.add(sb.toString());
                }
            }
        }
        return out;
    }

    /**
     * Every relation of the metadata schema (tables, views, sequences: by name and kind) and every row of every
     * table as text, sorted; {@code ducklake_files_scheduled_for_deletion} without {@code schedule_start}.
     */
    Map<String, List<String>> dump(String db) throws SQLException {
        Map<String, List<String>> out = new TreeMap<>();
        List<String> relations = rows(db, "SELECT c.relname::text || ':' || c.relkind::text FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n"
                + " ON n.oid = c.relnamespace WHERE n.nspname = ? ORDER BY 1", SCHEMA);
        out.put("(relations)", relations);
        for (String rel : relations) {
            String[] p = rel.split(":");
            if (!p[1].equals("r")) {
                continue;
            }
            List<String> cols = rows(db, "SELECT quote_ident(attname::text) || '::text' FROM pg_catalog.pg_attribute WHERE attrelid = "
                    + "(quote_ident(?) || '.' || quote_ident(?))::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum", SCHEMA, p[0]);
            if (p[0].equals("ducklake_files_scheduled_for_deletion")) {
                cols.remove("schedule_start::text");
            }
            List<String> data = rows(db, "SELECT " + String.join(", ", cols) + " FROM " + Sql.qualified(SCHEMA, p[0]));
            data.sort(null);
            out.put(p[0], data);
        }
        return out;
    }

    /**
     * What DuckLake's expiry does after 1.5.5 (duckdb/ducklake commit e2355911, #1391) and 1.5.5's does not: deletes from every
     * registered inlined-data table the rows with an end snapshot whose {@code [begin_snapshot, end_snapshot)} holds no
     * remaining snapshot. Written here independently of the janitor's SQL (format 1.0 column names, as 1.5.5 writes).
     *
     * @return rows deleted
     */
    long reclaimDeadInlinedRows(String db) throws SQLException {
        long total = 0;
        List<String> names = rows(db, "SELECT r.table_name FROM " + Sql.qualified(SCHEMA, "ducklake_inlined_data_tables")
                + " r JOIN pg_catalog.pg_class c ON c.relname::text = r.table_name AND c.relkind = 'r'"
                + " AND c.relnamespace = ?::regnamespace ORDER BY 1", SCHEMA);
        try (Connection c = connect(db); Statement st = c.createStatement()) {
            for (String name : names) {
                total += st.executeUpdate("DELETE FROM " + Sql.qualified(SCHEMA, name) + " x WHERE x.end_snapshot IS NOT NULL"
                        + " AND NOT EXISTS (SELECT 1 FROM " + Sql.qualified(SCHEMA, "ducklake_snapshot")
                        + " s WHERE s.snapshot_id >= x.begin_snapshot AND s.snapshot_id < x.end_snapshot)");
            }
        }
        return total;
    }

    /** The newest snapshot id of a database's catalog. */
    long newestSnapshot(String db) throws SQLException {
        return Long.parseLong(rows(db, "SELECT max(snapshot_id) FROM " + SCHEMA + ".ducklake_snapshot").get(0));
    }

    /** Drops every database these twins created and the data directory (best effort). */
    @Override
    public void close() {
        dropAll(created);
    }

    /** Drops the twins' databases and the data directory. */
    void dropAll(List<String> dbs) {
        for (String db : dbs) {
            try {
                admin("DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
            } catch (SQLException ignored) {
                // best effort
            }
        }
        try (var files = Files.walk(dataDir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // best effort
        }
    }
}
