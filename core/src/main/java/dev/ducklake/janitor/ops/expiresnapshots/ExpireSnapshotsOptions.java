package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.Durations;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;

import dev.ducklake.janitor.ops.runtime.RunOptions;

import java.time.Duration;
import java.util.List;

/**
 * Options of {@link ExpireSnapshots}. Build with {@link #defaults()} and the {@code with…} methods.
 *
 * <p>Which snapshots go (checked in {@link #validate()} and resolved once per run by {@link ExpireSnapshots}):
 * {@code olderThan} and {@code retainLast} combine (a snapshot goes only when both allow it); {@code versions}
 * excludes both; with none of the three the catalog's own {@code expire_older_than} option (ducklake_metadata,
 * global scope) is used, and when that is not set either the run is a usage error. Whatever the criteria,
 * the newest snapshot and snapshots younger than {@code minAge} never go.
 *
 * @param metadataSchema the Postgres schema holding the ducklake_* tables; default {@code public}
 * @param dryRun report only: no writes, no advisory lock, no table locks beyond plain reads; default false
 * @param olderThan expire snapshots with {@code snapshot_time} strictly before this (an instant, or a duration
 *     counted back from the server's now() at the start of the run); null = not given
 * @param retainLast never expire the newest N snapshots (N ≥ 1); null = not given
 * @param versions expire exactly these snapshot ids; null = not given (not with olderThan / retainLast)
 * @param minAge never expire a snapshot younger than this, whatever the other options say, because an open
 *     DuckLake transaction may still need it for its conflict check; default 1 hour; zero allowed
 * @param batchSize snapshots expired per transaction, 1 to 1,000,000 (the CLI's --batch-size of expire-snapshots has the
 *     same range and default); default 5,000. Each batch removes what a liveness pass against the snapshots left
 *     after it would remove; an execute run finds those rows in its candidate list, read once per run
 *     ({@code RunCandidates}), not by scanning the catalog per batch
 * @param maxBatches stop after this many batches; 0 = no limit (default)
 * @param runBudget stop cleanly once this much wall-clock time is spent (checked between batches; the first
 *     batch always goes through); null = unbounded (default)
 * @param statementTimeout {@code statement_timeout} of each batch; default 300 s
 * @param lockTimeout {@code lock_timeout} of each batch; default 5 s
 * @param lockName the advisory lock name taken in execute mode; default {@code ducklake-maintenance}
 * @param reconnectTimeout how long to keep reconnecting after the connection is lost; default 60 s
 */
