package dev.ducklake.janitor.ops;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.catalog.OrphanPredicate;
import dev.ducklake.janitor.catalog.SnapshotConsistency;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.metrics.CatalogHealthCollector;
import dev.ducklake.janitor.metrics.CollectResult;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 10, item 1: a catalog whose newest ducklake_snapshot rows are gone (a hand-written expiry with {@code >}
 * instead of {@code <}, a partial restore) must never make a live table look unreachable. Before the fix the default
 * run dropped the empty inlined tables of live tables begun after the remaining newest snapshot, and
 * {@code --include-nonempty} dropped one holding a row.
 */
class DamagedCatalogTest {

    private final TestPostgres pg = TestPostgres.get();
    private Connection c;
    private String schema;
    private long kept;
    private long liveEmpty;
    private long liveWithRow;
    private List<Long> dead;

    @BeforeEach
    void setUp() throws SQLException {
        c = pg.connect();
        schema = pg.freshSchema("damaged");
    }

    @AfterEach
    void tearDown() throws SQLException {
        Catalogs.exec(c, "DROP SCHEMA IF EXISTS " + Sql.ident(schema) + " CASCADE");
        c.close();
    }

    /** Three dropped-and-expired tables, then two live tables begun after snapshot {@code kept}; then the damage. */
    private void buildDamaged() throws SQLException {
        CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
        b.createTable("old_live", 1);
        dead = b.bulkCreateAndDrop("dead_", 3, 1, 100);
        b.expireBefore(b.snapshot());
        kept = b.snapshot();
        liveEmpty = b.createTable("fresh_empty", 1);
        liveWithRow = b.createTable("fresh_rows", 2);
        b.insertRows(liveWithRow, 1);
        // the damage: the newest snapshot rows deleted by hand
        Catalogs.exec(c, "DELETE FROM " + Sql.qualified(schema, "ducklake_snapshot") + " WHERE snapshot_id > " + kept);
        Catalogs.exec(c, "DELETE FROM " + Sql.qualified(schema, "ducklake_snapshot_changes") + " WHERE snapshot_id > " + kept);
    }

