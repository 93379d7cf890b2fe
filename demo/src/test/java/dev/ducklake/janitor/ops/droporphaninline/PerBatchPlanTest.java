package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The statements a batch runs on pg_class look each table up by index, whatever the batch size: as plain joins,
 * the planner read and hashed all of pg_class once a batch held about 2,000 rows (at 230,000 tables, 35-40 ms
 * a batch instead of 1 ms; issue 15). Checked with the planner's own plan of the exact statements, given a
 * batch of 2,000 rows and the parameter values (custom plans), on a catalog of 2,200 tables, where a plain join
 * is planned as a sequential scan of pg_class already.
 */
class PerBatchPlanTest {

    private static final int TABLES = 2_200;
    private static final int BATCH = 2_000;

    @Test
    void registryLockAndSizeCheckNeverScanPgClass() throws Exception {
        TestPostgres pg = TestPostgres.get();
        String schema = pg.freshSchema("batchplan");
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
            b.bulkCreateAndDrop("leak_", TABLES, 1, 500);
            b.expireBefore(b.snapshot());
            try (Statement st = c.createStatement()) {
                st.execute("ANALYZE " + Sql.qualified(schema, "ducklake_inlined_data_tables"));
                st.execute("ANALYZE pg_catalog.pg_class");
            }
            List<String> ctids = new ArrayList<>();
            List<String> names = new ArrayList<>();
            List<Long> oids = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT r.ctid::text, r.table_name, c.oid::bigint FROM "
                    + Sql.qualified(schema, "ducklake_inlined_data_tables") + " r JOIN pg_catalog.pg_class c"
                    + " ON c.relname = r.table_name::name ORDER BY r.table_id LIMIT " + BATCH);
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ctids.add(rs.getString(1));
                    names.add(rs.getString(2));
                    oids.add(rs.getLong(3));
                }
            }
            assertThat(ctids).hasSize(BATCH);

            c.setAutoCommit(false);
            String lockPlan;
            try (PreparedStatement ps = c.prepareStatement("EXPLAIN (FORMAT JSON) "
                    + LockedRows.sql(schema, "r.ctid = ANY (?::text[]::tid[])"))) {
                ps.setString(1, schema);
                ps.setArray(2, c.createArrayOf("text", ctids.toArray()));
                lockPlan = plan(ps);
            }
            String sizePlan;
            try (PreparedStatement ps = c.prepareStatement("EXPLAIN (FORMAT JSON) " + ZeroBlockHeaps.SQL)) {
                ps.setArray(1, c.createArrayOf("text", names.toArray()));
                ps.setArray(2, c.createArrayOf("bigint", oids.toArray()));
                ps.setString(3, schema);
                sizePlan = plan(ps);
            }
            c.rollback();
            assertThat(scansPgClass(lockPlan)).as("registry lock: pg_class by index only\n" + lockPlan).isFalse();
            assertThat(scansPgClass(sizePlan)).as("zero-block check: pg_class by index only\n" + sizePlan).isFalse();
            assertThat(sizePlan).containsPattern("\"Index Name\": \"pg_class_(oid|relname_nsp)_index\"");

            // the control: the plain join of the same rows is planned as a scan of pg_class here, so the
            // assertions above can fail
            try (PreparedStatement ps = c.prepareStatement("EXPLAIN (FORMAT JSON) SELECT u.name, c.relkind"
                    + " FROM unnest(?::text[], ?::bigint[]) AS u(name, reloid) LEFT JOIN pg_catalog.pg_class c"
                    + " ON c.oid = u.reloid::oid AND c.relname = u.name::name")) {
                ps.setArray(1, c.createArrayOf("text", names.toArray()));
                ps.setArray(2, c.createArrayOf("bigint", oids.toArray()));
                assertThat(scansPgClass(plan(ps))).as("control: a plain join of 2,000 rows scans pg_class").isTrue();
            }
            c.rollback();
        }
    }

    private static String plan(PreparedStatement ps) throws Exception {
        try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** Whether a JSON plan has a sequential scan of pg_class (a node naming the relation right after its type). */
    private static boolean scansPgClass(String json) {
        return json.replaceAll("\\s+", " ").matches("(?s).*\"Node Type\": \"Seq Scan\",( \"[A-Za-z ]+\": [^,]+,)*? \"Relation Name\": \"pg_class\".*");
    }
}
