package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.LockBudget;

import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One run of one operation on one metadata schema: the frame every operation's {@code run()} opens in a
 * try-with-resources. It owns the {@link MaintenanceSession}, the {@link RunRecorder} (figures, warnings,
 * progress), the {@link RunBudget} (clock, deadline, stop flag), the {@link RunWatchdog} (a stop request or the budget
 * spent cancels the statement in flight), the read-only {@link QueryRunner} and makes {@link BatchLoop}s.
 *
 * <pre>{@code
 * protected MyResult run() throws JanitorException {
 *     options.validate();
 *     try (MaintenanceRun run = MaintenanceRun.open(spec, options.run(), listener, stopFlag())) {
 *         CatalogInfo info = run.inspectAndLock();                 // lock only for execute runs
 *         List<Unit> units = run.queries().withRetries("survey", c -> Survey.list(c, info));
 *         int done = options.run().dryRun() ? 0
 *                 : run.batchLoop(run.batchSizer(), new MyBatch(run, options)).run(units);
 *         return tally.toResult(run.figures());                     // figures: batches, retries, ...
 *     } catch (SQLException e) {
 *         throw new JanitorException(Reason.DATABASE_ERROR, ...);  // or run.session().databaseError(...)
 *     }
 * }
 * }</pre>
 */
public final class MaintenanceRun implements AutoCloseable {

    private final RunOptions options;
    private final RunRecorder recorder;
    private final RunBudget budget;
    private final MaintenanceSession session;
    private final QueryRunner queries;
    private final RunWatchdog watchdog;

    private MaintenanceRun(RunOptions options, RunRecorder recorder, RunBudget budget, MaintenanceSession session) {
        this.options = options;
        this.recorder = recorder;
        this.budget = budget;
        this.session = session;
        // from here to close(): a stop request or the budget spent cancels the statement in flight
        this.watchdog = RunWatchdog.start(session::connection, budget, recorder::stoppedEarly);
        this.queries = new QueryRunner(session, recorder, options.lockTimeout(), budget, watchdog);
    }

    /**
     * Starts the clock and opens the session, on connections whose socket timeout the run's statement timeout fits
     * under ({@link ConnectionSpec#withSocketTimeoutCovering}).
     *
     * @param spec where the catalog database is
     * @param options the generic run options (already validated)
     * @param listener where progress goes
     * @param stop the operation's stop flag ({@link StoppableOperation#stopFlag()})
     * @return the open run; close it (try-with-resources) to release the lock and the connection
     * @throws JanitorException {@link JanitorException.Reason#CONNECTION} when the catalog cannot be reached
     */
    public static MaintenanceRun open(ConnectionSpec spec, RunOptions options, ProgressListener listener, AtomicBoolean stop)
            throws JanitorException {
        RunBudget budget = new RunBudget(options.runBudget(), stop);
        RunRecorder recorder = new RunRecorder(listener);
        // every path gets a read bound the server's statement_timeout outlasts: the CLI's and check's are kept, a
        // connection string's default floor or a DataSource's none are raised to it
        MaintenanceSession session = MaintenanceSession.open(spec.withSocketTimeoutCovering(options.statementTimeout()),
                options.metadataSchema(), options.reconnectTimeout(),
                recorder, budget);
        return new MaintenanceRun(options, recorder, budget, session);
    }

    /**
     * Inspects the catalog ({@link MaintenanceSession#inspect()}) in a read-only transaction bounded by the run's
     * --statement-timeout and --lock-timeout and retried as every read of the run ({@link QueryRunner#readOnly}): a
     * writer's lock on a catalog table (the consistency checks read the file tables) ends the wait at the lock timeout
     * instead of holding the run past its budget and a stop request.
     *
     * @return what the catalog is
     * @throws JanitorException from the checks, or the failure that ended the retries
     */
    public CatalogInfo inspect() throws JanitorException {
        return queries.readOnly("the catalog inspection", options.statementTimeout(), c -> session.inspect());
    }

    /**
     * Inspects the catalog and, for an execute run, takes the advisory lock {@link RunOptions#lockName()}.
     *
     * @return what the catalog is
     * @throws JanitorException from {@link MaintenanceSession#inspect()} and {@link MaintenanceSession#lock}
     * @throws SQLException on a database error
     */
    public CatalogInfo inspectAndLock() throws JanitorException, SQLException {
        CatalogInfo info = inspect();
        if (!options.dryRun()) {
            session.lock(options.lockName());
        }
        return info;
    }

    /**
     * Reads the server's lock budget ({@link LockBudget}) and makes the batch-size controller: the requested
     * batch size, lowered to what the lock table holds (reported), recorded in the figures.
     *
     * @return the controller
     * @throws SQLException when the settings cannot be read
     */
    public BatchSizer batchSizer() throws SQLException {
        LockBudget lockBudget = LockBudget.read(session.connection());
        int requested = options.batchSize();
        int start = lockBudget.effective(requested);
        recorder.info("max_locks_per_transaction=" + lockBudget.maxLocksPerTransaction() + " max_connections="
                + lockBudget.maxConnections() + " max_prepared_transactions=" + lockBudget.maxPreparedTransactions()
                + " capacity=" + lockBudget.capacity() + " batch_cap=" + lockBudget.cap());
        if (start < requested) {
            // every run on stock settings with the default size lowers it: a detail, not news (batch_size_start says it)
            recorder.detail("--batch-size " + requested + " lowered to " + start + " to fit the server's lock table");
        }
        recorder.batchSizes(requested, start);
        return new BatchSizer(start);
    }

    /**
     * A batch loop over this run's session, options, figures and budget.
     *
     * @param sizer the batch-size controller ({@link #batchSizer()})
     * @param work the work of one batch
     * @param <I> a unit of work
     * @param <O> what one batch did
     * @return the loop
     */
    public <I, O extends BatchOutcome> BatchLoop<I, O> batchLoop(BatchSizer sizer, BatchWork<I, O> work) {
        return new BatchLoop<>(this, sizer, work);
    }

    /**
     * A keyset source over this run's read-only path: pages in read-only transactions with the run's statement
     * timeout, retried and reconnected as {@link QueryRunner#readOnly}.
     *
     * @param what what a page is, for messages
     * @param pageSize units read per page
     * @param query the page query
     * @param <I> a unit of work, which is also its key
     * @return the source, for {@link BatchLoop#run(BatchSource)}
     */
    public <I> KeysetSource<I> keyset(String what, int pageSize, KeysetSource.PageQuery<I> query) {
        return new KeysetSource<>(queries, what, options.statementTimeout(), pageSize, query);
    }

    /** @return the session (the run's one connection) */
    public MaintenanceSession session() {
        return session;
    }

    /** @return the read-only query runner */
    public QueryRunner queries() {
        return queries;
    }

    /** @return the figures, warnings and progress listener */
    public RunRecorder recorder() {
        return recorder;
    }

    /** @return the clock, deadline and stop flag */
    public RunBudget budget() {
        return budget;
    }

    /** @return the run's watchdog: register the run's other connections with it ({@link RunWatchdog#watch}) */
    public RunWatchdog watchdog() {
        return watchdog;
    }

    /** @return the generic options */
    public RunOptions options() {
        return options;
    }

    /** @return the figures so far, with the elapsed time now; emits {@link ProgressListener.Phase#FINISHED} */
    public RunFigures figures() {
        recorder.phase(ProgressListener.Phase.FINISHED, options.metadataSchema());
        return recorder.figures(budget.elapsedSeconds());
    }

    /** Stops the watchdog, releases the advisory lock and closes the session. */
    @Override
    public void close() {
        watchdog.close();
        session.close();
    }
}
