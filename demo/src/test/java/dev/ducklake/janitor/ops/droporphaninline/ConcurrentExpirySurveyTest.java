package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Found by trying it (two runs with different --lock-name on one schema): a run listing the schema while another
 * session drops orphans and deletes their registry rows (a second janitor, or DuckLake's own
 * ducklake_expire_snapshots) reported the tables that vanished under it as anomalies ("its first columns [] are
 * not DuckLake's; never dropped"). A table that is gone is no anomaly and must not be reported.
 */
class ConcurrentExpirySurveyTest {

    private final TestPostgres pg = TestPostgres.get();

    @Test
    void tablesDroppedDuringTheSurveyAreNotAnomalies() throws Exception {
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, pg.freshSchema("expiry_race"), 3000);
        }
        // the "expiry": each orphan's table dropped and its registry row deleted in one transaction, as DuckLake does
        AtomicReference<Exception> failed = new AtomicReference<>();
        Thread expiry = new Thread(() -> {
            try (Connection c = pg.connect();
                 Statement st = c.createStatement();
                 PreparedStatement del = c.prepareStatement("DELETE FROM " + Sql.qualified(cat.schema, "ducklake_inlined_data_tables")
                         + " WHERE table_name = ?")) {
                c.setAutoCommit(false);
                for (var o : cat.orphans) {
                    st.execute("DROP TABLE " + Sql.qualified(cat.schema, o.tableName()));
                    del.setString(1, o.tableName());
                    del.executeUpdate();
                    c.commit();
                }
            } catch (Exception e) {
                failed.set(e);
            }
        });
        expiry.start();
        List<String> anomalies = new ArrayList<>();
        int runs = 0;
        while (expiry.isAlive()) {
            DropOrphanInlineTablesResult r = Catalogs.run(cat.schema, o -> o.dryRun(true));
            runs++;
            r.anomalyTables().forEach(a -> anomalies.add(a.tableName() + ": " + a.reason()));
        }
        expiry.join();
        assertThat(failed.get()).isNull();
        assertThat(runs).as("dry runs during the expiry").isPositive();
        assertThat(anomalies).as("anomalies reported in %d dry runs racing a concurrent expiry", runs).isEmpty();
    }
}
