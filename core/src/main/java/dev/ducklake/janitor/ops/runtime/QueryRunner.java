package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.retry.Bounds;
import dev.ducklake.janitor.retry.Pause;
import dev.ducklake.janitor.retry.RetryLoop;
import dev.ducklake.janitor.retry.RetryPolicy;
import dev.ducklake.janitor.retry.FailureKind;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.SqlState;
import dev.ducklake.janitor.pg.Transactions;

import java.sql.SQLException;
import java.time.Duration;

/**
 * The read-only path: runs queries (surveys, counts, checks) on the run's {@link MaintenanceSession} under the
 * {@link RetryPolicy}, reconnecting after a lost connection and retrying retryable SQLSTATEs with the policy's
 * backoff (never waited past the run budget or a stop request). A {@code check}-style operation runs several queries, each in its own read-only transaction with its
 * own statement timeout, through {@link #readOnly}.
 *
 * <p>A read that begins after the run's {@link RunWatchdog} sent its one cancel (a stop request, the budget spent) and
 * is hit by that cancel arriving late runs once more ({@link RunWatchdog#pastLateCancel}): the reads an operation makes
 * after it stopped (a recount for its result) give the result instead of a failure that loses it. A read already
 * running when the cancel was sent is the stop's and fails as before.
 */
public final class QueryRunner {

    private final MaintenanceSession session;
    private final RunRecorder recorder;
    private final Duration lockTimeout;
    private final Bounds bounds;
    private final RunWatchdog watchdog;

    /**
     * @param session the run's session
     * @param recorder where retries are counted and warnings go
     * @param lockTimeout lock_timeout of the transactions {@link #readOnly} opens
     * @param bounds the run's budget and stop request: a retry backoff is not waited past them ({@link Pause})
     * @param watchdog the run's watchdog (whose late cancel a read begun after it is run again past)
     */
    public QueryRunner(MaintenanceSession session, RunRecorder recorder, Duration lockTimeout, Bounds bounds,
                       RunWatchdog watchdog) {
        this.session = session;
        this.recorder = recorder;
        this.lockTimeout = lockTimeout;
        this.bounds = bounds;
        this.watchdog = watchdog;
    }

    /**
     * Runs work that manages its own transactions (or runs in autocommit), retrying it as a whole.
     *
     * @param what what the work is, for messages ("survey", "recount")
     * @param work the work
     * @param <T> its value
     * @return its value
     * @throws JanitorException {@link Reason#PERMISSION_DENIED} for a missing privilege; {@link Reason#CONNECTION}
     *     when the connection was lost for good; {@link Reason#DATABASE_ERROR} for any other failure or when the
     *     retries ran out; the work's own exceptions unchanged
     */
    public <T> T withRetries(String what, SqlWork<T> work) throws JanitorException {
        return RetryLoop.of(SQLException.class, RetryPolicy.DEFAULT, bounds, new SessionRetryHooks(session) {
            @Override
            public void reconnect(SQLException e, int reconnects) throws JanitorException {
                recorder.warn(what + " failed with SQLSTATE " + SqlState.codeOf(e) + "; retrying");
                recorder.phase(ProgressListener.Phase.RECONNECTING, SqlState.codeOf(e));
                session.reconnect();
            }

            @Override
            public <V> V waitRefused(SQLException e, RetryPolicy.Decision d) throws JanitorException {
                // asked to stop, or the budget ends first: the failure stands instead of a wait past them
                recorder.warn(what + " failed with SQLSTATE " + SqlState.codeOf(e) + "; not retried: "
                        + (bounds.stopRequested() ? "the run was asked to stop" : "the run budget would run out first"));
                throw fail(e, d);
            }

            @Override
            public void retried(SQLException e, RetryPolicy.Decision d, int attempt) {
                recorder.warn(what + " failed with SQLSTATE " + SqlState.codeOf(e) + "; retrying");
                recorder.phase(ProgressListener.Phase.RETRYING, SqlState.codeOf(e));
                recorder.retried();
            }

            @Override
            public JanitorException fail(SQLException e, RetryPolicy.Decision d) {
                return failure(what, d, e);
            }
        }).run(() -> RunWatchdog.pastLateCancel(watchdog, () -> work.run(session.connection()), () -> {
            Transactions.rollbackQuietly(session.connection());
            recorder.info(what + " was hit by the stop's cancel (SQLSTATE 57014) sent for the statement before it; running it again");
        }));
    }

    /**
     * Runs one query (or a few) in a read-only transaction with its own statement timeout, retrying as
     * {@link #withRetries}. The transaction is committed after the work and always ended.
     *
     * @param what what the query is, for messages
     * @param statementTimeout statement_timeout of this transaction (0 = none)
     * @param work the query, given the connection inside the open transaction
     * @param <T> its value
     * @return its value
     * @throws JanitorException as {@link #withRetries}
     */
    public <T> T readOnly(String what, Duration statementTimeout, SqlWork<T> work) throws JanitorException {
        return withRetries(what, c -> {
            Transactions.beginReadOnly(c);
            try {
                Transactions.setLocalTimeouts(c, statementTimeout, lockTimeout);
                T value = work.run(c);
                c.commit();
                return value;
            } finally {
                Transactions.endQuietly(c);
            }
        });
    }

    private JanitorException failure(String what, RetryPolicy.Decision d, SQLException e) {
        if (d.kind() == FailureKind.PERMISSION_DENIED) {
            return new JanitorException(Reason.PERMISSION_DENIED, "The catalog user lacks a privilege for the " + what
                    + " (" + session.spec().redact(e.getMessage()) + ").", e);
        }
        return session.databaseError(what, e);
    }
}
