package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.AdvisoryLock;
import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.catalog.ConnectionSpec;
import dev.ducklake.janitor.catalog.LockBudget;
import dev.ducklake.janitor.catalog.SqlStates;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code expire-snapshots}: DuckLake's {@code ducklake_expire_snapshots} done natively on the PostgreSQL
 * catalog, oldest first, in batches of snapshot ids, one transaction per batch ({@link ExpireBatch} says which
 * rows go and why). Memory does not grow with the catalog: every set lives in PostgreSQL temporary tables.
 *
 * <p>Safety: an execute run holds the advisory lock of drop-orphan-inline-tables ({@link AdvisoryLock}); each
 * batch is atomic, so a run killed anywhere leaves a consistent catalog, and a rerun continues (the selection
 * is re-applied to what is left). A dry run writes nothing, takes no advisory lock, and simulates the batches
 * on a private copy of the snapshot ids inside one read transaction.
 *
 * <p>Retries: serialization failures, deadlocks, lock and statement timeouts are retried 5 times with
 * backoff; a full lock table (53200) halves the inlined-table budget of a batch; a lost connection is
 * re-opened (with the advisory lock re-taken) until {@code reconnectTimeout}.
 */
public final class ExpireSnapshots {

    private static final int MAX_ATTEMPTS = 5;
    private static final int MAX_LISTED_BATCHES = 1000;

    private final ConnectionSpec spec;
    private final ExpireSnapshotsOptions options;
    private final ExpireProgress listener;
    private final AtomicBoolean stopRequested = new AtomicBoolean();

    private Connection conn;
    private AdvisoryLock lock;
    /** Tests lower the lock budget's cap to exercise the table deferral; production leaves it unbounded. */
    int tableBudgetCap = Integer.MAX_VALUE;
    private int retries;
    private int reconnects;

    /**
     * @param spec where the catalog database is
     * @param options what to do
     * @param listener where progress goes ({@link ExpireProgress#NONE} for nowhere)
     */
    public ExpireSnapshots(ConnectionSpec spec, ExpireSnapshotsOptions options, ExpireProgress listener) {
        this.spec = spec;
        this.options = options;
        this.listener = listener;
    }

    /** Asks a running {@link #execute()} to stop after the batch in flight commits (thread-safe). */
    public void requestStop() {
        stopRequested.set(true);
    }

    /**
     * Runs the operation.
     *
     * @return the figures of the run
     * @throws JanitorException {@link Reason#USAGE} for invalid options or when no criterion is given and the
     *     catalog has no {@code expire_older_than} option; {@link Reason#CONNECTION}; {@link Reason#NOT_A_CATALOG},
     *     {@link Reason#UNSUPPORTED_VERSION}, {@link Reason#UNSAFE_CATALOG_STATE} from the catalog checks (also
     *     when a file to queue has no resolvable path); {@link Reason#LOCK_HELD}; {@link Reason#PERMISSION_DENIED};
     *     {@link Reason#DATABASE_ERROR} when an error persisted after the retries. Batches committed before a
     *     failure stay and are consistent.
     */
    public ExpireSnapshotsResult execute() throws JanitorException {
        options.validate();
        long started = System.nanoTime();
        String schema = options.metadataSchema();
        conn = spec.open();
        try {
            CatalogInfo info = CatalogInspector.inspect(conn, schema);
            CatalogLayout layout = CatalogLayout.read(conn, schema, info.version());
            listener.info("catalog " + spec.describe() + " schema " + schema + ": DuckLake format " + info.version().text()
                    + ", snapshots " + info.minSnapshotId() + ".." + info.maxSnapshotId() + " (" + info.snapshotCount() + ")");
            Selection sel = resolveSelection(layout);
            listener.info("selection: " + sel.describe());
            if (!options.dryRun()) {
                lock = AdvisoryLock.acquire(conn, options.lockName(), schema);
            }
            int tableBudget = Math.min(LockBudget.read(conn).cap(), tableBudgetCap);
            Run run = new Run(layout, sel, tableBudget, started);
            currentRun = run;
            if (options.dryRun()) {
                withRetries("dry run", () -> {
                    run.reset();
                    dryRun(run);
                    return null;
                });
            } else {
                executeBatches(run);
            }
            Long oldest = withRetries("final count", () -> oldestRetained(layout, run));
            long remainingSelected = options.dryRun() ? 0 : withRetries("final count", () -> countSelected(layout, sel));
            double elapsed = (System.nanoTime() - started) / 1e9;
            return new ExpireSnapshotsResult(schema, info.version().text(), options.dryRun(), sel.source(),
                    sel.cutoff() == null ? null : sel.cutoff().toString(),
                    sel.minAgeCutoff() == null ? null : sel.minAgeCutoff().toString(), run.snapshots, run.dataFiles,
                    run.deleteFiles, run.tables, run.inlined, run.otherRows, oldest, sel.newestAtStart(), remainingSelected,
                    run.batchCount, retries, reconnects, run.tableBudget, run.budgetExhausted, run.maxBatchesReached, elapsed,
                    List.copyOf(run.batches), List.copyOf(run.warnings));
        } catch (SQLException e) {
            throw databaseError("the run", e);
        } finally {
            if (lock != null && conn != null) {
                lock.release(conn);
            }
            closeQuietly(conn);
        }
    }

