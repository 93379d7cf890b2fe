package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.util.Locale;
import java.util.Map;

import static dev.ducklake.janitor.testsupport.Catalogs.catalogTables;
import static dev.ducklake.janitor.testsupport.Catalogs.exec;
import static dev.ducklake.janitor.testsupport.Catalogs.exists;
import static dev.ducklake.janitor.testsupport.Catalogs.inlinedDeleteTable;
import static dev.ducklake.janitor.testsupport.Catalogs.loadFixture04;
import static dev.ducklake.janitor.testsupport.Catalogs.run;
import static dev.ducklake.janitor.testsupport.Catalogs.unregister;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * One catalog of every known format version (layouts from CatalogBuilder, written from the migration chain; the
 * real 0.4 catalog from the test resources), each with the same leaks; an unknown version is refused.
 */
class FormatVersionsTest {

    /** Catalog tables per version (shared/ducklake/catalog.md, section 1). */
    private static final Map<FormatVersion, Integer> TABLES = Map.of(FormatVersion.V0_1, 19, FormatVersion.V0_2, 21,
            FormatVersion.V0_3_DEV1, 22, FormatVersion.V0_3, 22, FormatVersion.V0_4_DEV1, 28, FormatVersion.V0_4, 28,
            FormatVersion.V1_0, 28, FormatVersion.V1_1_DEV1, 29, FormatVersion.V1_1, 29);

    private final TestPostgres pg = TestPostgres.get();

    @ParameterizedTest
    @EnumSource(FormatVersion.class)
    void everyKnownVersionIsHandled(FormatVersion v) throws Exception {
        String s = pg.freshSchema("fmt_" + v.text().replaceAll("[^0-9a-z]", ""));
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, s, v).create();
            assertThat(catalogTables(c, s)).as("catalog tables of format " + v.text()).isEqualTo(TABLES.get(v).longValue());
            long live = b.createTable("live", 1);
            b.insertRows(live, 2);
            long dead = b.createTable("dead", 1);
            long leftover = b.createTable("leftover", 1);
            b.dropTable(dead);
            b.dropTable(leftover);
            b.expireBefore(b.snapshot());
            unregister(c, s, leftover);
            inlinedDeleteTable(c, s, dead, 0);
            inlinedDeleteTable(c, s, live, 1);
            String firstColumn = v.prefixedInlinedColumns() ? "_ducklake_row_id" : "row_id";
            assertThat(exec1(c, s, "ducklake_inlined_data_" + live + "_1")).isEqualTo(firstColumn);
            assertThat(firstColumn).isEqualTo(v.inlinedColumns().rowId());
            assertThat(columnCount(c, s, "ducklake_schema", "parent_schema_id")
                    + columnCount(c, s, "ducklake_file_column_stats", "min_is_exact")
                    + columnCount(c, s, "ducklake_table_column_stats", "max_is_exact"))
                    .as("1.1's nested-schema and exactness columns exist exactly in format 1.1").isEqualTo(v == FormatVersion.V1_1 ? 3 : 0);

