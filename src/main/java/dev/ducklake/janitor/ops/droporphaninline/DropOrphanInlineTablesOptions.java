package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.LockBudget;

import java.time.Duration;

/**
 * Options of {@link DropOrphanInlineTables}. Build with {@link #defaults()} and the {@code with…} methods.
 *
 * @param metadataSchema the Postgres schema holding the ducklake_* tables; default {@code public}
 * @param dryRun report only: no DDL, no DML, no advisory lock; default false
 * @param batchSize tables per transaction, 1 to 2000; default 500, lowered to the server's lock budget
 *     ({@link LockBudget}) because each DROP holds lock-table entries until commit
 * @param maxBatches stop after this many batches; 0 = no limit (default)
 * @param runBudget stop cleanly once this much wall-clock time is spent (checked between batches and after
 *     each table inside a batch; at least one table always goes through); null = unbounded (default)
 * @param statementTimeout {@code SET LOCAL statement_timeout} of each batch; default 120 s
 * @param lockTimeout {@code SET LOCAL lock_timeout} of each batch; default 5 s
 * @param lockName the advisory lock name taken in execute mode; default {@code ducklake-maintenance}
 * @param reconnectTimeout how long to keep trying to reconnect after the connection is lost; default 60 s
 * @param includeUnregistered also drop inlined tables that have no registry row: unregistered leftovers
 *     {@code ducklake_inlined_data_<id>_<v>} (older DuckLake versions deleted the row but kept the table) and
 *     inlined deletion tables {@code ducklake_inlined_delete_<id>}, both only for unreachable table_ids; default
 *     false, because such tables are found by name in pg_class rather than through DuckLake's own registry (they
 *     are always reported)
 * @param includeNonempty also drop orphan tables that still hold rows; default false (skipped with a warning),
 *     because the rows are lost. Safe in the catalog's terms: the table_id is unreachable, so no retained
 *     snapshot can read them, and DuckLake's own snapshot expiry drops such tables whatever their content
 */
public record DropOrphanInlineTablesOptions(String metadataSchema, boolean dryRun, int batchSize, int maxBatches,
                                            Duration runBudget, Duration statementTimeout, Duration lockTimeout,
                                            String lockName, Duration reconnectTimeout,
                                            boolean includeUnregistered, boolean includeNonempty) {

    /** Default batch size, in tables. */
    public static final int DEFAULT_BATCH_SIZE = 500;
    /** Default advisory lock name. */
    public static final String DEFAULT_LOCK_NAME = "ducklake-maintenance";

    /** The defaults: schema public, execute, batches of 500, no limits, 120 s / 5 s timeouts, registry orphans only, empty tables only. */
    public static DropOrphanInlineTablesOptions defaults() {
        return new DropOrphanInlineTablesOptions("public", false, DEFAULT_BATCH_SIZE, 0, null, Duration.ofSeconds(120),
                Duration.ofSeconds(5), DEFAULT_LOCK_NAME, Duration.ofSeconds(60), false, false);
    }

    /** @return a copy with another metadata schema */
    public DropOrphanInlineTablesOptions withMetadataSchema(String v) {
        return new DropOrphanInlineTablesOptions(v, dryRun, batchSize, maxBatches, runBudget, statementTimeout, lockTimeout, lockName, reconnectTimeout, includeUnregistered, includeNonempty);
    }

    /** @return a copy with dry run on or off */
    public DropOrphanInlineTablesOptions withDryRun(boolean v) {
        return new DropOrphanInlineTablesOptions(metadataSchema, v, batchSize, maxBatches, runBudget, statementTimeout, lockTimeout, lockName, reconnectTimeout, includeUnregistered, includeNonempty);
    }

    /** @return a copy with another batch size (tables) */
    public DropOrphanInlineTablesOptions withBatchSize(int v) {
        return new DropOrphanInlineTablesOptions(metadataSchema, dryRun, v, maxBatches, runBudget, statementTimeout, lockTimeout, lockName, reconnectTimeout, includeUnregistered, includeNonempty);
    }

    /** @return a copy with another batch limit (0 = none) */
    public DropOrphanInlineTablesOptions withMaxBatches(int v) {
        return new DropOrphanInlineTablesOptions(metadataSchema, dryRun, batchSize, v, runBudget, statementTimeout, lockTimeout, lockName, reconnectTimeout, includeUnregistered, includeNonempty);
    }

    /** @return a copy with another run budget (null = unbounded) */
    public DropOrphanInlineTablesOptions withRunBudget(Duration v) {
        return new DropOrphanInlineTablesOptions(metadataSchema, dryRun, batchSize, maxBatches, v, statementTimeout, lockTimeout, lockName, reconnectTimeout, includeUnregistered, includeNonempty);
    }

    /** @return a copy with another statement timeout */
    public DropOrphanInlineTablesOptions withStatementTimeout(Duration v) {
        return new DropOrphanInlineTablesOptions(metadataSchema, dryRun, batchSize, maxBatches, runBudget, v, lockTimeout, lockName, reconnectTimeout, includeUnregistered, includeNonempty);
    }

    /** @return a copy with another lock timeout */
    public DropOrphanInlineTablesOptions withLockTimeout(Duration v) {
        return new DropOrphanInlineTablesOptions(metadataSchema, dryRun, batchSize, maxBatches, runBudget, statementTimeout, v, lockName, reconnectTimeout, includeUnregistered, includeNonempty);
    }

    /** @return a copy with another advisory lock name */
    public DropOrphanInlineTablesOptions withLockName(String v) {
        return new DropOrphanInlineTablesOptions(metadataSchema, dryRun, batchSize, maxBatches, runBudget, statementTimeout, lockTimeout, v, reconnectTimeout, includeUnregistered, includeNonempty);
    }

    /** @return a copy with another reconnect timeout */
    public DropOrphanInlineTablesOptions withReconnectTimeout(Duration v) {
        return new DropOrphanInlineTablesOptions(metadataSchema, dryRun, batchSize, maxBatches, runBudget, statementTimeout, lockTimeout, lockName, v, includeUnregistered, includeNonempty);
    }

    /** @return a copy with unregistered leftovers and inlined deletion tables included or not */
    public DropOrphanInlineTablesOptions withIncludeUnregistered(boolean v) {
        return new DropOrphanInlineTablesOptions(metadataSchema, dryRun, batchSize, maxBatches, runBudget, statementTimeout, lockTimeout, lockName, reconnectTimeout, v, includeNonempty);
    }

    /** @return a copy with non-empty orphans included or not */
    public DropOrphanInlineTablesOptions withIncludeNonempty(boolean v) {
        return new DropOrphanInlineTablesOptions(metadataSchema, dryRun, batchSize, maxBatches, runBudget, statementTimeout, lockTimeout, lockName, reconnectTimeout, includeUnregistered, v);
    }

    /**
     * Checks the values on their own (not against the catalog).
     *
     * @throws JanitorException {@link Reason#USAGE} naming the first bad value
     */
    public void validate() throws JanitorException {
        if (metadataSchema == null || metadataSchema.isEmpty()) {
            throw new JanitorException(Reason.USAGE, "--metadata-schema must not be empty.");
        }
        if (batchSize < 1 || batchSize > LockBudget.MAX_BATCH) {
            throw new JanitorException(Reason.USAGE, "--batch-size must be between 1 and " + LockBudget.MAX_BATCH + " tables, got " + batchSize + ".");
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
}
