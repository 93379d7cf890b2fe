package dev.ducklake.janitor.badinput;

import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.CatalogInvariants;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 23 item 4: the per-command privilege table is executable (every command but {@code maintain}). It is read from docs/privileges.md (the one
 * source the README quotes); for each command a role holding exactly the listed grants runs it successfully, and for
 * each grant a role holding all the others gets exit 8, a message naming what is missing, and an unchanged catalog.
 *
 * <p>The roles are not the catalog's owner: the catalog tables belong to the superuser (the administrator that ran
 * the migration) and the inlined tables to a NOLOGIN role standing for DuckLake's writer; ownership comes only from
 * membership in that role. Runs in a database of its own where {@code PUBLIC} has no {@code TEMPORARY}, so that the
 * grant on the database is really the one listed.
 */
class PrivilegeTableTest {

    private static final String PASSWORD = "priv-table-pw";
    private static final Path DOC = Path.of("docs/privileges.md");
    private static final Pattern SECTION = Pattern.compile("^<!-- privileges: (.+?) -->$");
    private static final Pattern ROW = Pattern.compile("^\\| `?([A-Z]+)`? \\| (.+?) \\|$");
    private static final String EVERY_TABLE = "every ducklake_* table";
    private static final String INLINED = "inlined tables";
    private static final String OWNER = "the inlined tables' owner";

    private static final TestPostgres PG = TestPostgres.get();
    private static final String DB = "privtable_" + ProcessHandle.current().pid();
    private static final String WRITER = "privtable_writer_" + ProcessHandle.current().pid();
    private static final AtomicInteger SEQ = new AtomicInteger();
    private static final List<String> ROLES = new ArrayList<>();

    /** One grant of the table: a privilege on an object, as written in the doc. */
    record Grant(String privilege, String on) {
        @Override
        public String toString() {
            return privilege + " on " + on;
        }
    }

    /** How each command of the doc is run in the test: extra arguments, its catalog, what success is. */
    private record Case(List<String> args, Fixture fixture, List<Integer> success) {
    }

    @FunctionalInterface
    private interface Fixture {
        void build(Connection c, String schema) throws SQLException;
    }

    private static final Map<String, Case> CASES = new LinkedHashMap<>();

    static {
        Fixture leaked = (c, s) -> FaultCatalog.build(c, s, 6);
        Fixture expirable = PrivilegeTableTest::expirable;
        Fixture orphanStats = PrivilegeTableTest::orphanStats;
        CASES.put("drop-orphan-inline-tables --dry-run", new Case(List.of("--dry-run"), leaked, List.of(0)));
        CASES.put("drop-orphan-inline-tables", new Case(List.of("--yes"), leaked, List.of(0)));
        List<String> expire = List.of("--older-than", "2999-01-01T00:00:00Z", "--min-age", "0s");
        CASES.put("expire-snapshots --dry-run", new Case(concat(expire, "--dry-run"), expirable, List.of(0)));
        CASES.put("expire-snapshots", new Case(concat(expire, "--yes"), expirable, List.of(0)));
        CASES.put("purge-orphan-stats --dry-run", new Case(List.of("--dry-run"), orphanStats, List.of(0)));
        CASES.put("purge-orphan-stats", new Case(List.of("--yes"), orphanStats, List.of(0)));
        CASES.put("check", new Case(List.of(), leaked, List.of(0, 12)));
        CASES.put("metrics", new Case(List.of(), leaked, List.of(0)));
        CASES.put("serve", new Case(List.of(), leaked, List.of(0)));
        Fixture files = PrivilegeTableTest::files;
        // the server's other databases hold the other tests' catalogs, which these roles cannot read: the storage
        // commands consult this database only (the grants apply the same to each catalog of a consulted database)
        CASES.put("cleanup-old-files", new Case(List.of("--no-consult-server"), files, List.of(0)));
        CASES.put("delete-orphan-files", new Case(List.of("--no-consult-server"), files, List.of(0)));
        CASES.put("check --storage", new Case(List.of("--storage"), files, List.of(0, 12)));
    }

    /** Where the storage fixtures' data paths are: one folder per schema. */
    private static final Path LAKES;