    /** Mutable figures of one run. */
    private static final class Run {
        final CatalogLayout layout;
        final Selection sel;
        final long started;
        int tableBudget;
        long after = -1;
        long snapshots;
        long dataFiles;
        long deleteFiles;
        long tables;
        long inlined;
        long otherRows;
        int batchCount;
        boolean budgetExhausted;
        boolean maxBatchesReached;
        final List<ExpireSnapshotsResult.Batch> batches = new ArrayList<>();
        final List<String> warnings = new ArrayList<>();

        Run(CatalogLayout layout, Selection sel, int tableBudget, long started) {
            this.layout = layout;
            this.sel = sel;
            this.tableBudget = tableBudget;
            this.started = started;
        }

        void reset() {
            after = -1;
            snapshots = dataFiles = deleteFiles = tables = inlined = otherRows = 0;
            batchCount = 0;
            batches.clear();
            warnings.clear();
        }

        void add(ExpireBatch.Figures f, double seconds, ExpireProgress listener, boolean dryRun) {
            batchCount++;
            snapshots += f.snapshots();
            dataFiles += f.dataFiles();
            deleteFiles += f.deleteFiles();
            tables += f.tables();
            inlined += f.inlinedTables();
            otherRows += f.otherRows();
            ExpireSnapshotsResult.Batch b = new ExpireSnapshotsResult.Batch(batchCount, f.snapshots(), f.firstSnapshot(),
                    f.lastSnapshot(), f.dataFiles(), f.deleteFiles(), f.tables(), f.inlinedTables(), f.otherRows(), seconds);
            if (batches.size() < MAX_LISTED_BATCHES) {
                batches.add(b);
            }
            for (String w : f.warnings()) {
                if (warnings.size() < 100) {
                    warnings.add(w);
                }
                listener.warn(w);
            }
            listener.batch(b, dryRun);
        }
    }

    private boolean shouldStop(Run run) {
        if (options.maxBatches() > 0 && run.batchCount >= options.maxBatches()) {
            run.maxBatchesReached = true;
            return true;
        }
        if (run.batchCount > 0 && (stopRequested.get() || (options.runBudget() != null
                && System.nanoTime() - run.started > options.runBudget().toNanos()))) {
            run.budgetExhausted = true;
            return true;
        }
        return false;
    }

