package dev.ducklake.janitor.api;

import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.runtime.MaintenanceOperation;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.expiresnapshots.ExpireSnapshots;
import dev.ducklake.janitor.ops.expiresnapshots.ExpireSnapshotsOptions;
import dev.ducklake.janitor.ops.expiresnapshots.ExpireSnapshotsResult;
import dev.ducklake.janitor.ops.expiresnapshots.OlderThan;
import dev.ducklake.janitor.pg.ConnectionSpec;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * {@code expire-snapshots}: expires old snapshots in batches, with exactly the effect of DuckLake's
 * {@code ducklake_expire_snapshots} (rows only the expired snapshots could see are deleted, their files queued for
 * {@code cleanup-old-files}). Which snapshots go: {@link #olderThan} and {@link #retainLast} combine (a snapshot goes
 * only when both allow it); {@link #versions} excludes both; with none of the three the catalog's own
 * {@code expire_older_than} option is used, and without that the run fails with {@link Reason#USAGE}. The newest
 * snapshot and snapshots younger than {@link #minAge} never go.
 *
 * <pre>{@code
 * ExpireSnapshotsResult r = Janitor.on(dataSource, "lake_meta").expireSnapshots()
 *         .olderThan(Duration.ofDays(7)).retainLast(10).execute();
 * long gone = r.snapshotsExpired();
 * }</pre>
 *
 * Batch unit: snapshots (default {@value ExpireSnapshotsOptions#DEFAULT_BATCH_SIZE}, at most
 * {@value ExpireSnapshotsOptions#MAX_BATCH_SIZE}); statement timeout default 300 s
 * ({@link ExpireSnapshotsOptions#DEFAULT_STATEMENT_TIMEOUT}; the CLI's is 120 s).
 */
public final class ExpireSnapshotsAction extends MaintenanceAction<ExpireSnapshotsAction, ExpireSnapshotsResult> {

    private OlderThan olderThan;
    private Integer retainLast;
    private List<Long> versions;
    private Duration minAge;

    ExpireSnapshotsAction(Janitor janitor) {
        super(janitor);
    }

    /**
     * Expire snapshots whose {@code snapshot_time} is more than this long before the catalog server's {@code now()}
     * at the start of the run (one cutoff for the whole run). Default: not given.
     *
     * @param age how old a snapshot must be, positive
     * @return this action
     */
    public ExpireSnapshotsAction olderThan(Duration age) {
        this.olderThan = new OlderThan(null, Objects.requireNonNull(age, "age"));
        return this;
    }

    /**
     * Expire snapshots whose {@code snapshot_time} is strictly before this instant. Default: not given.
     *
     * @param cutoff the instant
     * @return this action
     */
    public ExpireSnapshotsAction olderThan(Instant cutoff) {
        this.olderThan = new OlderThan(Objects.requireNonNull(cutoff, "cutoff"), null);
        return this;
    }

    /**
     * Never expire the newest {@code count} snapshots. Default: not given.
     *
     * @param count snapshots kept, 1 or more
     * @return this action
     */
    public ExpireSnapshotsAction retainLast(int count) {
        this.retainLast = count;
        return this;
    }

    /**
     * Expire exactly these snapshot ids (not with {@link #olderThan} or {@link #retainLast}); an unknown id fails the
     * run. Default: not given.
     *
     * @param snapshotIds the snapshot ids
     * @return this action
     */
    public ExpireSnapshotsAction versions(List<Long> snapshotIds) {
        this.versions = List.copyOf(snapshotIds);
        return this;
    }

    /**
     * Never expire a snapshot younger than this, whatever the criteria say, because an open DuckLake transaction may
     * still need it for its conflict check. Default {@code 1 hour} ({@link ExpireSnapshotsOptions#DEFAULT_MIN_AGE});
     * zero allowed. A negative age or one longer than 100 years ({@link dev.ducklake.janitor.Durations#MAX}) fails
     * {@code execute()} with {@link Reason#USAGE}, in the words the CLI's {@code --min-age} uses for the same duration.
     *
     * @param age the minimum age, 0 to 100 years
     * @return this action
     */
    public ExpireSnapshotsAction minAge(Duration age) {
        this.minAge = Objects.requireNonNull(age, "age");
        return this;
    }

    @Override
    MaintenanceOperation<ExpireSnapshotsResult> operation(ConnectionSpec spec, String schema, ProgressListener listener) {
        ExpireSnapshotsOptions d = ExpireSnapshotsOptions.defaults();
        ExpireSnapshotsOptions o = d.toBuilder().run(runOptions(d.run(), schema)).olderThan(olderThan).retainLast(retainLast)
                .versions(versions).minAge(minAge == null ? d.minAge() : minAge).build();
        return new ExpireSnapshots(spec, o, listener);
    }
}
