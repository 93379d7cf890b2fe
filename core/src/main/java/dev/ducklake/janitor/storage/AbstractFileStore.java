package dev.ducklake.janitor.storage;

/**
 * What every {@link FileStore} shares: the batch-delete switch (on until the store rejects a batch delete, then off
 * until closed) and the batch limit of 1,000 addresses (S3 DeleteObjects' limit, used by every store so that batches
 * are the same size everywhere).
 */
public abstract class AbstractFileStore implements FileStore {

    /** The largest batch {@link #delete} accepts. */
    public static final int MAX_DELETE_BATCH = 1000;

    /** Delete calls kept in flight on an object store by default ({@link FileStore#defaultDeleteConcurrency}). */
    public static final int OBJECT_STORE_DELETE_CONCURRENCY = 8;

    private volatile boolean batch = true;
    private final java.util.concurrent.atomic.AtomicLong throttles = new java.util.concurrent.atomic.AtomicLong();

    /** Counts one "slow down" answer ({@link #throttleEvents}); called by the retry loop. */
    protected final void throttled() {
        throttles.incrementAndGet();
    }

    @Override
    public final long throttleEvents() {
        return throttles.get();
    }

    @Override
    public int maxDeleteBatch() {
        return MAX_DELETE_BATCH;
    }

    @Override
    public final void disableBatchDelete() {
        batch = false;
    }

    @Override
    public final boolean batchDeleteEnabled() {
        return batch;
    }
}
