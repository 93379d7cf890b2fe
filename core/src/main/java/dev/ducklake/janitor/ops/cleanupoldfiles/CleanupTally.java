package dev.ducklake.janitor.ops.cleanupoldfiles;

import dev.ducklake.janitor.ops.files.ConsultedCatalogs;
import dev.ducklake.janitor.ops.files.FileAges;
import dev.ducklake.janitor.ops.files.RunControl;
import dev.ducklake.janitor.ops.runtime.RunRecorder;
import dev.ducklake.janitor.storage.PathResolver;

import java.util.ArrayList;
import java.util.List;

/**
 * The figures of one cleanup-old-files run, counted by the batches as they go (queue rows considered and kept by
 * reason, files deleted or failed or not found, bytes, queue rows deleted, findings), then turned into the warnings
 * that close the run and the {@link CleanupOldFilesResult}.
 */
final class CleanupTally {

    /** Findings listed in the result; {@link #findingsTotal} counts them all. */
    static final int MAX_FINDINGS = 100;

    final List<String> findings = new ArrayList<>();
    long considered;
    long deleted;
    long bytes;
    long rowsDeleted;
    /** Dry run: the queue rows of the files it would delete. */
    long rowsWouldDelete;
    long findingsTotal;
    long keptLive;
    long keptUnresolvable;
    /** Queue rows whose file lies outside the data path (kept). */
    long keptOutside;
    long failed;
    long notFound;
    String firstNotFound;
    /** Files deleted (or that would be) whose size the store did not give; bytes leaves them out. */
    long unsized;
    long batches;
    /** Where a stop or the run budget cut a batch short ("deleting", "stat"), or null. */
    String stoppedDuring;

    /** Counts a finding (a kept or failed queue entry, a stop inside a batch) and lists the first {@link #MAX_FINDINGS}. */
    void finding(String s) {
        findingsTotal++;
        if (findings.size() < MAX_FINDINGS) {
            findings.add(s);
        }
    }

    /** Counts a file not found where the catalog says it is, remembering the first for the warning. */
    void notFound(String address) {
        if (notFound++ == 0) {
            firstNotFound = address;
        }
    }

    /**
     * The progress line of the batch just committed, with the run's totals so far.
     *
     * @param dryRun whether files would be deleted rather than are
     * @return e.g. {@code batch 3: 3000 queue rows, deleted 2990 objects, 2995 rows deleted, 5 kept, 0 failed}
     */
    String batchLine(boolean dryRun) {
        return String.format(java.util.Locale.ROOT,
                "batch %d: %d queue rows, %s %d objects, %d rows deleted, %d kept, %d failed", batches, considered,
                dryRun ? "would delete" : "deleted", deleted, rowsDeleted, keptLive + keptUnresolvable + keptOutside,
                failed);
    }

    /**
     * The warnings that close a run: files not found where the catalog says (their rows went: a wrong data path
     * leaks them), and files without a size (bytes is then a lower bound).
     *
     * @param recorder where the warnings go
     * @param dryRun whether files would be deleted rather than are
     */
    void warnAtEnd(RunRecorder recorder, boolean dryRun) {
        if (notFound > 0) {
            recorder.warn(notFound + " queued files were not found where the catalog says they are (first: "
                    + firstNotFound + "); their queue rows " + (dryRun ? "would be" : "were") + " deleted. If the"
                    + " data path or --data-path does not point at where the files really are, they leak: check it.");
        }
        if (unsized > 0) {
            recorder.warn(unsized + " files " + (dryRun ? "that would be deleted" : "deleted") + " have no"
                    + " size from the store (the size listing did not show them and their stat failed): bytes_"
                    + (dryRun ? "would_delete" : "deleted") + " leaves them out (files_unsized).");
        }
    }

    /**
     * The run's result.
     *
     * @param o the options
     * @param resolver the data path used
     * @param cutoff the cutoff and where it came from
     * @param batchDeleteFallback whether the store gave up batch deletes during the run
     * @param control the run's generic figures
     * @param consulted the catalogs consulted, excluded and not consulted
     * @return the result
     */
    CleanupOldFilesResult toResult(CleanupOldFilesOptions o, PathResolver resolver, FileAges.Cutoff cutoff,
                                   boolean batchDeleteFallback, RunControl control, ConsultedCatalogs consulted) {
        return new CleanupOldFilesResult(o.schema(), resolver.dataPath(), cutoff.cutoff().toString(), cutoff.source(),
                o.dryRun(), considered, deleted, bytes, o.dryRun() ? rowsWouldDelete : rowsDeleted, keptLive, keptUnresolvable,
                keptOutside, failed, notFound, unsized, batchDeleteFallback, o.allowShortRetention(), List.copyOf(findings),
                findingsTotal,
                control.figures(), consulted.labels(), consulted.excluded(), consulted.notConsulted(), stoppedDuring);
    }
}
