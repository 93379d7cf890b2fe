package dev.ducklake.janitor.ops.cleanupoldfiles;

import dev.ducklake.janitor.ops.files.RunControl;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.StorageException;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The sizes (bytes_deleted: a queue row has none) of the files a cleanup batch is about to delete, from the store's
 * listing ({@link FileStore#listedSizes}: S3 lists cheaper than a HEAD per key): the next batch's files are listed on a
 * thread of their own while this batch's deletes are in flight ({@link #listAhead}); the listing deletes nothing, and
 * the next batch's re-check against the catalogs still comes before its deletes. {@link #sizes} then lists again what
 * the batch asks beyond that listing, and the files the last batch deleted (a listing ahead may have seen them before
 * that delete: another spelling of one location queued again). One per run; {@link #close()} it at the run's end.
 */
final class SizeListings implements AutoCloseable {

    private final FileStore store;
    private final RunControl control;
    /** The listing started ahead, or null. */
    private Future<Map<String, Long>> ahead;
    /** The addresses {@link #ahead} lists. */
    private Set<String> aheadOf;
    /** The canonical locations the last batch deleted. */
    private Set<String> lastGone = Set.of();
    /** The thread of {@link #ahead}, made on first use. */
    private ExecutorService thread;

    SizeListings(FileStore store, RunControl control) {
        this.store = store;
        this.control = control;
    }

    /**
     * Starts listing the sizes of the next batch's files that would go.
     *
     * @param addresses their addresses (none: nothing is listed)
     */
    void listAhead(Collection<String> addresses) {
        if (addresses.isEmpty()) {
            return;
        }
        if (thread == null) {
            thread = Executors.newSingleThreadExecutor(r -> {
                Thread th = new Thread(r, "ducklake-janitor-sizes-ahead");
                th.setDaemon(true);
                return th;
            });
        }
        List<String> list = new ArrayList<>(addresses);
        aheadOf = new HashSet<>(list);
        ahead = thread.submit(() -> store.listedSizes(list));
    }

    /**
     * @param toDelete the batch's files about to go, canonical location to address
     * @return sizes by address, bytes; -1 for a file the listing passed over (not found)
     * @throws StorageException when a listing failed
     */
    Map<String, Long> sizes(Map<String, String> toDelete) throws StorageException {
        Future<Map<String, Long>> f = ahead;
        Set<String> of = aheadOf;
        ahead = null;
        aheadOf = null;
        Map<String, Long> out = new HashMap<>();
        if (f != null) {
            try {
                out.putAll(f.get());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw control.ended("size listing", e);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof StorageException se) {
                    throw se;
                }
                throw new StorageException(StorageException.Kind.OTHER, "size listing: " + e.getCause(), e.getCause());
            }
        }
        List<String> rest = new ArrayList<>();
        for (Map.Entry<String, String> d : toDelete.entrySet()) {
            if (of == null || !of.contains(d.getValue()) || lastGone.contains(d.getKey())) {
                rest.add(d.getValue());
                out.remove(d.getValue());
            }
        }
        if (!rest.isEmpty()) {
            out.putAll(store.listedSizes(rest));
        }
        return out;
    }

    /** @param gone the canonical locations the batch just deleted (its deletes done) */
    void lastGone(Set<String> gone) {
        lastGone = new HashSet<>(gone);
    }

    /** Ends a listing still in flight (the run ended before the batch it sized) and its thread. */
    @Override
    public void close() {
        if (ahead != null) {
            ahead.cancel(true);
        }
        if (thread != null) {
            thread.shutdownNow();
        }
    }
}
