package dev.ducklake.janitor.ops.cleanupoldfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.Transactions;
import dev.ducklake.janitor.pg.AdvisoryLock;
import dev.ducklake.janitor.pg.TablePrivileges;
import dev.ducklake.janitor.pg.Pooling;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.ops.files.CatalogFiles;
import dev.ducklake.janitor.ops.files.CatalogRetry;
import dev.ducklake.janitor.ops.files.CatalogWatermark;
import dev.ducklake.janitor.ops.files.DeleteProgress;
import dev.ducklake.janitor.ops.files.ParallelDeletes;
import dev.ducklake.janitor.ops.files.ConsultedCatalogs;
import dev.ducklake.janitor.ops.files.FileAges;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.ops.files.KnownFiles;
import dev.ducklake.janitor.ops.files.RunControl;
import dev.ducklake.janitor.ops.files.StorageOperation;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.PathResolver;
import dev.ducklake.janitor.storage.StorageException;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code cleanup-old-files}: deletes the files listed in {@code ducklake_files_scheduled_for_deletion} whose
 * {@code schedule_start} is before the cutoff, then their queue rows, batch by batch.
 *
 * <p>Mirrors DuckLake 1.5.5's {@code ducklake_cleanup_old_files} ({@code src/functions/ducklake_cleanup_files.cpp},
 * {@code GetOldFilesForCleanup}: path relative to data_path when path_is_relative, filter
 * {@code schedule_start < cutoff}, default cutoff from {@code delete_older_than} else 2 days) with these
 * differences, all on the side of keeping:
 * <ul>
 *   <li>bounded batches in path order ({@link QueueCursor}), each committed on its own; a batch's files deleted by {@link ParallelDeletes}
 *       ({@code --delete-concurrency} calls in flight), their sizes (bytes_deleted) from a listing where the store has
 *       one cheaper than a stat per file ({@link FileStore#listedSizes}, S3), else stat-ed just before each delete;</li>
 *   <li>a queue row is deleted (matched on all its values, not by id alone) only once its object is gone (that
 *       delete, the batch's transaction, is retried after a transient failure: {@code ops.files.CatalogRetry}); an
 *       object the store cannot delete keeps its row, is reported, and the run goes on (DuckLake: all or
 *       nothing);</li>
 *   <li>a missing object counts as deleted (its row goes, as in DuckLake), but is counted apart
 *       ({@code files_not_found}) with a warning naming it, and a data path holding no file at all stops the run first
 *       ({@link DataPathPresence}); queue rows of one location (two spellings, duplicate rows) collapse into one delete;</li>
 *   <li>a queued location that a {@code ducklake_data_file} / {@code ducklake_delete_file} row (of this or any
 *       consulted catalog, {@link ConsultedCatalogs}: the overlapping catalogs of this database and of the server's other
 *       databases, and those of --also-catalog) still resolves to is never deleted: the row stays and is reported as a
 *       finding. DuckLake queues a file only when it removes the file's own row, so only another catalog (or a file
 *       registered twice, duckdb/ducklake#1354) can still reference it; a catalog that could and cannot be read
 *       refuses the run as in delete-orphan-files.</li>
 * </ul>
 */
public final class QueueSweep {

    private QueueSweep() {
    }

    /**
     * Runs the cleanup on a plain connection: inspects the catalog, takes the advisory lock for execute runs, then
     * {@link #execute}. The CLI goes through {@link CleanupOldFiles} (the shared runtime) instead.
     *
     * @param c a connection to the catalog database (the engine switches autocommit off; the caller closes it)
     * @param store the file store serving the data path
     * @param o the options
     * @param listener receives each file and a line per batch
     * @return what was done
     * @throws JanitorException NOT_A_CATALOG / UNSUPPORTED_VERSION from the inspection; USAGE for an age under
     *     --min-age; LOCK_HELD; STORAGE when the store fails as a whole (access denied, still throttled after the
     *     retries): batches committed so far stay committed and consistent
     * @throws SQLException on database errors
     */
    public static CleanupOldFilesResult run(Connection c, FileStore store, CleanupOldFilesOptions o, FileListener listener)
            throws JanitorException, SQLException {
        Pooling.requireSessionBound(c, null, "cleanup-old-files", "temporary tables, a cursor held across transactions (WITH HOLD) and,"
                + " to execute, a session advisory lock");
        c.setAutoCommit(true);
        CatalogInspector.inspect(c, o.schema());
        AdvisoryLock lock = o.dryRun() ? null : AdvisoryLock.acquire(c, o.run().lockName(), o.schema());
        try {
            return execute(c, store, o, listener, RunControl.unbounded(o.run()));
        } finally {
            if (lock != null) {
                lock.release(c);
            }
        }
    }

    /**
     * The cleanup proper, on a catalog already inspected and (for execute runs) locked.
     *
     * @param c the session's connection (autocommit is switched off inside and restored)
     * @param store the file store serving the data path
     * @param o the options
     * @param listener receives each file and a line per batch
     * @param control batches, stop, --max-batches, --run-budget, figures
     * @return what was done
     * @throws JanitorException as {@link #run}
     * @throws SQLException on database errors
     */
    public static CleanupOldFilesResult execute(Connection c, FileStore store, CleanupOldFilesOptions o, FileListener listener,
                                                RunControl control) throws JanitorException, SQLException {
        o.validate();
        if (o.allowShortRetention() && o.minAge().compareTo(CleanupOldFilesOptions.FLOOR) < 0) {
            control.recorder().warn("--allow-short-retention: --min-age " + dev.ducklake.janitor.Durations.format(o.minAge())
                    + " is below the 1 h floor; a queued"
                    + " file that young may still be read by a running query");
        }
        c.setAutoCommit(true);
        // --lock-timeout on the session, for every catalog statement (its help says so); retried as 55P03 in CatalogRetry
        Transactions.setSessionLockTimeout(c, control.lockTimeout());
        PathResolver resolver = CatalogFiles.resolver(c, o.schema(), o.dataPathOverride());
        FileAges.Cutoff cutoff = FileAges.cutoff(c, o.schema(), o.olderThan(), o.minAge(), Instant.now());
        try (ConsultedCatalogs consulted = ConsultedCatalogs.find(c, o.schema(), resolver, o.consult(), control)) {
            DataPathPresence.require(c, o.schema(), store, resolver); // an unmounted volume must not empty the queue
            c.setAutoCommit(false);
            // before the known set: a catalog that commits after this reading is re-checked before each batch's deletes
            CatalogWatermark watermark = CatalogWatermark.read(c, consulted);
            KnownFiles known = KnownFiles.load(c, consulted, false);
            return new Run(c, store, o, listener, resolver, cutoff, known, control, consulted, watermark).execute();
        } finally {
            if (!c.getAutoCommit()) {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
    }

    private static final class Run {
        final Connection c;
        final FileStore store;
        final CleanupOldFilesOptions o;
        final FileListener listener;
        final PathResolver resolver;
        final FileAges.Cutoff cutoff;
        final KnownFiles known;
        final RunControl control;
        final ConsultedCatalogs consulted;
        final QueueCursor queueCursor;
        /** The data path as spelled and with links resolved: a queued file outside both is never deleted. */
        final PathResolver dataPaths;
        /** The run's figures and findings. */
        final CleanupTally t = new CleanupTally();
        boolean statRefused;
        /** The next batch, read while this one's deletes were in flight ({@link #prefetch}), or null. */
        List<QueueCursor.Entry> prefetched;
        /** The known locations among {@link #prefetched}'s, or null. */
        Set<String> prefetchedLive;
        /** Why reading the next batch ahead failed, or null; thrown once the batch it overlapped is committed. */
        SQLException prefetchFailure;
        /** The sizes of the files about to go, listed ahead while the last batch's deletes were in flight. */
        final SizeListings sizeListings;
        /** The delete workers (execute runs); null until {@link #execute} opens them. */
        ParallelDeletes deletes;
        /** A dry run's batches: what would go, counted. */
        final DryRunBatch dryRunBatch;
        final DeleteProgress progress;
        /** The last look at the catalogs before each batch's deletes. */
        final LiveRecheck liveRecheck;

        Run(Connection c, FileStore store, CleanupOldFilesOptions o, FileListener listener, PathResolver resolver,
            FileAges.Cutoff cutoff, KnownFiles known, RunControl control, ConsultedCatalogs consulted,
            CatalogWatermark watermark) {
            this.liveRecheck = new LiveRecheck(c, control, consulted, watermark, t, listener);
            this.control = control;
            this.consulted = consulted;
            this.c = c;
            this.store = store;
            this.o = o;
            this.listener = listener;
            this.resolver = resolver;
            this.cutoff = cutoff;
            this.known = known;
            this.dataPaths = resolver.withRealDirectory();
            this.queueCursor = new QueueCursor(c, Sql.qualified(o.schema(), "ducklake_files_scheduled_for_deletion"),
                    cutoff.cutoff(), resolver, o.batchSize());
            this.progress = new DeleteProgress(listener);
            this.dryRunBatch = new DryRunBatch(store, listener, t);
            this.sizeListings = new SizeListings(store, control);
        }

        CleanupOldFilesResult execute() throws JanitorException, SQLException {
            boolean startedBatch = store.batchDeleteEnabled();
            // one batch is --batch-size queue entries, fixed (no lock budget applies: no relation is dropped)
            control.recorder().batchSizes(o.batchSize(), o.batchSize());
            if (!o.dryRun() && !TablePrivileges.missing(c, o.schema(), List.of("ducklake_files_scheduled_for_deletion"), "DELETE").isEmpty()) {
                // before the first file goes: a file deleted whose queue row then cannot be would be a half-done run
                c.rollback();
                throw new JanitorException(Reason.PERMISSION_DENIED, "The catalog user lacks the DELETE privilege on"
                        + " ducklake_files_scheduled_for_deletion in schema '" + o.schema() + "'; nothing was deleted. Grant"
                        + " DELETE on it (docs/privileges.md).");
            }
            long nullPaths = queueCursor.countNullPaths();
            t.considered += nullPaths;
            t.keptUnresolvable += nullPaths;
            if (nullPaths > 0) {
                t.finding(nullPaths + " queue rows with a NULL path kept");
            }
            queueCursor.open();
            try (ParallelDeletes pool = new ParallelDeletes(store, o.deleteConcurrency(), control)) {
                deletes = pool;
                runBatches();
            } catch (SQLException e) {
                if (!control.cancelledByBounds(e)) {
                    throw e;
                }
                // the run's watchdog cancelled a statement between the batches' deletes: a stop as between batches
                c.rollback();
                t.stoppedDuring = StorageOperation.STOPPED_DURING_CATALOG;
                control.stoppedByBounds();
            } finally {
                sizeListings.close();
                queueCursor.close();
            }
            if (deletes.throttledPieces() > 0) {
                control.recorder().warn("The file store throttled the deletes (SlowDown) " + deletes.throttledPieces()
                        + " time(s); the delete concurrency went down to " + deletes.lowestLimit() + " of "
                        + deletes.concurrency() + " (--delete-concurrency) and back up as calls succeeded.");
            }
            t.warnAtEnd(control.recorder(), o.dryRun());
            return t.toResult(o, resolver, cutoff, startedBatch && !store.batchDeleteEnabled(), control, consulted);
        }

        private void runBatches() throws JanitorException, SQLException {
            List<QueueCursor.Entry> batch = queueCursor.next();
            while (true) {
                if (batch.isEmpty()) {
                    break;
                }
                if (!o.dryRun()) {
                    // this batch's transaction runs on the server session holding the run's lock (else a pooler moved it)
                    AdvisoryLock.named(o.run().lockName(), o.schema()).verify(c);
                }
                t.batches++;
                long deletedBefore = t.deleted;
                long bytesBefore = t.bytes;
                prefetched = null;
                // a full batch may have a next one: it is read while this batch's deletes are in flight
                runBatch(batch, new HashSet<>(), batch.size() == o.batchSize());
                c.commit();
                if (prefetchFailure != null) {
                    throw prefetchFailure;
                }
                progress.add(t.deleted - deletedBefore, t.bytes - bytesBefore, t.batchLine(o.dryRun()));
                boolean mayContinue = control.batchDone();
                if (t.stoppedDuring != null) {
                    control.stoppedByBounds();
                    break;
                }
                if (batch.size() < o.batchSize() || !mayContinue) {
                    break;
                }
                if (prefetched == null) {
                    prefetchedLive = null;
                    batch = queueCursor.next();
                } else {
                    batch = prefetched;
                }
            }
        }

        /**
         * Reads the next batch ahead and which of its locations the known set holds (on the caller's thread, while the
         * deletes are in flight; the known set does not change during the run); a failure waits for the batch's commit.
         */
        private void prefetch() {
            try {
                List<QueueCursor.Entry> next = queueCursor.next();
                Set<String> canon = new HashSet<>();
                for (QueueCursor.Entry e : next) {
                    if (e.canonical() != null) {
                        canon.add(e.canonical());
                    }
                }
                prefetchedLive = known.knownAmong(canon);
                prefetched = next;
                listSizesAhead(next, prefetchedLive);
            } catch (SQLException e) {
                prefetchFailure = e;
            }
        }

        /** Starts the size listing of the next batch's files that would go ({@link SizeListings#listAhead}). */
        private void listSizesAhead(List<QueueCursor.Entry> next, Set<String> live) {
            if (statRefused) {
                return;
            }
            Map<String, String> addresses = new LinkedHashMap<>();
            for (QueueCursor.Entry e : next) {
                if (e.address() != null && dataPaths.holds(e.canonical()) && !live.contains(e.canonical())) {
                    addresses.putIfAbsent(e.canonical(), e.address());
                }
            }
            sizeListings.listAhead(addresses.values());
        }

        private void runBatch(List<QueueCursor.Entry> batch, Set<String> doneCanonical, boolean readAhead) throws JanitorException, SQLException {
            Set<String> canon = new HashSet<>();
            for (QueueCursor.Entry e : batch) {
                t.considered += e.rows();
                if (e.canonical() != null) {
                    canon.add(e.canonical());
                }
            }
            Set<String> live = prefetchedLive != null ? prefetchedLive : known.knownAmong(canon);
            prefetchedLive = null;
            Map<String, String> toDelete = new LinkedHashMap<>();
            List<QueueCursor.Entry> candidates = new ArrayList<>();
            for (QueueCursor.Entry e : batch) {
                if (e.address() == null) {
                    t.keptUnresolvable += e.rows();
                    t.finding("kept (path_is_relative is NULL, or the path cannot be read, holds a '..' segment or ends in '/'): "
                            + CatalogInspector.printable(e.path()));
                    listener.file("kept", e.path(), -1, null, "path_is_relative is NULL, or the path is ambiguous");
                } else if (!dataPaths.holds(e.canonical())) {
                    t.keptOutside += e.rows();
                    t.finding("kept (outside the data path " + resolver.dataLocation().canonical() + ": a catalog that was not"
                            + " read may use it): " + e.address());
                    listener.file("kept", e.address(), -1, null, "outside the data path");
                } else if (live.contains(e.canonical())) {
                    t.keptLive += e.rows();
                    t.finding("kept (a live data or delete file resolves to it): " + e.address());
                    listener.file("kept", e.address(), -1, null, "still referenced by a live data or delete file");
                } else {
                    candidates.add(e);
                    if (!doneCanonical.contains(e.canonical())) {
                        toDelete.putIfAbsent(e.canonical(), e.address());
                    }
                }
            }
            if (o.dryRun()) {
                dryRunBatch.count(candidates, toDelete, doneCanonical);
                return;
            }
            if (!liveRecheck.keep(candidates, toDelete)) {
                return; // stopped before the deletes: the batch's rows stay
            }
            Set<String> gone = new HashSet<>(doneCanonical);
            List<String> addresses = new ArrayList<>(toDelete.values());
            Map<String, Long> listed;
            try {
                // sizes for bytes_deleted (the queue row has none): from a listing where the store lists cheaper than
                // a stat per file (S3); the rest are stat-ed just before their delete, on the worker
                listed = statRefused || addresses.isEmpty() ? Map.of() : sizeListings.sizes(toDelete);
            } catch (StorageException ex) {
                t.stoppedDuring = "deleting";
                t.finding("stopped before the delete calls of " + addresses.size() + " queued files (" + ex.getMessage()
                        + "): their rows are kept");
                return;
            }
            ParallelDeletes.Round out = deletes.delete(addresses, listed, !statRefused, readAhead ? this::prefetch : null);
            if (deletes.statRefusal() != null && !statRefused) {
                statRefused = true;
                control.recorder().warn("The file store refused to stat a queued file (" + deletes.statRefusal().getMessage()
                        + "); bytes_deleted counts only the files sized before that.");
            }
            for (Map.Entry<String, String> d : toDelete.entrySet()) {
                if (out.deleted().contains(d.getValue())) {
                    gone.add(d.getKey());
                    doneCanonical.add(d.getKey());
                    t.deleted++;
                    // missing: the store said so (local), or the listing just before the delete passed over it (S3)
                    boolean missing = out.alreadyMissing().contains(d.getValue()) || Long.valueOf(-1).equals(listed.get(d.getValue()));
                    if (missing) {
                        t.notFound(d.getValue());
                    }
                    long size = missing ? -1 : out.sizes().getOrDefault(d.getValue(), -1L);
                    if (size > 0) {
                        t.bytes += size;
                    } else if (size < 0 && !missing) {
                        t.unsized++;
                    }
                    listener.file("deleted", d.getValue(), size, null, missing ? "not found where the catalog says" : null);
                } else if (out.failed().containsKey(d.getValue())) {
                    StorageException why = out.failed().get(d.getValue());
                    t.failed++;
                    String reason = why == null ? "not confirmed by the store" : why.getMessage();
                    t.finding("failed: " + d.getValue() + ": " + reason);
                    listener.file("failed", d.getValue(), -1, null, reason);
                }
                // neither: a call the bounds abandoned or never started, or one that failed as a whole; the row stays
            }
            sizeListings.lastGone(gone);
            int unsettled = out.unsettled(addresses.size());
            if (out.stopped() != null) {
                // abandoned in flight or not started: those files may or may not be gone; their rows stay (a later run
                // finds them missing and removes the rows), the rows of the files gone are deleted below
                t.stoppedDuring = "deleting";
                t.finding("stopped during the delete calls of " + unsettled + " queued files (" + out.stopped().getMessage()
                        + "): their rows are kept");
            }
            if (out.failure() != null) {
                // the files the other calls deleted are gone: their rows go and commit, then the run fails
                List<QueueCursor.Entry> rows = new ArrayList<>();
                for (QueueCursor.Entry e : candidates) {
                    if (gone.contains(e.canonical())) {
                        rows.add(e);
                    }
                }
                t.rowsDeleted += commitRows(rows);
                StorageException ex = out.failure();
                throw new JanitorException(Reason.STORAGE, "The file store failed while deleting queued files ("
                        + ex.kind() + "): " + ex.getMessage() + ". Batches committed before stay committed, as do the rows"
                        + " of the files this batch deleted; the rows of " + unsettled + " files not deleted are kept.", ex);
            }
            List<QueueCursor.Entry> rows = new ArrayList<>();
            for (QueueCursor.Entry e : candidates) {
                if (gone.contains(e.canonical())) {
                    rows.add(e);
                }
            }
            t.rowsDeleted += commitRows(rows);
        }


        /**
         * Deletes the queue rows of entries whose files are gone and commits: the batch's transaction, retried as a
         * whole on the session after a failure the policy retries there ({@link CatalogRetry}: rolled back, backoff,
         * again). Re-running it is safe: its delete matches the rows on their ctids and all their values, so a row
         * is deleted once whatever the attempts, and only rows whose files this run saw gone are named. Each attempt
         * first checks that its server session holds the run's lock (a rolled-back transaction may have been the one
         * that checked it). A failure it does not retry ends the run with the rows kept (their files are gone: the
         * next run finds them missing and removes the rows); so does a retry the bounds refused to wait for, as a clean
         * stop ({@code stoppedDuring = "deleting"}).
         *
         * @return the rows deleted
         */
        private int commitRows(List<QueueCursor.Entry> rows) throws JanitorException, SQLException {
            int[] attempts = new int[1];
            int n;
            try {
                n = CatalogRetry.run(c, control, "deleting the queue rows of batch " + t.batches, () -> {
                    attempts[0]++;
                    AdvisoryLock.named(o.run().lockName(), o.schema()).verify(c);
                    int deletedRows = queueCursor.deleteRows(rows);
                    c.commit();
                    return deletedRows;
                });
            } catch (CatalogRetry.Stopped stopped) {
                // a clean stop: the files are gone, their rows stay (the next run finds them missing and removes them)
                t.stoppedDuring = "deleting";
                t.finding("stopped before the queue rows of " + rows.size() + " deleted files were removed ("
                        + stopped.getCause().getMessage() + "): the next run finds the files missing and removes the rows");
                return 0;
            }
            if (attempts[0] > 1) {
                // the next batch's known locations were read ahead in a transaction that was rolled back: read again
                prefetchedLive = null;
            }
            return n;
        }
    }
}
