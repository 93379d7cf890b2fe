package dev.ducklake.janitor.interop;

import dev.ducklake.janitor.interop.InteropCatalog.JanitorRun;
import dev.ducklake.janitor.interop.InteropCatalog.RegistryRow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.demo.CatalogBuilder;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario 5: catalog format versions. DuckLake 1.5.5 writes format 1.0 only (every other interop test runs
 * on 1.0 catalogs it created). The real 0.4 catalog from DuckLake's own test data (copied from the project's
 * shared fixtures; see the header of {@code src/test/resources/fixtures/ducklake-0.4-catalog.sql}) must be
 * detected and handled by the janitor, and real DuckLake must still migrate and use it afterwards. The other
 * older formats (0.1 to 0.4-dev1) are written by {@link CatalogBuilder} from the documented migration chain:
 * the janitor detects and handles each. An unknown (newer) version is refused by both.
 */
class FormatVersionInteropTest {

    private final List<InteropCatalog> lakes = new ArrayList<>();

    @AfterEach
    void cleanup() {
        lakes.forEach(InteropCatalog::deleteDataDir);
    }

    static void loadFixture(InteropCatalog lake, String resource) throws Exception {
        String sql;
        try (InputStream in = FormatVersionInteropTest.class.getResourceAsStream("/fixtures/" + resource)) {
            assertThat(in).as("test resource fixtures/" + resource).isNotNull();
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try (Connection c = lake.connect(); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA \"" + lake.schema() + "\"");
            st.execute("SET search_path TO \"" + lake.schema() + "\"");
            st.execute(sql);
        }
    }

    /**
     * DuckLake 1.5.5 itself cannot migrate the two oldest samples on PostgreSQL (its 0.1 -> 0.2 and
     * 0.2 -> 0.3 steps use ALTER TABLE forms the postgres extension rejects); for those the test checks that
     * the failed migration leaves the catalog as it was, still usable by the janitor.
     */
    @ParameterizedTest(name = "{0} (format {1}, DuckLake migrates: {2})")
    @CsvSource({
        "ducklake-0.4-catalog.sql, 0.4, true",
    })
    void olderCatalogsAreDetectedHandledAndStillMigrateInDuckLake(String fixture, String version, boolean migrates)
            throws Exception {
        InteropCatalog lake = InteropCatalog.fresh("il_fmt");
        lakes.add(lake);
        loadFixture(lake, fixture);
        assertThat(lake.formatVersion()).isEqualTo(version);
        List<RegistryRow> fixtureRegistry = lake.registry();
        Set<String> fixtureRelations = lake.inlinedRelations();

        // a leaked inlined table in this format's layout: registered, empty, its table_id long gone
        lake.execute("CREATE TABLE \"" + lake.schema() + "\".ducklake_inlined_data_9999_1"
                + "(row_id BIGINT, begin_snapshot BIGINT, end_snapshot BIGINT, i INTEGER)");
        lake.execute("INSERT INTO \"" + lake.schema() + "\".ducklake_inlined_data_tables VALUES (9999, 'ducklake_inlined_data_9999_1', 1)");

        JanitorRun dry = lake.janitorDryRun();
        assertThat(dry.json().path("format_version").asText()).isEqualTo(version);
        assertThat(dry.count("registry_rows")).isEqualTo(fixtureRegistry.size() + 1);
        assertThat(dry.count("orphan_rows")).as("only the leaked table; the fixture's tables are live").isEqualTo(1);
        JanitorRun exec = lake.janitorExecute();
        assertThat(exec.count("dropped")).isEqualTo(1);
        assertThat(lake.registry()).isEqualTo(fixtureRegistry);
        assertThat(lake.inlinedRelations()).isEqualTo(fixtureRelations);

        // real DuckLake: refuses the old catalog without migration, migrates it with AUTOMATIC_MIGRATION
        RealDuckLake.Attach noMigration = lake.attach().overrideDataPath();
        lake.run(RealDuckLake.program().continueOnError().attachExpectError("no_migration", noMigration));
        if (!migrates) {
            RealDuckLake.Result failed = lake.run(RealDuckLake.program().continueOnError()
                    .attachExpectError("migration", lake.attach().overrideDataPath().automaticMigration()));
            assertThat(failed.step("migration").path("error").asText()).contains("Failed to migrate DuckLake");
            assertThat(lake.formatVersion()).as("the failed migration rolled back").isEqualTo(version);
            assertThat(lake.registry()).isEqualTo(fixtureRegistry);
            JanitorRun still = lake.janitorDryRun();
            assertThat(still.json().path("format_version").asText()).isEqualTo(version);
            assertThat(still.count("orphan_rows")).isZero();
            return;
        }
        RealDuckLake.Result used = lake.run(RealDuckLake.program()
                .attach(lake.attach().overrideDataPath().automaticMigration())
                .query("tables", "SELECT table_name FROM duckdb_tables() WHERE database_name = 'lake'")
                .query("snapshots", "SELECT count(*) FROM lake.snapshots()")
                .sql("CREATE TABLE lake.after_migration(id INTEGER, v VARCHAR)",
                        "INSERT INTO lake.after_migration VALUES (1, 'one'), (2, 'two')")
                .query("read", "SELECT id, v FROM lake.after_migration ORDER BY id"));
        assertThat(used.rows("tables")).isNotEmpty();
        assertThat(used.rows("read")).containsExactly(List.of("1", "one"), List.of("2", "two"));
        assertThat(lake.formatVersion()).isEqualTo("1.0");
        JanitorRun afterMigration = lake.janitorDryRun();
        assertThat(afterMigration.json().path("format_version").asText()).isEqualTo("1.0");
        assertThat(afterMigration.count("orphan_rows")).isZero();
    }

