package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.Durations;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;

import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.runtime.RunOptionsBuilder;

import java.time.Duration;
import java.util.List;

/**
 * Options of {@link ExpireSnapshots}: the generic {@link RunOptions} (schema, dry run, batch size in snapshots, limits,
 * timeouts, lock name) plus the expiry criteria. Build with {@link #builder()}, change with {@link #toBuilder()}.
 *
 * <p>Which snapshots go (checked in {@link #validate()} and resolved once per run by {@link ExpireSnapshots}):
 * {@code olderThan} and {@code retainLast} combine (a snapshot goes only when both allow it); {@code versions}
 * excludes both; with none of the three the catalog's own {@code expire_older_than} option (ducklake_metadata,
 * global scope) is used, and when that is not set either the run is a usage error. Whatever the criteria,
 * the newest snapshot and snapshots younger than {@code minAge} never go.
 *
 * @param run the generic run options; dry run means no writes, no advisory lock, no table locks beyond plain reads. The
 *     batch size counts snapshots expired per transaction, 1 to {@value #MAX_BATCH_SIZE} (the CLI's --batch-size of
 *     expire-snapshots has the same range and default), default {@value #DEFAULT_BATCH_SIZE}: each batch removes what a
 *     liveness pass against the snapshots left after it would remove; an execute run finds those rows in its candidate
 *     list, read once per run ({@code RunCandidates}), not by scanning the catalog per batch. The statement timeout
 *     defaults to {@link #DEFAULT_STATEMENT_TIMEOUT}; the rest as in {@link RunOptions#defaults()}
 * @param olderThan expire snapshots with {@code snapshot_time} strictly before this (an instant, or a duration
 *     counted back from the server's now() at the start of the run); null = not given
 * @param retainLast never expire the newest N snapshots (N ≥ 1); null = not given
 * @param versions expire exactly these snapshot ids; null = not given (not with olderThan / retainLast)
 * @param minAge never expire a snapshot younger than this, whatever the other options say, because an open
 *     DuckLake transaction may still need it for its conflict check; default 1 hour; zero allowed
 */
public record ExpireSnapshotsOptions(RunOptions run, OlderThan olderThan, Integer retainLast, List<Long> versions,
                                     Duration minAge) {

    /** Default batch size, in snapshots. */
    public static final int DEFAULT_BATCH_SIZE = 5_000;
    /** Largest batch size, in snapshots. */
    public static final int MAX_BATCH_SIZE = 1_000_000;
    /** Default minimum age of an expired snapshot. */
    public static final Duration DEFAULT_MIN_AGE = Duration.ofHours(1);
    /**
     * Default statement timeout of {@link #defaults()}, and so of the library's {@code expireSnapshots()}: 300 s, not
     * {@link RunOptions#DEFAULT_STATEMENT_TIMEOUT_SECONDS}' 120 s. The CLI's {@code expire-snapshots} and its
     * {@code maintain} step take the 120 s of the {@code --statement-timeout} every command shares; both defaults are
     * kept as they have been (documented in docs/library.md and docs/expire-snapshots.md).
     */
    public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(300);

    /**
     * Defaults: {@link RunOptions#defaults()} with batches of {@value #DEFAULT_BATCH_SIZE} snapshots and a statement
     * timeout of {@link #DEFAULT_STATEMENT_TIMEOUT}; no criterion (the catalog option), min age 1 h.
     */
    public static ExpireSnapshotsOptions defaults() {
        return new ExpireSnapshotsOptions(RunOptions.builder().batchSize(DEFAULT_BATCH_SIZE)
                .statementTimeout(DEFAULT_STATEMENT_TIMEOUT).build(), null, null, null, DEFAULT_MIN_AGE);
    }

    /** @return a builder from the {@link #defaults() defaults}: the way to set the options */
    public static Builder builder() {
        return defaults().toBuilder();
    }

    /** @return a builder from these options */
    public Builder toBuilder() {
        return new Builder(this);
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
     * Checks the values on their own (not against the catalog): the criteria and the minimum age, then the run options
     * with a batch size of up to {@value #MAX_BATCH_SIZE} snapshots.
     *
     * @throws JanitorException {@link Reason#USAGE} naming the first bad value
     */
    public void validate() throws JanitorException {
        if (run == null) {
            throw new JanitorException(Reason.USAGE, "run options are missing.");
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
        run.validate(MAX_BATCH_SIZE, "snapshots");
    }

    /** The builder of {@link ExpireSnapshotsOptions}: the run setters of {@link RunOptionsBuilder} and the criteria. */
    public static final class Builder extends RunOptionsBuilder<Builder, ExpireSnapshotsOptions> {

        private OlderThan olderThan;
        private Integer retainLast;
        private List<Long> versions;
        private Duration minAge;

        private Builder(ExpireSnapshotsOptions from) {
            super(from.run);
            olderThan = from.olderThan;
            retainLast = from.retainLast;
            versions = from.versions;
            minAge = from.minAge;
        }

        /**
         * @param t the time criterion; null = none
         * @return this builder
         */
        public Builder olderThan(OlderThan t) {
            olderThan = t;
            return this;
        }

        /**
         * @param n the count criterion (the newest N snapshots stay); null = none
         * @return this builder
         */
        public Builder retainLast(Integer n) {
            retainLast = n;
            return this;
        }

        /**
         * @param ids the snapshot ids to expire (copied); null = none
         * @return this builder
         */
        public Builder versions(List<Long> ids) {
            versions = ids == null ? null : List.copyOf(ids);
            return this;
        }

        /**
         * @param d the minimum age of an expired snapshot, 0 or more
         * @return this builder
         */
        public Builder minAge(Duration d) {
            minAge = d;
            return this;
        }

        @Override
        public ExpireSnapshotsOptions build() {
            return new ExpireSnapshotsOptions(runOptions(), olderThan, retainLast, versions, minAge);
        }
    }
}