public record ExpireSnapshotsOptions(String metadataSchema, boolean dryRun, OlderThan olderThan, Integer retainLast,
                                     List<Long> versions, Duration minAge, int batchSize, int maxBatches,
                                     Duration runBudget, Duration statementTimeout, Duration lockTimeout,
                                     String lockName, Duration reconnectTimeout) {

    /** Default batch size, in snapshots. */
    public static final int DEFAULT_BATCH_SIZE = 5_000;
    /** Largest batch size, in snapshots. */
    public static final int MAX_BATCH_SIZE = 1_000_000;
    /** Default minimum age of an expired snapshot. */
    public static final Duration DEFAULT_MIN_AGE = Duration.ofHours(1);

    /** Defaults: schema public, execute, no criterion (the catalog option), min age 1 h, batches of 5,000. */
    public static ExpireSnapshotsOptions defaults() {
        return new ExpireSnapshotsOptions("public", false, null, null, null, DEFAULT_MIN_AGE, DEFAULT_BATCH_SIZE, 0, null,
                Duration.ofSeconds(300), Duration.ofSeconds(5), "ducklake-maintenance", Duration.ofSeconds(60));
    }

    /**
     * The options of one run from the shared run options (schema, dry run, batch size in snapshots, limits,
     * timeouts, lock name) and the expiry criteria.
     *
     * @param run the shared run options
     * @param olderThan the time criterion, or null
     * @param retainLast the count criterion, or null
     * @param versions the explicit list, or null
     * @param minAge the minimum age
     * @return the options
     */
    public static ExpireSnapshotsOptions of(RunOptions run, OlderThan olderThan, Integer retainLast, List<Long> versions,
                                            Duration minAge) {
        return new ExpireSnapshotsOptions(run.metadataSchema(), run.dryRun(), olderThan, retainLast,
                versions == null ? null : List.copyOf(versions), minAge, run.batchSize(), run.maxBatches(), run.runBudget(),
                run.statementTimeout(), run.lockTimeout(), run.lockName(), run.reconnectTimeout());
    }

    /** @return a copy with another metadata schema */
    public ExpireSnapshotsOptions withMetadataSchema(String v) {
        return new ExpireSnapshotsOptions(v, dryRun, olderThan, retainLast, versions, minAge, batchSize, maxBatches, runBudget, statementTimeout, lockTimeout, lockName, reconnectTimeout);
    }

    /** @return a copy with dry run on or off */
    public ExpireSnapshotsOptions withDryRun(boolean v) {
        return new ExpireSnapshotsOptions(metadataSchema, v, olderThan, retainLast, versions, minAge, batchSize, maxBatches, runBudget, statementTimeout, lockTimeout, lockName, reconnectTimeout);
    }

    /** @return a copy with another older-than criterion (null = none) */
    public ExpireSnapshotsOptions withOlderThan(OlderThan v) {
        return new ExpireSnapshotsOptions(metadataSchema, dryRun, v, retainLast, versions, minAge, batchSize, maxBatches, runBudget, statementTimeout, lockTimeout, lockName, reconnectTimeout);
    }

    /** @return a copy with another retain-last criterion (null = none) */
    public ExpireSnapshotsOptions withRetainLast(Integer v) {
        return new ExpireSnapshotsOptions(metadataSchema, dryRun, olderThan, v, versions, minAge, batchSize, maxBatches, runBudget, statementTimeout, lockTimeout, lockName, reconnectTimeout);
    }

    /** @return a copy with an explicit version list (null = none) */
    public ExpireSnapshotsOptions withVersions(List<Long> v) {
        return new ExpireSnapshotsOptions(metadataSchema, dryRun, olderThan, retainLast, v == null ? null : List.copyOf(v), minAge, batchSize, maxBatches, runBudget, statementTimeout, lockTimeout, lockName, reconnectTimeout);
    }

    /** @return a copy with another minimum age */
    public ExpireSnapshotsOptions withMinAge(Duration v) {
        return new ExpireSnapshotsOptions(metadataSchema, dryRun, olderThan, retainLast, versions, v, batchSize, maxBatches, runBudget, statementTimeout, lockTimeout, lockName, reconnectTimeout);
    }

    /** @return a copy with another batch size (snapshots) */
    public ExpireSnapshotsOptions withBatchSize(int v) {
        return new ExpireSnapshotsOptions(metadataSchema, dryRun, olderThan, retainLast, versions, minAge, v, maxBatches, runBudget, statementTimeout, lockTimeout, lockName, reconnectTimeout);
    }

    /** @return a copy with another batch limit (0 = none) */
    public ExpireSnapshotsOptions withMaxBatches(int v) {
        return new ExpireSnapshotsOptions(metadataSchema, dryRun, olderThan, retainLast, versions, minAge, batchSize, v, runBudget, statementTimeout, lockTimeout, lockName, reconnectTimeout);
    }

    /** @return a copy with another run budget (null = unbounded) */
    public ExpireSnapshotsOptions withRunBudget(Duration v) {
        return new ExpireSnapshotsOptions(metadataSchema, dryRun, olderThan, retainLast, versions, minAge, batchSize, maxBatches, v, statementTimeout, lockTimeout, lockName, reconnectTimeout);
    }

    /** @return a copy with other statement and lock timeouts */
    public ExpireSnapshotsOptions withTimeouts(Duration statement, Duration lock) {
        return new ExpireSnapshotsOptions(metadataSchema, dryRun, olderThan, retainLast, versions, minAge, batchSize, maxBatches, runBudget, statement, lock, lockName, reconnectTimeout);
    }

    /** @return a copy with another advisory lock name */
    public ExpireSnapshotsOptions withLockName(String v) {
        return new ExpireSnapshotsOptions(metadataSchema, dryRun, olderThan, retainLast, versions, minAge, batchSize, maxBatches, runBudget, statementTimeout, lockTimeout, v, reconnectTimeout);
    }

    /** @return a copy with another reconnect timeout */
    public ExpireSnapshotsOptions withReconnectTimeout(Duration v) {
        return new ExpireSnapshotsOptions(metadataSchema, dryRun, olderThan, retainLast, versions, minAge, batchSize, maxBatches, runBudget, statementTimeout, lockTimeout, lockName, v);
    }

    /** Whether any explicit criterion (older-than, retain-last, versions) was given. */
    public boolean hasCriterion() {
        return olderThan != null || retainLast != null || versions != null;
    }

    /**
     * Parses a minimum age as the operator wrote it ({@code --min-age}, a maintain step's {@code min-age}) in the one
     * duration grammar ({@link Durations}); {@link #validate()} refuses a {@link Duration} out of
     * the same range with the same words.
     *
     * @param text the text, e.g. {@code 1h}, {@code 0s}
     * @return the duration, 0 to {@link Durations#MAX}, in whole milliseconds
     * @throws JanitorException {@link Reason#USAGE} {@code --min-age: <why>.} for a text that is not a duration, is
     *     negative or is longer than 100 years
     */
    public static Duration parseMinAge(String text) throws JanitorException {
        try {
            return Durations.parse(text);
        } catch (Durations.InvalidDuration e) {
            throw badMinAge(e);
        }
    }

    private static JanitorException badMinAge(Durations.InvalidDuration e) {
        return new JanitorException(Reason.USAGE, "--min-age: " + e.getMessage() + ".");
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
        if (versions != null && (olderThan != null || retainLast != null)) {
            throw new JanitorException(Reason.USAGE, "--versions cannot be combined with --older-than or --retain-last; "
                    + "give either an explicit list of snapshot ids or the age/count criteria.");
        }
        if (versions != null && versions.isEmpty()) {
            throw new JanitorException(Reason.USAGE, "--versions needs at least one snapshot id.");
        }
        if (versions != null && versions.stream().anyMatch(v -> v == null || v < 0)) {
            throw new JanitorException(Reason.USAGE, "--versions takes snapshot ids (integers >= 0).");
        }
        if (retainLast != null && retainLast < 1) {
            throw new JanitorException(Reason.USAGE, "--retain-last must be 1 or more snapshots, got " + retainLast + ".");
        }
        if (olderThan != null && olderThan.ago() != null && olderThan.ago().isNegative()) {
            throw new JanitorException(Reason.USAGE, "--older-than must not be a negative duration.");
        }
        if (minAge == null) {
            throw new JanitorException(Reason.USAGE, "--min-age must be a duration of 0s or more (e.g. 1h, 0s).");
        }
        try {
            Durations.checkRange(minAge);
        } catch (Durations.InvalidDuration e) {
            throw badMinAge(e);
        }
        if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
            throw new JanitorException(Reason.USAGE, "--batch-size must be between 1 and " + MAX_BATCH_SIZE + " snapshots, got " + batchSize + ".");
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
