package dev.ducklake.janitor.ops.expiresnapshots;

import dev.ducklake.janitor.ops.runtime.RunRecorder;

import java.util.ArrayList;
import java.util.List;

/**
 * The figures and keyset position of one expire-snapshots run, summed batch by batch and then turned into the
 * {@link ExpireSnapshotsResult}; it also carries what every batch of the run shares (layout, selection, table budget).
 */
final class ExpiryTally {

    /** Batches listed in the result (the counts cover every batch). */
    static final int MAX_LISTED_BATCHES = 1000;

    final ExpiryLayout layout;
    final Selection sel;
    /** Most inlined relations one batch drops: the lock budget, halved on each full lock table (53200). */
    int tableBudget;
    /** The keyset position: batches take snapshot ids above this one (-1 before the first batch). */
    long after = -1;
    /** The newest release snapshot whose candidates went in a committed batch of the current candidate list. */
    long releasedAfter = Long.MIN_VALUE;
    /** This and the five counts below: summed over the batches (for a dry run, over the simulated ones). */
    long snapshots;
    long dataFiles;
    long deleteFiles;
    long tables;
    long inlined;
    long otherRows;
    /** Dead inlined rows deleted (or counted, dry run) by the sweep after the batches. */
    long inlinedRows;
    /** Dry run only: the tables and snapshot ranges the simulated expiry removes; null for an execute run. */
    List<ExpireSnapshotsResult.RemovedTable> removedTables;
    List<ExpireSnapshotsResult.SnapshotRange> expiredRanges;
    int batchCount;
    final List<ExpireSnapshotsResult.Batch> batches = new ArrayList<>();

    ExpiryTally(ExpiryLayout layout, Selection sel, int tableBudget) {
        this.layout = layout;
        this.sel = sel;
        this.tableBudget = tableBudget;
    }

    /** Back to no batch (a dry run's read transaction starts over when it is retried). */
    void reset() {
        after = -1;
        snapshots = dataFiles = deleteFiles = tables = inlined = otherRows = inlinedRows = 0;
        removedTables = null;
        expiredRanges = null;
        batchCount = 0;
        batches.clear();
    }

    /**
     * Counts one batch, lists it (up to {@link #MAX_LISTED_BATCHES}), and reports its warnings and its progress line
     * ({@code expired, batch N: …} or, dry run, {@code would expire, batch N: …}).
     *
     * @param f what the batch did, or for a dry run what it would do (this batch only, not cumulative)
     * @param seconds wall time of the batch
     */
    void add(ExpireBatch.Figures f, double seconds, RunRecorder rec, boolean dryRun) {
        batchCount++;
        snapshots += f.snapshots();
        dataFiles += f.dataFiles();
        deleteFiles += f.deleteFiles();
        tables += f.tables();
        inlined += f.inlinedTables();
        otherRows += f.otherRows();
        ExpireSnapshotsResult.Batch b = new ExpireSnapshotsResult.Batch(batchCount, f.snapshots(), f.firstSnapshot(),
                f.lastSnapshot(), f.dataFiles(), f.deleteFiles(), f.tables(), f.inlinedTables(), f.otherRows(), seconds);
        if (batches.size() < MAX_LISTED_BATCHES) {
            batches.add(b);
        }
        for (String w : f.warnings()) {
            rec.warn(w);
        }
        rec.info(String.format(java.util.Locale.ROOT, "%s batch %d: snapshots %d (%d..%d) data_files %d delete_files %d tables %d"
                + " inlined_tables %d other_rows %d in %.2f s", dryRun ? "would expire," : "expired,", b.number(), b.snapshots(),
                b.firstSnapshot(), b.lastSnapshot(), b.dataFiles(), b.deleteFiles(), b.tables(), b.inlinedTables(), b.otherRows(),
                b.seconds()));
    }
}
