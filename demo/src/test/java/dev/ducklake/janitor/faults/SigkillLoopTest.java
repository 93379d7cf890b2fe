package dev.ducklake.janitor.faults;

import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.testsupport.CatalogInvariants;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import dev.ducklake.janitor.testsupport.JanitorProcess;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 5, scenario 2: the janitor process is killed with SIGKILL at random points, many times, against a real
 * server (every fourth iteration is stopped with SIGTERM instead, which must end it promptly). After every kill the catalog must be consistent (no partial batch survives: a table and its registry
 * row go together or not at all) and the next run must finish the job.
 *
 * <p>Iterations: system property {@code faults.sigkill.iterations} (default 16; every other one aimed at a batch in flight), bounded so CI stays fast. The
 * seed is printed so a failure can be replayed with {@code -Dfaults.sigkill.seed=...}.
 */
class SigkillLoopTest {

    private final TestPostgres pg = TestPostgres.get();

    @Test
    void sigkillAtRandomPointsNeverLeavesAPartialBatchAndTheNextRunFinishes() throws Exception {
        int iterations = Integer.getInteger("faults.sigkill.iterations", 16);
        long seed = Long.getLong("faults.sigkill.seed", System.nanoTime());
        Random random = new Random(seed);
        FaultCatalog cat;
        long leftovers;
        try (Connection c = pg.connect()) {
            FaultCatalog built = FaultCatalog.build(c, pg.freshSchema("fault_kill"), 1000);
            // leftovers beyond the registry, dropped with --include-unregistered after the registered orphans:
            // 600 data tables whose registry rows are gone and 50 empty inlined deletion tables of dropped ids
            for (int i = 0; i < 600; i++) {
                Catalogs.unregister(c, built.schema, built.orphans.get(i).tableId());
            }
            for (int i = 0; i < 50; i++) {
                Catalogs.inlinedDeleteTable(c, built.schema, built.orphans.get(i * 10 + 5).tableId(), 0);
            }
            cat = FaultCatalog.of(c, built.schema);
            cat.before.allowUnregistered();
            leftovers = cat.before.tableNames().stream().filter(cat.before::droppableLeftover).count();
            assertThat(leftovers).isEqualTo(650);
        }
        String app = "janitor-kill-" + ProcessHandle.current().pid();
        Map<String, Integer> killedWhile = new TreeMap<>();
        int finishedBeforeKill = 0;
        long started = System.nanoTime();
        try (Connection mon = pg.connect();
             PreparedStatement activity = mon.prepareStatement("SELECT state, left(query, 40) FROM pg_stat_activity"
                     + " WHERE application_name = ?");
             PreparedStatement lockCount = mon.prepareStatement("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a"
                     + " ON a.pid = l.pid WHERE a.application_name = ?")) {
            activity.setString(1, app);
            lockCount.setString(1, app);
            for (int i = 0; i < iterations; i++) {
                JanitorProcess p = JanitorProcess.start(Map.of("PGAPPNAME", app), "drop-orphan-inline-tables", "--catalog",
                        pg.url(), "--metadata-schema", cat.schema, "--yes", "--batch-size", String.valueOf(1 + random.nextInt(4)), "--lock-timeout", "5", "--include-unregistered");
                // wait until it is connected (JVM start-up is not interesting), then kill after a random delay
                long until = System.nanoTime() + 30_000_000_000L;
                boolean connected = false;
                while (!connected && p.process().isAlive() && System.nanoTime() < until) {
                    try (ResultSet rs = activity.executeQuery()) {
                        connected = rs.next();
                    }
                    if (!connected) {
                        Thread.sleep(5);
                    }
                }
                Thread.sleep(random.nextInt(800));
                String what = "exited";
                // every other iteration aims at a batch in flight: it waits until the backend is inside a transaction
                boolean aimMidBatch = i % 2 == 1;
                long aimUntil = System.nanoTime() + 2_000_000_000L;
                while (p.process().isAlive()) {
                    try (ResultSet rs = activity.executeQuery()) {
                        what = rs.next() ? rs.getString(1) + (rs.getString(1).equals("idle") ? "" : ": " + firstWord(rs.getString(2)))
                                : "not connected";
                    }
                    if (!aimMidBatch || !what.startsWith("idle") || what.startsWith("idle in") || System.nanoTime() > aimUntil) {
                        break;
                    }
                }
                if (p.process().isAlive() && i % 4 == 3) {
                    // every fourth iteration stops politely: SIGTERM lets the batch in flight commit, then the JVM exits
                    long t0 = System.nanoTime();
                    int code = p.terminate(40);
                    double secs = (System.nanoTime() - t0) / 1e9;
                    assertThat(secs).as("SIGTERM ends the run within its 30 s grace").isLessThan(35);
                    what = "SIGTERM (exit " + code + ") while " + what;
                } else if (p.process().isAlive()) {
                    p.kill();
                } else {
                    finishedBeforeKill++;
                    assertThat(p.process().exitValue()).as("a run that was not killed succeeds; stderr: %s", p.err()).isZero();
                }
                killedWhile.merge(what, 1, Integer::sum);
                p.cleanup();
                // the server notices the dead client, rolls back its transaction and frees its locks
                long gone = System.nanoTime() + 20_000_000_000L;
                long held;
                do {
                    try (ResultSet rs = lockCount.executeQuery()) {
                        rs.next();
                        held = rs.getLong(1);
                    }
                    if (held > 0) {
                        Thread.sleep(20);
                    }
                } while (held > 0 && System.nanoTime() < gone);
                assertThat(held).as("the killed janitor's session and locks go away").isZero();
                cat.check(mon);
            }
        }
        double loopSeconds = (System.nanoTime() - started) / 1e9;
        long before;
        try (Connection c = pg.connect()) {
            before = CatalogInvariants.snapshot(c, cat.schema).droppableEmptyPresent();
        }
        DropOrphanInlineTablesResult last = new DropOrphanInlineTables(pg.spec(), DropOrphanInlineTablesOptions.builder()
                .metadataSchema(cat.schema).includeUnregistered(true).build(), ProgressListener.NONE).execute();
        try (Connection c = pg.connect()) {
            var deleted = cat.check(c);
            assertThat(deleted).as("all empty orphans are gone once the last run finished").hasSize(cat.orphans.size());
            CatalogInvariants.assertNoDroppableOrphans(c, cat.schema);
            CatalogInvariants.Snapshot now = CatalogInvariants.snapshot(c, cat.schema);
            assertThat(now.tableNames().stream().filter(now::droppableLeftover)).as("and every leftover").isEmpty();
        }
        System.out.printf("SIGKILL loop: seed %d, %d iterations in %.1f s, %d finished before the kill, droppable orphans left"
                        + " for the final run %d of %d (it dropped %d, and %d of %d leftovers), backend state at kill: %s%n", seed,
                iterations, loopSeconds, finishedBeforeKill, before, cat.orphans.size(), last.dropped(),
                last.droppedUnregistered() + last.droppedInlinedDelete(), leftovers, killedWhile);
    }

    private static String firstWord(String query) {
        if (query == null) {
            return "";
        }
        String q = query.strip();
        int sp = q.indexOf(' ');
        return sp < 0 ? q : q.substring(0, sp);
    }
}