    @ParameterizedTest(name = "format {0} written by CatalogBuilder")
    @EnumSource(value = FormatVersion.class, names = {"V0_1", "V0_2", "V0_3_DEV1", "V0_3", "V0_4_DEV1", "V0_4", "V1_1_DEV1", "V1_1"})
    void olderLayoutsAreDetectedAndHandled(FormatVersion version) throws Exception {
        InteropCatalog lake = InteropCatalog.fresh("il_fmt_gen");
        lakes.add(lake);
        try (Connection c = lake.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, lake.schema(), version).create();
            long live = b.createTable("live", 1);
            b.insertRows(live, 2);
            long gone = b.createTable("gone", 1);
            b.dropTable(gone);
            b.expireBefore(b.snapshot());
        }
        assertThat(lake.formatVersion()).isEqualTo(version.text());
        List<RegistryRow> before = lake.registry();
        JanitorRun dry = lake.janitorDryRun();
        assertThat(dry.json().path("format_version").asText()).isEqualTo(version.text());
        assertThat(dry.count("orphan_rows")).isEqualTo(1);
        assertThat(lake.registry()).as("the dry run changed nothing").isEqualTo(before);
        JanitorRun exec = lake.janitorExecute();
        assertThat(exec.count("dropped")).isEqualTo(1);
        assertThat(lake.registry()).hasSize(before.size() - 1);
    }

    @Test
    void duckLakeWritesFormat10AndAnUnknownNewerVersionIsRefusedByJanitorAndDuckLake() throws Exception {
        InteropCatalog lake = InteropCatalog.fresh("il_fmt_new");
        lakes.add(lake);
        RealDuckLake.Program p = RealDuckLake.program()
                .attach(lake.attach().inliningRowLimit(10))
                .sql("CREATE TABLE lake.live(id INTEGER)", "INSERT INTO lake.live VALUES (1)");
        ConcurrentWriterInteropTest.createAndDrop(p, "gone_", 5);
        lake.run(p);
        lake.pgNativeExpireBelow(lake.snapshotBounds()[1]);
        assertThat(lake.formatVersion()).as("the format DuckLake 1.5.5 writes").isEqualTo("1.0");
        assertThat(lake.janitorDryRun().json().path("format_version").asText()).isEqualTo("1.0");

        List<RegistryRow> registry = lake.registry();
        Set<String> relations = lake.inlinedRelations();
        lake.execute("UPDATE \"" + lake.schema() + "\".ducklake_metadata SET value = '9.9' WHERE key = 'version'");
        for (String[] args : new String[][] {{"--dry-run"}, {"--yes"}}) {
            JanitorRun r = lake.janitor(args);
            assertThat(r.exitCode()).as("exit code for an unsupported version").isEqualTo(5);
            assertThat(r.json().path("status").asText()).isEqualTo("error");
            assertThat(r.json().path("reason").asText()).isEqualTo("unsupported_version");
            assertThat(r.json().path("message").asText()).contains("9.9");
        }
        assertThat(lake.registry()).isEqualTo(registry);
        assertThat(lake.inlinedRelations()).isEqualTo(relations);
        // DuckLake 1.5.5 refuses it too
        RealDuckLake.Result refused = lake.duckLake().run(RealDuckLake.program().continueOnError()
                .attachExpectError("attach_newer", lake.attach()));
        assertThat(refused.ok()).isTrue();
        assertThat(refused.step("attach_newer").path("error").asText()).containsIgnoringCase("version");

        // back to 1.0: the janitor works again
        lake.execute("UPDATE \"" + lake.schema() + "\".ducklake_metadata SET value = '1.0' WHERE key = 'version'");
        assertThat(lake.janitorExecute().count("dropped")).isEqualTo(5);
    }
}