    private Set<String> inlinedTables() throws SQLException {
        Set<String> out = new TreeSet<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT relname::text FROM pg_class"
                + " WHERE relnamespace = '" + Sql.ident(schema).replace("'", "''") + "'::regnamespace"
                + " AND relname ~ '^ducklake_inlined_data_[0-9]+_[0-9]+$'")) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    private DropOrphanInlineTablesOptions.Builder opts() {
        return DropOrphanInlineTablesOptions.builder().metadataSchema(schema).lockTimeout(Duration.ofSeconds(2));
    }

    @Test
    void anOpenTableRowIsAlwaysReachableInTheSharedPredicate() throws Exception {
        buildDamaged();
        long orphans = Catalogs.scalar(c, OrphanPredicate.countOrphanRegistryRows(schema));
        assertThat(orphans).as("only the three dropped-and-expired tables; the live ones begun past the newest remaining "
                + "snapshot are reachable").isEqualTo(3);
    }

    @Test
    void everyRunRefusesWithExit6AndDropsNothing() throws Exception {
        buildDamaged();
        Set<String> before = inlinedTables();
        assertThat(before).hasSize(6);

        for (DropOrphanInlineTablesOptions o : List.of(opts().dryRun(true).build(), opts().build(), opts().includeNonempty(true).build(),
                opts().includeNonempty(true).includeUnregistered(true).build())) {
            assertThatThrownBy(() -> new DropOrphanInlineTables(pg.spec(), o, ProgressListener.NONE).execute())
                    .isInstanceOfSatisfying(JanitorException.class, e -> {
                        assertThat(e.reason()).isEqualTo(JanitorException.Reason.UNSAFE_CATALOG_STATE);
                        assertThat(e.getMessage()).contains("ducklake_table: 2 rows (table_id " + liveEmpty + ", " + liveWithRow + ")")
                                .contains("ducklake_column: 3 rows").contains("newest snapshot in ducklake_snapshot is " + kept);
                    });
        }
        CliRun cli = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", schema, "--yes",
                "--include-nonempty", "--output", "json");
        assertThat(cli.exitCode()).as("exit 6; stderr: %s", cli.err()).isEqualTo(6);
        assertThat(cli.err() + cli.out()).contains("ducklake_table").contains(Long.toString(liveEmpty));
        assertThat(inlinedTables()).as("nothing was dropped").isEqualTo(before);
        String withRow = inlinedTables().stream().filter(n -> n.startsWith("ducklake_inlined_data_" + liveWithRow + "_")).findFirst()
                .orElseThrow();
        assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + Sql.qualified(schema, withRow))).as("the live row is still there")
                .isEqualTo(1);
    }

    @Test
    void metricsExportTheDamageInsteadOfFailing() throws Exception {
        buildDamaged();
        CollectResult r;
        try (Connection m = pg.connect()) {
            r = new CatalogHealthCollector(m, schema, "lake", Duration.ofSeconds(30), List.of()).collect();
        }
        assertThat(r.errors()).isEmpty();
        assertThat(r.family(CatalogHealthCollector.BEYOND_LAST_SNAPSHOT).valueFor("lake", "ducklake_table")).isEqualTo(2.0);
        assertThat(r.family(CatalogHealthCollector.BEYOND_LAST_SNAPSHOT).valueFor("lake", "ducklake_data_file")).isEqualTo(0.0);
        assertThat(r.family(CatalogHealthCollector.UNREACHABLE).valueFor("lake")).as("the shared predicate").isEqualTo(3.0);
        CliRun cli = CliRun.run("metrics", "--catalog", pg.url(), "--metadata-schema", schema);
        assertThat(cli.exitCode()).as("stderr: %s", cli.err()).isZero();
        assertThat(cli.out()).contains("ducklake_catalog_rows_beyond_last_snapshot{catalog=")
                .containsPattern("ducklake_catalog_rows_beyond_last_snapshot\\{[^}]*table=\"ducklake_table\"} 2");
    }

    @Test
    void afterTheSnapshotsAreRestoredTheRunDropsOnlyTheDead() throws Exception {
        buildDamaged();
        // restore: a snapshot row for every id the catalog names
        Catalogs.exec(c, "INSERT INTO " + Sql.qualified(schema, "ducklake_snapshot") + " (snapshot_id, snapshot_time, schema_version,"
                + " next_catalog_id, next_file_id) SELECT g, now(), 0, 0, 0 FROM generate_series(" + (kept + 1) + ", " + (kept + 3) + ") g");
        DropOrphanInlineTablesResult r = new DropOrphanInlineTables(pg.spec(), opts().includeNonempty(true).build(), ProgressListener.NONE)
                .execute();
        assertThat(r.dropped()).isEqualTo(3);
        assertThat(inlinedTables()).hasSize(3).noneMatch(n -> dead.stream().anyMatch(d -> n.startsWith("ducklake_inlined_data_" + d + "_")));
    }

    @ParameterizedTest
    @EnumSource(FormatVersion.class)
    void theCheckKnowsEveryFormatVersionAndRaisesNoFalseAlarm(FormatVersion v) throws Exception {
        CatalogBuilder b = new CatalogBuilder(c, schema, v).create();
        long t = b.createTable("t", 1);
        b.insertRows(t, 2);
        b.addColumn(t);
        long gone = b.createTable("gone", 1);
        b.dropTable(gone);
        SnapshotConsistency.Report ok = SnapshotConsistency.check(c, schema, 5);
        assertThat(ok.consistent()).as("%s: a sound catalog", v).isTrue();
        assertThat(ok.newestSnapshotId()).isEqualTo(b.snapshot());
        assertThat(ok.rowsPerTable()).containsKeys("ducklake_table", "ducklake_column", "ducklake_schema", "ducklake_data_file",
                "ducklake_delete_file", "ducklake_snapshot_changes", "ducklake_view", "ducklake_tag", "ducklake_column_tag",
                "ducklake_partition_info");
        if (v.compareTo(FormatVersion.V0_4) >= 0) {
            assertThat(ok.rowsPerTable()).containsKeys("ducklake_macro", "ducklake_sort_info");
        }
        Catalogs.exec(c, "DELETE FROM " + Sql.qualified(schema, "ducklake_snapshot") + " WHERE snapshot_id >= " + (b.snapshot() - 1));
        SnapshotConsistency.Report damaged = SnapshotConsistency.check(c, schema, 5);
        assertThat(damaged.consistent()).isFalse();
        assertThat(damaged.rowsPerTable().get("ducklake_table")).as("%s: the dropped table's closing row", v).isEqualTo(1L);
        assertThat(damaged.describe()).contains("ducklake_table: 1 row (table_id " + gone + ")");
        List<String> names = new ArrayList<>();
        damaged.damaged().forEach(d -> names.add(d.table()));
        assertThat(names).contains("ducklake_table", "ducklake_column", "ducklake_snapshot_changes");
        assertThatThrownBy(() -> SnapshotConsistency.requireConsistent(c, schema)).isInstanceOf(JanitorException.class);
    }
}
