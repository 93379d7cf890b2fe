package dev.ducklake.janitor.bench;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.LockBudget;
import dev.ducklake.janitor.catalog.OrphanPredicate;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.runtime.ProgressListener;

import com.sun.management.GarbageCollectionNotificationInfo;

import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The scale benchmark of drop-orphan-inline-tables: for each catalog size N, each destructive variant runs on
 * its own freshly built, identical catalog ({@link BenchCatalog}, built into a new database
 * {@code ducklake_janitor_bench_run}, then CHECKPOINT), in this order:
 * <ul>
 *   <li>{@code a-janitor}: {@link DropOrphanInlineTables}, the real engine, per batch size;</li>
 *   <li>{@code b-seed-baseline}: {@link SeedBaseline}, the seed design (full anti-join per batch), at the
 *       first batch size only;</li>
 *   <li>{@code c-floor-drop}: {@link DropFloor}, one plain {@code DROP TABLE} per table, no checks;</li>
 *   <li>{@code c'-floor-multidrop}: {@link DropFloor}, one multi-table {@code DROP TABLE} per transaction;</li>
 *   <li>{@code d-dry-run} and {@code d-metric-query}: the engine's dry run, and the orphan count query of
 *       {@link OrphanPredicate#countOrphanRegistryRows}, on the first catalog before anything is dropped.</li>
 * </ul>
 * Needs a role that may create databases and run CHECKPOINT (the embedded server's superuser does). Creates
 * and drops the database {@code ducklake_janitor_bench_run} only.
 */
public final class ScaleBenchmark {

    /** The metadata schema of the benchmark catalogs. */
    public static final String SCHEMA = "lake";
    /** Variant names, in run order. */
    public static final String JANITOR = "a-janitor";
    /** The seed design, see {@link SeedBaseline}. */
    public static final String BASELINE = "b-seed-baseline";
    /** Plain drops, one statement per table. */
    public static final String FLOOR = "c-floor-drop";
    /** Plain drops, one multi-table statement per transaction. */
    public static final String FLOOR_MULTI = "c'-floor-multidrop";
    /** The engine's dry run. */
    public static final String DRY_RUN = "d-dry-run";
    /** The orphan metric query alone. */
    public static final String METRIC = "d-metric-query";

    private static final String RUN_DB = "ducklake_janitor_bench_run";

    /**
     * What to run.
     *
     * @param sizes catalog sizes N (leaked inlined tables), each ≥ 1
     * @param batchSizes batch sizes for the batched variants, tables (1 to 2000)
     * @param variants which variant groups to run: any of "a", "b", "c" (c and c′), "c'" (c′ alone), "d"
     * @param buildPerTransaction tables created per build transaction
     */
    public record Options(List<Integer> sizes, List<Integer> batchSizes, Set<String> variants, int buildPerTransaction) {
    }

    /**
     * What the run measured, plus the build times.
     *
     * @param results one row per (N, variant, batch size)
     * @param buildSeconds build time of each N's catalog, seconds, in the order of {@link Options#sizes()}
     * @param budget the server's lock budget
     * @param server a one-line description of the server and its settings
     */
    public record Report(List<VariantResult> results, List<Double> buildSeconds, LockBudget budget, String server) {
    }

    private final ConnectionSpec admin;
    private final Options options;
    private final Consumer<String> log;
    private final Consumer<List<VariantResult>> partial;
    private final List<VariantResult> results = new ArrayList<>();
    private BenchCatalog.Built built;

    /**
     * @param admin a connection to a maintenance database of the server (e.g. postgres), by a role with CREATEDB
     * @param options what to run
     * @param log receives progress lines
     * @param partial receives all results so far after each variant (e.g. to write them out as the run goes)
     */
    public ScaleBenchmark(ConnectionSpec admin, Options options, Consumer<String> log, Consumer<List<VariantResult>> partial) {
        this.admin = admin;
        this.options = options;
        this.log = log;
        this.partial = partial;
    }

    /**
     * Runs every size and variant.
     *
     * @return the figures
     * @throws SQLException on database errors
     * @throws JanitorException when the janitor itself fails, or a connection cannot be opened
     */
    public Report run() throws SQLException, JanitorException {
        results.clear();
        List<Double> builds = new ArrayList<>();
        LockBudget budget;
        String server;
        try (Connection c = admin.open()) {
            budget = LockBudget.read(c);
            server = describeServer(c);
        }
        log.accept("server: " + server);
        log.accept("lock budget: max_locks_per_transaction=" + budget.maxLocksPerTransaction() + " max_connections="
                + budget.maxConnections() + " -> batch cap " + budget.cap() + " tables");
        try {
            for (int n : options.sizes()) {
                builds.add(runSize(n, budget));
            }
        } finally {
            dropDatabase(RUN_DB);
        }
        return new Report(List.copyOf(results), builds, budget, server);
    }

    private double runSize(int n, LockBudget budget) throws SQLException, JanitorException {
        double buildSeconds = freshCatalog(n);
        log.accept(String.format(Locale.ROOT, "N=%d: built the catalog (%d registry rows) in %.1f s (%.0f tables/s)", n,
                built.registryRows(), buildSeconds, n / buildSeconds));
        boolean first = true;
        if (options.variants().contains("d")) {
            results.add(dryRun(n));
            results.add(metricQuery(n));
        }
        for (int requested : options.batchSizes()) {
            int effective = budget.effective(requested);
            if (options.variants().contains("a")) {
                results.add(janitor(n, requested, first));
                first = false;
            }
            if (options.variants().contains("b") && requested == options.batchSizes().get(0)) {
                results.add(destructive(n, BASELINE, requested, effective, (c, out) -> SeedBaseline.run(c, SCHEMA, effective, out),
                        first));
                first = false;
            }
            if (options.variants().contains("c")) {
                results.add(destructive(n, FLOOR, requested, effective,
                        (c, out) -> DropFloor.run(c, SCHEMA, built.leakedTables(), effective, false, out), first));
                first = false;
            }
            if (options.variants().contains("c") || options.variants().contains("c'")) {
                results.add(destructive(n, FLOOR_MULTI, requested, effective,
                        (c, out) -> DropFloor.run(c, SCHEMA, built.leakedTables(), effective, true, out), first));
                first = false;
            }
        }
        return buildSeconds;
    }

    /**
     * Drops the run database, creates it anew, builds the catalog into it and checkpoints (so that the
     * previous variant's deferred file unlinks and dirty pages are not paid by the next one).
     *
     * @return the build time, seconds (without the drop and the checkpoint)
     */
    private double freshCatalog(int n) throws SQLException, JanitorException {
        long t0 = System.nanoTime();
        dropDatabase(RUN_DB);
        adminExec("CREATE DATABASE " + Sql.ident(RUN_DB));
        long t1 = System.nanoTime();
        try (Connection c = admin.withDatabase(RUN_DB).open()) {
            built = BenchCatalog.build(c, SCHEMA, n, options.buildPerTransaction());
        }
        long t2 = System.nanoTime();
        adminExec("CHECKPOINT");
        long t3 = System.nanoTime();
        log.accept(String.format(Locale.ROOT, "N=%d: fresh catalog: drop+create database %.1f s, build %.1f s, checkpoint %.1f s",
                n, (t1 - t0) / 1e9, (t2 - t1) / 1e9, (t3 - t2) / 1e9));
        return (t2 - t1) / 1e9;
    }

    private interface Dropper {
        long run(Connection c, List<BatchTiming> out) throws SQLException;
    }

    private VariantResult destructive(int n, String variant, int requested, int effective, Dropper dropper, boolean reuse)
            throws SQLException, JanitorException {
        double setup = reuse ? 0 : freshCatalog(n);
        long expected = n;
        List<BatchTiming> batches = new ArrayList<>();
        Heap heap = Heap.start();
        long t0 = System.nanoTime();
        long dropped;
        try (Connection c = admin.withDatabase(RUN_DB).open()) {
            dropped = dropper.run(c, batches);
        }
        double wall = (System.nanoTime() - t0) / 1e9;
        double[] peak = heap.stop();
        String check = dropped == expected && leakedLeft() == 0 ? "ok" : "dropped " + dropped + " of " + expected;
        return logged(new VariantResult(n, variant, requested, effective, wall, dropped, batches, peak[0], peak[1], setup, check));
    }

    private VariantResult janitor(int n, int requested, boolean reuse) throws SQLException, JanitorException {
        double setup = reuse ? 0 : freshCatalog(n);
        List<BatchTiming> batches = new ArrayList<>();
        long[] t0 = new long[1];
        ProgressListener listener = new ProgressListener() {
            @Override
            public void batch(BatchProgress b) {
                batches.add(new BatchTiming(b.number(), b.dropped() + b.skippedNonempty() + b.missing(), b.batchSeconds() * 1000));
            }

            @Override
            public void info(String message) {
                log.accept(String.format(Locale.ROOT, "  janitor +%.2f s: %s", (System.nanoTime() - t0[0]) / 1e9, message));
            }

            @Override
            public void warn(String message) {
                if (!message.startsWith("skipping non-empty orphan")) {
                    log.accept("  janitor warning: " + message);
                }
            }
        };
        DropOrphanInlineTablesOptions opts = DropOrphanInlineTablesOptions.builder().metadataSchema(SCHEMA).batchSize(requested).build();
        Heap heap = Heap.start();
        t0[0] = System.nanoTime();
        DropOrphanInlineTablesResult r = new DropOrphanInlineTables(admin.withDatabase(RUN_DB), opts, listener).execute();
        double wall = (System.nanoTime() - t0[0]) / 1e9;
        log.accept(String.format(Locale.ROOT, "  janitor +%.2f s: done (%d batches)", wall, r.batches()));
        double[] peak = heap.stop();
        boolean ok = r.dropped() == n && r.skippedNonempty() == BenchCatalog.NON_EMPTY_ORPHANS
                && r.remaining() == BenchCatalog.NON_EMPTY_ORPHANS && leakedLeft() == 0;
        String check = ok ? "ok" : "dropped " + r.dropped() + " skipped " + r.skippedNonempty() + " remaining " + r.remaining();
        return logged(new VariantResult(n, JANITOR, requested, r.batchSizeStart(), wall, r.dropped(), batches, peak[0], peak[1], setup, check));
    }

    private VariantResult dryRun(int n) throws JanitorException {
        DropOrphanInlineTablesOptions opts = DropOrphanInlineTablesOptions.builder().metadataSchema(SCHEMA).dryRun(true).build();
        Heap heap = Heap.start();
        long t0 = System.nanoTime();
        DropOrphanInlineTablesResult r = new DropOrphanInlineTables(admin.withDatabase(RUN_DB), opts, ProgressListener.NONE).execute();
        double wall = (System.nanoTime() - t0) / 1e9;
        long expected = n + BenchCatalog.NON_EMPTY_ORPHANS;
        String check = r.orphanRows() == expected && r.orphanNonempty() == BenchCatalog.NON_EMPTY_ORPHANS ? "ok"
                : "orphan_rows " + r.orphanRows() + " nonempty " + r.orphanNonempty();
        double[] peak = heap.stop();
        return logged(new VariantResult(n, DRY_RUN, 0, 0, wall, r.orphanRows(), List.of(), peak[0], peak[1], 0, check));
    }

    private VariantResult metricQuery(int n) throws SQLException, JanitorException {
        try (Connection c = admin.withDatabase(RUN_DB).open(); Statement st = c.createStatement()) {
            Heap heap = Heap.start();
            long t0 = System.nanoTime();
            long count;
            try (ResultSet rs = st.executeQuery(OrphanPredicate.countOrphanRegistryRows(SCHEMA))) {
                rs.next();
                count = rs.getLong(1);
            }
            double wall = (System.nanoTime() - t0) / 1e9;
            String check = count == n + BenchCatalog.NON_EMPTY_ORPHANS ? "ok" : "counted " + count;
            double[] peak = heap.stop();
            return logged(new VariantResult(n, METRIC, 0, 0, wall, count, List.of(), peak[0], peak[1], 0, check));
        }
    }

    private VariantResult logged(VariantResult r) {
        log.accept(String.format(Locale.ROOT, "N=%d %-20s batch %4d: %8.2f s, %7.0f tables/s, first/last batch %.0f/%.0f ms,"
                        + " heap peak %.0f MiB, after-GC max %.0f MiB, check %s", r.n(), r.variant(), r.batchEffective(),
                r.wallSeconds(), r.tablesPerSecond(), r.firstBatchMs(), r.lastBatchMs(), r.peakHeapMiB(), r.liveHeapMiB(), r.check()));
        List<VariantResult> soFar = new ArrayList<>(results);
        soFar.add(r);
        partial.accept(soFar);
        return r;
    }

    /** Leaked tables still present in the run database. */
    private long leakedLeft() throws SQLException, JanitorException {
        try (Connection c = admin.withDatabase(RUN_DB).open(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n"
                     + " ON n.oid = c.relnamespace WHERE n.nspname = '" + SCHEMA + "' AND c.relkind = 'r'"
                     + " AND c.relname ~ '^ducklake_inlined_data_[0-9]+_[0-9]+$'")) {
            rs.next();
            // live tables: customers 1, orders 3, events 2; non-empty orphans 3
            return rs.getLong(1) - 6 - BenchCatalog.NON_EMPTY_ORPHANS;
        }
    }

    private void dropDatabase(String db) throws SQLException, JanitorException {
        adminExec("DROP DATABASE IF EXISTS " + Sql.ident(db));
    }

    private void adminExec(String sql) throws SQLException, JanitorException {
        try (Connection c = admin.open(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private static String describeServer(Connection c) throws SQLException {
        StringBuilder s = new StringBuilder();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT name, setting FROM pg_catalog.pg_settings"
                + " WHERE name IN ('server_version', 'max_connections', 'max_locks_per_transaction', 'shared_buffers',"
                + " 'fsync', 'synchronous_commit', 'autovacuum') ORDER BY name")) {
            while (rs.next()) {
                s.append(s.length() > 0 ? " " : "").append(rs.getString(1)).append('=').append(rs.getString(2));
            }
        }
        return s.toString();
    }

    /**
     * Heap figures of a stretch of work: the heap pools' peak usage (reset at start; garbage included, so it
     * approaches -Xmx whenever the work allocates a lot) and the largest heap in use right after a garbage
     * collection during the work (the live set, what -Xmx must hold).
     */
    private static final class Heap implements NotificationListener {
        private final List<MemoryPoolMXBean> pools = new ArrayList<>();
        private final Set<String> heapPools = new HashSet<>();
        private final List<NotificationEmitter> emitters = new ArrayList<>();
        private volatile long maxAfterGc = -1;

        static Heap start() {
            System.gc();
            Heap h = new Heap();
            for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
                if (p.getType() == MemoryType.HEAP && p.isValid()) {
                    p.resetPeakUsage();
                    h.pools.add(p);
                    h.heapPools.add(p.getName());
                }
            }
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                if (gc instanceof NotificationEmitter e) {
                    e.addNotificationListener(h, null, null);
                    h.emitters.add(e);
                }
            }
            return h;
        }

        @Override
        public void handleNotification(Notification n, Object handback) {
            if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                return;
            }
            GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
            long used = 0;
            for (Map.Entry<String, MemoryUsage> e : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                if (heapPools.contains(e.getKey())) {
                    used += e.getValue().getUsed();
                }
            }
            synchronized (this) {
                maxAfterGc = Math.max(maxAfterGc, used);
            }
        }

        /** Stops listening; returns {peak MiB (garbage included), max after-GC MiB (NaN if no GC ran)}. */
        double[] stop() {
            for (NotificationEmitter e : emitters) {
                try {
                    e.removeNotificationListener(this);
                } catch (ListenerNotFoundException ignored) {
                    // already gone
                }
            }
            long sum = 0;
            for (MemoryPoolMXBean p : pools) {
                sum += p.getPeakUsage().getUsed();
            }
            double mib = 1024.0 * 1024.0;
            return new double[] {sum / mib, maxAfterGc < 0 ? Double.NaN : maxAfterGc / mib};
        }
    }
}
