package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.LockBudget;

import java.time.Duration;

/**
 * The options every maintenance operation shares. An operation's own options record holds one of these plus its
 * specific switches. Build with {@link #builder()}, change with {@link #toBuilder()}. Defaults are constants so that
 * the picocli options reference the same values ({@code defaultValue = "" + RunOptions.DEFAULT_BATCH_SIZE}).
 *
 * @param metadataSchema the Postgres schema holding the ducklake_* tables; default {@value #DEFAULT_METADATA_SCHEMA}
 * @param dryRun report only: no DDL, no DML, no advisory lock; default false
 * @param batchSize units of work per transaction, 1 to {@value LockBudget#MAX_BATCH}; default
 *     {@value #DEFAULT_BATCH_SIZE}, lowered to the server's lock budget ({@link LockBudget}) because each unit
 *     holds lock-table entries until commit
 * @param maxBatches stop after this many batches; 0 = no limit (default)
 * @param runBudget stop cleanly once this much wall-clock time is spent (checked between batches and inside a
 *     batch between units; at least one unit always goes through); null = unbounded (default)
 * @param statementTimeout {@code SET LOCAL statement_timeout} of each transaction; default
 *     {@value #DEFAULT_STATEMENT_TIMEOUT_SECONDS} s
 * @param lockTimeout {@code SET LOCAL lock_timeout} of each transaction; default {@value #DEFAULT_LOCK_TIMEOUT_SECONDS} s
 * @param lockName the advisory lock name taken by execute runs; default {@value #DEFAULT_LOCK_NAME}
 * @param reconnectTimeout how long to keep reconnecting after the connection is lost; default
 *     {@value #DEFAULT_RECONNECT_TIMEOUT_SECONDS} s
 */
public record RunOptions(String metadataSchema, boolean dryRun, int batchSize, int maxBatches, Duration runBudget,
                         Duration statementTimeout, Duration lockTimeout, String lockName, Duration reconnectTimeout) {

    /** Default metadata schema. */
    public static final String DEFAULT_METADATA_SCHEMA = "public";
    /** Default batch size, in units of work (tables for drop-orphan-inline-tables). */
    public static final int DEFAULT_BATCH_SIZE = 500;
    /** Default statement_timeout of each transaction, seconds. */
    public static final int DEFAULT_STATEMENT_TIMEOUT_SECONDS = 120;
    /** Default lock_timeout of each transaction, seconds. */
    public static final int DEFAULT_LOCK_TIMEOUT_SECONDS = 5;
    /** Default reconnect timeout, seconds. */
    public static final int DEFAULT_RECONNECT_TIMEOUT_SECONDS = 60;
    /** Default advisory lock name. */
    public static final String DEFAULT_LOCK_NAME = "ducklake-maintenance";

    /** @return the defaults: schema public, execute, default batch size, no limits, default timeouts and lock name */
    public static RunOptions defaults() {
        return new RunOptions(DEFAULT_METADATA_SCHEMA, false, DEFAULT_BATCH_SIZE, 0, null,
                Duration.ofSeconds(DEFAULT_STATEMENT_TIMEOUT_SECONDS), Duration.ofSeconds(DEFAULT_LOCK_TIMEOUT_SECONDS),
                DEFAULT_LOCK_NAME, Duration.ofSeconds(DEFAULT_RECONNECT_TIMEOUT_SECONDS));
    }

    /** @return a builder from the {@link #defaults() defaults}: the way to set the options */
    public static Builder builder() {
        return defaults().toBuilder();
    }

    /** @return a builder from these options */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * Checks the values on their own (not against the catalog), a batch being 1 to {@value LockBudget#MAX_BATCH} tables.
     *
     * @throws JanitorException {@link Reason#USAGE} naming the first bad value
     */
    public void validate() throws JanitorException {
        validate(LockBudget.MAX_BATCH, "tables");
    }

    /**
     * Checks the values on their own (not against the catalog), for an operation whose batch unit is not the lock
     * budget's (expire-snapshots: snapshots).
     *
     * @param maxBatchSize the largest batch size
     * @param unit what a batch counts, for the message
     * @throws JanitorException {@link Reason#USAGE} naming the first bad value
     */
    public void validate(int maxBatchSize, String unit) throws JanitorException {
        if (metadataSchema == null || metadataSchema.isEmpty()) {
            throw new JanitorException(Reason.USAGE, "--metadata-schema must not be empty.");
        }
        if (batchSize < 1 || batchSize > maxBatchSize) {
            throw new JanitorException(Reason.USAGE, "--batch-size must be between 1 and " + maxBatchSize + " " + unit + ", got " + batchSize + ".");
        }
        if (maxBatches < 0) {
            throw new JanitorException(Reason.USAGE, "--max-batches must be 0 (no limit) or more, got " + maxBatches + ".");
        }
        if (runBudget != null && (runBudget.isNegative() || runBudget.isZero())) {
            throw new JanitorException(Reason.USAGE, "--run-budget must be a positive number of seconds.");
        }
        if (statementTimeout == null || statementTimeout.isNegative() || lockTimeout == null || lockTimeout.isNegative()) {
            throw new JanitorException(Reason.USAGE, "--statement-timeout and --lock-timeout must be 0 or more seconds.");
        }
        if (lockName == null || lockName.isEmpty()) {
            throw new JanitorException(Reason.USAGE, "--lock-name must not be empty.");
        }
        if (reconnectTimeout == null || reconnectTimeout.isNegative()) {
            throw new JanitorException(Reason.USAGE, "--reconnect-timeout must be 0 or more seconds.");
        }
    }

    /** The builder of {@link RunOptions}: the setters of {@link RunOptionsBuilder} and nothing more. */
    public static final class Builder extends RunOptionsBuilder<Builder, RunOptions> {

        private Builder(RunOptions from) {
            super(from);
        }

        @Override
        public RunOptions build() {
            return runOptions();
        }
    }
}
