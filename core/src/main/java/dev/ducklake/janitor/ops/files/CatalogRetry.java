package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunRecorder;
import dev.ducklake.janitor.ops.runtime.RunWatchdog;
import dev.ducklake.janitor.pg.SqlState;
import dev.ducklake.janitor.pg.Transactions;
import dev.ducklake.janitor.retry.FailureKind;
import dev.ducklake.janitor.retry.RetryLoop;
import dev.ducklake.janitor.retry.RetryPolicy;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The catalog transactions a storage command runs after its start (cleanup-old-files: the delete of a batch's queue
 * rows; delete-orphan-files: a round's re-check), retried on the run's one session through the one
 * {@link RetryLoop} and {@link RetryPolicy#DEFAULT}, as the batch loop retries the other operations' batches. Each
 * attempt first sets the run's {@code --statement-timeout} and {@code --lock-timeout} for its transaction only
 * ({@link RunControl#statementTimeout()}, {@link RunControl#lockTimeout()}), so a lock a DuckLake writer holds fails the
 * attempt with 55P03 and is retried rather than waited on without end.
 *
 * <p>The session holds state no reconnect brings back (the known-file set in a temporary table, cleanup-old-files'
 * {@code WITH HOLD} cursor over the queue, the advisory lock), so only what the policy retries <em>in</em> the
 * session is retried: a failure that rolls the transaction back and leaves the session as it was
 * ({@link FailureKind#RETRYABLE}: 40001, 40P01, 55P03, 57014, 42P01). After such a failure the transaction is
 * rolled back (autocommit stays off), the policy's backoff is waited (never past {@code --run-budget} nor through a
 * stop request: the {@link RunControl} is the loop's bounds) and the whole unit runs again from its first statement,
 * so it must be idempotent and read again whatever it decides on. Each retry is counted in the run's figures
 * ({@code retries}) and warned about.
 *
 * <p>Every other failure ends the run exactly as before, with the original {@link SQLException} (the storage action
 * maps it through {@link StorageFailures#database}): a lost connection (no reconnect: the session's state is gone),
 * a missing privilege, anything else, and a retryable failure still there after {@value RetryPolicy#MAX_ATTEMPTS}
 * attempts. A retry whose backoff the bounds refused (a stop request, the run budget) is {@link Stopped}: the caller
 * ends the run as stopped, as between its units.
 */
public final class CatalogRetry {

    /**
     * One attempt of a catalog transaction on the session: runs its statements and commits.
     *
     * @param <T> its value
     */
    @FunctionalInterface
    public interface Unit<T> {
        /**
         * @return the unit's value
         * @throws SQLException judged by the retry policy
         * @throws JanitorException passed through unchanged (never retried)
         */
        T run() throws SQLException, JanitorException;
    }

    private CatalogRetry() {
    }

    /**
     * Runs a catalog transaction on the session until it commits, retrying it as a whole after a failure the policy
     * retries in the session.
     *
     * @param c the run's session (autocommit off); the unit commits its own transaction
     * @param control the run's recorder (warnings, {@code retries}) and bounds (budget, stop request)
     * @param what what the transaction is, for warnings ("deleting the queue rows of batch 3")
     * @param unit the transaction: idempotent, reading again what it decides on
     * @param <T> its value
     * @return the value of the attempt that committed
     * @throws SQLException the failure that ended the loop, unchanged: not retried in the session (lost connection,
     *     missing privilege, other errors), or still failing after {@value RetryPolicy#MAX_ATTEMPTS} attempts; the
     *     transaction is rolled back
     * @throws Stopped when a retry's backoff was refused by the run budget or a stop request; rolled back
     * @throws JanitorException from the unit, unchanged
     */
    public static <T> T run(Connection c, RunControl control, String what, Unit<T> unit)
            throws SQLException, JanitorException, Stopped {
        RunRecorder rec = control.recorder();
        RetryLoop<SQLException, SQLException> loop = RetryLoop.of(SQLException.class, RetryPolicy.DEFAULT, control,
                new RetryLoop.Hooks<>() {
                    @Override
                    public FailureKind classify(SQLException e) {
                        return SqlState.classify(e);
                    }

                    @Override
                    public void failed(SQLException e) {
                        // roll back only: the session's transaction mode (autocommit off) is the command's
                        try {
                            c.rollback();
                        } catch (SQLException ignored) {
                            // the connection may be gone; the server rolls back on its own
                        }
                    }

                    @Override
                    public void retrying(SQLException e, RetryPolicy.Decision d, int attempt) {
                        rec.warn(what + ": attempt " + attempt + " failed with SQLSTATE " + SqlState.codeOf(e)
                                + "; rolled back, retrying in " + d.backoffMillis() + " ms");
                        rec.phase(ProgressListener.Phase.RETRYING, SqlState.codeOf(e));
                    }

                    @Override
                    public void retried(SQLException e, RetryPolicy.Decision d, int attempt) {
                        rec.retried();
                    }

                    @Override
                    public <V> V waitRefused(SQLException e, RetryPolicy.Decision d) {
                        rec.warn(what + " failed with SQLSTATE " + SqlState.codeOf(e) + "; not retried: "
                                + (control.stopRequested() ? "the run was asked to stop" : "the run budget would run out first"));
                        throw new Passed(new Stopped(what, e));
                    }

                    @Override
                    public SQLException fail(SQLException e, RetryPolicy.Decision d) {
                        if (d.kind() == FailureKind.RETRYABLE || d.kind() == FailureKind.THROTTLED) {
                            rec.warn(what + " failed " + RetryPolicy.MAX_ATTEMPTS + " times (last SQLSTATE "
                                    + SqlState.codeOf(e) + "); stopping");
                        }
                        // a lost connection is not reconnected (RECONNECT falls back to fail): the session's temporary
                        // tables, cursor and advisory lock are gone with it
                        return e;
                    }
                });
        try {
            return loop.run(() -> {
                try {
                    setTimeouts(c, control);
                    // a cancel the stop sent before this attempt began, arriving late, does not end it
                    return RunWatchdog.pastLateCancel(control.watchdog(), unit::run, () -> {
                        failedQuietly(c);
                        rec.info(what + " was hit by the stop's cancel (SQLSTATE 57014) sent for the statement before it; running it again");
                        setTimeouts(c, control);
                    });
                } catch (JanitorException e) {
                    throw new Passed(e);
                }
            });
        } catch (Passed p) {
            failedQuietly(c);
            if (p.stopped != null) {
                throw p.stopped;
            }
            throw p.failure;
        }
    }

    /**
     * A retry the run's bounds refused to wait for (a stop request, or a backoff the run budget would not cover): the
     * transaction is rolled back and not retried, and the run should end as stopped by its bounds
     * ({@link RunControl#stoppedByBounds}), keeping what the transaction would have changed for the next run. The
     * failure that would have been retried is the cause.
     */
    public static final class Stopped extends Exception {
        private static final long serialVersionUID = 1L;

        Stopped(String what, SQLException cause) {
            super(what + " was not retried: the run was stopped by its bounds", cause);
        }
    }

    /**
     * --statement-timeout and --lock-timeout, for this transaction only: a lock held by a writer fails the attempt
     * with 55P03 (retried) instead of waiting without end.
     */
    private static void setTimeouts(Connection c, RunControl control) throws SQLException {
        if (control.statementTimeout() != null && control.lockTimeout() != null) {
            Transactions.setLocalTimeouts(c, control.statementTimeout(), control.lockTimeout());
        }
    }

    private static void failedQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection may be gone
        }
    }

    /**
     * Carries a unit's {@link JanitorException}, or a refused retry ({@link Stopped}), through the loop, which passes
     * unchecked exceptions through.
     */
    private static final class Passed extends RuntimeException {
        final transient JanitorException failure;
        final transient Stopped stopped;

        Passed(JanitorException failure) {
            super(failure.getMessage(), failure, false, false);
            this.failure = failure;
            this.stopped = null;
        }

        Passed(Stopped stopped) {
            super(stopped.getMessage(), stopped, false, false);
            this.failure = null;
            this.stopped = stopped;
        }
    }
}