    static {
        try {
            LAKES = Files.createTempDirectory("privtable-lakes");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A catalog for the storage commands (the leaked catalog of the other commands) whose data path is a local folder
     * holding a live data file, a queued file 3 days old and a 3-day-old orphan.
     */
    private static void files(Connection c, String schema) throws SQLException {
        FaultCatalog.build(c, schema, 6);
        String q = Sql.ident(schema);
        Path lake = dataPath(c, schema);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + q + ".ducklake_data_file (data_file_id, table_id,"
                + " begin_snapshot, path, path_is_relative, file_format) SELECT 900000, 1, max(snapshot_id), ?, false, 'parquet'"
                + " FROM " + q + ".ducklake_snapshot")) {
            ps.setString(1, lake.resolve("main/test/live.parquet").toString());
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + q + ".ducklake_files_scheduled_for_deletion VALUES"
                + " (900001, ?, false, now() - interval '3 days')")) {
            ps.setString(1, lake.resolve("main/test/a.parquet").toString());
            ps.executeUpdate();
        }
        try {
            for (String f : List.of("live.parquet", "a.parquet", "stray.parquet")) {
                dev.ducklake.janitor.testsupport.FileCatalog.file(lake.resolve("main/test/" + f), java.time.Duration.ofDays(3));
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Points the catalog's data_path at its folder under {@link #LAKES}. */
    private static Path dataPath(Connection c, String schema) throws SQLException {
        String q = Sql.ident(schema);
        Path lake = LAKES.resolve(schema);
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + q + ".ducklake_metadata WHERE key = 'data_path'")) {
            ps.executeUpdate();
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + q + ".ducklake_metadata VALUES ('data_path', ?, NULL, NULL)")) {
            ps.setString(1, lake + "/");
            ps.executeUpdate();
        }
        return lake;
    }

    /** The files under a schema's data path (empty for the catalogs without one). */
    private static List<String> lakeFiles(String schema) throws IOException {
        Path lake = LAKES.resolve(schema);
        if (!Files.isDirectory(lake)) {
            return List.of();
        }
        try (var walk = Files.walk(lake)) {
            return walk.filter(Files::isRegularFile).map(p -> lake.relativize(p).toString()).sorted().toList();
        }
    }

    private static List<String> concat(List<String> a, String b) {
        List<String> out = new ArrayList<>(a);
        out.add(b);
        return out;
    }

    /**
     * A catalog where expiry has every kind of work: a dropped table with two inlined tables, a data file (with column,
     * variant and partition stats) and a delete file of it, a data file of the live table replaced at snapshot 2, and
     * every snapshot a day old.
     */
    private static void expirable(Connection c, String schema) throws SQLException {
        CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
        long live = b.createTable("live", 1);
        b.insertRows(live, 2);
        long dead = b.createTable("dead", 2);
        b.insertRows(dead, 3);
        b.addColumn(dead);
        long dropped = b.dropTable(dead);
        b.insertRows(live, 1);
        String s = Sql.ident(schema);
        Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_data_file (data_file_id, table_id, begin_snapshot, end_snapshot, path,"
                + " path_is_relative, file_format, record_count, file_size_bytes) VALUES (900, " + dead + ", 1, " + dropped
                + ", 'f-900.parquet', true, 'parquet', 3, 100), (902, " + live + ", 1, 2, 'f-902.parquet', true, 'parquet', 2, 100)");
        for (int id : new int[] {900, 902}) {
            long table = id == 900 ? dead : live;
            Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_file_column_stats (data_file_id, table_id, column_id) VALUES (" + id + ", " + table + ", 1)");
            Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_file_variant_stats (data_file_id, table_id, column_id, variant_path) VALUES ("
                    + id + ", " + table + ", 1, 'v')");
            Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_file_partition_value VALUES (" + id + ", " + table + ", 0, 'p')");
        }
        Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_delete_file (delete_file_id, table_id, begin_snapshot, end_snapshot, data_file_id,"
                + " path, path_is_relative, format, delete_count, file_size_bytes) VALUES (901, " + dead + ", 1, " + dropped
                + ", 900, 'd-901.parquet', true, 'parquet', 1, 10)");
        Catalogs.exec(c, "UPDATE " + Sql.qualified(schema, "ducklake_snapshot") + " SET snapshot_time = now() - interval '1 day'");
    }

    /** A catalog with stats rows of table_ids that have no table row and of a data file that has no file row (each stats table). */
    private static void orphanStats(Connection c, String schema) throws SQLException {
        CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
        long live = b.createTable("live", 1);
        String s = Sql.ident(schema);
        Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_table_stats VALUES (" + live + ", 1, 1, 1), (1001, 1, 1, 1), (1002, 1, 1, 1)");
        Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_table_column_stats (table_id, column_id) VALUES (1001, 1), (1002, 1)");
        Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_file_column_stats (data_file_id, table_id, column_id) VALUES (5001, 1, 1)");
        Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_file_variant_stats (data_file_id, table_id, column_id, variant_path) VALUES (5001, 1, 1, 'v')");
        Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_file_partition_value VALUES (5001, 1, 0, 'p')");
    }

    @BeforeAll
    static void database() throws SQLException {
        try (Connection c = PG.connect(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + Sql.ident(DB));
            st.execute("CREATE DATABASE " + Sql.ident(DB));
            st.execute("REVOKE TEMPORARY ON DATABASE " + Sql.ident(DB) + " FROM PUBLIC");
            st.execute("DROP ROLE IF EXISTS " + Sql.ident(WRITER));
            st.execute("CREATE ROLE " + Sql.ident(WRITER) + " NOLOGIN");
        }
    }

    @AfterAll
    static void dropDatabase() throws SQLException {
        try (Connection c = PG.connect(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + Sql.ident(DB) + " WITH (FORCE)");
            for (String r : ROLES) {
                st.execute("DROP ROLE IF EXISTS " + Sql.ident(r));
            }
            st.execute("DROP ROLE IF EXISTS " + Sql.ident(WRITER));
        }
    }

    private static Connection db() throws Exception {
        return PG.spec().withDatabase(DB).open();
    }

    /** The doc's sections: command key to its grants, in order. */
    static Map<String, List<Grant>> table() throws IOException {
        Map<String, List<Grant>> out = new LinkedHashMap<>();
        List<Grant> current = null;
        for (String line : Files.readAllLines(DOC)) {
            Matcher m = SECTION.matcher(line.strip());
            if (m.matches()) {
                current = new ArrayList<>();
                out.put(m.group(1).strip(), current);
                continue;
            }
            if (current != null) {
                Matcher r = ROW.matcher(line.strip());
                if (r.matches()) {
                    current.add(new Grant(r.group(1), r.group(2).replace("`", "").strip()));
                } else if (line.isBlank() && !current.isEmpty()) {
                    current = null;
                }
            }
        }
        return out;
    }

    @Test
    void everyCommandOfTheDocHasACaseAndEveryCaseIsInTheDoc() throws IOException {
        assertThat(table().keySet()).as("docs/privileges.md sections vs the commands this test runs")
                .containsExactlyInAnyOrderElementsOf(CASES.keySet());
        table().forEach((k, v) -> assertThat(v).as("grants of %s", k).isNotEmpty());
    }

    @TestFactory
    List<DynamicNode> theTableIsExactForEveryCommand() throws IOException {
        List<DynamicNode> out = new ArrayList<>();
        for (Map.Entry<String, List<Grant>> e : table().entrySet()) {
            String command = e.getKey();
            Case cs = CASES.get(command);
            if (cs == null) {
                continue; // reported by everyCommandOfTheDocHasACaseAndEveryCaseIsInTheDoc
            }
            List<DynamicNode> tests = new ArrayList<>();
            tests.add(DynamicTest.dynamicTest("exactly the listed grants: succeeds", () -> {
                CliRun run = runWith(command, cs, e.getValue(), null);
                assertThat(cs.success()).as("%s with exactly %s; stderr: %s", command, e.getValue(), run.err())
                        .contains(run.exitCode());
            }));
            for (Grant g : e.getValue()) {
                tests.add(DynamicTest.dynamicTest("without " + g + ": exit 8, named, nothing changed",
                        () -> withoutOne(command, cs, e.getValue(), g)));
            }
            out.add(DynamicContainer.dynamicContainer(command, tests));
        }
        return out;
    }

    private void withoutOne(String command, Case cs, List<Grant> grants, Grant missing) throws Exception {
        String schema = "pt_" + SEQ.incrementAndGet();
        Outcome o = run(command, cs, grants, missing, schema);
        assertThat(o.run.exitCode()).as("%s without %s must exit 8; stdout: %s stderr: %s", command, missing, o.run.out(), o.run.err())
                .isEqualTo(8);
        assertThat(o.run.all()).as("the message names what is missing").containsIgnoringCase(o.named)
                .doesNotContain(PASSWORD).doesNotContain("\tat ");
        try (Connection c = db()) {
            CatalogInvariants.assertUnchanged(c, o.before);
        }
        assertThat(lakeFiles(schema)).as("no file deleted; stderr: %s", o.run.err()).isEqualTo(o.files);
    }

    private record Outcome(CliRun run, CatalogInvariants.Snapshot before, List<String> files, String named) {
    }

    private CliRun runWith(String command, Case cs, List<Grant> grants, Grant missing) throws Exception {
        return run(command, cs, grants, missing, "pt_" + SEQ.incrementAndGet()).run;
    }

    /** Builds the command's catalog, a role with the grants (but {@code missing}), runs the command as it. */
    private Outcome run(String command, Case cs, List<Grant> grants, Grant missing, String schema) throws Exception {
        String role = "privtable_" + ProcessHandle.current().pid() + "_" + SEQ.incrementAndGet();
        ROLES.add(role);
        String named;
        CatalogInvariants.Snapshot before;
        try (Connection c = db(); Statement st = c.createStatement()) {
            // the earlier cases' catalogs go first: the storage commands would consult them (and refuse, unreadable)
            List<String> old = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'pt\\_%'")) {
                while (rs.next()) {
                    old.add(rs.getString(1));
                }
            }
            for (String o : old) {
                st.execute("DROP SCHEMA " + Sql.ident(o) + " CASCADE");
            }
            st.execute("DROP SCHEMA IF EXISTS " + Sql.ident(schema) + " CASCADE");
            cs.fixture().build(c, schema);
            List<String> catalogTables = tables(c, schema, false);
            List<String> inlined = tables(c, schema, true);
            for (String t : inlined) {
                st.execute("ALTER TABLE " + Sql.qualified(schema, t) + " OWNER TO " + Sql.ident(WRITER));
            }
            st.execute("DROP ROLE IF EXISTS " + Sql.ident(role));
            st.execute("CREATE ROLE " + Sql.ident(role) + " LOGIN PASSWORD '" + PASSWORD + "'");
            named = null;
            for (Grant g : grants) {
                List<String> sql = grantSql(g, schema, role, catalogTables, inlined);
                if (g.equals(missing)) {
                    named = named(g, schema);
                    continue;
                }
                for (String s : sql) {
                    st.execute(s);
                }
            }
            before = CatalogInvariants.snapshot(c, schema);
        }
        List<String> files = lakeFiles(schema);
        List<String> args = new ArrayList<>(List.of(command.split(" ")[0], "--catalog", url(role), "--metadata-schema", schema));
        args.addAll(cs.args());
        CliRun run = command.equals("serve") ? serveOneCollection(args) : CliRun.run(args.toArray(new String[0]));
        try (Connection c = db(); Statement st = c.createStatement()) {
            st.execute("DROP OWNED BY " + Sql.ident(role) + " CASCADE");
            st.execute("REVOKE ALL ON DATABASE " + Sql.ident(DB) + " FROM " + Sql.ident(role));
        }
        try (Connection c = PG.connect(); Statement st = c.createStatement()) {
            st.execute("DROP OWNED BY " + Sql.ident(role) + " CASCADE");
        }
        return new Outcome(run, before, files, named);
    }

    /**
     * Runs {@code serve} (in this JVM, on a free port) until its first collection is served, then stops it. serve does
     * not exit on a failed query, so the run's exit code is the one {@code metrics} would give for that collection:
     * 8 when its log names a permission error, 0 when the catalog is up and no query failed, else 9.
     */
    private static CliRun serveOneCollection(List<String> args) throws Exception {
        List<String> a = new ArrayList<>(args);
        a.addAll(List.of("--listen", "127.0.0.1:0", "--interval", "3600"));
        java.io.StringWriter out = new java.io.StringWriter();
        java.io.StringWriter err = new java.io.StringWriter();
        Thread t = new Thread(() -> dev.ducklake.janitor.cli.Main.execute(a.toArray(new String[0]), new java.io.PrintWriter(out, true),
                new java.io.PrintWriter(err, true), Map.of()), "privtable-serve");
        t.start();
        String body = "";
        try {
            Pattern serving = Pattern.compile("serving http://127\\.0\\.0\\.1:(\\d+)/metrics");
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            long deadline = System.nanoTime() + java.time.Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                Matcher m = serving.matcher(err.toString());
                if (m.find()) {
                    java.net.http.HttpResponse<String> r = http.send(java.net.http.HttpRequest.newBuilder(
                            java.net.URI.create("http://127.0.0.1:" + m.group(1) + "/metrics")).build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString());
                    if (r.body().contains("ducklake_janitor_scrape_duration_seconds")) {
                        body = r.body();
                        break;
                    }
                }
                Thread.sleep(100);
            }
        } finally {
            t.interrupt();
            t.join(10_000);
        }
        String log = err.toString();
        int code = body.isEmpty() ? -1
                : log.contains("permission denied") || log.contains("must be owner") ? 8
                : log.contains(": up (") && !log.contains(" failed: ") ? 0 : 9;
        return new CliRun(code, body, log);
    }

    /** The statements that give one grant of the doc. */
    private static List<String> grantSql(Grant g, String schema, String role, List<String> catalogTables, List<String> inlined) {
        String r = Sql.ident(role);
        return switch (g.on()) {
            case "schema" -> List.of("GRANT " + g.privilege() + " ON SCHEMA " + Sql.ident(schema) + " TO " + r);
            case "database" -> List.of("GRANT " + g.privilege() + " ON DATABASE " + Sql.ident(DB) + " TO " + r);
            case OWNER -> List.of("GRANT " + Sql.ident(WRITER) + " TO " + r);
            case EVERY_TABLE -> catalogTables.stream().map(t -> "GRANT " + g.privilege() + " ON " + Sql.qualified(schema, t) + " TO " + r).toList();
            case INLINED -> inlined.stream().map(t -> "GRANT " + g.privilege() + " ON " + Sql.qualified(schema, t) + " TO " + r).toList();
            default -> {
                assertThat(g.on()).as("a table of the doc").startsWith("ducklake_");
                yield catalogTables.contains(g.on()) ? List.of("GRANT " + g.privilege() + " ON " + Sql.qualified(schema, g.on()) + " TO " + r)
                        : List.of();
            }
        };
    }

    /** What the message of a run without the grant must name. */
    private static String named(Grant g, String schema) {
        return switch (g.on()) {
            case "schema" -> schema;
            case "database" -> "temporary";
            case OWNER -> "owner";
            case EVERY_TABLE, INLINED -> "permission denied";
            default -> g.on();
        };
    }

    private static List<String> tables(Connection c, String schema, boolean inlined) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = ? AND c.relkind = 'r' AND c.relname LIKE 'ducklake\\_%' ORDER BY 1")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String t = rs.getString(1);
                    if (t.startsWith("ducklake_inlined_data_") && !t.equals("ducklake_inlined_data_tables")
                            || t.startsWith("ducklake_inlined_delete_")) {
                        if (inlined) {
                            out.add(t);
                        }
                    } else if (!inlined) {
                        out.add(t);
                    }
                }
            }
        }
        return out;
    }

    private static String url(String role) {
        return "jdbc:postgresql://" + PG.spec().host() + ":" + PG.spec().port() + "/" + DB + "?user=" + role + "&password=" + PASSWORD;
    }
}
