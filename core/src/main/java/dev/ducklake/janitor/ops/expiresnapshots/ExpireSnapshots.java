package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.retry.FailureKind;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.ops.runtime.MaintenanceRun;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunFigures;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.runtime.StoppableOperation;
import dev.ducklake.janitor.pg.AdvisoryLock;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.LockBudget;
import dev.ducklake.janitor.pg.SqlState;
import dev.ducklake.janitor.pg.Transactions;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * {@code expire-snapshots}: DuckLake's {@code ducklake_expire_snapshots} done natively on the PostgreSQL
 * catalog, oldest first, in batches of snapshot ids, one transaction per batch ({@link ExpireBatch} says which
 * rows go and why). Memory does not grow with the catalog: every set lives in PostgreSQL temporary tables.
 *
 * <p>Phases of an execute run (issue 27: the cost per expired snapshot must not grow with the catalog): the list of the
 * rows the run can remove, each with the snapshot whose expiry releases it ({@link RunCandidates}: one keyset pass over
 * {@code ducklake_table}, {@code ducklake_data_file} and {@code ducklake_delete_file} per run, in short statements);
 * the batches, each finding its rows through that list and the catalog's primary keys; one closing anti-join over the
 * per-file rows (column stats, variant stats, partition values) of the data files the batches removed
 * ({@link RunCandidates#deleteDangling}); the dead-inlined-row sweep ({@link InlinedRowSweep}). A run stopped between
 * any two of them (signal, --run-budget, SIGKILL) leaves only rows that no remaining snapshot can reach, and the next
 * run, which lists its candidates again from the catalog as it is, removes them.
 *
 * <p>Safety: an execute run holds the advisory lock of drop-orphan-inline-tables ({@link AdvisoryLock}); each
 * batch is atomic, so a run killed anywhere leaves a consistent catalog, and a rerun continues (the selection
 * is re-applied to what is left). A dry run writes nothing, takes no advisory lock, and simulates the batches
 * on a private copy of the snapshot ids inside one read transaction.
 *
 * <p>Runs on the shared maintenance runtime ({@link MaintenanceRun}: session with reconnect, advisory lock and
 * stale-backend handling, retry policy, figures, stop signal). It still drives its own batches rather than the
 * runtime's {@code BatchLoop} (which now reads a keyset {@code BatchSource} too, as purge-orphan-stats does; moving
 * this operation onto it is open): each batch picks its snapshot ids by keyset in SQL, so they stay in PostgreSQL. Each
 * batch runs under the runtime's retry policy ({@code QueryRunner.withRetries}: backoff on serialization
 * failures, deadlocks, lock and statement timeouts; reconnect and lock re-take on a lost connection); a full
 * lock table (53200) halves the batch's inlined-table budget, the drop-orphan-inline-tables arithmetic.
 */
public final class ExpireSnapshots extends StoppableOperation<ExpireSnapshotsResult> {

    private final ConnectionSpec spec;
    private final ExpireSnapshotsOptions options;
    private final ProgressListener listener;
    /** Tests lower the lock budget's cap to exercise the table deferral; production leaves it unbounded. */
    int tableBudgetCap = Integer.MAX_VALUE;

    /**
     * @param spec where the catalog database is
     * @param options what to do
     * @param listener where progress goes ({@link ProgressListener#NONE} for nowhere): information, warnings, and one
     *     information line per batch ({@code expired, batch N: snapshots …} or {@code would expire, batch N: …})
     */
    public ExpireSnapshots(ConnectionSpec spec, ExpireSnapshotsOptions options, ProgressListener listener) {
        this.spec = spec;
        this.options = options;
        this.listener = listener;
    }

    /** The generic run options of the runtime for these options (the runtime's batch size is unused here). */
    private RunOptions runOptions() {
        return options.run().toBuilder().batchSize(Math.min(options.run().batchSize(), LockBudget.MAX_BATCH)).build();
    }