    private void executeBatches(Run run) throws JanitorException, SQLException {
        boolean pending = false;
        while (!shouldStop(run)) {
            long t0 = System.nanoTime();
            final boolean tablesOnly = pending;
            ExpireBatch.Figures f = withRetries("batch " + (run.batchCount + 1), () -> oneBatch(run, tablesOnly));
            if (f == null) {
                break;
            }
            if (f.lastSnapshot() >= 0) {
                run.after = f.lastSnapshot();
            }
            run.add(f, (System.nanoTime() - t0) / 1e9, listener, false);
            pending = f.tablesPending();
        }
    }

    /**
     * One transaction. Returns null (after rolling back) when there is nothing to do: no selected snapshot left
     * and no removable table waiting.
     */
    private ExpireBatch.Figures oneBatch(Run run, boolean tablesOnly) throws SQLException, JanitorException {
        conn.setAutoCommit(false);
        try {
            setLocalTimeouts();
            ExpireBatch batch = new ExpireBatch(conn, run.layout, false);
            batch.createTempTables();
            long[] taken = batch.takeSnapshots(run.sel, run.after, options.batchSize(), false);
            if (taken[0] == 0 && !tablesOnly && !removableTablesExist(run.layout)) {
                conn.rollback();
                return null;
            }
            ExpireBatch.Figures f = batch.clean(taken, run.tableBudget, false);
            conn.commit();
            return f;
        } catch (SQLException | JanitorException | RuntimeException e) {
            rollbackQuietly();
            throw e;
        } finally {
            restoreAutoCommit();
        }
    }

    /** Whether tables are waiting from an earlier, interrupted run (so that a rerun finishes them). */
    private boolean removableTablesExist(CatalogLayout layout) throws SQLException {
        String sql = "SELECT EXISTS (SELECT 1 FROM " + layout.q("ducklake_table") + " t WHERE t.table_id IS NOT NULL"
                + " GROUP BY t.table_id HAVING bool_and(t.end_snapshot IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "
                + layout.q("ducklake_snapshot") + " s WHERE s.snapshot_id >= t.begin_snapshot AND s.snapshot_id < t.end_snapshot)))";
        try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    private void dryRun(Run run) throws SQLException, JanitorException {
        conn.setAutoCommit(false);
        try {
            try (Statement st = conn.createStatement()) {
                st.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            }
            setLocalTimeouts();
            ExpireBatch batch = new ExpireBatch(conn, run.layout, true);
            batch.createDryRunCopy();
            batch.createTempTables();
            ExpireBatch.Figures previous = new ExpireBatch.Figures(0, -1, -1, 0, 0, 0, 0, 0, false, List.of());
            while (!shouldStop(run)) {
                long t0 = System.nanoTime();
                batch.resetForNextBatch();
                long[] taken = batch.takeSnapshots(run.sel, run.after, options.batchSize(), true);
                if (taken[0] == 0) {
                    break;
                }
                run.after = taken[2];
                ExpireBatch.Figures cum = batch.clean(taken, Integer.MAX_VALUE, true);
                ExpireBatch.Figures delta = new ExpireBatch.Figures(taken[0], taken[1], taken[2],
                        cum.dataFiles() - previous.dataFiles(), cum.deleteFiles() - previous.deleteFiles(),
                        cum.tables() - previous.tables(), cum.inlinedTables() - previous.inlinedTables(),
                        cum.otherRows() - previous.otherRows(), false,
                        previous.snapshots() == 0 ? cum.warnings() : List.of());
                previous = new ExpireBatch.Figures(1, -1, -1, cum.dataFiles(), cum.deleteFiles(), cum.tables(),
                        cum.inlinedTables(), cum.otherRows(), false, List.of());
                run.add(delta, (System.nanoTime() - t0) / 1e9, listener, true);
            }
        } finally {
            rollbackQuietly();
            restoreAutoCommit();
        }
    }

    private Long oldestRetained(CatalogLayout layout, Run run) throws SQLException {
        if (options.dryRun()) {
            String sql = "SELECT min(snapshot_id) FROM " + layout.q("ducklake_snapshot") + " WHERE NOT (snapshot_id <= ? AND "
                    + run.sel.predicate() + ")";
            try (PreparedStatement ps = conn.prepareStatement(sql)) {
                ps.setLong(1, run.after);
                run.sel.bind(conn, ps, 2);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return (Long) rs.getObject(1, Long.class);
                }
            }
        }
        try (Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery("SELECT min(snapshot_id) FROM " + layout.q("ducklake_snapshot"))) {
            rs.next();
            return (Long) rs.getObject(1, Long.class);
        }
    }

