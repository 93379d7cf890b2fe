package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.retry.FailureKind;
import dev.ducklake.janitor.retry.RetryLoop;
import dev.ducklake.janitor.retry.RetryPolicy;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.SqlState;
import dev.ducklake.janitor.pg.Transactions;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The one batch loop: works through the units of a {@link BatchSource} (a list, a keyset query, several of them) in
 * batches of one transaction each, with the adaptive
 * {@link BatchSizer}, {@code --max-batches}, {@code --run-budget}, the stop signal, the {@link RetryPolicy}
 * (backoff, halving on 53200, reconnect) and a progress event per committed batch. The operation supplies the
 * work of one batch ({@link BatchWork}). At least one batch always runs, so a tiny budget still makes progress.
 *
 * @param <I> a unit of work
 * @param <O> what one batch did
 */
public final class BatchLoop<I, O extends BatchOutcome> {

    private final MaintenanceRun run;
    private final BatchSizer sizer;
    private final BatchWork<I, O> work;
    private long handled;

    BatchLoop(MaintenanceRun run, BatchSizer sizer, BatchWork<I, O> work) {
        this.run = run;
        this.sizer = sizer;
        this.work = work;
    }

    /**
     * Runs batches over a list until the units are done or a limit stops the loop ({@link #run(BatchSource)}).
     *
     * @param units the units, in batch order
     * @return how many units were consumed (the rest are left for the next run)
     * @throws JanitorException when the retry policy fails the run (see {@link #runOne})
     */
    public int run(List<I> units) throws JanitorException {
        return (int) run(BatchSource.of(units));
    }

    /**
     * Runs batches, each over the next units of the source, until the source is empty or a limit stops the loop
     * (recorded as the run's {@link RunFigures.StopReason}): {@code --max-batches}, {@code --run-budget} (checked
     * after the first batch), a stop request, or a batch the budget or a stop cut short.
     *
     * @param source where the units come from
     * @return how many units were consumed (the rest are left for the next run)
     * @throws JanitorException when the retry policy fails the run (see {@link #runOne}), or a page of a keyset
     *     source could not be read ({@link QueryRunner#readOnly})
     */
    public long run(BatchSource<I> source) throws JanitorException {
        RunRecorder rec = run.recorder();
        RunBudget budget = run.budget();
        int maxBatches = run.options().maxBatches();
        long consumed = 0;
        try {
            while (!source.peek(sizer.size()).isEmpty()) {
                if (maxBatches > 0 && rec.batches() >= maxBatches) {
                    stop(RunFigures.StopReason.MAX_BATCHES, "--max-batches " + maxBatches + " reached; " + left(source));
                    break;
                }
                if ((rec.batches() > 0 && budget.pastDeadline()) || budget.stopRequested()) {
                    stop(stopReason(), stopWords() + "; " + left(source));
                    break;
                }
                O o = runOne(source, false);
                if (o == null) {
                    rec.stopped(stopReason());
                    break;
                }
                // after the first batch the budget also cuts a batch's statement in flight (a clean stop, rolled back)
                run.watchdog().boundByBudget();
                consumed += o.consumed();
                handled += o.consumed();
                if (o.truncated()) {
                    stop(stopReason(), stopWords() + " inside batch " + rec.batches() + "; the " + work.units()
                            + " handled so far are committed");
                    break;
                }
            }
        } finally {
            rec.finalBatchSize(sizer.size());
        }
        return consumed;
    }

    private static String left(BatchSource<?> source) {
        return source.known() + (source.counted() ? "" : " or more") + " candidates left for the next run";
    }

    /**
     * Runs the batch starting at {@code pos} of a list ({@link #runOne(BatchSource, boolean)}).
     *
     * @param units the units
     * @param pos the first unit of this batch
     * @param retryPass whether this is a second pass over units left behind (progress then shows none left)
     * @return as {@link #runOne(BatchSource, boolean)}
     * @throws JanitorException as {@link #runOne(BatchSource, boolean)}
     */
    public O runOne(List<I> units, int pos, boolean retryPass) throws JanitorException {
        return runOne(BatchSource.of(units.subList(pos, units.size())), retryPass);
    }