    /**
     * Runs the operation (called by {@link #execute()}).
     *
     * @return the figures of the run
     * @throws JanitorException {@link Reason#USAGE} for invalid options or when no criterion is given and the
     *     catalog has no {@code expire_older_than} option; {@link Reason#CONNECTION}; {@link Reason#NOT_A_CATALOG},
     *     {@link Reason#UNSUPPORTED_VERSION}, {@link Reason#UNSAFE_CATALOG_STATE} from the catalog checks (also
     *     when a file to queue has no resolvable path); {@link Reason#LOCK_HELD}; {@link Reason#PERMISSION_DENIED};
     *     {@link Reason#DATABASE_ERROR} when an error persisted after the retries. Batches committed before a
     *     failure stay and are consistent.
     */
    @Override
    protected ExpireSnapshotsResult run() throws JanitorException {
        options.validate();
        try (MaintenanceRun mr = MaintenanceRun.open(spec, runOptions(), listener, stopFlag())) {
            CatalogInfo info = mr.inspect();
            String schema = options.run().metadataSchema();
            ExpiryLayout layout = mr.queries().withRetries("catalog layout", c -> ExpiryLayout.read(c, schema, info.version()));
            Selection sel = mr.queries().withRetries("selection", c -> Selection.resolve(c, layout, options));
            mr.recorder().info("selection: " + sel.describe());
            if (options.versions() != null) {
                for (String w : mr.queries().withRetries("--versions", c -> Selection.versionsNotExpired(c, layout, options.versions()))) {
                    mr.recorder().warn(w);
                }
            }
            if (!options.run().dryRun()) {
                mr.session().lock(options.run().lockName());
                requirePerFilePrivileges(mr, layout);
            }
            int tableBudget = Math.min(mr.queries().withRetries("lock budget", c -> LockBudget.read(c).cap()), tableBudgetCap);
            mr.recorder().batchSizes(options.run().batchSize(), options.run().batchSize());
            ExpiryTally t = new ExpiryTally(layout, sel, tableBudget);
            if (options.run().dryRun()) {
                mr.queries().withRetries("dry run", c -> {
                    t.reset();
                    dryRun(c, mr, t);
                    return null;
                });
            } else {
                try {
                    executeBatches(mr, t);
                    deleteDanglingFileRows(mr, t);
                } finally {
                    dropRunSets(mr);
                }
                sweepDeadInlinedRows(mr, t);
            }
            Long oldest = mr.queries().withRetries("final count", c -> oldestRetained(c, layout, t));
            long remainingSelected = options.run().dryRun() ? 0 : mr.queries().withRetries("final count", c -> countSelected(c, layout, sel));
            mr.recorder().finalBatchSize(options.run().batchSize());
            RunFigures figures = mr.figures();
            if (options.run().dryRun()) {
                figures = new RunFigures(t.batchCount, figures.retries(), figures.reconnects(), figures.batchSizeRequested(),
                        figures.batchSizeStart(), figures.batchSizeFinal(), figures.stopReason(), figures.elapsedSeconds(),
                        figures.warnings(), figures.warningsTruncated(), figures.warningsTotal());
            }
            return new ExpireSnapshotsResult(schema, info.version().text(), options.run().dryRun(), sel.source(),
                    sel.cutoff() == null ? null : sel.cutoff().toString(),
                    sel.minAgeCutoff() == null ? null : sel.minAgeCutoff().toString(), t.snapshots, t.dataFiles,
                    t.deleteFiles, t.tables, t.inlined, t.otherRows, t.inlinedRows, oldest, sel.newestAtStart(), remainingSelected,
                    t.tableBudget, List.copyOf(t.batches), t.removedTables, t.expiredRanges, figures);
        } catch (SQLException e) {
            throw new JanitorException(Reason.DATABASE_ERROR, "the run failed (SQLSTATE " + SqlState.codeOf(e) + "): "
                    + spec.redact(String.valueOf(e.getMessage())), e);
        }
    }

    /** Whether --max-batches, --run-budget or a stop request ends the run before the next batch. */
    private boolean shouldStop(MaintenanceRun mr, ExpiryTally t) {
        if (options.run().maxBatches() > 0 && t.batchCount >= options.run().maxBatches()) {
            mr.recorder().stopped(RunFigures.StopReason.MAX_BATCHES);
            return true;
        }
        if (t.batchCount > 0 && (mr.budget().stopRequested() || mr.budget().pastDeadline())) {
            mr.recorder().stopped(mr.budget().stopRequested() ? RunFigures.StopReason.STOP_REQUESTED : RunFigures.StopReason.RUN_BUDGET);
            return true;
        }
        return false;
    }

