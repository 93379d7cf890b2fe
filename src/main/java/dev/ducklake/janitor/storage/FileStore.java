package dev.ducklake.janitor.storage;

import java.io.Closeable;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

/**
 * A place where DuckLake keeps data files: the local file system or an object store. Implementations exist for
 * local disk ({@link LocalFileStore}) and S3 ({@link S3FileStore}); a GCS or Azure store implements the same four
 * calls and is chosen by scheme in {@link FileStores}.
 *
 * <p>Every failure is a {@link StorageException} with a {@link StorageException.Kind}, so that callers and the
 * retry policy treat throttling, "not found" and "batch delete unsupported" alike on every store.
 */
public interface FileStore extends Closeable {

    /** A lazily fetched listing; {@link #close()} releases what it holds (open directories, HTTP connections). */
    interface Listing extends Iterator<StoredObject>, Closeable {
        @Override
        void close();
    }

    /**
     * Lists every object (never a directory or a prefix marker) under a prefix, fetched page by page with the
     * store's continuation, in ascending {@link StorageLocation#BYTE_ORDER} of the canonical strings.
     * A failure while iterating is thrown from {@code hasNext}/{@code next} as an unchecked
     * {@link java.io.UncheckedIOException} wrapping a {@link StorageException}.
     *
     * @param prefix a prefix location of this store's scheme
     * @return the listing; memory is bounded by one page (S3: up to 1,000 keys; local: one directory)
     * @throws StorageException when the listing cannot start (missing bucket, access denied)
     */
    Listing list(StorageLocation prefix) throws StorageException;

    /**
     * Deletes objects. A missing object counts as deleted. One object's failure does not stop the others.
     *
     * @param addresses at most {@link #maxDeleteBatch()} exact addresses of objects of this store (a local path or
     *     {@code file://} URI; {@code s3://bucket/key}); deleted byte for byte as given, never re-spelled
     * @return per-object outcome
     * @throws StorageException only for failures of the whole call (throttling, access denied, batch delete not
     *     supported: kind {@link StorageException.Kind#BATCH_DELETE_UNSUPPORTED})
     */
    DeleteOutcome delete(List<String> addresses) throws StorageException;

    /**
     * Stats one object.
     *
     * @param address the exact address of an object
     * @return size and modification time, or empty when it does not exist
     * @throws StorageException on other failures
     */
    Optional<StoredObject> stat(String address) throws StorageException;

    /** The largest batch {@link #delete} accepts (S3 DeleteObjects: 1,000 keys). */
    int maxDeleteBatch();

    /** Switches to one request per object (a store that rejected a batch delete); remembered until closed. */
    void disableBatchDelete();

    /** Whether batch deletes are still used. */
    boolean batchDeleteEnabled();

    /**
     * Bounds every later call by the run's budget and stop request ({@link CallBounds}); by default a store does
     * nothing (local calls do not hang), an object store caps each call's timeout and its retries and abandons a call
     * in flight on a stop.
     *
     * @param bounds the run's bounds
     */
    default void bound(CallBounds bounds) {
    }

    @Override
    void close();
}
