package dev.ducklake.janitor.security;

import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.ProgressListener;
import dev.ducklake.janitor.testsupport.CatalogInvariants;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.Cli;
import dev.ducklake.janitor.testsupport.SqlCapture;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 5, security: every SQL string the engine (and the metrics command on the same catalog) sends is scanned for values from the catalog. Identifiers may
 * only appear as {@link Sql#ident} quotes them and only for names the engine may touch; string literals only as
 * constants written in the engine's source; numbers only as small structural constants (LIMIT 1, bit shifts);
 * never a catalog id, never a hostile registry name. Values travel as bind parameters, which are not SQL text.
 *
 * <p>The SQL is captured below JDBC's {@code DriverManager} ({@link SqlCapture}), so the engine needs no hook.
 */
class SqlScanTest {

    private static final Pattern IDENT = Pattern.compile("\"((?:[^\"]|\"\")*)\"");
    private static final Pattern LITERAL = Pattern.compile("'((?:[^']|'')*)'");
    private static final Pattern NUMBER = Pattern.compile("(?<![A-Za-z_0-9])[0-9]+(?![A-Za-z_0-9])");
    private static final List<String> HOSTILE = List.of("\"; DROP TABLE ducklake_snapshot; --", "x'; DELETE FROM ducklake_table; --",
            "ducklake_inlined_data_7000010_4000001; DROP SCHEMA public");

    private final TestPostgres pg = TestPostgres.get();

    @Test
    void theEngineNeverPutsACatalogValueIntoSqlText() throws Exception {
        // a schema name that needs quoting, and registry rows with large, recognisable ids and hostile names
        String schema = "scan \"q\"; " + ProcessHandle.current().pid();
        Set<String> catalogNumbers = new HashSet<>();
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + Sql.ident(schema) + " CASCADE");
            DemoScenario.build(c, schema, 10);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified(schema, "ducklake_inlined_data_tables")
                    + " VALUES (?, ?, ?)")) {
                for (long id = 7_000_001; id <= 7_000_009; id++) {
                    String name = InlinedTableName.dataTable(id, 4_000_001);
                    if (id != 7_000_009) {
                        st.execute("CREATE TABLE " + Sql.qualified(schema, name) + " (row_id bigint, begin_snapshot bigint,"
                                + " end_snapshot bigint, c1 integer)");
                    }
                    ps.setLong(1, id);
                    ps.setString(2, name);
                    ps.setLong(3, 4_000_001);
                    ps.addBatch();
                }
                long id = 7_000_100;
                for (String h : HOSTILE) {
                    st.execute("CREATE TABLE " + Sql.qualified(schema, h) + " (row_id bigint)");
                    ps.setLong(1, id++);
                    ps.setString(2, h);
                    ps.setLong(3, 4_000_001);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            st.execute("INSERT INTO " + Sql.qualified(schema, InlinedTableName.dataTable(7_000_006, 4_000_001))
                    + " VALUES (5550001, 5550002, NULL, 5550003)");
            // beyond the registry: an unregistered leftover, a non-empty inlined deletion table, a name with a leading zero
            st.execute("CREATE TABLE " + Sql.qualified(schema, InlinedTableName.dataTable(7_000_050, 4_000_001))
                    + " (row_id bigint, begin_snapshot bigint, end_snapshot bigint, c1 integer)");
            Catalogs.inlinedDeleteTable(c, schema, 7_000_051, 1);
            st.execute("CREATE TABLE " + Sql.qualified(schema, "ducklake_inlined_data_07000052_4000001")
                    + " (row_id bigint, begin_snapshot bigint, end_snapshot bigint, c1 integer)");
            try (var rs = st.executeQuery("SELECT table_id, schema_version FROM " + Sql.qualified(schema, "ducklake_inlined_data_tables")
                    + " UNION ALL SELECT table_id, begin_snapshot FROM " + Sql.qualified(schema, "ducklake_table"))) {
                while (rs.next()) {
                    for (int i = 1; i <= 2; i++) {
                        long v = rs.getLong(i);
                        if (v >= 100) {
                            catalogNumbers.add(Long.toString(v));
                        }
                    }
                }
            }
        }
        catalogNumbers.addAll(List.of("5550001", "5550002", "5550003", "7000050", "7000051", "7000052", "07000052"));
        CatalogInvariants.Snapshot before;
        try (Connection c = pg.connect()) {
            before = CatalogInvariants.snapshot(c, schema);
        }
        Set<String> mayTouch = new HashSet<>();
        before.registry().stream().filter(before::droppable).forEach(r -> mayTouch.add(r.tableName()));
        mayTouch.add(InlinedTableName.dataTable(7_000_050, 4_000_001));
        mayTouch.add(InlinedTableName.DELETE_PREFIX + 7_000_051);

        List<String> sql = new ArrayList<>();
        List<String> metricsSql = new ArrayList<>();
        DropOrphanInlineTablesOptions options = DropOrphanInlineTablesOptions.defaults().withMetadataSchema(schema).withBatchSize(3)
                .withLockTimeout(Duration.ofMillis(200));
        // a reader holds one orphan so that the per-table path and the retry pass run too
        try (Connection blocker = pg.connect()) {
            blocker.setAutoCommit(false);
            try (Statement st = blocker.createStatement()) {
                st.execute("SELECT 1 FROM " + Sql.qualified(schema, InlinedTableName.dataTable(7_000_002, 4_000_001)));
            }
            try (SqlCapture capture = SqlCapture.install()) {
                new DropOrphanInlineTables(pg.spec(), options.withDryRun(true), ProgressListener.NONE).execute();
                DropOrphanInlineTablesResult r = new DropOrphanInlineTables(pg.spec(), options, ProgressListener.NONE).execute();
                assertThat(r.skippedLocked()).as("the per-table path ran").isEqualTo(1);
                blocker.rollback();
                new DropOrphanInlineTables(pg.spec(), options, ProgressListener.NONE).execute();
                // the metrics command reads the same catalog: its SQL is held to the same rule (its size-band bounds are
                // program constants of more than two digits, so only catalog values count as numbers there)
                sql.addAll(capture.statements());
                capture.clear();
                Cli.Run metrics = Cli.run("metrics", "--catalog", pg.url(), "--metadata-schema", schema);
                assertThat(metrics.exitCode()).as("metrics ran; stderr: %s", metrics.err()).isZero();
                metricsSql.addAll(capture.statements());
                capture.clear();
                // and the paths beyond the registry: leftovers, inlined deletions, non-empty orphans
                DropOrphanInlineTablesOptions all = options.withIncludeUnregistered(true).withIncludeNonempty(true);
                new DropOrphanInlineTables(pg.spec(), all.withDryRun(true), ProgressListener.NONE).execute();
                DropOrphanInlineTablesResult beyond = new DropOrphanInlineTables(pg.spec(), all, ProgressListener.NONE).execute();
                assertThat(beyond.droppedUnregistered()).as("the leftover went").isEqualTo(1);
                assertThat(beyond.droppedInlinedDelete()).as("the deletion table went").isEqualTo(1);
                assertThat(beyond.droppedNonempty()).as("the non-empty orphans went").isGreaterThanOrEqualTo(2);
                sql.addAll(capture.statements());
            }
        }
        try (Connection c = pg.connect()) {
            assertThat(Catalogs.exists(c, schema, "ducklake_inlined_data_07000052_4000001")).as("an anomaly is never dropped").isTrue();
            assertThat(Catalogs.exists(c, schema, InlinedTableName.dataTable(1, 1))).as("a live table's inlined table stays").isTrue();
            for (String h : HOSTILE) {
                assertThat(Catalogs.exists(c, schema, h)).as("hostile-named table %s stays", h).isTrue();
            }
        }

        String engineSource;
        try (Stream<Path> files = Files.walk(Path.of("src", "main", "java"))) {
            engineSource = files.filter(p -> p.toString().endsWith(".java")).map(p -> {
                try {
                    return Files.readString(p);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).collect(Collectors.joining("\n"));
        }
        assertThat(sql).as("the capture saw the engine's statements").hasSizeGreaterThan(20);
        assertThat(sql).anyMatch(s -> s.contains("DROP TABLE")).anyMatch(s -> s.contains("LOCK TABLE"))
                .anyMatch(s -> s.contains("DELETE FROM"));
        Set<String> identifiersSeen = new HashSet<>();
        List<String> violations = new ArrayList<>();
        for (String s : sql) {
            violations.addAll(violations(s, schema, mayTouch, catalogNumbers, engineSource, identifiersSeen, true));
        }
        assertThat(metricsSql).as("the capture saw the metrics queries").isNotEmpty();
        // metrics also runs check's rules: dead_inlined_rows reads the registered inlined tables of reachable tables
        // (read-only) and quotes their snapshot columns
        Set<String> metricsMayName = new HashSet<>(List.of("begin_snapshot", "end_snapshot", "table_id", "data_file_id",
                "delete_file_id"));
        before.registry().stream().filter(r -> InlinedTableName.guardAllows(r.tableName(), r.tableId(), r.schemaVersion()))
                .forEach(r -> metricsMayName.add(r.tableName()));
        for (String s : metricsSql) {
            violations.addAll(violations(s, schema, metricsMayName, catalogNumbers, engineSource, identifiersSeen, false));
        }
        assertThat(violations).as("SQL text built from catalog values").isEmpty();
        assertThat(identifiersSeen).as("the orphans were addressed by quoted identifiers")
                .contains(InlinedTableName.dataTable(7_000_001, 4_000_001), schema);
        System.out.printf("SQL scan: %d statements, %d distinct, %d distinct identifiers%n", sql.size(), new HashSet<>(sql).size(),
                identifiersSeen.size());
    }

    /**
     * Issue 13: check (every rule, on a catalog with one instance of every finding kind) and purge-orphan-stats (dry run
     * and execute) put no catalog value into SQL text either. check may name the live table's inlined tables (it counts
     * their dead rows, read-only) and the catalog columns it quotes.
     */
    @Test
    void checkAndPurgeNeverPutACatalogValueIntoSqlText() throws Exception {
        String schema = "scan13 \"q\"; " + ProcessHandle.current().pid();
        dev.ducklake.janitor.ops.check.DamagedCatalog cat;
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + Sql.ident(schema) + " CASCADE");
            cat = new dev.ducklake.janitor.ops.check.DamagedCatalog(schema, dev.ducklake.janitor.catalog.FormatVersion.V1_0).build(c);
        }
        Set<String> catalogNumbers = Set.of("900", "901", "910", "911", "912", "0912", "600", "501", "502", "503");
        Set<String> mayName = new HashSet<>(List.of("table_id", "data_file_id", "delete_file_id", "begin_snapshot", "end_snapshot"));
        try (Connection c = pg.connect(); var rs = c.createStatement().executeQuery("SELECT table_name FROM "
                + Sql.qualified(schema, "ducklake_inlined_data_tables") + " WHERE table_id = " + cat.live)) {
            while (rs.next()) {
                mayName.add(rs.getString(1));
            }
        }
        List<String> sql;
        try (SqlCapture capture = SqlCapture.install()) {
            dev.ducklake.janitor.ops.check.CheckResult r = new dev.ducklake.janitor.ops.check.CatalogCheck(pg.spec(),
                    dev.ducklake.janitor.ops.check.CheckOptions.defaults().withMetadataSchema(schema)).execute();
            assertThat(r.errors()).isEmpty();
            assertThat(r.findings()).hasSizeGreaterThanOrEqualTo(14);
            dev.ducklake.janitor.ops.purgestats.PurgeOrphanStatsOptions o = dev.ducklake.janitor.ops.purgestats.PurgeOrphanStatsOptions
                    .defaults().withMetadataSchema(schema).withBatchSize(1);
            new dev.ducklake.janitor.ops.purgestats.PurgeOrphanStats(pg.spec(), o.withDryRun(true), dev.ducklake.janitor.ops.ProgressListener.NONE).execute();
            assertThat(new dev.ducklake.janitor.ops.purgestats.PurgeOrphanStats(pg.spec(), o, dev.ducklake.janitor.ops.ProgressListener.NONE).execute().rowsDeletedTotal())
                    .isEqualTo(6);
            sql = capture.statements().stream().filter(s -> !s.contains("ducklake_inlined_data_0912_1")
                    || s.startsWith("SELECT c.relname::text, c.relkind::text")).toList();
        }
        String engineSource;
        try (Stream<Path> files = Files.walk(Path.of("src", "main", "java"))) {
            engineSource = files.filter(p -> p.toString().endsWith(".java")).map(p -> {
                try {
                    return Files.readString(p);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).collect(Collectors.joining("\n"));
        }
        assertThat(sql).anyMatch(s -> s.contains("DELETE FROM")).anyMatch(s -> s.contains("pg_stat_get_dead_tuples"));
        Set<String> seen = new HashSet<>();
        List<String> violations = new ArrayList<>();
        for (String s : sql) {
            violations.addAll(violations(s, schema, mayName, catalogNumbers, engineSource, seen, true));
        }
        assertThat(violations).as("SQL text built from catalog values").isEmpty();
    }

    @Test
    void theScannerFlagsConcatenatedValues() {
        Set<String> numbers = Set.of("7000001");
        Set<String> touch = Set.of("ducklake_inlined_data_7000001_1");
        String source = "\"SELECT 'r'\"";
        Set<String> seen = new HashSet<>();
        assertThat(violations("DELETE FROM \"s\".\"ducklake_inlined_data_tables\" WHERE table_id = ?", "s", touch, numbers, source, seen, true))
                .as("bind parameters pass").isEmpty();
        assertThat(violations("DELETE FROM \"s\".\"ducklake_inlined_data_tables\" WHERE table_id = 7000001", "s", touch, numbers,
                source, seen, true)).as("a concatenated id").isNotEmpty();
        assertThat(violations("DROP TABLE \"s\".\"x\"; DROP TABLE ducklake_snapshot; --\"", "s", touch, numbers, source, seen, true))
                .as("an identifier not quoted by Sql.ident").isNotEmpty();
        assertThat(violations("SELECT 1 FROM t WHERE name = 'ducklake_inlined_data_7000001_1'", "s", touch, numbers, source, seen, true))
                .as("a concatenated name").isNotEmpty();
        assertThat(violations("DROP TABLE \"s\".\"ducklake_inlined_data_7000002_1\"", "s", touch, numbers, source, seen, true))
                .as("a table the engine may not touch").isNotEmpty();
    }

    /** What is wrong with one SQL string (empty when nothing). */
    private static List<String> violations(String s, String schema, Set<String> mayTouch, Set<String> catalogNumbers,
                                           String engineSource, Set<String> identifiersSeen, boolean smallNumbersOnly) {
        List<String> out = new ArrayList<>();
        for (String h : HOSTILE) {
            if (s.contains(h) || s.contains(h.replace("\"", "\"\""))) {
                out.add("hostile registry name in SQL text: " + s);
            }
        }
        Matcher im = IDENT.matcher(s);
        while (im.find()) {
            String ident = im.group(1).replace("\"\"", "\"");
            identifiersSeen.add(ident);
            if (!(ident.equals(schema) || ident.matches("ducklake_[a-z_]+") || mayTouch.contains(ident))) {
                out.add("identifier " + ident + " is not the schema, a catalog table or a droppable orphan: " + s);
            }
        }
        String rest = IDENT.matcher(s).replaceAll(" IDENT ");
        Matcher lm = LITERAL.matcher(rest);
        while (lm.find()) {
            if (!engineSource.contains(lm.group())) {
                out.add("string literal " + lm.group() + " is not a constant of the engine's source: " + s);
            }
        }
        rest = LITERAL.matcher(rest).replaceAll(" LITERAL ");
        if (rest.contains("\"") || rest.contains("'")) {
            out.add("unbalanced quoting: " + s);
        }
        Matcher nm = NUMBER.matcher(rest);
        while (nm.find()) {
            if (catalogNumbers.contains(nm.group()) || (smallNumbersOnly && nm.group().length() > 2)) {
                out.add("number " + nm.group() + " is a catalog value or not a small structural constant: " + s);
            }
        }
        return out;
    }
}
