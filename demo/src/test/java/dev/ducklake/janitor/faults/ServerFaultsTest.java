package dev.ducklake.janitor.faults;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.testsupport.CatalogInvariants;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.DedicatedPostgres;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Faults of the whole server (issue 5, scenarios 3 and 6), each on a server of its own: a restart mid-run (and a
 * server that does not come back), and a shared lock table that is full.
 */
class ServerFaultsTest {

    /** One server for the restart scenarios (each leaves it running) and one with a small lock table, shared by the class. */
    private static DedicatedPostgres restartable;
    private static DedicatedPostgres lowLocks;
    private static LockHog hog;

    private static synchronized DedicatedPostgres restartable() throws Exception {
        if (restartable == null) {
            restartable = DedicatedPostgres.start(Map.of(), null);
        }
        return restartable;
    }

    private static synchronized LockHog lowLocksHog() throws Exception {
        if (lowLocks == null) {
            lowLocks = DedicatedPostgres.start(Map.of("max_locks_per_transaction", "64", "max_connections", "10"), null);
            hog = new LockHog(lowLocks, 4500);
        }
        return hog;
    }

    @AfterAll
    static void stopServers() throws Exception {
        if (hog != null) {
            hog.close();
        }
        for (DedicatedPostgres pg : new DedicatedPostgres[] {restartable, lowLocks}) {
            if (pg != null) {
                pg.close();
            }
        }
    }

    private static DropOrphanInlineTablesOptions.Builder options(String schema) {
        return DropOrphanInlineTablesOptions.builder().metadataSchema(schema).batchSize(10)
                .reconnectTimeout(Duration.ofSeconds(30));
    }

    private static void assertConverges(DedicatedPostgres pg, FaultCatalog cat) throws Exception {
        new DropOrphanInlineTables(pg.spec(), options(cat.schema).build(), ProgressListener.NONE).execute();
        try (Connection c = pg.connect()) {
            cat.check(c);
            CatalogInvariants.assertNoDroppableOrphans(c, cat.schema);
        }
    }

    // ------------------------------------------------------------------ 3. server restart

    @Test
    void serverRestartMidRunReconnectsWithBackoffAndFinishes() throws Exception {
        DedicatedPostgres pg = restartable();
        {
            FaultCatalog cat;
            try (Connection c = pg.connect()) {
                cat = FaultCatalog.build(c, "lake_restart", 60);
            }
            AtomicInteger restarts = new AtomicInteger();
            List<CompletableFuture<Void>> restarters = new ArrayList<>();
            ProgressListener restartAfterBatch2 = new ProgressListener() {
                @Override
                public void batch(BatchProgress b) {
                    if (b.number() == 2 || b.number() == 4) {
                        try {
                            pg.stop();
                        } catch (Exception e) {
                            throw new RuntimeException(e);
                        }
                        restarts.incrementAndGet();
                        restarters.add(CompletableFuture.runAsync(() -> {
                            try {
                                Thread.sleep(2500);
                                pg.start();
                            } catch (Exception e) {
                                throw new RuntimeException(e);
                            }
                        }));
                    }
                }
            };
            long t0 = System.nanoTime();
            DropOrphanInlineTablesResult r = new DropOrphanInlineTables(pg.spec(), options(cat.schema).build(),
                    restartAfterBatch2).execute();
            double seconds = (System.nanoTime() - t0) / 1e9;
            for (CompletableFuture<Void> f : restarters) {
                f.get();
            }
            assertThat(restarts.get()).isEqualTo(2);
            assertThat(r.reconnects()).as("one reconnect per restart").isEqualTo(2);
            assertThat(r.dropped()).as("the run finished the job").isEqualTo(cat.orphans.size());
            assertThat(seconds).as("reconnect backoff is bounded").isLessThan(60);
            try (Connection c = pg.connect()) {
                cat.check(c);
                CatalogInvariants.assertNoDroppableOrphans(c, cat.schema);
            }
        }
    }