            DropOrphanInlineTablesResult dry = run(s, o -> o.dryRun(true));
            DropOrphanInlineTablesResult r = run(s, o -> o.includeUnregistered(true));
            System.out.printf(Locale.ROOT, "format %-8s: %d catalog tables; dry run found registry_rows=%d orphan_rows=%d "
                            + "unregistered=%d inlined_delete_orphans=%d inlined_delete_live=%d anomalies=%d; execute dropped %d registered, "
                            + "%d unregistered, %d inlined delete%n", v.text(), catalogTables(c, s), dry.registryRows(), dry.orphanRows(),
                    dry.unregisteredOrphans(), dry.inlinedDeleteOrphans(), dry.inlinedDeleteLive(), dry.unregisteredAnomalies(),
                    r.dropped(), r.droppedUnregistered(), r.droppedInlinedDelete());
            assertThat(r.formatVersion()).isEqualTo(v.text());
            assertThat(dry.orphanRows()).isEqualTo(1);
            assertThat(dry.unregisteredOrphans()).isEqualTo(1);
            assertThat(dry.inlinedDeleteOrphans()).isEqualTo(1);
            assertThat(dry.unregisteredAnomalies()).isZero();
            assertThat(r.dropped()).isEqualTo(1);
            assertThat(r.droppedUnregistered()).isEqualTo(1);
            assertThat(r.droppedInlinedDelete()).isEqualTo(1);
            assertThat(exists(c, s, "ducklake_inlined_data_" + live + "_1")).isTrue();
            assertThat(exists(c, s, "ducklake_inlined_delete_" + live)).isTrue();
        }
    }

    @Test
    void realDuckLake04CatalogFromTheTestResources() throws Exception {
        String s = pg.freshSchema("real04");
        try (Connection c = pg.connect()) {
            loadFixture04(c, s);
            assertThat(catalogTables(c, s)).isEqualTo(28L);
            DropOrphanInlineTablesResult untouched = run(s, o -> o.includeUnregistered(true).includeNonempty(true));
            System.out.printf(Locale.ROOT, "real 0.4 catalog as shipped: registry_rows=%d orphan_rows=%d unregistered=%d "
                            + "inlined_delete=%d anomalies=%d dropped=%d%n", untouched.registryRows(), untouched.orphanRows(),
                    untouched.unregisteredOrphans(), untouched.inlinedDeleteOrphans(), untouched.unregisteredAnomalies(),
                    untouched.dropped());
            assertThat(untouched.formatVersion()).isEqualTo("0.4");
            assertThat(untouched.registryRows()).isEqualTo(1);
            assertThat(untouched.orphanRows()).as("table 'test' (id 1) is live").isZero();
            assertThat(untouched.dropped() + untouched.droppedUnregistered() + untouched.droppedInlinedDelete()).isZero();
            assertThat(exists(c, s, "ducklake_inlined_data_1_1")).isTrue();

            // DuckLake drops table 1 in snapshot 2, then snapshots 0 and 1 are expired (the leak), plus its deletions table
            String q = Sql.ident(s) + ".";
            exec(c, "INSERT INTO " + q + "ducklake_snapshot VALUES (2, now(), 2, 2, 0);"
                    + "INSERT INTO " + q + "ducklake_snapshot_changes VALUES (2, 'dropped_table:1', NULL, NULL, NULL);"
                    + "UPDATE " + q + "ducklake_table SET end_snapshot = 2 WHERE table_id = 1;"
                    + "DELETE FROM " + q + "ducklake_snapshot WHERE snapshot_id < 2");
            inlinedDeleteTable(c, s, 1, 0);
            DropOrphanInlineTablesResult r = run(s, o -> o.includeUnregistered(true));
            System.out.printf(Locale.ROOT, "real 0.4 catalog after drop + expiry: orphan_rows=%d inlined_delete=%d; dropped %d "
                    + "registered, %d inlined delete%n", r.orphanRows(), r.inlinedDeleteOrphans(), r.dropped(), r.droppedInlinedDelete());
            assertThat(r.dropped()).isEqualTo(1);
            assertThat(r.droppedInlinedDelete()).isEqualTo(1);
            assertThat(exists(c, s, "ducklake_inlined_data_1_1")).isFalse();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"9.9", "1.2", "1.1-dev2", "1.10"})
    void unknownVersionIsRefusedNamingIt(String unknown) throws Exception {
        String s = pg.freshSchema("fmt_unknown");
        try (Connection c = pg.connect()) {
            new CatalogBuilder(c, s, FormatVersion.V1_1).create();
            exec(c, "UPDATE " + Sql.qualified(s, "ducklake_metadata") + " SET value = '" + unknown + "' WHERE key = 'version'");
        }
        assertThatThrownBy(() -> run(s, o -> o.dryRun(true)))
                .isInstanceOfSatisfying(JanitorException.class, e -> {
                    assertThat(e.reason()).isEqualTo(JanitorException.Reason.UNSUPPORTED_VERSION);
                    assertThat(e.reason().exitCode()).isEqualTo(5);
                    assertThat(e.getMessage()).contains("'" + unknown + "'");
                });
    }

    private static int columnCount(Connection c, String schema, String table, String column) throws Exception {
        try (var ps = c.prepareStatement("SELECT count(*) FROM information_schema.columns WHERE table_schema = ? AND table_name = ?"
                + " AND column_name = ?")) {
            ps.setString(1, schema);
            ps.setString(2, table);
            ps.setString(3, column);
            try (var rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private static String exec1(Connection c, String schema, String table) throws Exception {
        try (var st = c.createStatement(); var rs = st.executeQuery("SELECT attname FROM pg_attribute WHERE attrelid = '"
                + Sql.qualified(schema, table).replace("'", "''") + "'::regclass AND attnum = 1")) {
            rs.next();
            return rs.getString(1);
        }
    }
}