    private void executeBatches(MaintenanceRun mr, ExpiryTally t) throws JanitorException {
        boolean pending = false;
        while (!shouldStop(mr, t)) {
            long t0 = System.nanoTime();
            final boolean tablesOnly = pending;
            ExpireBatch.Figures f = mr.queries().withRetries("batch " + (t.batchCount + 1),
                    c -> halvingOnFullLockTable(mr, t, c, tablesOnly));
            if (f == null) {
                break;
            }
            mr.recorder().batchCommitted();
            if (f.lastSnapshot() >= 0) {
                t.after = f.lastSnapshot();
            }
            t.add(f, (System.nanoTime() - t0) / 1e9, mr.recorder(), false);
            pending = f.tablesPending();
        }
    }

    /**
     * The per-file rows of removed data files are deleted after the batches ({@link RunCandidates#deleteDangling}), so a
     * privilege missing there would fail the run after its batches committed: checked before the first batch instead.
     *
     * @throws JanitorException {@link Reason#PERMISSION_DENIED} naming the privilege and the tables, nothing changed
     */
    private void requirePerFilePrivileges(MaintenanceRun mr, ExpiryLayout layout) throws JanitorException {
        java.util.List<String> tables = RunCandidates.perFileTables(layout);
        for (String privilege : new String[] {"SELECT", "DELETE"}) {
            java.util.List<String> denied = mr.queries().withRetries("checking the " + privilege + " privilege",
                    c -> dev.ducklake.janitor.pg.TablePrivileges.missing(c, options.run().metadataSchema(), tables, privilege));
            if (!denied.isEmpty()) {
                throw new JanitorException(Reason.PERMISSION_DENIED, "The catalog user lacks the " + privilege + " privilege on "
                        + String.join(", ", denied) + " in schema '" + options.run().metadataSchema() + "'; nothing was changed."
                        + " Grant it (docs/privileges.md).");
            }
        }
    }

    /**
     * The run's candidate sets ({@link RunCandidates}) on this connection: built at the run's first batch, and again when
     * the session was replaced (reconnect) or a build failed halfway. Autocommit statements, before the batch's transaction.
     */
    private void ensureRunSets(MaintenanceRun mr, Connection c, ExpiryTally t) throws SQLException {
        if (RunCandidates.ready(c)) {
            return;
        }
        t.releasedAfter = Long.MIN_VALUE;
        long t0 = System.nanoTime();
        new RunCandidates(c, options.run().statementTimeout(), options.run().lockTimeout()).build(t.layout, t.sel);
        mr.recorder().info(String.format(java.util.Locale.ROOT, "candidate rows of the run listed in %.2f s"
                + " (one pass over ducklake_table, ducklake_data_file, ducklake_delete_file)", (System.nanoTime() - t0) / 1e9));
    }

    /** Drops the run's candidate list (its session would drop it anyway at the end of the run); a failure here is ignored. */
    private static void dropRunSets(MaintenanceRun mr) {
        try {
            mr.queries().withRetries("drop the run's temporary tables", c -> {
                RunCandidates.drop(c);
                return null;
            });
        } catch (JanitorException | RuntimeException e) {
            // the session ends with the run and takes its temporary tables with it
        }
    }

    /**
     * After the batches: the per-file rows of data files the batches removed ({@link RunCandidates#deleteDangling}), one
     * anti-join per run in short autocommit statements.
     */
    private void deleteDanglingFileRows(MaintenanceRun mr, ExpiryTally t) throws JanitorException {
        if (interrupted(mr)) {
            return;
        }
        long t0 = System.nanoTime();
        long n = mr.queries().withRetries("per-file rows of removed data files",
                c -> {
                    mr.session().verifyLock(c);
                    return new RunCandidates(c, options.run().statementTimeout(), options.run().lockTimeout()).deleteDangling(t.layout);
                });
        mr.recorder().info(String.format(java.util.Locale.ROOT, "per-file rows of removed data files deleted %d in %.2f s", n,
                (System.nanoTime() - t0) / 1e9));
    }

