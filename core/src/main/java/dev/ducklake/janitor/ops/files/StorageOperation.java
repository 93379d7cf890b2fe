package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.runtime.MaintenanceResult;
import dev.ducklake.janitor.ops.runtime.MaintenanceRun;
import dev.ducklake.janitor.pg.Pooling;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.StoppableOperation;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.PathResolver;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The frame of the operations on the catalog's files in storage (cleanup-old-files, delete-orphan-files) on the
 * shared runtime: validates the options; {@link MaintenanceRun} opens the session, inspects the catalog and takes the
 * advisory lock (execute runs); the catalog's data path (or the override) is resolved (once, through the run's
 * {@link dev.ducklake.janitor.ops.runtime.QueryRunner}: retried, reconnected) and {@link #checkPath} may
 * refuse it; the store is opened for that path and bound by the {@link RunControl} over the run's one clock
 * ({@link MaintenanceRun#budget()}: each store call's timeout and retries end with --run-budget or on the stop request);
 * then {@link #work} runs with that control, which also checks the stop flag, --max-batches and --run-budget between
 * batches. The catalog transactions the work runs after its start (cleanup-old-files' queue-row delete of a batch,
 * delete-orphan-files' re-check of a round) are retried on the session by {@link CatalogRetry} (the one retry loop
 * and policy, backoffs within the run budget and the stop request, counted in {@code retries}); a database error
 * that is not retried there (a lost connection: the session's temporary tables, cursor and lock are gone; a missing
 * privilege; any other error; retries used up or a backoff refused by the bounds) ends the run through
 * {@link StorageFailures#database}.
 *
 * @param <O> the operation's options
 * @param <R> the operation's result
 */
public abstract class StorageOperation<O extends StorageRunOptions, R extends MaintenanceResult> extends StoppableOperation<R> {

    private final ConnectionSpec spec;
    private final O options;
    private final StoreOpener opener;
    private final FileListener files;
    private final ProgressListener listener;

    /**
     * @param spec the catalog database
     * @param options the options
     * @param opener opens the store of the data path
     * @param files receives each file
     * @param listener receives progress
     */
    protected StorageOperation(ConnectionSpec spec, O options, StoreOpener opener, FileListener files, ProgressListener listener) {
        this.spec = spec;
        this.options = options;
        this.opener = opener;
        this.files = files;
        this.listener = listener;
    }

    /** @return the swept catalog's connection (the other databases of its server are reached from it) */
    protected final ConnectionSpec spec() {
        return spec;
    }

    /**
     * Refuses a data path before the store is opened; by default accepts every path.
     *
     * @param resolver the catalog's path resolver (data path already resolved)
     * @param options the options
     * @throws JanitorException when the path must not be worked on
     */
    protected void checkPath(PathResolver resolver, O options) throws JanitorException {
    }

    /**
     * The operation's work, inside the open session (lock held for execute runs) with the store open.
     *
     * @param c the session's connection
     * @param store the store of the data path
     * @param options the options
     * @param files receives each file (store failures also counted as progress warnings)
     * @param control batches, stop, --max-batches, --run-budget, figures
     * @return the result
     * @throws JanitorException on a failure with its exit code
     * @throws SQLException on database errors
     */
    /** The command's name, for messages ({@code "cleanup-old-files"}). */
    protected abstract String command();

    protected abstract R work(Connection c, FileStore store, O options, FileListener files, RunControl control)
            throws JanitorException, SQLException;

    /**
     * The result of a run stopped by its bounds (a stop request, the spent run budget) before its work got going: the
     * run's watchdog cancelled a catalog statement of its preparation (the consulted catalogs' survey, the known-file
     * set) or a login to a consulted database. Nothing was listed or deleted; {@code stopped_during} is
     * {@value #STOPPED_DURING_CATALOG}.
     *
     * @param options the options
     * @param dataPath the data path
     * @param control the run's control (its figures)
     * @return the result
     */
    protected abstract R stoppedBeforeWork(O options, String dataPath, RunControl control);

    /** {@code stopped_during} of a run whose catalog statement in flight its stop or its budget cancelled. */
    public static final String STOPPED_DURING_CATALOG = "catalog_statement";

    @Override
    protected final R run() throws JanitorException {
        options.validate();
        try (MaintenanceRun run = MaintenanceRun.open(spec, options.run(), listener, stopFlag())) {
            // before anything: the known-file set lives in a session temporary table and cleanup-old-files reads the
            // queue through a WITH HOLD cursor, dry runs too; neither survives a transaction-mode pooler
            Pooling.requireSessionBound(run.session().connection(), spec, command() + (options.run().dryRun() ? " (also a dry run)" : ""),
                    "temporary tables, a cursor held across transactions (WITH HOLD) and, to execute, a session advisory lock");
            // --max-batches, and --statement-timeout and --lock-timeout for the catalog transactions (CatalogRetry)
            // the run's watchdog: the consulted catalogs' connections are registered with it through the control
            RunControl control = RunControl.of(run);
            PathResolver resolver;
            try {
                run.inspectAndLock();
                // the one read of the data path, retried and reconnected by the run's read-only path
                resolver = run.queries().withRetries("reading the data path",
                        c -> CatalogFiles.resolver(c, options.schema(), options.dataPathOverride()));
            } catch (JanitorException e) {
                // a read the stop request cancelled (the budget cuts statements only from boundByBudget on)
                if (!control.cancelledByBounds(e)) {
                    throw e;
                }
                return stoppedBy(control, options.dataPathOverride(), "a catalog read (SQLSTATE 57014) was cancelled");
            }
            Connection c = run.session().connection();
            checkPath(resolver, options);
            String dataPath = resolver.dataPath();
            // from here a statement the budget cancels is a clean stop (stopped_during catalog_statement)
            run.watchdog().boundByBudget();
            try (FileStore store = opener.open(dataPath)) {
                // every store call ends with the run budget or on the stop request, whatever its own timeouts
                store.bound(control);
                return work(c, store, options, StorageFailures.withProgress(files, run.recorder()), control);
            } catch (SQLException e) {
                if (!control.cancelledByBounds(e)) {
                    throw e;
                }
                return stoppedBy(control, dataPath, "a catalog statement (SQLSTATE 57014) was cancelled");
            } catch (JanitorException e) {
                if (!(control.exhausted() && ConnectionSpec.loginStopped(e))) {
                    throw e;
                }
                String target = ConnectionSpec.stoppedLoginTarget(e);
                return stoppedBy(control, dataPath, "the login to a consulted catalog's database"
                        + (target == null ? "" : " (" + target + ")") + " was interrupted");
            }
        } catch (SQLException e) {
            throw StorageFailures.database(e, spec);
        }
    }

    private R stoppedBy(RunControl control, String dataPath, String what) {
        control.stoppedByBounds();
        control.recorder().warn((control.stopRequested() ? "stopped (SIGTERM/SIGINT)" : "the run budget ran out") + " while "
                + command() + " was reading the catalogs: " + what + "; nothing was listed or deleted, the next run starts over");
        return stoppedBeforeWork(options, dataPath, control);
    }
}
