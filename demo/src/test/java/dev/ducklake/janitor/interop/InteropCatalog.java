package dev.ducklake.janitor.interop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.cli.Main;
import dev.ducklake.janitor.testsupport.TestPostgres;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * One DuckLake catalog for one interop test: its own metadata schema on the test PostgreSQL and its own
 * data directory. DuckLake (through {@link RealDuckLake}) creates and uses it; the janitor runs on it in
 * process through {@link Main#execute}; the test reads the catalog with plain JDBC to check both.
 */
public final class InteropCatalog {

    /** A row of ducklake_inlined_data_tables. */
    public record RegistryRow(long tableId, String tableName, long schemaVersion) {
    }

    /** A row of ducklake_table. */
    public record TableRow(long tableId, String tableName, long beginSnapshot, Long endSnapshot) {
    }

    /** A janitor run: exit code, the JSON document on stdout, stderr text. */
    public record JanitorRun(int exitCode, JsonNode json, String stderr) {
        public long count(String field) {
            JsonNode v = json.get(field);
            if (v == null || !v.canConvertToLong()) {
                throw new AssertionError("janitor output has no numeric field '" + field + "': " + json + "\n" + stderr);
            }
            return v.asLong();
        }
    }

    private final RealDuckLake duckLake;
    private final TestPostgres pg;
    private final String schema;
    private final Path dataDir;

    private InteropCatalog(RealDuckLake duckLake, TestPostgres pg, String schema, Path dataDir) {
        this.duckLake = duckLake;
        this.pg = pg;
        this.schema = schema;
        this.dataDir = dataDir;
    }

    /**
     * A fresh catalog location (nothing created yet; DuckLake creates the catalog at its first ATTACH).
     *
     * @param prefix readable schema prefix
     * @return the catalog
     */
    public static InteropCatalog fresh(String prefix) throws SQLException, IOException {
        return fresh(prefix, RealDuckLake.require());
    }

    /**
     * A fresh catalog location that {@code dl} (e.g. an older release from {@link RealDuckLake#release}) creates.
     *
     * @param prefix readable schema prefix
     * @param dl the DuckLake that {@link #run} uses
     * @return the catalog
     */
    public static InteropCatalog fresh(String prefix, RealDuckLake dl) throws SQLException, IOException {
        TestPostgres pg = TestPostgres.get();
        String schema = pg.freshSchema(prefix);
        Path data = Files.createTempDirectory("ducklake-interop-" + schema + "-");
        return new InteropCatalog(dl, pg, schema, data);
    }

    public RealDuckLake duckLake() {
        return duckLake;
    }

    /** @return the --catalog value of this catalog's database */
    public String catalogUrl() {
        return pg.url();
    }

    /** @return the metadata schema */
    public String schema() {
        return schema;
    }

    public Path dataDir() {
        return dataDir;
    }

    /** ATTACH options for this catalog (alias lake, METADATA_SCHEMA = our schema). */
    public RealDuckLake.Attach attach() {
        return new RealDuckLake.Attach(pg.libpq(), dataDir.toString() + "/").metadataSchema(schema);
    }

    /** ATTACH options for this catalog with another DATA_PATH (an object-store URL, spelled as given). */
    public RealDuckLake.Attach attach(String dataPath) {
        return new RealDuckLake.Attach(pg.libpq(), dataPath).metadataSchema(schema);
    }

    /** Runs a DuckLake program and requires every step to succeed. */
    public RealDuckLake.Result run(RealDuckLake.Program program) {
        return duckLake.run(program).assertOk();
    }

    /** A new JDBC connection (autocommit). */
    public Connection connect() throws SQLException {
        return pg.connect();
    }

    String q(String table) {
        return "\"" + schema + "\"." + table;
    }

    /** Runs the janitor's drop-orphan-inline-tables with --output json against this catalog. */
    public JanitorRun janitor(String... extraArgs) {
        List<String> args = new ArrayList<>(List.of("drop-orphan-inline-tables", "--catalog", pg.url(),
                "--metadata-schema", schema, "--output", "json"));
        args.addAll(List.of(extraArgs));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.execute(args.toArray(new String[0]), new PrintWriter(out), new PrintWriter(err));
        JsonNode doc;
        try {
            doc = RealDuckLake.JSON.readTree(out.toString());
        } catch (IOException e) {
            throw new AssertionError("janitor printed no JSON (exit " + code + "): " + out + "\n" + err, e);
        }
        if (doc == null) {
            throw new AssertionError("janitor printed nothing (exit " + code + "); stderr: " + err);
        }
        return new JanitorRun(code, doc, err.toString());
    }

    /** Janitor dry run; must exit 0. */
    public JanitorRun janitorDryRun() {
        JanitorRun r = janitor("--dry-run");
        if (r.exitCode() != 0) {
            throw new AssertionError("janitor dry run failed: " + r.json() + "\n" + r.stderr());
        }
        return r;
    }

    /** Janitor execute run (--yes); must exit 0. */
    public JanitorRun janitorExecute(String... extra) {
        List<String> args = new ArrayList<>(List.of("--yes"));
        args.addAll(List.of(extra));
        JanitorRun r = janitor(args.toArray(new String[0]));
        if (r.exitCode() != 0) {
            throw new AssertionError("janitor execute failed: " + r.json() + "\n" + r.stderr());
        }
        return r;
    }

    /** Rows of ducklake_inlined_data_tables, ordered. */
    public List<RegistryRow> registry() throws SQLException {
        List<RegistryRow> out = new ArrayList<>();
        try (Connection c = connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT table_id, table_name, schema_version FROM "
                     + q("ducklake_inlined_data_tables") + " ORDER BY table_id, schema_version")) {
            while (rs.next()) {
                out.add(new RegistryRow(rs.getLong(1), rs.getString(2), rs.getLong(3)));
            }
        }
        return out;
    }

    /** Rows of ducklake_table, ordered. */
    public List<TableRow> tables() throws SQLException {
        List<TableRow> out = new ArrayList<>();
        try (Connection c = connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT table_id, table_name, begin_snapshot, end_snapshot FROM "
                     + q("ducklake_table") + " ORDER BY table_id, begin_snapshot")) {
            while (rs.next()) {
                long end = rs.getLong(4);
                Long endOrNull = rs.wasNull() ? null : end;
                out.add(new TableRow(rs.getLong(1), rs.getString(2), rs.getLong(3), endOrNull));
            }
        }
        return out;
    }

    /** Names of the inlined-data relations that exist in pg_class (registered or not), sorted. */
    public Set<String> inlinedRelations() throws SQLException {
        Set<String> out = new TreeSet<>();
        try (Connection c = connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                     + " WHERE n.nspname = '" + schema + "' AND c.relkind = 'r'"
                     + " AND (c.relname LIKE 'ducklake\\_inlined\\_data\\_%' OR c.relname LIKE 'ducklake\\_inlined\\_delete\\_%')"
                     + " AND c.relname <> 'ducklake_inlined_data_tables'")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    /** Number of relations of any kind in the metadata schema. */
    public long relationCount() throws SQLException {
        return scalar("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '"
                + schema + "'");
    }

    /** Row count of a table of the metadata schema. */
    public long rowCount(String table) throws SQLException {
        return scalar("SELECT count(*) FROM " + q("\"" + table + "\""));
    }

    /** min and max snapshot_id. */
    public long[] snapshotBounds() throws SQLException {
        try (Connection c = connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT min(snapshot_id), max(snapshot_id) FROM " + q("ducklake_snapshot"))) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }

    /** All retained snapshot ids, ascending. */
    public List<Long> snapshotIds() throws SQLException {
        List<Long> out = new ArrayList<>();
        try (Connection c = connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT snapshot_id FROM " + q("ducklake_snapshot") + " ORDER BY 1")) {
            while (rs.next()) {
                out.add(rs.getLong(1));
            }
        }
        return out;
    }

    /** The format version in ducklake_metadata. */
    public String formatVersion() throws SQLException {
        try (Connection c = connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT value FROM " + q("ducklake_metadata") + " WHERE key = 'version'")) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    long scalar(String sql) throws SQLException {
        try (Connection c = connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Executes SQL on the catalog database. */
    public void execute(String sql) throws SQLException {
        try (Connection c = connect(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    /**
     * Moves the retained snapshot window the Postgres-native way, as the seed's batched
     * {@code expire-snapshots} does: snapshot rows below {@code firstRetained} and their
     * {@code ducklake_snapshot_changes} rows are deleted in one transaction, and nothing else (no table rows,
     * no registry rows, no inlined tables). This is how inlined tables of dropped tables leak in
     * production: DuckLake's own {@code ducklake_expire_snapshots} would have dropped them itself.
     *
     * @param firstRetained the lowest snapshot id to keep
     * @return number of snapshots deleted
     */
    public int pgNativeExpireBelow(long firstRetained) throws SQLException {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                long max = scalarIn(st, "SELECT max(snapshot_id) FROM " + q("ducklake_snapshot"));
                if (firstRetained > max) {
                    throw new IllegalArgumentException("would expire the latest snapshot " + max);
                }
                st.executeUpdate("DELETE FROM " + q("ducklake_snapshot_changes") + " WHERE snapshot_id < " + firstRetained);
                int n = st.executeUpdate("DELETE FROM " + q("ducklake_snapshot") + " WHERE snapshot_id < " + firstRetained);
                c.commit();
                return n;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    private static long scalarIn(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Removes the data directory (the schema stays for post-mortem until the next run drops it). */
    public void deleteDataDir() {
        try (var walk = Files.walk(dataDir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // temp dir
        }
    }
}
