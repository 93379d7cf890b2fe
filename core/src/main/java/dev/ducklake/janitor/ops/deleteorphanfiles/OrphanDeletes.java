package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.AdvisoryLock;
import dev.ducklake.janitor.ops.files.CatalogRecheck;
import dev.ducklake.janitor.ops.files.CatalogCensus;
import dev.ducklake.janitor.ops.files.CatalogRetry;
import dev.ducklake.janitor.ops.files.ConsultedCatalogs;
import dev.ducklake.janitor.ops.files.DeleteProgress;
import dev.ducklake.janitor.ops.files.ParallelDeletes;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.ops.files.RunControl;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.storage.StoredObject;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The delete phase of delete-orphan-files: the spilled candidates deleted round by round, each round re-checked
 * against the catalogs first ({@link dev.ducklake.janitor.ops.files.CatalogRecheck}) and, for an inventory's
 * candidates, confirmed with the store.
 */
final class OrphanDeletes {

    private OrphanDeletes() {
    }

    /**
     * Deletes the spilled candidates round by round: a round is {@value CatalogRecheck#MIN_ROUND} candidates, or
     * {@code --delete-concurrency} × {@link FileStore#maxDeleteBatch} when that is more, read from the spill file (memory
     * bounded by a round), first {@link CatalogRecheck re-checked} against the catalog in one statement per database
     * (what a catalog row names now is kept; the re-check's transaction is retried as a whole after a transient failure,
 * {@link CatalogRetry}, and only the answer of an attempt that committed decides), then deleted by
     * {@link ParallelDeletes} with that many delete calls in flight. No round starts once a stop is requested or the
     * run budget is spent.
     *
     * @return deleted, failed, kept because registered during the run, bytes deleted (the listed sizes), findings not
     *     listed (beyond {@value OrphanSweep#MAX_FINDINGS})
     */
    static long[] delete(FileStore store, Path spill, FileListener listener, List<String> findings, Connection c,
                                 ConsultedCatalogs consulted, CatalogRecheck recheck, RunControl control,
                                 OrphanSweep.Survey s, int concurrency,
                                 AdvisoryLock lock, Instant confirmBefore)
            throws JanitorException, IOException, SQLException {
        long deleted = 0;
        long failed = 0;
        long registered = 0;
        long bytes = 0;
        long overflow = 0;
        DeleteProgress progress = new DeleteProgress(listener);
        try (ParallelDeletes deletes = new ParallelDeletes(store, concurrency, control);
             DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(spill)))) {
            int round = Math.max(CatalogRecheck.MIN_ROUND, deletes.concurrency() * store.maxDeleteBatch());
            List<String> batch = new ArrayList<>();
            Map<String, long[]> meta = new HashMap<>();
            boolean eof = false;
            while (!eof) {
                try {
                    String a = in.readUTF();
                    long size = in.readLong();
                    long mtime = in.readLong();
                    if (meta.putIfAbsent(a, new long[] {size, mtime}) == null) {
                        batch.add(a);
                    }
                } catch (EOFException e) {
                    eof = true;
                }
                if (batch.size() >= round || eof && !batch.isEmpty()) {
                    if (control.exhausted()) {
                        // a clean stop between delete rounds: the candidates left stay for the next run
                        control.stoppedByBounds();
                        break;
                    }
                    // the round's catalog transaction, retried as a whole on the session after a failure the policy
                    // retries there (CatalogRetry): each attempt reads the catalogs again, and only the answer of an
                    // attempt that committed decides what is deleted
                    Set<String> live;
                    List<String> appeared = new ArrayList<>();
                    try {
                        live = CatalogRetry.run(c, control, "re-checking a round of " + batch.size()
                                + " orphans against the catalogs", () -> {
                                    // a catalog created during the run is in neither the known set nor the re-check
                                    appeared.clear();
                                    appeared.addAll(consulted.census().appeared(consulted));
                                    Set<String> named = appeared.isEmpty() ? recheck.named(batch) : Set.of();
                                    // the session that re-checked is the one holding the run's lock: else a pooler moved us off it
                                    lock.verify(c);
                                    c.commit();
                                    return named;
                                });
                    } catch (CatalogRetry.Stopped stopped) {
                        // a clean stop before the round's deletes, as between rounds: its candidates stay for the next run
                        control.stoppedByBounds();
                        break;
                    }
                    if (!appeared.isEmpty()) {
                        // a clean stop before the round's deletes: its candidates stay for the next run, which reads them
                        s.stoppedDuring = "deleting";
                        String why = CatalogCensus.stopLine("a round of " + batch.size() + " orphans", appeared,
                                "none of them was deleted");
                        findings.add(why);
                        control.recorder().warn(why);
                        break;
                    }
                    if (!live.isEmpty()) {
                        List<String> keep = new ArrayList<>();
                        for (String a : batch) {
                            if (live.contains(a)) {
                                registered++;
                                long[] m = meta.get(a);
                                listener.file("kept", a, m[0], m[1] == Long.MIN_VALUE ? null : Instant.ofEpochMilli(m[1]),
                                        "registered in a catalog during the run");
                                if (findings.size() < OrphanSweep.MAX_FINDINGS) {
                                    findings.add("kept (registered in a catalog during the run): " + a);
                                } else {
                                    overflow++;
                                }
                            } else {
                                keep.add(a);
                            }
                        }
                        batch.clear();
                        batch.addAll(keep);
                    }
                    if (confirmBefore != null) {
                        // from an inventory: the store says now whether each candidate is still there and still old
                        if (!confirm(deletes, batch, meta, confirmBefore, listener, findings, s)) {
                            s.stoppedDuring = "deleting";
                            control.stoppedByBounds();
                            break;
                        }
                    }
                    ParallelDeletes.Round out = deletes.delete(batch, Map.of(), false);
                    long deletedBefore = deleted;
                    long bytesBefore = bytes;
                    for (String a : batch) {
                        long[] m = meta.get(a);
                        Instant mtime = m[1] == Long.MIN_VALUE ? null : Instant.ofEpochMilli(m[1]);
                        if (out.deleted().contains(a)) {
                            deleted++;
                            bytes += Math.max(0, m[0]);
                            listener.file("deleted", a, m[0], mtime, null);
                        } else if (out.failed().containsKey(a)) {
                            failed++;
                            StorageException why = out.failed().get(a);
                            String reason = why == null ? "not confirmed by the store" : why.getMessage();
                            if (findings.size() < OrphanSweep.MAX_FINDINGS) {
                                findings.add("failed: " + a + ": " + reason);
                            } else {
                                overflow++;
                            }
                            listener.file("failed", a, m[0], mtime, reason);
                        }
                        // neither: a call the bounds abandoned or never started, or one that failed as a whole
                    }
                    int unsettled = out.unsettled(batch.size());
                    if (out.stopped() != null) {
                        // the calls in flight were abandoned: their files may or may not be gone (all were orphans,
                        // re-checked); those not started stay for the next run
                        s.stoppedDuring = "deleting";
                        control.stoppedByBounds();
                        findings.add("stopped during the delete calls of " + unsettled + " orphans (" + out.stopped().getMessage()
                                + "): they are counted neither deleted nor failed; the next run finds those still there");
                        break;
                    }
                    if (out.failure() != null) {
                        StorageException ex = out.failure();
                        throw new JanitorException(Reason.STORAGE, "Deleting orphans failed (" + ex.kind() + "): "
                                + ex.getMessage() + "; " + deleted + " were deleted before.", ex);
                    }
                    progress.add(deleted - deletedBefore, bytes - bytesBefore,
                            String.format(java.util.Locale.ROOT, "deleted %d orphans, %d failed", deleted, failed));
                    batch.clear();
                    meta.clear();
                }
            }
            if (deletes.throttledPieces() > 0) {
                control.recorder().warn("The file store throttled the deletes (SlowDown) " + deletes.throttledPieces()
                        + " time(s); the delete concurrency went down to " + deletes.lowestLimit() + " of "
                        + deletes.concurrency() + " (--delete-concurrency) and back up as calls succeeded.");
            }
        }
        return new long[] {deleted, failed, registered, bytes, overflow};
    }

    /**
     * Confirms inventory candidates with the store just before their delete round: a candidate the store no longer has
     * is dropped (gone since the inventory; counted, not failed), one whose modification time is now at or after the
     * cutoff is kept (modified since), one the store cannot stat is kept (counted, a finding). What stays in the batch
     * takes the store's size and time. Stats run on the run's delete pool ({@link ParallelDeletes#stat}), as many at
     * a time as deletes.
     *
     * @return false when the run's bounds stopped the stats (nothing of this round is deleted)
     */
    private static boolean confirm(ParallelDeletes deletes, List<String> batch, Map<String, long[]> meta, Instant cutoff,
                                   FileListener listener, List<String> findings, OrphanSweep.Survey s) {
        List<ParallelDeletes.Stat> results;
        try {
            results = deletes.stat(batch);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        List<String> keep = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            String a = batch.get(i);
            ParallelDeletes.Stat r = results.get(i);
            long[] m = meta.get(a);
            if (r.failure() != null) {
                StorageException e = r.failure();
                if (e.kind() == StorageException.Kind.STOPPED) {
                    return false;
                }
                s.inventoryStatFailed++;
                listener.file("kept", a, m[0], null, "the store could not confirm it: " + e.getMessage());
                if (findings.size() < OrphanSweep.MAX_FINDINGS) {
                    findings.add("kept (the stat confirming an inventory entry failed): " + a + ": " + e.getMessage());
                }
                continue;
            }
            java.util.Optional<StoredObject> now = r.object();
            if (now.isEmpty()) {
                s.inventoryGone++;
                listener.file("kept", a, m[0], null, "no longer in the store (gone since the inventory)");
            } else if (now.get().lastModified() == null || !now.get().lastModified().isBefore(cutoff)) {
                s.inventoryModified++;
                listener.file("kept", a, now.get().sizeBytes(), now.get().lastModified(), "modified since the inventory,"
                        + " or the store gives no time");
            } else {
                m[0] = now.get().sizeBytes();
                m[1] = now.get().lastModified().toEpochMilli();
                keep.add(a);
            }
        }
        batch.clear();
        batch.addAll(keep);
        return true;
    }
}
