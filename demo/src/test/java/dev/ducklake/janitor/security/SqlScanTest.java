package dev.ducklake.janitor.security;

import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.testsupport.CatalogInvariants;
import dev.ducklake.janitor.ops.cleanupoldfiles.QueueSweep;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.deleteorphanfiles.OrphanSweep;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesOptions;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.ModuleSources;
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
        DropOrphanInlineTablesOptions options = DropOrphanInlineTablesOptions.builder().metadataSchema(schema).batchSize(3)
                .lockTimeout(Duration.ofMillis(200)).build();
        // a reader holds one orphan so that the per-table path and the retry pass run too
        try (Connection blocker = pg.connect()) {
            blocker.setAutoCommit(false);
            try (Statement st = blocker.createStatement()) {
                st.execute("SELECT 1 FROM " + Sql.qualified(schema, InlinedTableName.dataTable(7_000_002, 4_000_001)));
            }
            try (SqlCapture capture = SqlCapture.install()) {
                new DropOrphanInlineTables(pg.spec(), options.toBuilder().dryRun(true).build(), ProgressListener.NONE).execute();
                DropOrphanInlineTablesResult r = new DropOrphanInlineTables(pg.spec(), options, ProgressListener.NONE).execute();
                assertThat(r.skippedLocked()).as("the per-table path ran").isEqualTo(1);
                blocker.rollback();
                new DropOrphanInlineTables(pg.spec(), options, ProgressListener.NONE).execute();
                // the metrics command reads the same catalog: its SQL is held to the same rule (its size-band bounds are
                // program constants of more than two digits, so only catalog values count as numbers there)
                sql.addAll(capture.statements());
                capture.clear();
                CliRun metrics = CliRun.run("metrics", "--catalog", pg.url(), "--metadata-schema", schema);
                assertThat(metrics.exitCode()).as("metrics ran; stderr: %s", metrics.err()).isZero();
                metricsSql.addAll(capture.statements());
                capture.clear();
                // and the paths beyond the registry: leftovers, inlined deletions, non-empty orphans
                DropOrphanInlineTablesOptions all = options.toBuilder().includeUnregistered(true).includeNonempty(true).build();
                new DropOrphanInlineTables(pg.spec(), all.toBuilder().dryRun(true).build(), ProgressListener.NONE).execute();
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
        try (Stream<Path> files = ModuleSources.walk()) {
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

    /** Issue 14: cleanup-old-files and delete-orphan-files, dry and execute, with hostile paths in the catalog. */
    @Test
    void theStorageCommandsNeverPutACatalogValueIntoSqlText(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path lake = dir.resolve("lake");
        FileCatalog cat = FileCatalog.create("scan st", lake + "/");
        Duration old = Duration.ofDays(3);
        String hostilePath = "x'; DELETE FROM ducklake_table; --.parquet";
        FileCatalog.file(lake.resolve("main/test/" + hostilePath), old);
        cat.queue(7_000_201, "main/test/" + hostilePath, true, old);
        cat.queue(7_000_202, "main/test/\"; DROP TABLE ducklake_snapshot; --.parquet", true, old);
        for (int i = 0; i < 4; i++) {
            FileCatalog.file(lake.resolve("main/test/k" + i + ".parquet"), old);
            cat.dataFile(1, "k" + i + ".parquet", true);
        }
        FileCatalog.file(lake.resolve("main/test/stray'; --.parquet"), old);
        // the storage commands read the data_path of every catalog in the database (tenants sharing a location)
        // (discovery probes every schema that has a ducklake_metadata table, catalog or not)
        Set<String> otherCatalogs = new HashSet<>();
        try (Connection c = pg.connect(); Statement st = c.createStatement();
             var rs = st.executeQuery("SELECT n.nspname FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace"
                     + " WHERE t.relname = 'ducklake_metadata'")) {
            while (rs.next()) {
                otherCatalogs.add(rs.getString(1));
            }
        }
        List<String> sql;
        try (SqlCapture capture = SqlCapture.install()) {
            for (boolean dry : new boolean[] {true, false}) {
                try (Connection c = pg.connect()) {
                    QueueSweep.run(c, new LocalFileStore(), CleanupOldFilesOptions.defaults(cat.schema).withDryRun(dry),
                            FileListener.NONE);
                    OrphanSweep.run(c, new LocalFileStore(), DeleteOrphanFilesOptions.defaults(cat.schema).withDryRun(dry),
                            FileListener.NONE);
                }
            }
            sql = new ArrayList<>(capture.statements());
        }
        assertThat(cat.queueRows()).as("both queue rows went (the second file was already missing)").isZero();
        assertThat(Files.exists(lake.resolve("main/test/stray'; --.parquet"))).isFalse();
        String engineSource;
        try (Stream<Path> files = ModuleSources.walk()) {
            engineSource = files.filter(p -> p.toString().endsWith(".java")).map(p -> {
                try {
                    return Files.readString(p);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).collect(Collectors.joining("\n"));
        }
        assertThat(sql).anyMatch(s -> s.contains("DELETE FROM")).anyMatch(s -> s.contains("COLLATE"));
        List<String> violations = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String s : sql) {
            if (s.contains("DELETE FROM ducklake_table") || s.contains("DROP TABLE ducklake_snapshot")) {
                violations.add("hostile path in SQL text: " + s);
            }
            violations.addAll(violations(s, cat.schema, otherCatalogs, Set.of("7000201", "7000202"), engineSource, seen, true));
        }
        assertThat(violations).as("SQL text built from catalog values").isEmpty();
        assertThat(seen).contains(cat.schema, "ducklake_files_scheduled_for_deletion");
    }

    @Test
    void expireSnapshotsNeverPutsACatalogValueIntoSqlText() throws Exception {
        String schema = "scan exp \"q\"; " + ProcessHandle.current().pid();
        Set<String> mayTouch = new HashSet<>();
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + Sql.ident(schema) + " CASCADE");
            dev.ducklake.janitor.demo.CatalogBuilder b = new dev.ducklake.janitor.demo.CatalogBuilder(c, schema,
                    dev.ducklake.janitor.catalog.FormatVersion.V1_0).create();
            long live = b.createTable("live", 1);
            long dead = b.createTable("dead", 1);
            b.dropTable(dead);
            b.insertRows(live, 1);
            // the removed table's inlined tables (dropped) and the live table's (its dead rows deleted, issue 22): names the
            // engine checked against ducklake_inlined_data_<table_id>_<schema_version> and pg_class, with the snapshot columns
            try (var rs = st.executeQuery("SELECT table_name FROM " + Sql.qualified(schema, "ducklake_inlined_data_tables")
                    + " WHERE table_id IN (" + dead + ", " + live + ")")) {
                while (rs.next()) {
                    mayTouch.add(rs.getString(1));
                }
            }
            mayTouch.addAll(List.of("begin_snapshot", "end_snapshot"));
            // a removed table with recognisable ids, a file and a delete file, and a hostile registry name
            st.execute("INSERT INTO " + Sql.qualified(schema, "ducklake_table") + " (table_id, table_uuid, begin_snapshot, end_snapshot,"
                    + " schema_id, table_name, path, path_is_relative) VALUES (7000001, gen_random_uuid(), 1, 2, 0, 'x7', 'x7/', true)");
            st.execute("INSERT INTO " + Sql.qualified(schema, "ducklake_data_file") + " (data_file_id, table_id, begin_snapshot,"
                    + " end_snapshot, path, path_is_relative) VALUES (8000001, 7000001, 1, 2, 'f8000001.parquet', true)");
            st.execute("INSERT INTO " + Sql.qualified(schema, "ducklake_delete_file") + " (delete_file_id, table_id, begin_snapshot,"
                    + " end_snapshot, data_file_id, path, path_is_relative) VALUES (8000002, 7000001, 1, NULL, 8000001, 'd8000002.parquet', true)");
            String guarded = InlinedTableName.dataTable(7_000_001, 4_000_001);
            st.execute("CREATE TABLE " + Sql.qualified(schema, guarded) + " (row_id bigint, begin_snapshot bigint, end_snapshot bigint)");
            mayTouch.add(guarded);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified(schema, "ducklake_inlined_data_tables")
                    + " VALUES (?, ?, ?)")) {
                ps.setLong(1, 7_000_001);
                ps.setString(2, guarded);
                ps.setLong(3, 4_000_001);
                ps.addBatch();
                ps.setLong(1, 7_000_001);
                ps.setString(2, HOSTILE.get(0));
                ps.setLong(3, 4_000_002);
                ps.addBatch();
                ps.executeBatch();
            }
            st.execute("CREATE TABLE " + Sql.qualified(schema, HOSTILE.get(0)) + " (row_id bigint)");
        }
        Set<String> catalogNumbers = Set.of("7000001", "8000001", "8000002", "4000001", "4000002");
        List<String> sql;
        dev.ducklake.janitor.ops.expiresnapshots.ExpireSnapshotsOptions options = dev.ducklake.janitor.ops.expiresnapshots
                .ExpireSnapshotsOptions.builder().metadataSchema(schema).batchSize(2).minAge(Duration.ZERO)
                .olderThan(new dev.ducklake.janitor.ops.expiresnapshots.OlderThan(java.time.Instant.parse("2999-01-01T00:00:00Z"), null)).build();
        dev.ducklake.janitor.ops.expiresnapshots.ExpireSnapshotsResult r;
        try (SqlCapture capture = SqlCapture.install()) {
            new dev.ducklake.janitor.ops.expiresnapshots.ExpireSnapshots(pg.spec(), options.toBuilder().dryRun(true).build(),
                    dev.ducklake.janitor.ops.runtime.ProgressListener.NONE).execute();
            r = new dev.ducklake.janitor.ops.expiresnapshots.ExpireSnapshots(pg.spec(), options,
                    dev.ducklake.janitor.ops.runtime.ProgressListener.NONE).execute();
            CliRun cli = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", schema, "--versions", "1", "--yes");
            assertThat(cli.exitCode()).as("stderr: %s", cli.err()).isZero();
            sql = new ArrayList<>(capture.statements());
        }
        assertThat(r.tablesRemoved()).isEqualTo(2);
        assertThat(r.dataFilesScheduled()).isEqualTo(1);
        assertThat(r.deleteFilesScheduled()).isEqualTo(1);
        assertThat(r.warnings()).as("the hostile registry name is reported, not dropped").hasSize(1);
        try (Connection c = pg.connect()) {
            assertThat(Catalogs.exists(c, schema, HOSTILE.get(0))).isTrue();
            assertThat(Catalogs.exists(c, schema, InlinedTableName.dataTable(7_000_001, 4_000_001))).isFalse();
        }
        String engineSource;
        try (Stream<Path> files = ModuleSources.walk()) {
            engineSource = files.filter(p -> p.toString().endsWith(".java")).map(p -> {
                try {
                    return Files.readString(p);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).collect(Collectors.joining("\n"));
        }
        assertThat(sql).anyMatch(s -> s.contains("DROP TABLE")).anyMatch(s -> s.contains("ducklake_files_scheduled_for_deletion"));
        Set<String> seen = new HashSet<>();
        List<String> violations = new ArrayList<>();
        for (String s : sql) {
            violations.addAll(violations(s, schema, mayTouch, catalogNumbers, engineSource, seen, true));
        }
        assertThat(violations).as("SQL text built from catalog values").isEmpty();
        assertThat(seen).contains(InlinedTableName.dataTable(7_000_001, 4_000_001), schema);
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
            try (Connection c = pg.connect(); Statement st = c.createStatement()) {
                // the seeded rows_beyond_last_snapshot damage makes every maintenance command refuse (exit 6): mend it first
                st.execute("DELETE FROM " + Sql.qualified(schema, "ducklake_column") + " WHERE begin_snapshot > (SELECT max(snapshot_id) FROM "
                        + Sql.qualified(schema, "ducklake_snapshot") + ")");
            }
            dev.ducklake.janitor.ops.purgestats.PurgeOrphanStatsOptions o = dev.ducklake.janitor.ops.purgestats.PurgeOrphanStatsOptions
                    .builder().metadataSchema(schema).batchSize(1).build();
            new dev.ducklake.janitor.ops.purgestats.PurgeOrphanStats(pg.spec(), o.toBuilder().dryRun(true).build(), dev.ducklake.janitor.ops.runtime.ProgressListener.NONE).execute();
            assertThat(new dev.ducklake.janitor.ops.purgestats.PurgeOrphanStats(pg.spec(), o, dev.ducklake.janitor.ops.runtime.ProgressListener.NONE).execute().rowsDeletedTotal())
                    .isEqualTo(6);
            sql = capture.statements().stream().filter(s -> !s.contains("ducklake_inlined_data_0912_1")
                    || s.startsWith("SELECT c.relname::text, c.relkind::text")).toList();
        }
        String engineSource;
        try (Stream<Path> files = ModuleSources.walk()) {
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
            // "C" is the byte-order collation the storage commands sort and compare paths with
            if (!(ident.equals(schema) || ident.matches("ducklake_[a-z_]+") || mayTouch.contains(ident) || ident.equals("C"))) {
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
