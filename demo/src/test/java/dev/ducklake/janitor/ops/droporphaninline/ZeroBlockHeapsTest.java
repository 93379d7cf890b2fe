package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The heap-blocks emptiness proof ({@link ZeroBlockHeaps}) on real tables, asked the way the batch asks it:
 * inside the transaction that holds ACCESS EXCLUSIVE on the tables, after the lock.
 */
class ZeroBlockHeapsTest {

    /** A table access method that is not called heap (it reuses heap's handler: the name is what counts). */
    static final String OTHER_AM = "janitor_test_heap_clone";

    @Test
    void onlyZeroBlockHeapsAreProvenEmpty() throws Exception {
        TestPostgres pg = TestPostgres.get();
        String schema = schema(pg, "zeroblock");
        boolean otherAm;
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            String s = "\"" + schema + "\".";
            st.execute("CREATE TABLE " + s + "never_written (id int)");
            st.execute("CREATE TABLE " + s + "with_rows (id int)");
            st.execute("INSERT INTO " + s + "with_rows VALUES (1)");
            st.execute("CREATE TABLE " + s + "rows_deleted (id int)");
            st.execute("INSERT INTO " + s + "rows_deleted SELECT generate_series(1, 100)");
            st.execute("DELETE FROM " + s + "rows_deleted");
            st.execute("CREATE TABLE " + s + "truncated (id int)");
            st.execute("INSERT INTO " + s + "truncated VALUES (1)");
            st.execute("TRUNCATE " + s + "truncated");
            st.execute("CREATE UNLOGGED TABLE " + s + "unlogged_empty (id int)");
            st.execute("CREATE UNLOGGED TABLE " + s + "unlogged_rows (id int)");
            st.execute("INSERT INTO " + s + "unlogged_rows VALUES (1)");
            otherAm = createOtherAccessMethod(st);
            if (otherAm) {
                st.execute("CREATE TABLE " + s + "other_am_empty (id int) USING " + OTHER_AM);
            }
        }
        List<String> names = new ArrayList<>(List.of("never_written", "with_rows", "rows_deleted", "truncated", "unlogged_empty",
                "unlogged_rows"));
        if (otherAm) {
            names.add("other_am_empty");
        }
        try (Connection c = pg.connect()) {
            Map<String, Long> oids = oids(c, schema, names);
            c.setAutoCommit(false);
            lockAll(c, schema, names);
            Set<String> proven = ZeroBlockHeaps.provenEmpty(c, schema, names, oids);
            c.rollback();
            assertThat(proven).as("zero-block heaps, permanent or unlogged")
                    .containsExactlyInAnyOrder("never_written", "truncated", "unlogged_empty");
            assertThat(proven).as("a table with rows is never proven empty").doesNotContain("with_rows", "unlogged_rows");
            assertThat(proven).as("deleted but not vacuumed: blocks remain, so it must be probed").doesNotContain("rows_deleted");
            assertThat(proven).as("another access method is never proven, even with zero blocks").doesNotContain("other_am_empty");
        }
    }

    @Test
    void anotherAccessMethodIsNeverProvenEvenWithZeroBlocks() throws Exception {
        TestPostgres pg = TestPostgres.get();
        String schema = schema(pg, "zeroblock_am");
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            assumeThat(createOtherAccessMethod(st)).as("CREATE ACCESS METHOD needs a superuser").isTrue();
            st.execute("CREATE TABLE \"" + schema + "\".other_am_empty (id int) USING " + OTHER_AM);
            st.execute("CREATE TABLE \"" + schema + "\".heap_empty (id int) USING heap");
        }
        try (Connection c = pg.connect()) {
            List<String> names = List.of("other_am_empty", "heap_empty");
            Map<String, Long> oids = oids(c, schema, names);
            c.setAutoCommit(false);
            lockAll(c, schema, names);
            assertThat(ZeroBlockHeaps.provenEmpty(c, schema, names, oids)).containsExactly("heap_empty");
            c.rollback();
        }
    }

    @Test
    void anUncommittedInsertAlreadyGivesTheTableABlock() throws Exception {
        TestPostgres pg = TestPostgres.get();
        String schema = schema(pg, "zeroblock_tx");
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE \"" + schema + "\".t (id int)");
        }
        try (Connection writer = pg.connect(); Connection reader = pg.connect()) {
            Map<String, Long> oids = oids(reader, schema, List.of("t"));
            assertThat(ZeroBlockHeaps.provenEmpty(reader, schema, List.of("t"), oids)).containsExactly("t");
            writer.setAutoCommit(false);
            try (Statement st = writer.createStatement()) {
                st.execute("INSERT INTO \"" + schema + "\".t VALUES (1)");
            }
            assertThat(ZeroBlockHeaps.provenEmpty(reader, schema, List.of("t"), oids))
                    .as("the uncommitted row already lives in a block").isEmpty();
            writer.rollback();
            assertThat(ZeroBlockHeaps.provenEmpty(reader, schema, List.of("t"), oids))
                    .as("after the abort the block stays; the probe decides").isEmpty();
        }
    }

    @Test
    void aNameThatNowBelongsToAnotherRelationIsReported() throws Exception {
        TestPostgres pg = TestPostgres.get();
        String schema = schema(pg, "zeroblock_id");
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE \"" + schema + "\".t (id int)");
            Map<String, Long> listed = oids(c, schema, List.of("t"));
            st.execute("DROP TABLE \"" + schema + "\".t");
            st.execute("CREATE TABLE \"" + schema + "\".t (id int)");
            assertThat(ZeroBlockHeaps.provenEmpty(c, schema, List.of("t"), listed)).as("identity changed: keep").isNull();
            assertThat(ZeroBlockHeaps.provenEmpty(c, schema, List.of("t"), oids(c, schema, List.of("t")))).containsExactly("t");
        }
    }

    static String schema(TestPostgres pg, String prefix) throws SQLException {
        String schema = pg.freshSchema(prefix);
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA \"" + schema + "\"");
        }
        return schema;
    }

    /** Creates {@link #OTHER_AM} when missing; false when this role may not (not a superuser). */
    static boolean createOtherAccessMethod(Statement st) throws SQLException {
        try (ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_catalog.pg_am WHERE amname = '" + OTHER_AM + "'")) {
            rs.next();
            if (rs.getLong(1) > 0) {
                return true;
            }
        }
        try {
            st.execute("CREATE ACCESS METHOD " + OTHER_AM + " TYPE TABLE HANDLER heap_tableam_handler");
            return true;
        } catch (SQLException e) {
            if ("42501".equals(e.getSQLState()) || "42710".equals(e.getSQLState())) {
                return "42710".equals(e.getSQLState());
            }
            throw e;
        }
    }

    static Map<String, Long> oids(Connection c, String schema, List<String> names) throws SQLException {
        Map<String, Long> out = new HashMap<>();
        for (String n : names) {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                    "SELECT '\"" + schema + "\".\"" + n + "\"'::regclass::oid")) {
                rs.next();
                out.put(n, rs.getLong(1));
            }
        }
        return out;
    }

    private static void lockAll(Connection c, String schema, List<String> names) throws SQLException {
        StringBuilder sql = new StringBuilder("LOCK TABLE ");
        for (int i = 0; i < names.size(); i++) {
            sql.append(i > 0 ? ", " : "").append('"').append(schema).append("\".\"").append(names.get(i)).append('"');
        }
        try (Statement st = c.createStatement()) {
            st.execute(sql + " IN ACCESS EXCLUSIVE MODE");
        }
    }
}