    /** One batch; a full lock table (53200) halves the batch's inlined-table budget and tries again. */
    private ExpireBatch.Figures halvingOnFullLockTable(MaintenanceRun mr, ExpiryTally t, Connection c, boolean tablesOnly)
            throws SQLException, JanitorException {
        while (true) {
            try {
                return oneBatch(mr, c, t, tablesOnly);
            } catch (SQLException e) {
                if (SqlState.classify(e) != FailureKind.LOCK_TABLE_FULL || t.tableBudget <= 1) {
                    throw e;
                }
                Transactions.rollbackQuietly(c);
                Transactions.restoreAutoCommit(c);
                t.tableBudget = Math.max(1, t.tableBudget / 2);
                mr.recorder().retried();
                mr.recorder().warn("out of shared memory (53200): inlined tables per batch halved to " + t.tableBudget);
            }
        }
    }

    /**
     * One transaction. Returns null (after rolling back) when there is nothing to do: no selected snapshot left
     * and no removable table waiting.
     */
    private ExpireBatch.Figures oneBatch(MaintenanceRun mr, Connection c, ExpiryTally t, boolean tablesOnly)
            throws SQLException, JanitorException {
        ensureRunSets(mr, c, t);
        c.setAutoCommit(false);
        try {
            Transactions.setLocalTimeouts(c, options.run().statementTimeout(), options.run().lockTimeout());
            mr.session().verifyLock(c);
            ExpireBatch batch = new ExpireBatch(c, t.layout, false);
            batch.createTempTables();
            long[] taken = batch.takeSnapshots(t.sel, t.after, options.run().batchSize(), false);
            long upTo = taken[0] > 0 ? taken[2] : t.after;
            batch.useRunSets(t.releasedAfter, upTo);
            if (taken[0] == 0 && !tablesOnly && !batch.removableTablesExist()) {
                c.rollback();
                return null;
            }
            ExpireBatch.Figures f = batch.clean(taken, t.tableBudget, false);
            c.commit();
            t.releasedAfter = upTo;
            return f;
        } catch (SQLException | JanitorException | RuntimeException e) {
            Transactions.rollbackQuietly(c);
            throw e;
        } finally {
            Transactions.restoreAutoCommit(c);
        }
    }

    /** Whether the run was stopped by a signal or its budget (then the dead-inlined-row step is skipped). */
    private static boolean interrupted(MaintenanceRun mr) {
        return mr.budget().stopRequested() || mr.budget().pastDeadline();
    }

    /**
     * After the batches: deletes the dead rows of the inlined-data tables of reachable tables ({@link InlinedRowSweep}), in
     * transactions of at most the lock budget's tables. Monotone in the remaining snapshots, so doing it once after the last
     * batch gives the state DuckLake's per-call sweep gives; it also reclaims rows left dead by an earlier expiry (DuckLake
     * 1.5.5's, or one that selected nothing now). A rerun sweeps again, so a run killed here loses nothing.
     */
    private void sweepDeadInlinedRows(MaintenanceRun mr, ExpiryTally t) throws JanitorException {
        if (interrupted(mr)) {
            return;
        }
        long t0 = System.nanoTime();
        List<InlinedRowSweep.Target> targets = mr.queries().withRetries("dead inlined rows",
                c -> InlinedRowSweep.targets(c, t.layout, null));
        for (int from = 0; from < targets.size(); from += Math.max(1, t.tableBudget)) {
            List<InlinedRowSweep.Target> chunk = targets.subList(from, Math.min(targets.size(), from + Math.max(1, t.tableBudget)));
            t.inlinedRows += mr.queries().withRetries("dead inlined rows", c -> {
                c.setAutoCommit(false);
                try {
                    Transactions.setLocalTimeouts(c, options.run().statementTimeout(), options.run().lockTimeout());
                    mr.session().verifyLock(c);
                    long n = InlinedRowSweep.sweep(c, t.layout, chunk, t.layout.q("ducklake_snapshot"), true);
                    c.commit();
                    return n;
                } catch (SQLException | JanitorException | RuntimeException e) {
                    Transactions.rollbackQuietly(c);
                    throw e;
                } finally {
                    Transactions.restoreAutoCommit(c);
                }
            });
        }
        mr.recorder().info(String.format(java.util.Locale.ROOT, "dead inlined rows deleted %d from %d inlined tables in %.2f s",
                t.inlinedRows, targets.size(), (System.nanoTime() - t0) / 1e9));
    }

