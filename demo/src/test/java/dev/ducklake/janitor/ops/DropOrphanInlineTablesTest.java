package dev.ducklake.janitor.ops;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.catalog.OrphanPredicate;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/** drop-orphan-inline-tables against a real PostgreSQL, one fresh schema per test. */
class DropOrphanInlineTablesTest {

    private final TestPostgres pg = TestPostgres.get();
    private Connection c;
    private String schema;

    @BeforeEach
    void setUp() throws SQLException {
        c = pg.connect();
        schema = pg.freshSchema("dropinline");
    }

    @AfterEach
    void tearDown() throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + Sql.ident(schema) + " CASCADE");
        }
        c.close();
    }

    private CatalogBuilder catalog() throws SQLException {
        return new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
    }

    private DropOrphanInlineTablesOptions.Builder opts() {
        return DropOrphanInlineTablesOptions.builder().metadataSchema(schema).lockTimeout(Duration.ofSeconds(2));
    }

    private DropOrphanInlineTablesResult run(DropOrphanInlineTablesOptions.Builder o) throws Exception {
        return new DropOrphanInlineTables(pg.spec(), o.build(), ProgressListener.NONE).execute();
    }

    private CliRun cli(String... extra) {
        List<String> args = new ArrayList<>(List.of("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", schema,
                "--output", "json", "--yes"));
        args.addAll(List.of(extra));
        return CliRun.run(args.toArray(new String[0]));
    }

    private Set<String> inlinedTables() throws SQLException {
        Set<String> out = new TreeSet<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT relname::text FROM pg_class WHERE relnamespace = ?::regnamespace"
                + " AND relkind = 'r' AND relname::text ~ '^ducklake_inlined_data_[0-9]+_[0-9]+$'")) {
            ps.setString(1, Sql.ident(schema));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    private Set<String> registryNames() throws SQLException {
        Set<String> out = new TreeSet<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT table_name FROM " + Sql.qualified(schema, "ducklake_inlined_data_tables"))) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private long count(String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String name(long id, long v) {
        return "ducklake_inlined_data_" + id + "_" + v;
    }

    @Test
    void orphanIsDroppedTogetherWithItsRegistryRow() throws Exception {
        CatalogBuilder b = catalog();
        long live = b.createTable("live", 1);
        List<Long> dead = b.bulkCreateAndDrop("dead_", 3, 2, 100);
        b.expireBefore(b.snapshot());
        Set<String> before = inlinedTables();
        assertThat(before).hasSize(4);

        DropOrphanInlineTablesResult r = run(opts());

        assertThat(r.dropped()).isEqualTo(3);
        assertThat(r.rowsDeleted()).isEqualTo(3);
        assertThat(r.remaining()).isZero();
        assertThat(inlinedTables()).as("only the live table's inlined table is left").hasSize(1)
                .allMatch(n -> n.startsWith("ducklake_inlined_data_" + live + "_"));
        assertThat(registryNames()).isEqualTo(inlinedTables());
        assertThat(dead).hasSize(3);
    }

    @Test
    void registryRowWhoseTableIsGoneIsDeleted() throws Exception {
        CatalogBuilder b = catalog();
        long t = b.createTable("gone", 1);
        b.dropTable(t);
        b.expireBefore(b.snapshot());
        try (Statement st = c.createStatement()) {
            st.execute("DROP TABLE " + Sql.qualified(schema, name(t, 1)));
        }
        DropOrphanInlineTablesResult r = run(opts());
        assertThat(r.missingTables()).isEqualTo(1);
        assertThat(r.dropped()).isZero();
        assertThat(r.rowsDeleted()).isEqualTo(1);
        assertThat(registryNames()).isEmpty();
    }

    @Test
    void tableIdWithoutAnyTableRowIsAnOrphan() throws Exception {
        CatalogBuilder b = catalog();
        long t = b.createTable("forgotten", 1);
        b.forgetTable(t);
        DropOrphanInlineTablesResult dry = run(opts().dryRun(true));
        assertThat(dry.orphanRows()).isEqualTo(1);
        DropOrphanInlineTablesResult r = run(opts());
        assertThat(r.dropped()).isEqualTo(1);
        assertThat(inlinedTables()).isEmpty();
    }

    @Test
    void liveTableKeepsItsSupersededSchemaVersions() throws Exception {
        CatalogBuilder b = catalog();
        long t = b.createTable("orders", 1);
        b.addColumn(t);
        b.addColumn(t);
        b.expireBefore(b.snapshot());
        Set<String> before = inlinedTables();
        assertThat(before).hasSize(3);
        DropOrphanInlineTablesResult r = run(opts());
        assertThat(r.orphanRows()).isZero();
        assertThat(r.dropped()).isZero();
        assertThat(inlinedTables()).isEqualTo(before);
        assertThat(registryNames()).hasSize(3);
    }

    @Test
    void droppedTableStillInsideTheRetainedRangeIsKept() throws Exception {
        CatalogBuilder b = catalog();
        long t = b.createTable("recent", 1);
        b.insertRows(t, 2);
        b.dropTable(t);
        DropOrphanInlineTablesResult r = run(opts());
        assertThat(r.orphanRows()).as("snapshot 0 still sees nothing, but snapshots before the drop can see the table").isZero();
        assertThat(inlinedTables()).containsExactly(name(t, 1));
    }

    @Test
    void endSnapshotBoundaryIsExclusive() throws Exception {
        CatalogBuilder b = catalog();
        long a = b.createTable("a", 1);
        long bb = b.createTable("b", 1);
        long dropA = b.dropTable(a);
        long dropB = b.dropTable(bb);
        assertThat(dropB).isEqualTo(dropA + 1);
        b.expireBefore(dropA);
        // retained snapshots: dropA .. dropB; a ends at min (unreachable), b ends at min + 1 (reachable at min)
        DropOrphanInlineTablesResult r = run(opts());
        assertThat(r.dropped()).isEqualTo(1);
        assertThat(inlinedTables()).containsExactly(name(bb, 2));
    }

    @Test
    void nonEmptyOrphanIsSkippedWithItsRowsIntact() throws Exception {
        CatalogBuilder b = catalog();
        long t = b.createTable("unflushed", 2);
        b.insertRows(t, 4);
        b.dropTable(t);
        b.expireBefore(b.snapshot());
        DropOrphanInlineTablesResult r = run(opts());
        assertThat(r.skippedNonempty()).isEqualTo(1);
        assertThat(r.dropped()).isZero();
        assertThat(r.remaining()).isEqualTo(1);
        assertThat(r.nonEmptyTables()).extracting(DropOrphanInlineTablesResult.NonEmptyTable::tableName).containsExactly(name(t, 1));
        assertThat(count("SELECT count(*) FROM " + Sql.qualified(schema, name(t, 1)))).isEqualTo(4);
        assertThat(registryNames()).containsExactly(name(t, 1));
    }

    @Test
    void unexpectedNamesAreNeverDropped() throws Exception {
        CatalogBuilder b = catalog();
        String[] hostile = {name(900, 1) + "\n", "ducklake_inlined_data_901_1\"", name(903, 9), "\"; DROP TABLE ducklake_snapshot; --",
            "ducklake_inlined_data_tables"};
        long[][] ids = {{900, 1}, {901, 1}, {902, 1}, {904, 1}, {905, 1}};
        try (Statement st = c.createStatement()) {
            for (String h : hostile) {
                st.execute("CREATE TABLE IF NOT EXISTS " + Sql.qualified(schema, h) + " (row_id bigint)");
            }
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified(schema, "ducklake_inlined_data_tables") + " VALUES (?, ?, ?)")) {
            for (int i = 0; i < hostile.length; i++) {
                ps.setLong(1, ids[i][0]);
                ps.setString(2, hostile[i]);
                ps.setLong(3, ids[i][1]);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        long tablesBefore = count("SELECT count(*) FROM pg_class WHERE relnamespace = '" + schema + "'::regnamespace");
        DropOrphanInlineTablesResult r = run(opts());
        assertThat(r.orphanRows()).isEqualTo(5);
        assertThat(r.keptByNameGuard()).isEqualTo(5);
        assertThat(r.dropped()).isZero();
        assertThat(r.rowsDeleted()).isZero();
        assertThat(count("SELECT count(*) FROM pg_class WHERE relnamespace = '" + schema + "'::regnamespace")).isEqualTo(tablesBefore);
        assertThat(count("SELECT count(*) FROM " + Sql.qualified(schema, "ducklake_snapshot"))).isEqualTo(1);
        assertThat(registryNames()).hasSize(5);
        assertThat(r.warnings()).anyMatch(w -> w.contains("name guard") && w.contains("\\n"));
    }

    @Test
    void dryRunChangesNothingAndCountsRight() throws Exception {
        DemoScenario.build(c, schema, 25);
        Set<String> tables = inlinedTables();
        Set<String> registry = registryNames();
        long orphanCount = count(OrphanPredicate.countOrphanRegistryRows(schema));

        CliRun run = cli("--dry-run");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode j = run.json();
        assertThat(j.get("dry_run").asBoolean()).isTrue();
        assertThat(j.get("registry_rows").asLong()).isEqualTo(registry.size());
        assertThat(j.get("orphan_rows").asLong()).isEqualTo(27).isEqualTo(orphanCount);
        assertThat(j.get("orphan_tables_present").asLong()).isEqualTo(27);
        assertThat(j.get("orphan_nonempty").asLong()).isEqualTo(1);
        assertThat(j.get("kept_by_name_guard").asLong()).isZero();
        assertThat(j.get("would_drop").asLong()).as("the empty orphans an execute run would drop").isEqualTo(26);
        assertThat(j.get("remaining").asLong()).isEqualTo(27);
        for (String field : List.of("dry_run", "registry_rows", "orphan_rows", "orphan_tables_present", "orphan_nonempty",
                "kept_by_name_guard", "would_drop", "remaining", "batches",
                "retries", "batch_size_start", "batch_size_final", "budget_exhausted", "elapsed_seconds")) {
            assertThat(j.has(field)).as("JSON field " + field).isTrue();
        }
        for (String field : List.of("dropped", "rows_deleted", "missing_tables", "skipped_nonempty", "skipped_locked")) {
            assertThat(j.has(field)).as("a dry run has no execute figure " + field + " (it says would_drop)").isFalse();
        }
        assertThat(inlinedTables()).isEqualTo(tables);
        assertThat(registryNames()).isEqualTo(registry);
        assertThat(count("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'")).isZero();
    }

    @Test
    void demoScenarioEndToEndThroughTheCli() throws Exception {
        DemoScenario.build(c, schema, 40);
        CliRun run = cli();
        assertThat(run.exitCode()).as(run.toString()).isZero();
        JsonNode j = run.json();
        assertThat(j.get("dropped").asLong()).isEqualTo(41);
        assertThat(j.get("skipped_nonempty").asLong()).isEqualTo(1);
        assertThat(j.get("remaining").asLong()).isEqualTo(1);
        assertThat(j.get("catalog").get("schema").asText()).isEqualTo(schema);
        assertThat(run.err()).contains("VACUUM FULL");
        assertThat(inlinedTables()).as("customers 1 + orders 3 + recently dropped 1 + the non-empty orphan").hasSize(6);
        assertThat(registryNames()).isEqualTo(inlinedTables());
        CliRun again = cli();
        assertThat(again.json().get("dropped").asLong()).as("converged").isZero();
    }

    @Test
    void maxBatchesStopsAndTheNextRunResumesSteppingOverTheNonEmptyOrphan() throws Exception {
        CatalogBuilder b = catalog();
        long nonEmpty = b.createTable("unflushed", 1);
        b.insertRows(nonEmpty, 1);
        b.dropTable(nonEmpty);
        b.bulkCreateAndDrop("dead_", 9, 1, 100);
        b.expireBefore(b.snapshot());
        // candidates in keyset order: the non-empty one first, then 9 empty ones
        DropOrphanInlineTablesResult first = run(opts().batchSize(3).maxBatches(2));
        assertThat(first.batches()).isEqualTo(2);
        assertThat(first.maxBatchesReached()).isTrue();
        assertThat(first.dropped()).isEqualTo(5);
        assertThat(first.skippedNonempty()).as("met once, not selected again").isEqualTo(1);
        assertThat(first.remaining()).isEqualTo(5);
        DropOrphanInlineTablesResult second = run(opts().batchSize(3));
        assertThat(second.dropped()).isEqualTo(4);
        assertThat(second.skippedNonempty()).isEqualTo(1);
        assertThat(second.batches()).isEqualTo(2);
        assertThat(second.remaining()).isEqualTo(1);
        assertThat(inlinedTables()).containsExactly(name(nonEmpty, 1));
    }

    @Test
    void runBudgetStopsCleanlyAfterAtLeastOneTable() throws Exception {
        CatalogBuilder b = catalog();
        b.bulkCreateAndDrop("dead_", 30, 1, 100);
        b.expireBefore(b.snapshot());
        DropOrphanInlineTablesResult r = run(opts().runBudget(Duration.ofNanos(1)));
        assertThat(r.budgetExhausted()).isTrue();
        assertThat(r.dropped()).isEqualTo(1);
        assertThat(r.remaining()).isEqualTo(29);
        assertThat(registryNames()).isEqualTo(inlinedTables()).hasSize(29);
    }

    @Test
    void emptySnapshotTableIsRefused() throws Exception {
        CatalogBuilder b = catalog();
        long t = b.createTable("x", 1);
        try (Statement st = c.createStatement()) {
            st.execute("DELETE FROM " + Sql.qualified(schema, "ducklake_snapshot"));
        }
        CliRun run = cli();
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(6);
        assertThat(run.err()).contains("ducklake_snapshot").contains("empty");
        assertThat(inlinedTables()).containsExactly(name(t, 1));
    }

    @Test
    void heldAdvisoryLockIsRefusedAndDryRunIgnoresIt() throws Exception {
        CatalogBuilder b = catalog();
        b.bulkCreateAndDrop("dead_", 2, 1, 100);
        b.expireBefore(b.snapshot());
        try (Connection holder = pg.connect(); Statement st = holder.createStatement()) {
            st.execute("SELECT pg_advisory_lock(hashtext('ducklake-maintenance'))");
            CliRun run = cli();
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(7);
            assertThat(run.err()).contains("ducklake-maintenance").contains("held");
            assertThat(inlinedTables()).hasSize(2);
            CliRun dry = cli("--dry-run");
            assertThat(dry.exitCode()).as("a dry run takes no lock: " + dry).isZero();
            CliRun other = cli("--lock-name", "another-lock");
            assertThat(other.exitCode()).as(other.toString()).isZero();
            assertThat(inlinedTables()).isEmpty();
        }
    }

    @Test
    void secondRunOnTheSameSchemaIsRefusedWhileTheFirstHoldsTheLock() throws Exception {
        catalog();
        try (Connection first = pg.connect()) {
            dev.ducklake.janitor.pg.AdvisoryLock.acquire(first, "ducklake-maintenance", schema);
            CliRun run = cli();
            assertThat(run.exitCode()).as(run.toString()).isEqualTo(7);
        }
    }

    @Test
    void batchSizeIsLoweredToTheLockBudget() throws Exception {
        catalog();
        long cap;
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT current_setting('max_locks_per_transaction')::int"
                + " * (current_setting('max_connections')::int + current_setting('max_prepared_transactions')::int) / 4 / 5")) {
            rs.next();
            cap = Math.max(10, Math.min(2000, rs.getLong(1)));
        }
        DropOrphanInlineTablesResult r = run(opts().batchSize(2000).dryRun(true));
        assertThat(r.batchSizeRequested()).isEqualTo(2000);
        assertThat(r.batchSizeStart()).isEqualTo((int) Math.min(2000, cap));
    }

    @Test
    void notACatalogAndUnknownVersionAreRefused() throws Exception {
        CliRun missing = cli();
        assertThat(missing.exitCode()).as(missing.toString()).isEqualTo(4);
        assertThat(missing.err()).contains(schema);
        try (Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA " + Sql.ident(schema));
        }
        CliRun empty = cli();
        assertThat(empty.exitCode()).as(empty.toString()).isEqualTo(4);
        assertThat(empty.err()).contains("ducklake_metadata");
        try (Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA " + Sql.ident(schema));
        }
        catalog();
        try (Statement st = c.createStatement()) {
            st.execute("UPDATE " + Sql.qualified(schema, "ducklake_metadata") + " SET value = '9.9' WHERE key = 'version'");
        }
        CliRun newer = cli();
        assertThat(newer.exitCode()).as(newer.toString()).isEqualTo(5);
        assertThat(newer.err()).contains("'9.9'");
    }

    @Test
    void prefixedInlinedColumnsOfFormat11AreHandled() throws Exception {
        CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_1_DEV1).create();
        long t = b.createTable("x", 1);
        b.dropTable(t);
        b.expireBefore(b.snapshot());
        DropOrphanInlineTablesResult r = run(opts());
        assertThat(r.formatVersion()).isEqualTo("1.1-dev1");
        assertThat(r.dropped()).isEqualTo(1);
    }
}
