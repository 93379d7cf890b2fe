package dev.ducklake.janitor.ops.runtime;

import java.time.Duration;

/**
 * The builder of options that hold a {@link RunOptions}: the setters of the run options, once for every operation; an
 * operation's own builder adds its own options and {@link #build()}s the record from {@link #runOptions()} and them.
 * {@link RunOptions.Builder} is the one that adds nothing.
 *
 * <pre>{@code
 * DropOrphanInlineTablesOptions o = DropOrphanInlineTablesOptions.builder().metadataSchema("lake").dryRun(true)
 *         .batchSize(100).includeUnregistered(true).build();
 * }</pre>
 *
 * @param <B> the operation's builder
 * @param <O> the operation's options
 */
public abstract class RunOptionsBuilder<B extends RunOptionsBuilder<B, O>, O> {

    private String metadataSchema;
    private boolean dryRun;
    private int batchSize;
    private int maxBatches;
    private Duration runBudget;
    private Duration statementTimeout;
    private Duration lockTimeout;
    private String lockName;
    private Duration reconnectTimeout;

    /** @param from the run options to start from (an operation's defaults, or options to change) */
    protected RunOptionsBuilder(RunOptions from) {
        run(from);
    }

    /** @return the options */
    public abstract O build();

    /** @return the run options set so far */
    protected final RunOptions runOptions() {
        return new RunOptions(metadataSchema, dryRun, batchSize, maxBatches, runBudget, statementTimeout, lockTimeout,
                lockName, reconnectTimeout);
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /**
     * @param r run options replacing every run setting made so far
     * @return this builder
     */
    public B run(RunOptions r) {
        metadataSchema = r.metadataSchema();
        dryRun = r.dryRun();
        batchSize = r.batchSize();
        maxBatches = r.maxBatches();
        runBudget = r.runBudget();
        statementTimeout = r.statementTimeout();
        lockTimeout = r.lockTimeout();
        lockName = r.lockName();
        reconnectTimeout = r.reconnectTimeout();
        return self();
    }

    /**
     * @param s the Postgres schema holding the ducklake_* tables
     * @return this builder
     */
    public B metadataSchema(String s) {
        metadataSchema = s;
        return self();
    }

    /**
     * @param d whether the run only reports (no writes, no advisory lock)
     * @return this builder
     */
    public B dryRun(boolean d) {
        dryRun = d;
        return self();
    }

    /**
     * @param n units of work per transaction (the operation's unit)
     * @return this builder
     */
    public B batchSize(int n) {
        batchSize = n;
        return self();
    }

    /**
     * @param n stop after this many batches; 0 = no limit
     * @return this builder
     */
    public B maxBatches(int n) {
        maxBatches = n;
        return self();
    }

    /**
     * @param d stop cleanly once this much wall-clock time is spent; null = unbounded
     * @return this builder
     */
    public B runBudget(Duration d) {
        runBudget = d;
        return self();
    }

    /**
     * @param d {@code statement_timeout} of each transaction
     * @return this builder
     */
    public B statementTimeout(Duration d) {
        statementTimeout = d;
        return self();
    }

    /**
     * @param d {@code lock_timeout} of each transaction
     * @return this builder
     */
    public B lockTimeout(Duration d) {
        lockTimeout = d;
        return self();
    }

    /**
     * @param n the advisory lock name taken by execute runs
     * @return this builder
     */
    public B lockName(String n) {
        lockName = n;
        return self();
    }

    /**
     * @param d how long to keep reconnecting after the connection is lost
     * @return this builder
     */
    public B reconnectTimeout(Duration d) {
        reconnectTimeout = d;
        return self();
    }
}
