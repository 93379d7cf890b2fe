package dev.ducklake.janitor.faults;

import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.ops.check.CatalogCheck;
import dev.ducklake.janitor.ops.check.CheckOptions;
import dev.ducklake.janitor.ops.check.CheckResult;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 25: {@code check} runs on the shared runtime, so a backend terminated in the middle of the rules is reconnected
 * and the check still reports, with the same counts as an undisturbed check.
 */
class CheckReconnectTest {

    private final TestPostgres pg = TestPostgres.get();

    @Test
    void aBackendTerminatedDuringTheRulesIsReconnectedAndTheCheckReportsTheSame() throws Exception {
        String schema = pg.freshSchema("check_reconnect");
        try (Connection c = pg.connect()) {
            DemoScenario.build(c, schema, 3);
        }
        CheckOptions options = CheckOptions.defaults().withMetadataSchema(schema);
        CheckResult undisturbed = new CatalogCheck(pg.spec(), options).execute();
        String app = "janitor-check-reconnect-" + ProcessHandle.current().pid();
        ConnectionSpec spec = ConnectionSpec.parse(pg.url(), Map.of("PGAPPNAME", app), null);
        // a writer holds the stats table, so the check's backend waits inside a rule's transaction until it is ended
        Connection blocker = pg.connect();
        blocker.setAutoCommit(false);
        try (Statement st = blocker.createStatement()) {
            st.execute("LOCK TABLE " + Sql.qualified(schema, "ducklake_table_stats") + " IN ACCESS EXCLUSIVE MODE");
        }
        CompletableFuture<Integer> killer = CompletableFuture.supplyAsync(() -> {
            try (Connection mon = pg.connect();
                 PreparedStatement find = mon.prepareStatement("SELECT pid FROM pg_stat_activity WHERE application_name = ?"
                         + " AND wait_event_type = 'Lock' AND xact_start IS NOT NULL");
                 PreparedStatement kill = mon.prepareStatement("SELECT pg_terminate_backend(?)")) {
                find.setString(1, app);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (System.nanoTime() < deadline) {
                    try (ResultSet rs = find.executeQuery()) {
                        if (rs.next()) {
                            kill.setInt(1, rs.getInt(1));
                            kill.execute();
                            return 1;
                        }
                    }
                    Thread.sleep(20);
                }
                return 0;
            } catch (Exception e) {
                throw new RuntimeException(e);
            } finally {
                try {
                    blocker.rollback();
                } catch (Exception ignored) {
                    // closed below
                }
            }
        });
        CheckResult r;
        try {
            r = new CatalogCheck(spec, options).execute();
        } finally {
            killer.get(60, TimeUnit.SECONDS);
            blocker.close();
        }
        assertThat(killer.get()).as("the check's backend was terminated while it waited in a rule").isEqualTo(1);
        assertThat(r.status()).as("the check reconnected and reported").isEqualTo(undisturbed.status());
        assertThat(r.counts()).isEqualTo(undisturbed.counts());
        assertThat(r.errors()).as("no rule failed").isEmpty();
    }
}
