package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.catalog.OrphanPredicate;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class CatalogHealthCollectorTest {

    static final int LEAKED = 40;
    static String schema;
    static CatalogBuilder builder;

    @BeforeAll
    static void setUp() throws Exception {
        TestPostgres pg = TestPostgres.get();
        schema = pg.freshSchema("metrics_collect");
        try (Connection c = pg.connect()) {
            builder = MetricsFixtures.build(c, schema, LEAKED);
        }
    }

    private static CollectResult collect(List<CustomQuery> custom) throws Exception {
        try (Connection c = TestPostgres.get().connect()) {
            return new CatalogHealthCollector(c, schema, "lake", Duration.ofSeconds(30), custom).collect();
        }
    }

    private static double value(CollectResult r, String name, String... labels) {
        MetricFamily f = r.family(name);
        assertThat(f).as("family %s present", name).isNotNull();
        Double v = f.valueFor(labels);
        assertThat(v).as("%s sample %s", name, List.of(labels)).isNotNull();
        return v;
    }

    private static long scalar(String sql) throws Exception {
        try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void unreachableMetricEqualsTheDryRunOfDropOrphanInlineTables() throws Exception {
        CollectResult r = collect(List.of());
        assertThat(r.errors()).as("no query failed").isEmpty();
        DropOrphanInlineTablesResult dry = new DropOrphanInlineTables(TestPostgres.get().spec(),
                DropOrphanInlineTablesOptions.builder().metadataSchema(schema).dryRun(true).build(), ProgressListener.NONE).execute();
        double metric = value(r, CatalogHealthCollector.UNREACHABLE, "lake");
        assertThat((long) metric).as("metric = dry run's orphan_rows (one predicate)").isEqualTo(dry.orphanRows());
        assertThat((long) metric).as("= the shared SQL").isEqualTo(scalar(OrphanPredicate.countOrphanRegistryRows(schema)));
        assertThat((long) metric).as("demo orphans (leaked + 2) plus the registry row without a table").isEqualTo(LEAKED + 3);
        assertThat(r.family(CatalogHealthCollector.UNREACHABLE).help()).contains("drop-orphan-inline-tables");
    }

    @Test
    void inlinedTableFiguresCountRegistryTablesMissingAndUnregistered() throws Exception {
        CollectResult r = collect(List.of());
        long registry = scalar("SELECT count(*) FROM " + Sql.qualified(schema, "ducklake_inlined_data_tables"));
        assertThat(value(r, CatalogHealthCollector.REGISTRY_ROWS, "lake")).isEqualTo(registry);
        // every registered table exists except 888888's; plus the unregistered 999999; the registry table itself is not counted
        assertThat(value(r, CatalogHealthCollector.TABLES_PRESENT, "lake")).as("regex excludes ducklake_inlined_data_tables")
                .isEqualTo(registry - 1 + 1);
        assertThat(value(r, CatalogHealthCollector.REGISTRY_MISSING, "lake")).isEqualTo(1);
        assertThat(value(r, CatalogHealthCollector.UNREGISTERED, "lake")).isEqualTo(1);
        assertThat(value(r, CatalogHealthCollector.DELETE_TABLES, "lake")).isEqualTo(1);
        long attrs = scalar("SELECT count(*) FROM pg_attribute WHERE attrelid IN (SELECT oid FROM pg_class WHERE relnamespace = '"
                + schema + "'::regnamespace)");
        assertThat(value(r, CatalogHealthCollector.PG_ATTRIBUTE, "lake")).isEqualTo(attrs).isGreaterThan(registry * 6);
    }

    @Test
    void snapshotFileBandAndPartitionFigures() throws Exception {
        CollectResult r = collect(List.of());
        assertThat(value(r, CatalogHealthCollector.SNAPSHOT_CURRENT, "lake")).isEqualTo(builder.snapshot());
        assertThat(value(r, CatalogHealthCollector.SNAPSHOTS, "lake"))
                .isEqualTo(scalar("SELECT count(*) FROM " + Sql.qualified(schema, "ducklake_snapshot")));
        double now = System.currentTimeMillis() / 1000.0;
        assertThat(value(r, CatalogHealthCollector.SNAPSHOT_NEWEST, "lake")).isBetween(now - 600, now + 60);
        assertThat(value(r, CatalogHealthCollector.SNAPSHOT_OLDEST, "lake"))
                .isLessThanOrEqualTo(value(r, CatalogHealthCollector.SNAPSHOT_NEWEST, "lake"));
        assertThat(value(r, CatalogHealthCollector.DATA_FILES, "lake")).as("closed file not counted").isEqualTo(4);
        assertThat(value(r, CatalogHealthCollector.DATA_FILES_BYTES, "lake")).isEqualTo(100 + 122 * MetricsFixtures.MIB);
        assertThat(value(r, CatalogHealthCollector.DELETE_FILES, "lake")).isEqualTo(1);
        assertThat(value(r, CatalogHealthCollector.DELETE_FILES_BYTES, "lake")).isEqualTo(500);
        assertThat(value(r, CatalogHealthCollector.SCHEDULED, "lake")).isEqualTo(2);
        assertThat(value(r, CatalogHealthCollector.SCHEDULED_AGE, "lake")).isBetween(3590.0, 3700.0);
        for (String band : List.of("lt_1mib", "1_to_10mib", "10_to_64mib", "ge_64mib")) {
            assertThat(value(r, CatalogHealthCollector.BAND_FILES, "lake", band)).as(band).isEqualTo(1);
        }
        assertThat(value(r, CatalogHealthCollector.BAND_BYTES, "lake", "ge_64mib")).isEqualTo(100 * MetricsFixtures.MIB);
        MetricFamily parts = r.family(CatalogHealthCollector.PARTITION_FILES);
        assertThat(parts.samples().get(0).labelValues()).as("biggest partition first").containsExactly("lake", "1", "2026/11");
        assertThat(parts.samples().get(0).value()).isEqualTo(3);
        assertThat(parts.valueFor("lake", "2", "<none>")).isEqualTo(1);
        assertThat(r.family(CatalogHealthCollector.CATALOG_INFO).valueFor("lake", "1.0")).isEqualTo(1);
        String text = Exposition.text(r.families());
        assertThat(text).contains("ducklake_catalog_info{catalog=\"lake\",format_version=\"1.0\"} 1")
                .contains("# HELP ducklake_unreachable_inline_tables");
    }

    @Test
    void aBadCustomQueryFailsAloneAndAGoodOneIsComputed() throws Exception {
        CustomQuery good = new CustomQuery("lake_tables_by_state", "DuckLake tables by state.",
                "SELECT CASE WHEN end_snapshot IS NULL THEN 'live' ELSE 'dropped' END AS state, count(*) AS n FROM ducklake_table GROUP BY 1",
                List.of("state"), "n", Duration.ofSeconds(5));
        CustomQuery bad = new CustomQuery("lake_broken", "Broken.", "SELECT count(*) AS value FROM no_such_table", List.of(), "value",
                Duration.ofSeconds(5));
        CollectResult r = collect(List.of(bad, good));
        assertThat(r.errors()).containsOnlyKeys("lake_broken");
        assertThat(r.errors().get("lake_broken")).contains("42P01");
        assertThat(r.family("lake_tables_by_state").valueFor("lake", "live")).isEqualTo(2);
        assertThat(r.family(CatalogHealthCollector.UNREACHABLE)).as("built-ins still computed").isNotNull();
    }

    @Test
    void aQueryOverItsTimeoutIsCancelledAloneAndTheSessionStaysUsable() throws Exception {
        CustomQuery slow = new CustomQuery("lake_slow", "Sleeps.", "SELECT pg_sleep(5) IS NULL AS value", List.of(), "value",
                Duration.ofMillis(300));
        try (Connection c = TestPostgres.get().connect()) {
            CollectResult r = new CatalogHealthCollector(c, schema, "lake", Duration.ofSeconds(30), List.of(slow)).collect();
            assertThat(r.errors()).containsOnlyKeys("lake_slow");
            assertThat(r.errors().get("lake_slow")).as("statement_timeout").contains("57014");
            assertThat(r.connectionLost()).isFalse();
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW statement_timeout")) {
                rs.next();
                assertThat(rs.getString(1)).as("SET LOCAL leaves the session default").isEqualTo("0");
            }
            assertThat(c.getAutoCommit()).isTrue();
        }
    }

    @Test
    void customSqlCannotWriteToTheCatalog() throws Exception {
        String snapshots = "SELECT count(*) FROM " + Sql.qualified(schema, "ducklake_snapshot");
        long before = scalar(snapshots);
        CustomQuery writer = new CustomQuery("lake_writer", "Tries to delete.",
                "WITH d AS (DELETE FROM ducklake_snapshot RETURNING 1) SELECT count(*) AS value FROM d", List.of(), "value",
                Duration.ofSeconds(5));
        CollectResult r = collect(List.of(writer));
        assertThat(r.errors()).containsOnlyKeys("lake_writer");
        // refused by the server: as a cursor's query (0A000) before the read-only transaction (25006) is even reached
        assertThat(r.errors().get("lake_writer")).as("refused by the server").containsAnyOf("0A000", "25006");
        assertThat(scalar(snapshots)).isEqualTo(before);
    }

    @Test
    void aMissingSchemaIsOneCatalogErrorAndNoGauges() throws Exception {
        try (Connection c = TestPostgres.get().connect()) {
            CollectResult r = new CatalogHealthCollector(c, "no_such_schema_here", "lake", Duration.ofSeconds(5), List.of()).collect();
            assertThat(r.errors()).containsOnlyKeys("catalog");
            assertThat(r.families()).isEmpty();
            assertThat(r.connectionLost()).isFalse();
        }
    }
}