    /**
     * Runs one batch over the next units of the source (as many as the current batch size) under the retry policy,
     * commits it, takes the units it consumed from the source and hands its outcome to {@link BatchWork#committed}.
     *
     * @param source where the units come from (not empty)
     * @param retryPass whether this is a second pass over units left behind (progress then shows none left)
     * @return the committed outcome, or null when the run budget would run out during a retry backoff or a stop
     *     was requested during it
     * @throws JanitorException {@link Reason#CONNECTION} after {@value RetryPolicy#MAX_RECONNECTS_PER_UNIT} lost
     *     connections in one batch or a failed reconnect; {@link Reason#DATABASE_ERROR} when the lock table stayed
     *     full or a retryable error persisted for {@value RetryPolicy#MAX_ATTEMPTS} attempts, or any other error;
     *     {@link Reason#PERMISSION_DENIED} for a missing privilege
     */
    public O runOne(BatchSource<I> source, boolean retryPass) throws JanitorException {
        List<I> ahead = source.peek(sizer.size());
        long known = source.known();
        RunRecorder rec = run.recorder();
        MaintenanceSession session = run.session();
        long batchStart = System.nanoTime();
        int[] size = new int[1]; // the slice size of the current attempt
        boolean[] hadRetry = new boolean[1];
        int[] reconnected = new int[1];
        return RetryLoop.of(SQLException.class, RetryPolicy.DEFAULT, run.budget(), new SessionRetryHooks(session) {
            @Override
            public boolean canHalve() {
                return true;
            }

            @Override
            public void reconnect(SQLException e, int reconnects) throws JanitorException {
                rec.warn("connection lost during batch " + (rec.batches() + 1) + " (SQLSTATE " + SqlState.codeOf(e) + "); reconnecting");
                rec.phase(ProgressListener.Phase.RECONNECTING, SqlState.codeOf(e));
                reconnected[0] = reconnects;
                session.reconnect();
                hadRetry[0] = true;
            }

            @Override
            public void halve(SQLException e, int attempt) {
                int halved = sizer.halve(size[0]);
                rec.warn("out of shared memory (53200): batch size " + size[0] + " -> " + halved);
                rec.phase(ProgressListener.Phase.RETRYING, SqlState.codeOf(e));
                rec.retried();
                hadRetry[0] = true;
            }

            @Override
            public void retrying(SQLException e, RetryPolicy.Decision d, int attempt) {
                rec.warn("batch " + (rec.batches() + 1) + " attempt " + attempt + " failed with SQLSTATE " + SqlState.codeOf(e)
                        + "; retrying in " + d.backoffMillis() + " ms");
                rec.phase(ProgressListener.Phase.RETRYING, SqlState.codeOf(e));
            }

            @Override
            public <V> V waitRefused(SQLException e, RetryPolicy.Decision d) {
                rec.warn((run.budget().stopRequested() ? "stop requested" : "run budget would run out")
                        + (RunWatchdog.cancelledBy(run.budget(), e) ? ": batch " + (rec.batches() + 1) + " was cancelled (SQLSTATE 57014)"
                        + " and rolled back" : " during the retry backoff (SQLSTATE " + SqlState.codeOf(e) + ")")
                        + "; abandoning this batch instead of retrying");
                return null;
            }

            @Override
            public void retried(SQLException e, RetryPolicy.Decision d, int attempt) {
                rec.retried();
                hadRetry[0] = true;
            }

            @Override
            public JanitorException fail(SQLException e, RetryPolicy.Decision d) {
                return failure(d, e, rec.batches() + 1, size[0], reconnected[0] + 1);
            }
        }).run(() -> {
            int n = Math.min(sizer.size(), ahead.size());
            size[0] = n;
            List<I> slice = ahead.subList(0, n);
            Connection c = session.connection();
            c.setAutoCommit(false);
            Transactions.setLocalTimeouts(c, run.options().statementTimeout(), run.options().lockTimeout());
            verifyLock(session, c);
            O o = work.attempt(c, slice);
            c.commit();
            Transactions.restoreAutoCommit(c);
            rec.batchCommitted();
            source.advance(o.consumed());
            work.committed(o);
            int before = sizer.size();
            int grown = sizer.committed(hadRetry[0]);
            if (grown > 0) {
                rec.info(BatchSizer.CLEAN_BATCHES_TO_GROW + " clean batches: batch size " + before + " -> " + grown
                        + " (ceiling " + sizer.start() + ")");
            }
            progress(o, known, n, retryPass, batchStart);
            return o;
        });
    }

