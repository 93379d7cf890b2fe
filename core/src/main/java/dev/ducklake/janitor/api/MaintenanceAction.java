package dev.ducklake.janitor.api;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.runtime.MaintenanceOperation;
import dev.ducklake.janitor.ops.runtime.MaintenanceResult;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.pg.ConnectionSpec;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What every batched maintenance action shares: the run settings (dry run, batch size and limits, run budget,
 * timeouts, advisory lock), a progress listener, a stop request, and {@link #execute()}. A setting left alone keeps
 * the operation's engine default (the CLI's default of the same flag); values are checked by the engine's options
 * records when {@link #execute()} starts, not by the setters.
 *
 * @param <A> the concrete action (setters return it)
 * @param <R> the operation's result record
 */
public abstract class MaintenanceAction<A extends MaintenanceAction<A, R>, R extends MaintenanceResult> {

    private final Janitor janitor;
    private Boolean dryRun;
    private Integer batchSize;
    private Integer maxBatches;
    private Duration runBudget;
    private Duration statementTimeout;
    private Duration lockTimeout;
    private String lockName;
    private Duration reconnectTimeout;
    private ProgressListener progress = ProgressListener.NONE;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean stopRequested = new AtomicBoolean();
    private volatile MaintenanceOperation<R> running;

    MaintenanceAction(Janitor janitor) {
        this.janitor = janitor;
    }

    @SuppressWarnings("unchecked")
    private A self() {
        return (A) this;
    }

    /**
     * Report only (true) or change the catalog (false). Default false for expire-snapshots, drop-orphan-inline-tables
     * and purge-orphan-stats (the engine's default): an execute run, as the CLI with {@code --yes}. Default true for
     * cleanup-old-files and delete-orphan-files ({@link StorageMaintenanceAction}), which delete files from storage: they
     * delete only after an explicit {@code dryRun(false)}. A dry run changes nothing, takes no advisory lock and returns
     * what an execute run would do.
     *
     * @param dryRun whether to report only
     * @return this action
     */
    public A dryRun(boolean dryRun) {
        this.dryRun = dryRun;
        return self();
    }

    /**
     * Units of work per transaction (the operation's unit: tables, snapshots, stats ids); lowered to the server's
     * lock budget where each unit holds lock-table entries until commit. Default: the operation's ({@code --batch-size}).
     *
     * @param units units per batch, 1 or more (the upper bound is the operation's)
     * @return this action
     */
    public A batchSize(int units) {
        this.batchSize = units;
        return self();
    }

    /**
     * Stop after this many batches (the result says {@code maxBatchesReached}). Default 0: no limit.
     *
     * @param batches the most batches, 0 = no limit
     * @return this action
     */
    public A maxBatches(int batches) {
        this.maxBatches = batches;
        return self();
    }

    /**
     * Stop cleanly once this much wall-clock time is spent, checked between batches (the first batch always goes
     * through); the result says {@code budgetExhausted}. Default: unbounded.
     *
     * @param budget a positive duration, or null for unbounded
     * @return this action
     */
    public A runBudget(Duration budget) {
        this.runBudget = budget;
        return self();
    }

    /**
     * {@code statement_timeout} of each transaction. Default: the operation's (120 s; 300 s for expire-snapshots).
     *
     * @param timeout 0 or more, zero = none
     * @return this action
     */
    public A statementTimeout(Duration timeout) {
        this.statementTimeout = Objects.requireNonNull(timeout, "timeout");
        return self();
    }

    /**
     * {@code lock_timeout} of each transaction: how long a batch waits for a table lock held by DuckLake's writers
     * before it is retried. Default 5 s.
     *
     * @param timeout 0 or more
     * @return this action
     */
    public A lockTimeout(Duration timeout) {
        this.lockTimeout = Objects.requireNonNull(timeout, "timeout");
        return self();
    }

    /**
     * The advisory lock an execute run holds for its whole run, so that two janitors never work on one catalog at
     * once. Default {@value RunOptions#DEFAULT_LOCK_NAME}; keep it unless you know why.
     *
     * @param name the lock name, not empty
     * @return this action
     */
    public A lockName(String name) {
        this.lockName = Objects.requireNonNull(name, "name");
        return self();
    }

    /**
     * How long to keep reconnecting after the connection is lost mid-run. Default 60 s.
     *
     * @param timeout 0 or more
     * @return this action
     */
    public A reconnectTimeout(Duration timeout) {
        this.reconnectTimeout = Objects.requireNonNull(timeout, "timeout");
        return self();
    }

    /**
     * Where progress goes (phases, each batch's figures, warnings); called on the thread running {@link #execute()}.
     * Default: nowhere. The result carries the figures and warnings either way.
     *
     * @param listener the listener
     * @return this action
     */
    public A progress(ProgressListener listener) {
        this.progress = Objects.requireNonNull(listener, "listener");
        return self();
    }

    /**
     * Asks the run to stop at its next safe point: the batch in flight commits, then {@link #execute()} returns a
     * result with {@code budgetExhausted} true. Safe from any thread (a scheduler's shutdown hook); before
     * {@code execute()} it makes the run stop at its first safe point; after it, a no-op. A stop while the run is
     * still logging in to the catalog ends the login: {@code execute()} then throws a
     * {@link JanitorException.Reason#CONNECTION} error that
     * {@link dev.ducklake.janitor.pg.ConnectionSpec#loginStopped} recognises (nothing was done).
     */
    public void requestStop() {
        stopRequested.set(true);
        MaintenanceOperation<R> op = running;
        if (op != null) {
            op.requestStop();
        }
    }

    /**
     * Runs the operation once, on the calling thread.
     *
     * @return the operation's result record (the same record, field for field, that the CLI prints as JSON)
     * @throws JanitorException with the {@link Reason} (and exit code) the CLI would report: {@link Reason#USAGE} for a
     *     bad setting, {@link Reason#CONNECTION}, {@link Reason#LOCK_HELD}, {@link Reason#NOT_A_CATALOG}, ...;
     *     whatever committed before a failure is consistent, and a rerun resumes
     * @throws IllegalStateException when this action was executed already (an action is single-use)
     */
    public R execute() throws JanitorException {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("this action was executed already; make a new one from the Janitor");
        }
        MaintenanceOperation<R> op = operation(janitor.spec(), janitor.metadataSchema(), progress);
        running = op;
        try {
            if (stopRequested.get()) {
                op.requestStop();
            }
            return op.execute();
        } finally {
            running = null;
        }
    }

    /**
     * The engine's operation for these settings.
     *
     * @param spec the catalog connection
     * @param schema the metadata schema
     * @param listener the progress listener
     * @return the operation, not started
     * @throws JanitorException {@link Reason#USAGE} for a setting refused before the run starts
     */
    abstract MaintenanceOperation<R> operation(ConnectionSpec spec, String schema, ProgressListener listener)
            throws JanitorException;

    /** @return whether {@link #batchSize} or {@link #maxBatches} was called (an operation without batches refuses them) */
    final boolean batchesSet() {
        return batchSize != null || maxBatches != null;
    }

    /**
     * The generic run options: the operation's defaults with the schema and every setting made here.
     *
     * @param defaults the operation's default run options
     * @param schema the metadata schema
     * @return the run options
     */
    final RunOptions runOptions(RunOptions defaults, String schema) {
        RunOptions.Builder r = defaults.toBuilder().metadataSchema(schema);
        if (dryRun != null) {
            r.dryRun(dryRun);
        }
        if (batchSize != null) {
            r.batchSize(batchSize);
        }
        if (maxBatches != null) {
            r.maxBatches(maxBatches);
        }
        if (runBudget != null) {
            r.runBudget(runBudget);
        }
        if (statementTimeout != null) {
            r.statementTimeout(statementTimeout);
        }
        if (lockTimeout != null) {
            r.lockTimeout(lockTimeout);
        }
        if (lockName != null) {
            r.lockName(lockName);
        }
        if (reconnectTimeout != null) {
            r.reconnectTimeout(reconnectTimeout);
        }
        return r.build();
    }
}
