package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.pg.Pooling;
import dev.ducklake.janitor.testsupport.PgBouncer;
import dev.ducklake.janitor.testsupport.PgBouncer.PoolMode;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 23 item 3: the metrics collection with a custom query through a transaction-mode PgBouncer works, and leaves
 * no session setting on the server session it used (which PgBouncer hands to the next client: another application's
 * transactions would become read-only by default).
 */
class CustomQueryThroughPoolerTest {

    @Test
    void aCustomQueryLeavesNoSessionSettingOnAPooledServerSession() throws Exception {
        PgBouncer.assumeInstalled();
        String schema = TestPostgres.get().freshSchema("custom_pool");
        try (Connection c = TestPostgres.get().connect()) {
            MetricsFixtures.build(c, schema, 1);
        }
        try (PgBouncer tx = PgBouncer.start(PoolMode.TRANSACTION)) {
            try (Connection c = tx.spec().openRaw()) {
                assertThat(Pooling.transactionPooled(c)).isTrue();
                CustomQuery q = new CustomQuery("seven", "a custom query", "SELECT 7 AS value", List.of(), "value", Duration.ofSeconds(10));
                CollectResult r = new CatalogHealthCollector(c, schema, "lake", Duration.ofSeconds(10), List.of(q)).collect();
                assertThat(r.errors()).as("every query ran through the transaction pool").isEmpty();
                assertThat(r.family("seven").samples().get(0).value()).isEqualTo(7.0);
                assertThat(r.family(CatalogHealthCollector.SNAPSHOTS)).isNotNull();
            }
            // the next client gets the server session the collector used last (PgBouncer's LIFO)
            try (Connection next = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + tx.port() + "/"
                    + TestPostgres.get().spec().database(), TestPostgres.get().spec().user(), null);
                 Statement st = next.createStatement(); ResultSet rs = st.executeQuery("SHOW default_transaction_read_only")) {
                rs.next();
                assertThat(rs.getString(1)).as("no session SET left behind for other clients").isEqualTo("off");
            }
        }
    }
}
