package dev.ducklake.janitor.ops.cleanupoldfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.files.CatalogCensus;
import dev.ducklake.janitor.ops.files.CatalogRecheck;
import dev.ducklake.janitor.ops.files.CatalogRetry;
import dev.ducklake.janitor.ops.files.CatalogWatermark;
import dev.ducklake.janitor.ops.files.ConsultedCatalogs;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.ops.files.RunControl;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * cleanup-old-files' last look at the catalogs before each batch's deletes (its {@link #keep}): catalogs that appeared
 * since the survey ({@link CatalogCensus}) and, once a consulted catalog committed ({@link CatalogWatermark}), the rows
 * registered since the known set was read ({@link CatalogRecheck#ofLiveFiles}). One per run.
 */
final class LiveRecheck {

    private final Connection c;
    private final RunControl control;
    private final ConsultedCatalogs consulted;
    /** The consulted catalogs' newest snapshots when the known set was read. */
    private final CatalogWatermark watermark;
    /** Which of a batch's files a catalog registered during the run. */
    private final CatalogRecheck recheck;
    private final CleanupTally t;
    private final FileListener listener;
    /** Whether a consulted catalog committed since the known set was read: every batch is re-checked from then on. */
    private boolean stale;

    LiveRecheck(Connection c, RunControl control, ConsultedCatalogs consulted, CatalogWatermark watermark, CleanupTally t,
                FileListener listener) {
        this.c = c;
        this.control = control;
        this.consulted = consulted;
        this.watermark = watermark;
        this.recheck = CatalogRecheck.ofLiveFiles(c, consulted, watermark);
        this.t = t;
        this.listener = listener;
    }

    /**
     * The last look at the catalogs before a batch's deletes: a catalog created since the survey stops the run
     * ({@link CatalogCensus}); once a consulted catalog committed since the known set was read ({@link CatalogWatermark}),
     * which of the batch's files a data or delete file row names now ({@link CatalogRecheck#ofLiveFiles}) is kept, its
     * rows too, as {@code kept_live}. One catalog transaction, retried as a whole ({@link CatalogRetry}).
     *
     * @param candidates the batch's entries whose files would go; those kept are removed
     * @param toDelete canonical location to address; those kept are removed
     * @return false for a clean stop before the deletes (a catalog appeared; the bounds refused a retry's wait)
     */
    boolean keep(List<QueueCursor.Entry> candidates, Map<String, String> toDelete)
            throws JanitorException, SQLException {
        if (toDelete.isEmpty()) {
            return true;
        }
        Set<String> live;
        List<String> appeared = new ArrayList<>();
        try {
            live = CatalogRetry.run(c, control, "re-checking the files of batch " + t.batches + " against the catalogs",
                    () -> {
                        // a catalog created during the run is in neither the known set nor the re-check
                        appeared.clear();
                        appeared.addAll(consulted.census().appeared(consulted));
                        // once a catalog moved, the known set is stale for every batch after (no further reading)
                        stale = stale || appeared.isEmpty() && watermark.moved(watermark.now());
                        return stale && appeared.isEmpty() ? recheck.named(toDelete.values()) : Set.<String>of();
                    });
        } catch (CatalogRetry.Stopped stopped) {
            t.stoppedDuring = "deleting";
            t.finding("stopped before the deletes of batch " + t.batches + " (" + stopped.getCause().getMessage()
                    + "): its rows are kept");
            return false;
        }
        if (!appeared.isEmpty()) {
            t.stoppedDuring = "deleting";
            String why = CatalogCensus.stopLine("the deletes of batch " + t.batches, appeared, "its rows are kept");
            t.finding(why);
            control.recorder().warn(why);
            return false;
        }
        if (live.isEmpty()) {
            return true;
        }
        Set<String> kept = new HashSet<>();
        for (Map.Entry<String, String> d : toDelete.entrySet()) {
            if (live.contains(d.getValue())) {
                kept.add(d.getKey());
                t.finding("kept (registered in a catalog during the run): " + d.getValue());
                listener.file("kept", d.getValue(), -1, null, "registered in a catalog during the run");
            }
        }
        toDelete.keySet().removeAll(kept);
        for (QueueCursor.Entry e : candidates) {
            if (kept.contains(e.canonical())) {
                t.keptLive += e.rows();
            }
        }
        candidates.removeIf(e -> kept.contains(e.canonical()));
        return true;
    }
}