    private long countSelected(CatalogLayout layout, Selection sel) throws SQLException {
        String snap = layout.q("ducklake_snapshot");
        try (PreparedStatement ps = conn.prepareStatement("SELECT count(*) FROM " + snap + " WHERE " + sel.predicate()
                + " AND snapshot_id < (SELECT max(snapshot_id) FROM " + snap + ")")) {
            sel.bind(conn, ps, 1);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    // ---------------------------------------------------------------- selection

    /**
     * Fixes the selection once: the server's now(), the cutoff, the retain-last boundary, the min-age cutoff
     * and the newest snapshot.
     */
    Selection resolveSelection(CatalogLayout layout) throws SQLException, JanitorException {
        Instant now;
        long newest;
        try (Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery("SELECT now(), (SELECT max(snapshot_id) FROM " + layout.q("ducklake_snapshot") + ")")) {
            rs.next();
            now = rs.getObject(1, OffsetDateTime.class).toInstant();
            newest = rs.getLong(2);
        }
        Instant cutoff = null;
        Long boundary = null;
        long[] versions = null;
        List<String> source = new ArrayList<>();
        if (options.olderThan() != null) {
            cutoff = options.olderThan().cutoff(now);
            source.add("older_than");
        }
        if (options.retainLast() != null) {
            source.add("retain_last");
            try (PreparedStatement ps = conn.prepareStatement("SELECT snapshot_id FROM " + layout.q("ducklake_snapshot")
                    + " ORDER BY snapshot_id DESC OFFSET ? LIMIT 1")) {
                ps.setInt(1, options.retainLast() - 1);
                try (ResultSet rs = ps.executeQuery()) {
                    boundary = rs.next() ? rs.getLong(1) : Long.MIN_VALUE;
                }
            }
        }
        if (options.versions() != null) {
            versions = options.versions().stream().mapToLong(Long::longValue).toArray();
            source.add("versions");
        }
        if (!options.hasCriterion()) {
            String option = layout.globalOption(conn, "expire_older_than");
            if (option == null || option.isEmpty()) {
                throw new JanitorException(Reason.USAGE, "No criterion: give --older-than, --retain-last or --versions, or set "
                        + "the catalog option expire_older_than (CALL <lake>.set_option('expire_older_than', '30 days')).");
            }
            cutoff = intervalBefore(now, option);
            source.add("catalog_option");
        }
        Instant minAgeCutoff = options.minAge().isZero() ? null : now.minus(options.minAge());
        return new Selection(newest, cutoff, boundary, versions, minAgeCutoff, String.join("+", source));
    }

    /** now − the catalog's interval text, computed by PostgreSQL (DuckDB and PostgreSQL share the common forms). */
    private Instant intervalBefore(Instant now, String interval) throws SQLException, JanitorException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT ?::timestamptz - ?::interval")) {
            ps.setObject(1, Selection.timestamp(now));
            ps.setString(2, interval);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getObject(1, OffsetDateTime.class).toInstant();
            }
        } catch (SQLException e) {
            if ("22007".equals(SqlStates.stateOf(e)) || "22P02".equals(SqlStates.stateOf(e)) || "22015".equals(SqlStates.stateOf(e))) {
                throw new JanitorException(Reason.UNSAFE_CATALOG_STATE, "The catalog option expire_older_than is not an interval: '"
                        + interval + "'. Fix it with set_option, or pass --older-than.", e);
            }
            throw e;
        }
    }

    // ---------------------------------------------------------------- plumbing

    /** A unit of transactional work that may be redone after a rollback. */
    private interface Work<T> {
        T run() throws SQLException, JanitorException;
    }

    private <T> T withRetries(String what, Work<T> work) throws JanitorException {
        int attempt = 0;
        long reconnectDeadline = 0;
        while (true) {
            try {
                return work.run();
            } catch (SQLException e) {
                SqlStates.Kind kind = SqlStates.classify(e);
                switch (kind) {
                    case RETRYABLE -> {
                        if (++attempt >= MAX_ATTEMPTS) {
                            throw databaseError(what, e);
                        }
                        retries++;
                        listener.warn(what + ": " + SqlStates.stateOf(e) + ", retry " + attempt + " of " + (MAX_ATTEMPTS - 1));
                        sleep(200L << attempt);
                    }
                    case LOCK_TABLE_FULL -> {
                        retries++;
                        if (currentRun != null && currentRun.tableBudget > 1) {
                            currentRun.tableBudget = Math.max(1, currentRun.tableBudget / 2);
                            listener.warn(what + ": lock table full (53200); inlined tables per batch halved to " + currentRun.tableBudget);
                        } else {
                            throw new JanitorException(Reason.DATABASE_ERROR, what + ": the server's lock table is full even for one "
                                    + "table per batch; raise max_locks_per_transaction.", e);
                        }
                    }
                    case CONNECTION_LOST -> {
                        if (reconnectDeadline == 0) {
                            reconnectDeadline = System.nanoTime() + options.reconnectTimeout().toNanos();
                        }
                        reconnect(what, reconnectDeadline, e);
                    }
                    case PERMISSION_DENIED -> throw new JanitorException(Reason.PERMISSION_DENIED, what + ": "
                            + spec.redact(e.getMessage()), e);
                    default -> throw databaseError(what, e);
                }
            }
        }
    }

    private Run currentRun;

    private void reconnect(String what, long deadline, SQLException cause) throws JanitorException {
        closeQuietly(conn);
        long backoff = 1000;
        while (true) {
            if (System.nanoTime() > deadline) {
                throw new JanitorException(Reason.CONNECTION, what + ": the connection was lost and did not come back within "
                        + options.reconnectTimeout().toSeconds() + " s: " + spec.redact(String.valueOf(cause.getMessage())), cause);
            }
            try {
                conn = spec.open();
                if (lock != null) {
                    lock.reacquire(conn);
                }
                reconnects++;
                listener.warn(what + ": connection lost; reconnected" + (lock != null ? " and re-took the advisory lock" : ""));
                return;
            } catch (JanitorException e) {
                if (e.reason() == Reason.LOCK_HELD) {
                    throw e;
                }
            } catch (SQLException e) {
                // keep trying until the deadline
            }
            sleep(backoff);
            backoff = Math.min(10_000, backoff * 2);
        }
    }

    private void setLocalTimeouts() throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT set_config('statement_timeout', ?, true), set_config('lock_timeout', ?, true)")) {
            ps.setString(1, options.statementTimeout().toMillis() + "ms");
            ps.setString(2, options.lockTimeout().toMillis() + "ms");
            ps.executeQuery().close();
        }
    }

    private JanitorException databaseError(String what, SQLException e) {
        return new JanitorException(Reason.DATABASE_ERROR, what + " failed (SQLSTATE " + SqlStates.stateOf(e) + "): "
                + spec.redact(String.valueOf(e.getMessage())), e);
    }

    private void rollbackQuietly() {
        try {
            if (conn != null && !conn.isClosed() && !conn.getAutoCommit()) {
                conn.rollback();
            }
        } catch (SQLException ignored) {
            // the connection is gone; the server rolls back
        }
    }

    private void restoreAutoCommit() {
        try {
            if (conn != null && !conn.isClosed()) {
                conn.setAutoCommit(true);
            }
        } catch (SQLException ignored) {
            // reconnect handles it
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing anyway
            }
        }
    }
}
