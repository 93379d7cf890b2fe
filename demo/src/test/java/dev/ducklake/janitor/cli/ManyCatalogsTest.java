package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Map;

import static dev.ducklake.janitor.testsupport.Catalogs.exec;
import static dev.ducklake.janitor.testsupport.Catalogs.exists;
import static dev.ducklake.janitor.testsupport.Catalogs.inlinedDeleteTable;
import static dev.ducklake.janitor.testsupport.Catalogs.unregister;
import static org.assertj.core.api.Assertions.assertThat;

/** Several DuckLake catalogs (tenants) in one database, through the CLI, on real PostgreSQL. */
class ManyCatalogsTest {

    private final TestPostgres pg = TestPostgres.get();

    /** Exit code, stdout and stderr of one CLI run. */
    private record Run(int code, String out, String err) {
        JsonNode json() throws Exception {
            return new ObjectMapper().readTree(out);
        }
    }

    private static Run cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.execute(args, new PrintWriter(out), new PrintWriter(err), Map.of());
        return new Run(code, out.toString(), err.toString());
    }

    /**
     * A tenant catalog. In every tenant the table ids are the same (1 = "shared", 2 = "other"); {@code sharedDead}
     * decides whether table 1 is dropped and expired there. Table 1 also gets an inlined deletion table and an
     * unregistered data table.
     */
    private static void tenant(Connection c, String schema, boolean sharedDead, FormatVersion v) throws Exception {
        CatalogBuilder b = new CatalogBuilder(c, schema, v).create();
        long shared = b.createTable("shared", 1);
        b.createTable("other", 1);
        assertThat(shared).isEqualTo(1);
        if (sharedDead) {
            b.dropTable(shared);
        }
        b.expireBefore(b.snapshot());
        inlinedDeleteTable(c, schema, shared, 0);
        exec(c, "CREATE TABLE " + Sql.qualified(schema, "ducklake_inlined_data_1_99")
                + " (row_id bigint, begin_snapshot bigint, end_snapshot bigint, c1 integer)");
    }

    @Test
    void sameTableIdDeadInOneTenantAndLiveInTheOther() throws Exception {
        String dead = pg.freshSchema("tenant_dead");
        String live = pg.freshSchema("tenant_live");
        try (Connection c = pg.connect()) {
            tenant(c, dead, true, FormatVersion.V1_0);
            tenant(c, live, false, FormatVersion.V1_1_DEV1);
        }
        Run dry = cli("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", dead, "--metadata-schema", live,
                "--dry-run", "--output", "json");
        assertThat(dry.code()).as(dry.err()).isZero();
        JsonNode d = dry.json();
        assertThat(d.get("schemas")).hasSize(2);
        assertThat(d.get("schemas").get(0).get("schema").asText()).isEqualTo(dead);
        assertThat(d.get("schemas").get(0).get("orphan_rows").asLong()).isEqualTo(1);
        assertThat(d.get("schemas").get(0).get("unregistered_orphans").asLong()).isEqualTo(1);
        assertThat(d.get("schemas").get(0).get("inlined_delete_orphans").asLong()).isEqualTo(1);
        assertThat(d.get("schemas").get(1).get("orphan_rows").asLong()).as("table_id 1 is live in the other tenant").isZero();
        assertThat(d.get("schemas").get(1).get("unregistered_anomalies").asLong()).isEqualTo(1);
        assertThat(d.get("schemas").get(1).get("inlined_delete_live").asLong()).isEqualTo(1);
        assertThat(d.get("total").get("orphan_rows").asLong()).isEqualTo(1);
        assertThat(d.get("total").get("schemas").asLong()).isEqualTo(2);

        Run r = cli("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", dead, "--metadata-schema", live,
                "--include-unregistered", "--yes", "--output", "json");
        assertThat(r.code()).as(r.err()).isZero();
        JsonNode j = r.json();
        assertThat(j.get("status").asText()).isEqualTo("ok");
        assertThat(j.get("total").get("dropped").asLong()).isEqualTo(1);
        assertThat(j.get("total").get("dropped_unregistered").asLong()).isEqualTo(1);
        assertThat(j.get("total").get("dropped_inlined_delete").asLong()).isEqualTo(1);
        try (Connection c = pg.connect()) {
            for (String t : new String[] {"ducklake_inlined_data_1_1", "ducklake_inlined_data_1_99", "ducklake_inlined_delete_1"}) {
                assertThat(exists(c, dead, t)).as(t + " dropped in the tenant where table 1 is dead").isFalse();
                assertThat(exists(c, live, t)).as(t + " kept in the tenant where table 1 is live").isTrue();
            }
            assertThat(exists(c, dead, "ducklake_inlined_data_2_2")).isTrue();
        }
    }

    @Test
    void eachSchemaTakesItsOwnLockAndOneFailureDoesNotStopTheOthers() throws Exception {
        String a = pg.freshSchema("lock_a");
        String b = pg.freshSchema("lock_b");
        try (Connection c = pg.connect()) {
            tenant(c, a, true, FormatVersion.V1_0);
            tenant(c, b, true, FormatVersion.V1_0);
        }
        try (Connection holder = pg.connect();
             PreparedStatement ps = holder.prepareStatement("SELECT pg_advisory_lock(hashtext(?)::bigint)")) {
            ps.setString(1, "ducklake-maintenance:" + a);
            ps.execute();
            Run r = cli("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", a, "--metadata-schema", b,
                    "--yes");
            assertThat(r.code()).as("lock held on schema a: exit 7").isEqualTo(7);
            assertThat(r.out()).contains("schema " + a + ": FAILED (exit 7").contains("total over 2 schema(s): 1 ok, 1 failed");
            try (Connection c = pg.connect()) {
                assertThat(exists(c, a, "ducklake_inlined_data_1_1")).as("locked schema untouched").isTrue();
                assertThat(exists(c, b, "ducklake_inlined_data_1_1")).as("the other schema ran").isFalse();
            }
        }
    }

    @Test
    void allMetadataSchemasRefusesAnUnknownVersionWhileTheOthersRun() throws Exception {
        String db = "beyond_all_" + ProcessHandle.current().pid();
        try (Connection c = pg.connect()) {
            exec(c, "DROP DATABASE IF EXISTS " + Sql.ident(db));
            exec(c, "CREATE DATABASE " + Sql.ident(db));
        }
        ConnectionSpec spec = ConnectionSpec.parse("host=" + pg.spec().host() + " port=" + pg.spec().port() + " dbname=" + db
                + " user=" + pg.spec().user(), System.getenv(), null);
        String url = "postgresql://" + pg.spec().user() + "@" + pg.spec().host() + ":" + pg.spec().port() + "/" + db;
        try (Connection c = spec.openRaw()) {
            tenant(c, "t1", true, FormatVersion.V0_2);
            tenant(c, "t2", true, FormatVersion.V1_0);
            exec(c, "UPDATE t2.ducklake_metadata SET value = '9.9' WHERE key = 'version'");
            tenant(c, "t3", true, FormatVersion.V1_1_DEV1);
            // not a catalog: ducklake_metadata without a version key
            exec(c, "CREATE SCHEMA notlake; CREATE TABLE notlake.ducklake_metadata (key varchar, value varchar)");
        }
        Run r = cli("drop-orphan-inline-tables", "--catalog", url, "--all-metadata-schemas", "--include-unregistered", "--yes",
                "--output", "json");
        assertThat(r.code()).as("worst outcome: unsupported version").isEqualTo(5);
        JsonNode j = r.json();
        assertThat(j.get("schemas")).extracting(n -> n.get("schema").asText()).containsExactly("t1", "t2", "t3");
        assertThat(j.get("schemas").get(1).get("status").asText()).isEqualTo("error");
        assertThat(j.get("schemas").get(1).get("reason").asText()).isEqualTo("unsupported_version");
        assertThat(j.get("schemas").get(1).get("message").asText()).contains("'9.9'");
        assertThat(j.get("status").asText()).isEqualTo("partial");
        assertThat(j.get("exit_code").asInt()).isEqualTo(5);
        assertThat(j.get("total").get("schemas_ok").asLong()).isEqualTo(2);
        assertThat(j.get("total").get("dropped").asLong()).isEqualTo(2);
        try (Connection c = spec.openRaw()) {
            assertThat(exists(c, "t1", "ducklake_inlined_data_1_1")).isFalse();
            assertThat(exists(c, "t3", "ducklake_inlined_delete_1")).isFalse();
            assertThat(exists(c, "t2", "ducklake_inlined_data_1_1")).as("refused schema untouched").isTrue();
        }
        Run both = cli("drop-orphan-inline-tables", "--catalog", url, "--all-metadata-schemas", "--metadata-schema", "t1");
        assertThat(both.code()).as("the two ways of naming schemas exclude each other").isEqualTo(2);
    }

    @Test
    void singleSchemaKeepsTheTopLevelJsonShapeAndTextListsNonEmptyFirst() throws Exception {
        String s = pg.freshSchema("single");
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, s, FormatVersion.V1_0).create();
            long t = b.createTable("unflushed", 1);
            b.insertRows(t, 7);
            b.dropTable(t);
            b.expireBefore(b.snapshot());
            unregister(c, s, 999); // no-op: nothing registered under 999
        }
        Run json = cli("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", s, "--dry-run", "--output", "json");
        assertThat(json.code()).as(json.err()).isZero();
        assertThat(json.json().get("orphan_rows").asLong()).isEqualTo(1);
        assertThat(json.json().has("schemas")).isFalse();
        assertThat(json.json().get("non_empty_tables").get(0).get("rows").asLong()).isEqualTo(7);

        // issue 10: the per-table list is a --verbose detail (else one summary line)
        Run text = cli("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", s, "--dry-run", "--include-nonempty",
                "--verbose");
        assertThat(text.code()).isZero();
        String[] lines = text.out().split("\n");
        assertThat(lines[1]).as("the non-empty orphan comes first, with its row count")
                .contains("ducklake_inlined_data_1_1").contains("7 rows");
        assertThat(text.out()).contains("would drop").contains("inlined delete orphans");
    }
}