    /** The batch's server session must hold the run's advisory lock ({@link MaintenanceSession#verifyLock}); rolls back if not. */
    private static void verifyLock(MaintenanceSession session, Connection c) throws JanitorException, SQLException {
        try {
            session.verifyLock(c);
        } catch (JanitorException e) {
            Transactions.rollbackQuietly(c);
            throw e;
        }
    }

    private JanitorException failure(RetryPolicy.Decision d, SQLException e, int number, int n, int losses) {
        MaintenanceSession session = run.session();
        String state = SqlState.codeOf(e);
        return switch (d.kind()) {
            case CONNECTION_LOST -> new JanitorException(Reason.CONNECTION, "The connection to " + session.spec().describe()
                    + " was lost " + losses + " times in one batch; stopping. Work committed so far is kept.", e);
            case LOCK_TABLE_FULL -> new JanitorException(Reason.DATABASE_ERROR, "The server's lock table stayed full (SQLSTATE 53200, "
                    + "out of shared memory) after " + RetryPolicy.MAX_ATTEMPTS + " attempts down to " + n + " " + work.units()
                    + " per batch. Rerun with a smaller --batch-size (e.g. " + Math.max(1, n / 2) + ") or raise max_locks_per_transaction.", e);
            case RETRYABLE -> new JanitorException(Reason.DATABASE_ERROR, "Batch " + number + " failed " + RetryPolicy.MAX_ATTEMPTS
                    + " times (last SQLSTATE " + state + ": " + session.spec().redact(e.getMessage()) + "); stopping. "
                    + "Work committed so far is kept.", e);
            case PERMISSION_DENIED -> new JanitorException(Reason.PERMISSION_DENIED, "The catalog user lacks a privilege needed "
                    + work.privilegeNeeded() + " in schema " + session.schema() + " (" + session.spec().redact(e.getMessage())
                    + "). Nothing of the failed batch was changed.", e);
            default -> session.databaseError("batch " + number, e);
        };
    }

    private void progress(O o, long known, int n, boolean retryPass, long batchStart) {
        double now = run.budget().elapsedSeconds();
        // a batch truncated by the run budget or a stop handled only part of its slice: count what it did
        long left = retryPass ? 0 : Math.max(0, known - o.handled());
        double rate = (handled + o.handled()) / Math.max(now, 1e-3);
        run.recorder().listener().batch(new ProgressListener.BatchProgress(run.recorder().batches(), o.acted(), o.skipped(),
                o.missing(), (System.nanoTime() - batchStart) / 1e9, now, left, rate > 0 ? left / rate : -1, n));
    }

    private RunFigures.StopReason stopReason() {
        return run.budget().stopRequested() ? RunFigures.StopReason.STOP_REQUESTED : RunFigures.StopReason.RUN_BUDGET;
    }

    private String stopWords() {
        return run.budget().stopRequested() ? "stop requested" : "run budget spent";
    }

    private void stop(RunFigures.StopReason reason, String message) {
        run.recorder().stopped(reason);
        run.recorder().info(message);
        run.recorder().phase(ProgressListener.Phase.STOPPED, reason.name());
    }
}
