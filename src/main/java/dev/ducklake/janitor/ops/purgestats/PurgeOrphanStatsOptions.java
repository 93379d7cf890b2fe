package dev.ducklake.janitor.ops.purgestats;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;

import java.time.Duration;

/**
 * Options of {@link PurgeOrphanStats}. Build with {@link #defaults()} and the {@code with…} methods.
 *
 * @param metadataSchema the Postgres schema holding the ducklake_* tables (default {@code public})
 * @param dryRun count what would be deleted, change nothing, take no lock (default false)
 * @param batchSize ids per batch transaction: table_ids for the table-level stats, data_file_ids for the per-file stats
 *     (default {@value #DEFAULT_BATCH_SIZE}, 1 to 100,000)
 * @param maxBatches stop after this many batches (null = no limit); a later run continues
 * @param statementTimeout statement_timeout of each statement (default {@value #DEFAULT_STATEMENT_TIMEOUT_SECONDS} s)
 * @param lockTimeout lock_timeout of each statement (default {@value #DEFAULT_LOCK_TIMEOUT_SECONDS} s)
 * @param lockName the advisory lock name taken by execute runs (default {@value #DEFAULT_LOCK_NAME})
 */
public record PurgeOrphanStatsOptions(String metadataSchema, boolean dryRun, int batchSize, Integer maxBatches,
                                      Duration statementTimeout, Duration lockTimeout, String lockName) {

    /** Default ids per batch. */
    public static final int DEFAULT_BATCH_SIZE = 1000;
    /** Default statement timeout, seconds. */
    public static final long DEFAULT_STATEMENT_TIMEOUT_SECONDS = 300;
    /** Default lock timeout, seconds. */
    public static final long DEFAULT_LOCK_TIMEOUT_SECONDS = 5;
    /** Default advisory lock name, shared with every maintenance operation. */
    public static final String DEFAULT_LOCK_NAME = "ducklake-maintenance";

    /** The defaults. */
    public static PurgeOrphanStatsOptions defaults() {
        return new PurgeOrphanStatsOptions("public", false, DEFAULT_BATCH_SIZE, null,
                Duration.ofSeconds(DEFAULT_STATEMENT_TIMEOUT_SECONDS), Duration.ofSeconds(DEFAULT_LOCK_TIMEOUT_SECONDS), DEFAULT_LOCK_NAME);
    }

    /** @return a copy with this metadata schema */
    public PurgeOrphanStatsOptions withMetadataSchema(String s) {
        return new PurgeOrphanStatsOptions(s, dryRun, batchSize, maxBatches, statementTimeout, lockTimeout, lockName);
    }

    /** @return a copy with this dry-run flag */
    public PurgeOrphanStatsOptions withDryRun(boolean d) {
        return new PurgeOrphanStatsOptions(metadataSchema, d, batchSize, maxBatches, statementTimeout, lockTimeout, lockName);
    }

    /** @return a copy with this batch size (ids per batch) */
    public PurgeOrphanStatsOptions withBatchSize(int n) {
        return new PurgeOrphanStatsOptions(metadataSchema, dryRun, n, maxBatches, statementTimeout, lockTimeout, lockName);
    }

    /** @return a copy with this batch limit (null = none) */
    public PurgeOrphanStatsOptions withMaxBatches(Integer n) {
        return new PurgeOrphanStatsOptions(metadataSchema, dryRun, batchSize, n, statementTimeout, lockTimeout, lockName);
    }

    /** @return a copy with these timeouts */
    public PurgeOrphanStatsOptions withTimeouts(Duration statement, Duration lock) {
        return new PurgeOrphanStatsOptions(metadataSchema, dryRun, batchSize, maxBatches, statement, lock, lockName);
    }

    /** @return a copy with this advisory lock name */
    public PurgeOrphanStatsOptions withLockName(String n) {
        return new PurgeOrphanStatsOptions(metadataSchema, dryRun, batchSize, maxBatches, statementTimeout, lockTimeout, n);
    }

    /**
     * Checks the values.
     *
     * @throws JanitorException USAGE naming the bad value
     */
    public void validate() throws JanitorException {
        if (metadataSchema == null || metadataSchema.isEmpty() || metadataSchema.indexOf('\0') >= 0) {
            throw new JanitorException(Reason.USAGE, "--metadata-schema must name a schema.");
        }
        if (batchSize < 1 || batchSize > 100_000) {
            throw new JanitorException(Reason.USAGE, "--batch-size must be between 1 and 100000 ids.");
        }
        if (maxBatches != null && maxBatches < 1) {
            throw new JanitorException(Reason.USAGE, "--max-batches must be 1 or more.");
        }
        for (Duration d : new Duration[] {statementTimeout, lockTimeout}) {
            if (d == null || d.isNegative() || d.toMillis() > Integer.MAX_VALUE) {
                throw new JanitorException(Reason.USAGE, "timeouts must be between 0 and 2147483 seconds.");
            }
        }
        if (lockName == null || lockName.isEmpty()) {
            throw new JanitorException(Reason.USAGE, "--lock-name must not be empty.");
        }
    }
}