    @Test
    void serverThatDoesNotComeBackFailsClearlyWithinTheReconnectTimeout() throws Exception {
        DedicatedPostgres pg = restartable();
        {
            FaultCatalog cat;
            try (Connection c = pg.connect()) {
                cat = FaultCatalog.build(c, "lake_gone", 60);
            }
            ProgressListener stopAfterBatch2 = new ProgressListener() {
                @Override
                public void batch(BatchProgress b) {
                    if (b.number() == 2) {
                        try {
                            pg.stop();
                        } catch (Exception e) {
                            throw new RuntimeException(e);
                        }
                    }
                }
            };
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> new DropOrphanInlineTables(pg.spec(), options(cat.schema)
                    .reconnectTimeout(Duration.ofSeconds(3)).build(),
                    stopAfterBatch2).execute())
                    .isInstanceOfSatisfying(JanitorException.class, e -> {
                        assertThat(e.reason()).as("connection lost for good: exit 3").isEqualTo(JanitorException.Reason.CONNECTION);
                        assertThat(e.getMessage()).contains("could not reconnect within 3 s").contains("rerun to resume")
                                .contains("localhost:" + pg.port());
                    });
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertThat(seconds).as("the total wait is bounded by --reconnect-timeout (3 s) plus one attempt").isLessThan(15);
            // the same through the CLI, from the start: exit 3, a clean message, no stack trace
            CliRun run = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", cat.schema, "--yes");
            assertThat(run.exitCode()).isEqualTo(3);
            assertThat(run.err()).contains("Cannot connect to the catalog").doesNotContain("\tat ");
            pg.start();
            try (Connection c = pg.connect()) {
                assertThat(cat.check(c)).as("the two committed batches").hasSize(20);
            }
            assertConverges(pg, cat);
        }
    }

    // ------------------------------------------------------------------ 6. lock table full

    /** A session that fills the server's shared lock table with ACCESS SHARE locks on many small tables. */
    private static final class LockHog implements AutoCloseable {
        private final Connection c;
        private final int tables;
        int held;

        LockHog(DedicatedPostgres pg, int tables) throws SQLException {
            this.tables = tables;
            c = pg.connect();
            try (Statement st = c.createStatement()) {
                st.execute("CREATE SCHEMA hog");
                for (int from = 0; from < tables; from += 200) {
                    StringBuilder sql = new StringBuilder("BEGIN;");
                    for (int i = from; i < Math.min(tables, from + 200); i++) {
                        sql.append("CREATE TABLE hog.t").append(i).append("(x int);");
                    }
                    st.execute(sql.append("COMMIT").toString());
                }
            }
        }

        /** Takes locks until the lock table is full (chunks of 50, then 5, then 1). */
        void fill() throws SQLException {
            c.setAutoCommit(false);
            int next = 0;
            try (Statement st = c.createStatement()) {
                for (int chunk : new int[] {50, 5, 1}) {
                    while (next + chunk <= tables) {
                        StringBuilder sql = new StringBuilder("LOCK TABLE ");
                        for (int i = next; i < next + chunk; i++) {
                            sql.append(i > next ? ", " : "").append("hog.t").append(i);
                        }
                        st.execute("SAVEPOINT s");
                        try {
                            st.execute(sql.append(" IN ACCESS SHARE MODE").toString());
                            st.execute("RELEASE SAVEPOINT s");
                            next += chunk;
                        } catch (SQLException e) {
                            assertThat(e.getSQLState()).as("the hog stops at a full lock table").isEqualTo("53200");
                            st.execute("ROLLBACK TO SAVEPOINT s");
                            break;
                        }
                    }
                }
            }
            held = next;
            System.out.println("lock hog holds " + held + " tables");
            assertThat(held).as("the lock table filled up before the hog ran out of tables").isLessThan(tables);
        }

        void release() throws SQLException {
            c.rollback();
        }

        @Override
        public void close() throws SQLException {
            c.close();
        }
    }

    /** Fills the lock table once the survey is done, so that the first batch's LOCK TABLE hits it. */
    private static ProgressListener fillAfterSurvey(LockHog hog, boolean releaseOn53200) {
        return new ProgressListener() {
            @Override
            public void info(String message) {
                if (message.startsWith("registry_rows=")) {
                    try {
                        hog.fill();
                    } catch (SQLException e) {
                        throw new RuntimeException(e);
                    }
                }
            }

            @Override
            public void warn(String message) {
                // the lock table empties while the janitor retries with a smaller batch
                if (releaseOn53200 && message.contains("53200")) {
                    try {
                        hog.release();
                    } catch (SQLException e) {
                        throw new RuntimeException(e);
                    }
                }
            }
        };
    }

    @Test
    void fullLockTableHalvesTheBatchAndRetriesWithoutAHalfDroppedBatch() throws Exception {
        LockHog hog = lowLocksHog();
        DedicatedPostgres pg = lowLocks;
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, "lake_halve", 100);
        }
        DropOrphanInlineTablesResult r;
        try {
            r = new DropOrphanInlineTables(pg.spec(), options(cat.schema).batchSize(500).build(), fillAfterSurvey(hog, true)).execute();
        } finally {
            hog.release();
        }
        assertThat(r.batchSizeStart()).as("the lock budget of 64 x 10 caps the batch at 32").isEqualTo(32);
        assertThat(r.batchSizeFinal()).as("halved after out of shared memory").isEqualTo(16);
        assertThat(r.retries()).isGreaterThanOrEqualTo(1);
        assertThat(r.dropped()).isEqualTo(cat.orphans.size());
        assertThat(r.warnings()).anyMatch(w -> w.contains("out of shared memory (53200): batch size 32 -> 16"));
        try (Connection c = pg.connect()) {
            cat.check(c);
            CatalogInvariants.assertNoDroppableOrphans(c, cat.schema);
        }
    }

    @Test
    void lockTableThatStaysFullFailsWithAMessageNamingTheSettingAndTheBatchSize() throws Exception {
        LockHog hog = lowLocksHog();
        DedicatedPostgres pg = lowLocks;
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, "lake_full", 100);
        }
        try {
            assertThatThrownBy(() -> new DropOrphanInlineTables(pg.spec(), options(cat.schema).batchSize(500).build(),
                    fillAfterSurvey(hog, false)).execute())
                    .isInstanceOfSatisfying(JanitorException.class, e -> {
                        assertThat(e.reason()).as("exit 9").isEqualTo(JanitorException.Reason.DATABASE_ERROR);
                        assertThat(e.getMessage()).contains("max_locks_per_transaction").contains("--batch-size").contains("53200");
                    });
        } finally {
            hog.release();
        }
        try (Connection c = pg.connect()) {
            assertThat(cat.check(c)).as("nothing half-dropped: no batch committed").isEmpty();
            CatalogInvariants.assertUnchanged(c, cat.before);
        }
        assertConverges(pg, cat);
    }
}
