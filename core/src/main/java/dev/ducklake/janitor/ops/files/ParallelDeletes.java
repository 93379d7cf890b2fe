package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.storage.CallBounds;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.storage.StoredObject;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The bounded worker pool of the storage commands' deletes ({@code --delete-concurrency}): one round of addresses
 * (already re-checked against the catalog by the caller) is cut into pieces of at most {@link FileStore#maxDeleteBatch}
 * (S3: one DeleteObjects request each), and up to the current limit of pieces are in flight at once; the caller's
 * thread waits for them all and gets every object's outcome, exact: deleted (with the size measured before the delete,
 * when asked), failed with the store's reason, or not attempted (a stop, the run budget, a failure of a whole call).
 * No piece starts once the run's bounds are spent; a whole-call failure stops new pieces and is returned after the
 * pieces in flight end. Retries stay in the store's one retry loop ({@link dev.ducklake.janitor.storage.StorageRetry}).
 *
 * <p>Throttling lowers the limit: when the store's {@link FileStore#throttleEvents} grew since the last piece ended, the limit
 * halves (at least 1); after as many clean pieces as the limit, it grows by one again, up to the concurrency asked
 * (additive increase, multiplicative decrease, as TCP). With concurrency 1 no thread is started: pieces of up to
 * {@link FileStore#maxDeleteBatch} run one after the other on the caller's thread (the behaviour before the pool).
 *
 * <p>Memory is that of one round: the caller bounds the round (a batch of the queue, a spilled chunk of candidates).
 */
public final class ParallelDeletes implements AutoCloseable {

    /** The largest {@code --delete-concurrency}. */
    public static final int MAX_CONCURRENCY = 64;

    private final FileStore store;
    private final CallBounds bounds;
    private final int max;
    private final ExecutorService pool;
    private int limit;
    private int lowest;
    private int cleanStreak;
    private long seenThrottles;
    private long throttledPieces;
    private final AtomicBoolean statRefused = new AtomicBoolean();
    private volatile StorageException statRefusal;

    /**
     * @param store the store
     * @param concurrency the most delete calls in flight (1 = one at a time on the caller's thread); 0 for the store's
     *     {@link FileStore#defaultDeleteConcurrency}
     * @param bounds the run's budget and stop request, checked before each piece starts
     */
    public ParallelDeletes(FileStore store, int concurrency, CallBounds bounds) {
        this.store = store;
        this.bounds = bounds == null ? CallBounds.NONE : bounds;
        this.max = effective(store, concurrency);
        this.limit = max;
        this.lowest = max;
        this.seenThrottles = store.throttleEvents();
        if (max == 1) {
            pool = null;
        } else {
            AtomicInteger n = new AtomicInteger();
            pool = Executors.newFixedThreadPool(max, r -> {
                Thread t = new Thread(r, "ducklake-janitor-delete-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
    }

    /**
     * @param store the store
     * @param requested {@code --delete-concurrency}, 0 when not given
     * @return the concurrency a run uses: the requested one, else the store's default
     */
    public static int effective(FileStore store, int requested) {
        int c = requested > 0 ? requested : store.defaultDeleteConcurrency();
        return Math.max(1, Math.min(MAX_CONCURRENCY, c));
    }

    /** @return the concurrency asked (the ceiling of the limit) */
    public int concurrency() {
        return max;
    }

    /** @return the lowest limit throttling brought the pool to (equal to {@link #concurrency()} when never throttled) */
    public int lowestLimit() {
        return lowest;
    }

    /** @return how many pieces saw the store throttle while they ran */
    public long throttledPieces() {
        return throttledPieces;
    }

    /** @return the store's refusal to stat (access denied) when sizes were asked, or null: later stats were skipped */
    public StorageException statRefusal() {
        return statRefusal;
    }

    /**
     * What one round did.
     *
     * @param deleted addresses that are gone (including those already missing)
     * @param alreadyMissing the subset of {@code deleted} the store said did not exist
     * @param failed addresses the store could not delete, with its reason
     * @param sizes size in bytes before the delete, of the deleted addresses whose size was known (listed, given by
     *     the caller, or stat-ed just before the delete); absent = unknown
     * @param stopped non-null when the run's bounds ended the round: the addresses of pieces not started or abandoned
     *     in flight are in none of the sets (their files may or may not be gone)
     * @param failure non-null when a piece failed as a whole (access denied, still throttled after the retries):
     *     no piece started after it, its addresses and those not started are in none of the sets
     */
    public record Round(Set<String> deleted, Set<String> alreadyMissing, Map<String, StorageException> failed,
                        Map<String, Long> sizes, StorageException stopped, StorageException failure) {

        /** @return the number of addresses that were neither deleted nor failed */
        public int unsettled(int asked) {
            return asked - deleted.size() - failed.size();
        }
    }

    /** What one piece did, or its whole-call failure. */
    private record Piece(List<String> addresses, Set<String> deleted, Set<String> missing, Map<String, StorageException> failed,
                         Map<String, Long> sizes, StorageException error) {
    }

    /**
     * Deletes one round of addresses.
     *
     * @param addresses distinct exact addresses, already re-checked by the caller; held by the caller (bounded)
     * @param knownSizes sizes the caller already has (a listing, {@link FileStore#listedSizes}), by address, -1 for
     *     one known to be missing (not stat-ed); may be empty
     * @param statUnknown whether to stat, just before its delete and on the worker's thread, each address whose
     *     size is not known (cleanup-old-files' bytes_deleted); a store that refuses stats (access denied) is not
     *     asked again by this pool
     * @return every address's outcome
     */
    public Round delete(List<String> addresses, Map<String, Long> knownSizes, boolean statUnknown) {
        return delete(addresses, knownSizes, statUnknown, null);
    }

    /**
     * {@link #delete(List, Map, boolean)}, running other work of the caller while the round's calls are in flight: with a
     * pool, {@code whileInFlight} runs on the caller's thread once the first calls are started (cleanup-old-files reads
     * its next batch from PostgreSQL meanwhile); without one (concurrency 1) it runs after the round. It must not use
     * the store's outcome of this round, and it runs at most once.
     *
     * @param addresses as {@link #delete(List, Map, boolean)}
     * @param knownSizes as {@link #delete(List, Map, boolean)}
     * @param statUnknown as {@link #delete(List, Map, boolean)}
     * @param whileInFlight the caller's work, or null; what it throws propagates after the round's calls are settled
     * @return every address's outcome
     */
    public Round delete(List<String> addresses, Map<String, Long> knownSizes, boolean statUnknown, Runnable whileInFlight) {
        Runnable pending = whileInFlight;
        RuntimeException pendingFailure = null;
        Set<String> deleted = new HashSet<>();
        Set<String> missing = new HashSet<>();
        Map<String, StorageException> failed = new LinkedHashMap<>();
        Map<String, Long> sizes = new HashMap<>();
        StorageException stopped = null;
        StorageException failure = null;
        int n = addresses.size();
        int piece = Math.max(1, Math.min(store.maxDeleteBatch(), (n + max - 1) / max));
        CompletionService<Piece> ecs = pool == null ? null : new ExecutorCompletionService<>(pool);
        int next = 0;
        int inFlight = 0;
        while (next < n || inFlight > 0) {
            while (next < n && inFlight < limit && stopped == null && failure == null) {
                if (bounds.exhausted()) {
                    stopped = bounds.ended("delete " + (n - next) + " files", null);
                    break;
                }
                List<String> p = addresses.subList(next, Math.min(n, next + piece));
                next += p.size();
                if (ecs == null) {
                    Piece r = run(p, knownSizes, statUnknown);
                    StorageException e = settle(r, deleted, missing, failed, sizes);
                    if (e != null && e.kind() == StorageException.Kind.STOPPED) {
                        stopped = e;
                    } else if (e != null) {
                        failure = e;
                    }
                } else {
                    ecs.submit(() -> run(p, knownSizes, statUnknown));
                    inFlight++;
                }
            }
            if (stopped != null || failure != null) {
                next = n;
            }
            if (pending != null && inFlight > 0) {
                Runnable w = pending;
                pending = null;
                try {
                    w.run();
                } catch (RuntimeException e) {
                    pendingFailure = e; // after the calls in flight are settled
                }
            }
            if (inFlight > 0) {
                Piece r;
                try {
                    r = ecs.take().get();
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    // the pieces in flight finish on their threads; their outcomes are not known here
                    return new Round(deleted, missing, failed, sizes, stopped != null ? stopped
                            : bounds.ended("delete", ie), failure);
                } catch (ExecutionException ee) {
                    Throwable c = ee.getCause();
                    if (c instanceof RuntimeException re) {
                        throw re;
                    }
                    if (c instanceof Error er) {
                        throw er;
                    }
                    throw new IllegalStateException(c);
                }
                inFlight--;
                StorageException e = settle(r, deleted, missing, failed, sizes);
                if (e != null && e.kind() == StorageException.Kind.STOPPED) {
                    stopped = stopped == null ? e : stopped;
                } else if (e != null && failure == null) {
                    failure = e;
                }
            }
        }
        if (pending != null) {
            pending.run();
        }
        if (pendingFailure != null) {
            throw pendingFailure;
        }
        return new Round(deleted, missing, failed, sizes, stopped, failure);
    }

    /**
     * The outcome of one stat of {@link #stat}.
     *
     * @param object the object, or empty when the store says it does not exist (null when the stat failed)
     * @param failure what the stat threw, or null
     */
    public record Stat(java.util.Optional<StoredObject> object, StorageException failure) {
    }

    /**
     * Stats addresses on the pool's threads, up to the concurrency at once (on the caller's thread, one after the
     * other, with concurrency 1), for delete-orphan-files' confirmation of inventory candidates.
     *
     * @param addresses exact addresses (a delete round's, held by the caller)
     * @return one outcome per address, in order; an unexpected failure of a stat is a {@link StorageException.Kind#OTHER}
     * @throws InterruptedException when the caller is interrupted while waiting (the stats in flight are abandoned)
     */
    public List<Stat> stat(List<String> addresses) throws InterruptedException {
        List<Stat> out = new java.util.ArrayList<>(addresses.size());
        if (pool == null) {
            for (String a : addresses) {
                out.add(statOne(a));
            }
            return out;
        }
        List<java.util.concurrent.Future<Stat>> futures = new java.util.ArrayList<>(addresses.size());
        try {
            for (String a : addresses) {
                futures.add(pool.submit(() -> statOne(a)));
            }
            for (java.util.concurrent.Future<Stat> f : futures) {
                try {
                    out.add(f.get());
                } catch (ExecutionException e) {
                    out.add(new Stat(null, new StorageException(StorageException.Kind.OTHER, String.valueOf(e.getCause()),
                            e.getCause())));
                }
            }
            return out;
        } finally {
            for (java.util.concurrent.Future<Stat> f : futures) {
                f.cancel(true); // done ones stay done; after an interrupt, the rest are abandoned
            }
        }
    }

    private Stat statOne(String address) {
        try {
            return new Stat(store.stat(address), null);
        } catch (StorageException e) {
            return new Stat(null, e);
        }
    }

    /** Merges a piece's outcome and adjusts the limit (caller's thread only); returns its whole-call failure. */
    private StorageException settle(Piece r, Set<String> deleted, Set<String> missing, Map<String, StorageException> failed,
                                    Map<String, Long> sizes) {
        long t = store.throttleEvents();
        if (t > seenThrottles) {
            seenThrottles = t;
            throttledPieces++;
            limit = Math.max(1, limit / 2);
            lowest = Math.min(lowest, limit);
            cleanStreak = 0;
        } else if (limit < max && ++cleanStreak >= limit) {
            limit++;
            cleanStreak = 0;
        }
        if (r.error() != null) {
            return r.error();
        }
        deleted.addAll(r.deleted());
        missing.addAll(r.missing());
        failed.putAll(r.failed());
        for (Map.Entry<String, Long> s : r.sizes().entrySet()) {
            if (r.deleted().contains(s.getKey()) && !r.missing().contains(s.getKey())) {
                sizes.put(s.getKey(), s.getValue());
            }
        }
        return null;
    }

    /** One piece: the sizes not known (when asked), then one delete call. Runs on a worker (or the caller). */
    private Piece run(List<String> addresses, Map<String, Long> knownSizes, boolean statUnknown) {
        Map<String, Long> sizes = new HashMap<>();
        // a store that measures on its way to the delete (local) is asked to, instead of a stat per file first
        boolean measure = statUnknown && store.measuresOnDelete();
        for (String a : addresses) {
            Long k = knownSizes.get(a);
            if (k != null) {
                if (k >= 0) {
                    sizes.put(a, k);
                }
            } else if (statUnknown && !measure && !statRefused.get()) {
                try {
                    store.stat(a).map(StoredObject::sizeBytes).filter(s -> s >= 0).ifPresent(s -> sizes.put(a, s));
                } catch (StorageException e) {
                    if (e.kind() == StorageException.Kind.STOPPED) {
                        return new Piece(addresses, Set.of(), Set.of(), Map.of(), Map.of(), e);
                    }
                    if (e.kind() == StorageException.Kind.ACCESS_DENIED && statRefused.compareAndSet(false, true)) {
                        statRefusal = e;
                    }
                }
            }
        }
        try {
            var out = measure ? store.delete(addresses, true) : store.delete(addresses);
            for (Map.Entry<String, Long> m : out.sizes().entrySet()) {
                if (m.getValue() >= 0) {
                    sizes.putIfAbsent(m.getKey(), m.getValue());
                }
            }
            return new Piece(addresses, out.deleted(), out.alreadyMissing(), out.failed(), sizes, null);
        } catch (StorageException e) {
            return new Piece(addresses, Set.of(), Set.of(), Map.of(), Map.of(), e);
        }
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }
}
