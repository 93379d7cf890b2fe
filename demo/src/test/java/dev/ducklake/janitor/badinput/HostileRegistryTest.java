package dev.ducklake.janitor.badinput;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.CatalogInvariants;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Registry rows with hostile or inconsistent contents (issue 5, bad input): quotes, semicolons, SQL injection
 * attempts, a trailing newline, non-ASCII digits, names over 63 bytes, another schema's prefix, ids that disagree
 * with the name, NULL and negative ids. The name guard keeps every one of them (row and table untouched, a
 * warning each), a legitimate orphan next to them is still handled, and nothing outside the schema is touched.
 */
class HostileRegistryTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final TestPostgres pg = TestPostgres.get();

    /** A hostile registry row and whether a table of that exact name is created in the metadata schema. */
    private record Hostile(Long tableId, String name, Long schemaVersion, boolean createTable) {
    }

    private static List<Hostile> hostile(String other) {
        String longName = "ducklake_inlined_data_900006_1" + "x".repeat(50);
        return List.of(
                new Hostile(900001L, "ducklake_inlined_data_900001_1\"", 1L, true),
                new Hostile(900002L, "ducklake_inlined_data_900002_1; DROP TABLE ducklake_snapshot; --", 1L, true),
                new Hostile(900003L, "\"; DROP TABLE ducklake_snapshot; --", 1L, true),
                new Hostile(900004L, "ducklake_inlined_data_900004_1\n", 1L, true),
                new Hostile(900005L, "ducklake_inlined_data_\u0669\u0660\u0660\u0660\u0660\u0665_1", 1L, true),
                new Hostile(900006L, longName, 1L, true),
                new Hostile(900007L, other + ".ducklake_inlined_data_900007_1", 1L, false),
                new Hostile(900007L, other + "\".\"ducklake_inlined_data_900007_1", 1L, false),
                new Hostile(900009L, "ducklake_inlined_data_900010_1", 1L, true),
                // an orphan id whose row names the inlined table of the live table 1 (customers, 5 rows)
                new Hostile(900011L, "ducklake_inlined_data_1_1", 1L, false),
                new Hostile(900012L, "ducklake_inlined_data_900012_2", 1L, true),
                new Hostile(null, "ducklake_inlined_data_900013_1", 1L, true),
                new Hostile(900014L, "ducklake_inlined_data_900014_1", null, true),
                new Hostile(-5L, "ducklake_inlined_data_-5_1", 1L, true),
                new Hostile(900015L, "ducklake_inlined_data_0900015_1", 1L, true),
                new Hostile(900016L, null, 1L, false),
                new Hostile(900017L, "DUCKLAKE_INLINED_DATA_900017_1", 1L, true),
                new Hostile(900018L, " ducklake_inlined_data_900018_1", 1L, true),
                new Hostile(900019L, "ducklake_inlined_data_900019_1\u001b[31m", 1L, true),
                new Hostile(900020L, "ducklake_inlined_data_900020_1\u202e", 1L, true));
    }

    @Test
    void hostileRegistryRowsAreKeptByTheNameGuardAndNothingElseIsTouched() throws Exception {
        FaultCatalog cat;
        FaultCatalog other;
        List<Hostile> rows;
        try (Connection c = pg.connect()) {
            String schema = pg.freshSchema("hostile");
            String otherSchema = pg.freshSchema("hostile_other");
            other = FaultCatalog.build(c, otherSchema, 0);
            rows = hostile(otherSchema);
            DemoScenarioWithHostileRows.write(c, schema, otherSchema, rows);
            cat = FaultCatalog.of(c, schema);
        }
        CatalogInvariants.Snapshot otherBefore;
        try (Connection c = pg.connect()) {
            otherBefore = CatalogInvariants.snapshot(c, other.schema);
        }
        // a dry run first: reports, changes nothing
        CliRun dry = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", cat.schema, "--dry-run",
                "--output", "json");
        assertThat(dry.exitCode()).as("stderr: %s", dry.err()).isZero();
        assertThat(JSON.readTree(dry.out()).get("kept_by_name_guard").asInt()).isEqualTo(rows.size());
        try (Connection c = pg.connect()) {
            CatalogInvariants.assertUnchanged(c, cat.before);
        }
        CliRun run = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", cat.schema, "--yes",
                "--output", "json");
        assertThat(run.exitCode()).as("hostile rows are kept with warnings, the run succeeds; stderr: %s", run.err()).isZero();
        JsonNode doc = JSON.readTree(run.out());
        assertThat(doc.get("kept_by_name_guard").asInt()).as("every hostile row is kept by the name guard").isEqualTo(rows.size());
        assertThat(doc.get("missing_tables").asInt()).as("the legitimate row whose table lives only in the other schema")
                .isEqualTo(1);
        assertThat(doc.has("kept_not_a_table") ? doc.get("kept_not_a_table").asInt() : doc.get("kept_not_atable").asInt()).as("view, partitioned table, sequence, materialized view").isEqualTo(4);
        assertThat(run.err()).as("warnings name the rows, escaped").contains("kept by the name guard")
                .contains("'ducklake_inlined_data_900004_1\\n'").doesNotContain("ducklake_inlined_data_900004_1\n")
                .as("terminal control and bidi characters are escaped").contains("900019_1\\u001b[31m")
                .contains("900020_1\\u202e").doesNotContain("\u001b").doesNotContain("\u202e");
        try (Connection c = pg.connect()) {
            List<CatalogInvariants.RegistryRow> deleted = cat.check(c);
            assertThat(deleted).extracting(CatalogInvariants.RegistryRow::tableName)
                    .as("only the legitimate orphans go").doesNotContainAnyElementsOf(
                            rows.stream().map(Hostile::name).filter(n -> n != null).toList());
            CatalogInvariants.assertUnchanged(c, otherBefore);
        }
    }

    /** Writes the demo catalog and the hostile rows (and their tables) into a schema. */
    static final class DemoScenarioWithHostileRows {
        static void write(Connection c, String schema, String otherSchema, List<Hostile> rows) throws Exception {
            dev.ducklake.janitor.demo.DemoScenario.build(c, schema, 5);
            try (Statement st = c.createStatement()) {
                for (Hostile h : rows) {
                    if (h.createTable) {
                        st.execute("CREATE TABLE " + Sql.qualified(schema, h.name) + " (row_id bigint, begin_snapshot bigint,"
                                + " end_snapshot bigint, c1 integer)");
                    }
                }
                // the exact name of row 900004 exists too, unregistered: a trailing newline must not reach it
                st.execute("CREATE TABLE " + Sql.qualified(schema, "ducklake_inlined_data_900004_1") + " (row_id bigint)");
                // relations with genuine names that are not plain tables: a view, a partitioned table, a sequence, a
                // materialized view (the name guard passes; the relkind check keeps them)
                st.execute("CREATE VIEW " + Sql.qualified(schema, "ducklake_inlined_data_900021_1") + " AS SELECT 1 AS x WHERE false");
                st.execute("CREATE TABLE " + Sql.qualified(schema, "ducklake_inlined_data_900022_1")
                        + " (row_id bigint) PARTITION BY RANGE (row_id)");
                st.execute("CREATE SEQUENCE " + Sql.qualified(schema, "ducklake_inlined_data_900023_1"));
                st.execute("CREATE MATERIALIZED VIEW " + Sql.qualified(schema, "ducklake_inlined_data_900024_1") + " AS SELECT 1 AS x WHERE false");
                // tables of another catalog in the same database
                st.execute("CREATE TABLE " + Sql.qualified(otherSchema, "ducklake_inlined_data_900007_1") + " (row_id bigint)");
                st.execute("CREATE TABLE " + Sql.qualified(otherSchema, "ducklake_inlined_data_900008_1") + " (row_id bigint)");
            }
            List<Object[]> values = new ArrayList<>();
            for (Hostile h : rows) {
                values.add(new Object[] {h.tableId, h.name, h.schemaVersion});
            }
            // a legitimate orphan row whose table exists only in the other schema: the row goes, that table stays
            values.add(new Object[] {900008L, "ducklake_inlined_data_900008_1", 1L});
            for (long id = 900021; id <= 900024; id++) {
                values.add(new Object[] {id, "ducklake_inlined_data_" + id + "_1", 1L});
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified(schema, "ducklake_inlined_data_tables")
                    + " VALUES (?, ?, ?)")) {
                for (Object[] v : values) {
                    ps.setObject(1, v[0], java.sql.Types.BIGINT);
                    ps.setString(2, (String) v[1]);
                    ps.setObject(3, v[2], java.sql.Types.BIGINT);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }
    }
}
