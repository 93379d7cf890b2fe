package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.SqlState;
import dev.ducklake.janitor.retry.Bounds;
import dev.ducklake.janitor.retry.CallWatch;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The run's one watchdog over its PostgreSQL statements: started with the run ({@link MaintenanceRun#open}), it
 * looks at the run's one clock and stop flag ({@link RunBudget}, through a {@link CallWatch}: every 50 ms) and, once a
 * stop is requested or (from {@link #boundByBudget()} on) the run budget is spent, cancels the statement in flight on every connection registered with
 * it (pgJDBC's cancel request, {@code PGConnection.cancelQuery()}: the session's current connection and the consulted
 * catalogs' connections to other databases), once, and interrupts a login of the run in progress whose stop condition
 * is the bounds ({@link ConnectionSpec#abortStoppedConnects()}). A statement waiting on a writer's lock with
 * {@code --lock-timeout 0} / {@code --statement-timeout 0} then ends at once with SQLSTATE 57014 instead of when the
 * lock goes; {@link #cancelledBy} tells the callers that such a failure is the stop or the budget, never retried.
 *
 * <p>The budget cuts statements only from the point the operation says a cut is a clean stop there
 * ({@link #boundByBudget()}): a storage command from the start of its work, the batch loop after its first committed
 * batch (at least one batch always runs, so a tiny budget still makes progress; until then the run's lock and statement
 * timeouts bound it). A stop request cuts them from the start. Once the operation's work has ended by its bounds (a
 * stop reason recorded), nothing is cancelled: what runs then are its result's reads.
 *
 * <p>A cancel request reaching a connection between statements is dropped by the server (an idle backend ignores
 * it); one that arrives late, on a read or transaction begun after it was sent, runs that attempt once more
 * ({@link #pastLateCancel}). Each cancel is sent from a thread of its own, so that an unanswering server of one
 * connection delays no other.
 * Closed with the run.
 */
public final class RunWatchdog implements AutoCloseable {

    /** How long into an attempt a 57014 can still be the stop's late cancel (one cancel request's round trip, with room), seconds. */
    static final int LATE_CANCEL_WINDOW_SECONDS = 5;
    private static final long LATE_CANCEL_WINDOW_NANOS = LATE_CANCEL_WINDOW_SECONDS * 1_000_000_000L;

    private final Supplier<Connection> session;
    private final BooleanSupplier workEnded;
    private final Set<Connection> others = ConcurrentHashMap.newKeySet();
    /** The threads sending the cancel requests (one per connection), once it fired. */
    private final List<Thread> senders = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final CallWatch watch;
    private volatile boolean budgetBound;

    private RunWatchdog(Supplier<Connection> session, Bounds bounds, BooleanSupplier workEnded) {
        this.session = session;
        this.workEnded = workEnded;
        // the run's clock, its budget counted only once the operation bound its statements by it
        Bounds watched = new Bounds() {
            @Override
            public java.time.Duration remaining() {
                return budgetBound ? bounds.remaining() : null;
            }

            @Override
            public boolean stopRequested() {
                return bounds.stopRequested();
            }
        };
        this.watch = CallWatch.start(watched, this::cancelAll);
    }

    /**
     * From now on the spent run budget cancels the statement in flight too (a stop request always does): called where
     * a cancelled statement ends the run as a clean stop by its budget.
     */
    public void boundByBudget() {
        budgetBound = true;
    }

    /**
     * Starts watching.
     *
     * @param session the run's session connection as it is now (a reconnect replaces it)
     * @param bounds the run's clock and stop flag ({@link MaintenanceRun#budget()})
     * @param workEnded whether the operation's work has already ended by its bounds ({@link RunRecorder#stoppedEarly()}):
     *     the statements left are its result's reads (recounts, the drop of its temporary tables), which a stop or the
     *     budget coming now does not cut (CI of stop 40, and its tests under load: a stop that came between the last batch and the recount
     *     cancelled the recount, and the result was lost); their own timeouts bound them
     * @return the watchdog; close it at the end of the run
     */
    static RunWatchdog start(Supplier<Connection> session, Bounds bounds, BooleanSupplier workEnded) {
        return new RunWatchdog(session, bounds, workEnded);
    }

    /**
     * A SQLSTATE 57014 (query_canceled) once the bounds are exhausted is this watchdog's cancel (or a statement
     * timeout at the same moment): the run stops, and the statement is not retried. A 57014 while the bounds are not
     * exhausted is a statement timeout: a failure like any other.
     *
     * @param bounds the run's bounds
     * @param e a failure: the statement's, or one caused by it (the {@link JanitorException} of a read of the
     *     {@link QueryRunner} that ended with it)
     * @return whether the failure is the run's stop or budget
     */
    public static boolean cancelledBy(Bounds bounds, Throwable e) {
        return bounds.exhausted() && cancelled(e);
    }

    /**
     * @param e a failure
     * @return whether it is, or was caused by, a statement cancelled (SQLSTATE 57014): by this watchdog when the run
     *     was asked to stop (the caller knows), else by a statement timeout
     */
    public static boolean cancelled(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException s && SqlState.QUERY_CANCELED.code().equals(SqlState.codeOf(s))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Registers another connection of the run (a consulted catalog's, to another database); its statement in flight is
     * cancelled too.
     *
     * @param c the connection
     */
    public void watch(Connection c) {
        others.add(c);
    }

    /**
     * Forgets a connection about to be closed.
     *
     * @param c the connection
     */
    public void forget(Connection c) {
        others.remove(c);
    }

    /** @return whether the cancel was sent (a stop request or the budget spent while the run was open) */
    public boolean fired() {
        return watch.fired();
    }

    /**
     * Waits until the cancel requests this watchdog sent have been handed to the server (pgJDBC's cancel returns once
     * the server has taken the request), so that none of them is still on its way to a statement begun after.
     *
     * @param max the longest wait (an unanswering server: the request's own connect timeout ends it)
     */
    public void awaitCancelsSent(java.time.Duration max) {
        long until = System.nanoTime() + max.toNanos();
        for (Thread t : senders) {
            long left = until - System.nanoTime();
            if (left <= 0) {
                return;
            }
            try {
                t.join(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * One attempt of a unit of catalog work (a read, a transaction).
     *
     * @param <T> its value
     */
    @FunctionalInterface
    public interface Attempt<T> {
        /**
         * @return the attempt's value
         * @throws SQLException the attempt's failure
         * @throws JanitorException passed through unchanged
         */
        T run() throws SQLException, JanitorException;
    }

    /** What runs between an attempt a late cancel ended and its second run (roll back, say so, set its timeouts again). */
    @FunctionalInterface
    public interface BeforeRerun {
        /** @throws SQLException when the session cannot be made ready: the attempt is not run again */
        void run() throws SQLException;
    }

    /**
     * Runs an attempt that may begin after this watchdog sent its one cancel: the cancel is sent from a thread of its
     * own and can reach the server after the statement it was sent for has ended, cancelling the next one instead (CI
     * of stop 40: the recount after the last batch). An attempt that began after the cancel was sent and ends cancelled
     * (SQLSTATE 57014) is therefore run once more, after {@code beforeRerun} (roll back, say so); the watchdog never
     * cancels twice, so the second run is cut only by its own timeouts. An attempt already running when the cancel was
     * sent was the one the stop cut: its failure stands; so does a 57014 more than {@value #LATE_CANCEL_WINDOW_SECONDS} s
     * into the attempt (its own statement timeout, which also ends with 57014: not waited for twice during a stop).
     *
     * @param watchdog the run's watchdog, or null (a direct engine call: the attempt runs once)
     * @param attempt the attempt, safe to run again (idempotent, reading again what it decides on)
     * @param beforeRerun run between the cancelled attempt and the second one
     * @param <T> the attempt's value
     * @return the value of the attempt that ended
     * @throws SQLException the attempt's failure (of the second run, after a late cancel)
     * @throws JanitorException the attempt's, unchanged
     */
    public static <T> T pastLateCancel(RunWatchdog watchdog, Attempt<T> attempt, BeforeRerun beforeRerun)
            throws SQLException, JanitorException {
        boolean sentBefore = watchdog != null && watchdog.fired();
        long start = System.nanoTime();
        try {
            return attempt.run();
        } catch (SQLException e) {
            if (!sentBefore || !cancelled(e) || System.nanoTime() - start > LATE_CANCEL_WINDOW_NANOS) {
                throw e;
            }
            // the one cancel has landed (this attempt) or lands now on an idle session (dropped): the second run is clear
            watchdog.awaitCancelsSent(java.time.Duration.ofSeconds(LATE_CANCEL_WINDOW_SECONDS));
            beforeRerun.run();
            return attempt.run();
        }
    }

    private void cancelAll() {
        if (workEnded.getAsBoolean()) {
            // the work ended by its bounds before they were seen here: what runs now is the result's reads
            return;
        }
        // a login of the run in progress (a consulted database, a reconnect) whose stop condition is now true ends
        ConnectionSpec.abortStoppedConnects();
        List<Connection> targets = new ArrayList<>(others);
        Connection current = session.get();
        if (current != null) {
            targets.add(current);
        }
        for (Connection c : targets) {
            Thread t = new Thread(() -> cancel(c), "ducklake-janitor-cancel");
            t.setDaemon(true);
            senders.add(t);
            t.start();
        }
    }

    private static void cancel(Connection c) {
        try {
            if (!c.isClosed()) {
                c.unwrap(org.postgresql.PGConnection.class).cancelQuery();
            }
        } catch (SQLException | RuntimeException e) {
            // not a pgJDBC connection, or the server unreachable: the statement ends at its own timeouts
        }
    }

    /** Stops watching; a cancel being sent at that moment has been handed to its thread. */
    @Override
    public void close() {
        watch.close();
    }
}
