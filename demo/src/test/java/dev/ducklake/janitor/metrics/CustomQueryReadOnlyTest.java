package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Custom metrics SQL cannot write, whatever its text: each attack below runs as a custom query on a superuser
 * session of the real server, and afterwards the victim table still exists with its row, no file was written by
 * a server program, and the collection reports a clear error under the query's name (the built-in queries and a
 * well-behaved custom query still produce their gauges).
 */
class CustomQueryReadOnlyTest {

    static String schema;
    static String victim;

    @BeforeAll
    static void setUp() throws Exception {
        TestPostgres pg = TestPostgres.get();
        schema = pg.freshSchema("custom_ro");
        victim = Sql.qualified(schema, "victim");
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            MetricsFixtures.build(c, schema, 1);
            st.execute("CREATE FUNCTION " + Sql.qualified(schema, "writes") + "() RETURNS int LANGUAGE plpgsql AS $$"
                    + " BEGIN DELETE FROM " + victim + "; DROP TABLE " + victim + "; RETURN 1; END $$");
        }
    }

    @org.junit.jupiter.api.BeforeEach
    void freshVictim() throws Exception {
        try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + victim);
            st.execute("CREATE TABLE " + victim + " (id int)");
            st.execute("INSERT INTO " + victim + " VALUES (1)");
        }
    }

    private static CollectResult collect(String sql) throws Exception {
        try (Connection c = TestPostgres.get().connect()) {
            CustomQuery q = new CustomQuery("attack", "an attack", sql, List.of(), "value", Duration.ofSeconds(10));
            CustomQuery fine = new CustomQuery("fine", "a good query", "SELECT 7 AS value", List.of(), "value", Duration.ofSeconds(10));
            return new CatalogHealthCollector(c, schema, "lake", Duration.ofSeconds(10), List.of(q, fine)).collect();
        }
    }

    private static void assertVictimIntact(String why) throws Exception {
        try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM " + victim)) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getLong(1)).as("the victim table keeps its row after: %s", why).isEqualTo(1);
        }
    }

    private static void assertRefused(String sql, String expectedInMessage) throws Exception {
        CollectResult r = collect(sql);
        assertVictimIntact(sql);
        assertThat(r.errors()).as("the attack is reported under its name: %s", sql).containsKey("attack");
        assertThat(r.errors().get("attack")).as(sql).containsIgnoringCase(expectedInMessage);
        assertThat(r.family("attack")).as("no gauge from a refused query").isNull();
        assertThat(r.family("fine")).as("the next custom query still runs: %s", sql).isNotNull();
        assertThat(r.family("fine").samples().get(0).value()).isEqualTo(7.0);
        assertThat(r.family(CatalogHealthCollector.SNAPSHOTS)).as("built-in gauges still computed").isNotNull();
    }

    @Test
    void aMultiStatementTextIsRefusedBeforeAnythingRuns() throws Exception {
        assertRefused("SELECT 1 AS value; COMMIT; DROP TABLE " + victim + "; SELECT 1 AS value", "one statement");
        assertRefused("SELECT 1 AS value; DELETE FROM " + victim, "one statement");
        assertRefused("SELECT 1 AS value;COMMIT;DROP TABLE " + victim, "one statement");
        assertRefused("SELECT set_config('default_transaction_read_only', 'off', false) AS value; COMMIT; DELETE FROM " + victim,
                "one statement");
        assertRefused("SELECT 1 AS value /* ; */ ; DROP TABLE " + victim, "one statement");
    }

    @Test
    void aSingleStatementThatIsNotAQueryIsRefused() throws Exception {
        assertRefused("COMMIT", "SELECT");
        assertRefused("DROP TABLE " + victim, "SELECT");
        assertRefused("SET TRANSACTION READ WRITE", "SELECT");
        assertRefused("DELETE FROM " + victim + " RETURNING 1 AS value", "SELECT");
        assertRefused("WITH d AS (DELETE FROM " + victim + " RETURNING 1) SELECT count(*) AS value FROM d", "data-modifying");
    }

    @Test
    void aServerProgramCannotRun(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path marker = tmp.resolve("pwned");
        assertRefused("COPY (SELECT 1) TO PROGRAM 'touch " + marker + "'", "SELECT");
        assertThat(Files.exists(marker)).as("COPY ... TO PROGRAM never ran").isFalse();
    }

    @Test
    void aFunctionThatWritesIsRefusedByTheReadOnlyTransaction() throws Exception {
        assertRefused("SELECT " + Sql.qualified(schema, "writes") + "() AS value", "read-only transaction");
        assertRefused("SELECT set_config('transaction_read_only', 'off', true) AS value, " + Sql.qualified(schema, "writes") + "()",
                "read-write");
    }

    @Test
    void turningOffTheDefaultDoesNotReachTheNextQuery() throws Exception {
        try (Connection c = TestPostgres.get().connect()) {
            CustomQuery off = new CustomQuery("off", "x", "SELECT 1 AS value, set_config('default_transaction_read_only', 'off', false)",
                    List.of(), "value", Duration.ofSeconds(10));
            CustomQuery write = new CustomQuery("write", "x", "SELECT " + Sql.qualified(schema, "writes") + "() AS value",
                    List.of(), "value", Duration.ofSeconds(10));
            CollectResult r = new CatalogHealthCollector(c, schema, "lake", Duration.ofSeconds(10), List.of(off, write)).collect();
            assertThat(r.errors()).containsKey("write");
            assertThat(r.errors().get("write")).contains("read-only transaction");
        }
        assertVictimIntact("default_transaction_read_only turned off by one query, a write in the next");
    }

    @Test
    void aQueryIsBoundByItsTimeout() throws Exception {
        try (Connection c = TestPostgres.get().connect()) {
            CustomQuery slow = new CustomQuery("slow", "x", "SELECT 1 AS value FROM pg_sleep(30)", List.of(), "value", Duration.ofMillis(300));
            long t0 = System.nanoTime();
            CollectResult r = new CatalogHealthCollector(c, schema, "lake", Duration.ofSeconds(10), List.of(slow)).collect();
            assertThat((System.nanoTime() - t0) / 1e9).as("ended by its statement_timeout").isLessThan(20);
            assertThat(r.errors().get("slow")).contains("57014");
        }
    }

    @Test
    void ordinaryQueriesStillWork() throws Exception {
        try (Connection c = TestPostgres.get().connect()) {
            List<CustomQuery> qs = List.of(
                    new CustomQuery("with_semicolon", "x", "SELECT 2 AS value;", List.of(), "value", Duration.ofSeconds(10)),
                    new CustomQuery("with_cte", "x", "WITH t AS (SELECT 3 AS v) SELECT v AS value FROM t", List.of(), "value",
                            Duration.ofSeconds(10)),
                    new CustomQuery("with_literal", "x", "SELECT length('a;b') AS value -- trailing; comment", List.of(), "value",
                            Duration.ofSeconds(10)),
                    new CustomQuery("jsonb_op", "x", "SELECT ('{\"a\":1}'::jsonb ? 'a')::int AS value", List.of(), "value",
                            Duration.ofSeconds(10)),
                    new CustomQuery("values", "x", "VALUES (5)", List.of(), "column1", Duration.ofSeconds(10)));
            CollectResult r = new CatalogHealthCollector(c, schema, "lake", Duration.ofSeconds(10), qs).collect();
            assertThat(r.errors()).as("errors").isEmpty();
            assertThat(r.family("with_semicolon").samples().get(0).value()).isEqualTo(2.0);
            assertThat(r.family("with_cte").samples().get(0).value()).isEqualTo(3.0);
            assertThat(r.family("with_literal").samples().get(0).value()).isEqualTo(3.0);
            assertThat(r.family("jsonb_op").samples().get(0).value()).isEqualTo(1.0);
            assertThat(r.family("values").samples().get(0).value()).isEqualTo(5.0);
        }
    }
}