    private void dryRun(Connection c, MaintenanceRun mr, ExpiryTally t) throws SQLException, JanitorException {
        c.setAutoCommit(false);
        try {
            try (Statement st = c.createStatement()) {
                st.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
            }
            Transactions.setLocalTimeouts(c, options.run().statementTimeout(), options.run().lockTimeout());
            ExpireBatch batch = new ExpireBatch(c, t.layout, true);
            batch.createDryRunCopy();
            batch.createTempTables();
            ExpireBatch.Figures previous = new ExpireBatch.Figures(0, -1, -1, 0, 0, 0, 0, 0, false, List.of());
            while (!shouldStop(mr, t)) {
                long t0 = System.nanoTime();
                batch.resetForNextBatch();
                long[] taken = batch.takeSnapshots(t.sel, t.after, options.run().batchSize(), true);
                // as the execute run: no snapshot left ends the run, unless nothing was expired yet and tables are
                // removable already (a hand-written or interrupted expiry): then one table-only batch removes them
                boolean tablesOnly = taken[0] == 0;
                if (tablesOnly && (t.batchCount > 0 || !batch.removableTablesExist())) {
                    break;
                }
                if (!tablesOnly) {
                    t.after = taken[2];
                }
                ExpireBatch.Figures cum = batch.clean(taken, Integer.MAX_VALUE, true);
                ExpireBatch.Figures delta = new ExpireBatch.Figures(taken[0], taken[1], taken[2],
                        cum.dataFiles() - previous.dataFiles(), cum.deleteFiles() - previous.deleteFiles(),
                        cum.tables() - previous.tables(), cum.inlinedTables() - previous.inlinedTables(),
                        cum.otherRows() - previous.otherRows(), false,
                        previous.snapshots() == 0 ? cum.warnings() : List.of());
                previous = new ExpireBatch.Figures(1, -1, -1, cum.dataFiles(), cum.deleteFiles(), cum.tables(),
                        cum.inlinedTables(), cum.otherRows(), false, List.of());
                t.add(delta, (System.nanoTime() - t0) / 1e9, mr.recorder(), true);
                if (tablesOnly) {
                    break;
                }
            }
            // what would go, named: against the simulation's final remaining snapshots
            batch.resetForNextBatch();
            batch.collectRemovable();
            t.removedTables = List.copyOf(batch.removedTables());
            t.expiredRanges = List.copyOf(batch.expiredRanges());
            if (!interrupted(mr)) {
                List<InlinedRowSweep.Target> targets = InlinedRowSweep.targets(c, t.layout, "pg_temp.dj_exp_removable");
                t.inlinedRows = InlinedRowSweep.sweep(c, t.layout, targets, batch.remaining(), false);
                mr.recorder().info("would delete " + t.inlinedRows + " dead inlined rows from " + targets.size() + " inlined tables");
            }
        } finally {
            Transactions.rollbackQuietly(c);
            Transactions.restoreAutoCommit(c);
        }
    }

    private Long oldestRetained(Connection c, ExpiryLayout layout, ExpiryTally t) throws SQLException {
        if (options.run().dryRun()) {
            String sql = "SELECT min(snapshot_id) FROM " + layout.q("ducklake_snapshot") + " WHERE NOT (snapshot_id <= ? AND "
                    + t.sel.predicate() + ")";
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                ps.setLong(1, t.after);
                t.sel.bind(c, ps, 2);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return rs.getObject(1, Long.class);
                }
            }
        }
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT min(snapshot_id) FROM " + layout.q("ducklake_snapshot"))) {
            rs.next();
            return rs.getObject(1, Long.class);
        }
    }

    private static long countSelected(Connection c, ExpiryLayout layout, Selection sel) throws SQLException {
        String snap = layout.q("ducklake_snapshot");
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + snap + " WHERE " + sel.predicate()
                + " AND snapshot_id < (SELECT max(snapshot_id) FROM " + snap + ")")) {
            sel.bind(c, ps, 1);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
