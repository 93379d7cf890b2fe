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
     * {@link #delete(List)}, measuring each object's size just before deleting it when {@code measure} is set and the
     * store can do so on the way ({@link #measuresOnDelete}); by default it measures nothing.
     *
     * @param addresses as {@link #delete(List)}
     * @param measure whether to measure the sizes ({@link DeleteOutcome#sizes})
     * @return per-object outcome
     * @throws StorageException as {@link #delete(List)}
     */
    default DeleteOutcome delete(List<String> addresses, boolean measure) throws StorageException {
        return delete(addresses);
    }

    /**
     * Whether {@link #delete(List, boolean)} measures sizes, cheaper than a {@link #stat} per object before the delete
     * (local: a stat through the folder's handle it deletes through).
     *
     * @return false by default
     */
    default boolean measuresOnDelete() {
        return false;
    }

    /**
     * Stats one object.
     *
     * @param address the exact address of an object
     * @return size and modification time, or empty when it does not exist
     * @throws StorageException on other failures
     */
    Optional<StoredObject> stat(String address) throws StorageException;

    /**
     * Opens one object for reading, streamed (for {@code delete-orphan-files --inventory s3://…}: an S3 Inventory manifest
     * and its listing files, which may lie in another bucket than the data path). The request goes through the store's
     * retry loop and the run's bounds; the bytes are read by the caller, each read bounded by the client's read timeout.
     * By default a store reads nothing.
     *
     * @param address the exact address of an object of this store's scheme ({@code s3://bucket/key})
     * @return the object's bytes (close it)
     * @throws StorageException kind {@link StorageException.Kind#NOT_FOUND} when there is no such object; kind OTHER
     *     when this store cannot read objects
     */
    default java.io.InputStream read(String address) throws StorageException {
        throw new StorageException(StorageException.Kind.OTHER, "This store (" + getClass().getSimpleName() + ") does not read "
                + address + ": an s3:// object is read through the S3 store of an s3:// data path", null);
    }

    /** The largest batch {@link #delete} accepts (S3 DeleteObjects: 1,000 keys). */
    int maxDeleteBatch();

    /** Switches to one request per object (a store that rejected a batch delete); remembered until closed. */
    void disableBatchDelete();

    /** Whether batch deletes are still used. */
    boolean batchDeleteEnabled();

    /**
     * How many delete calls a storage command keeps in flight on this store when {@code --delete-concurrency} is not
     * given: object stores are latency-bound ({@value AbstractFileStore#OBJECT_STORE_DELETE_CONCURRENCY} requests),
     * a local file system is bound by the kernel ({@link LocalFileStore}: {@value LocalFileStore#DELETE_CONCURRENCY}).
     *
     * @return at least 1
     */
    default int defaultDeleteConcurrency() {
        return AbstractFileStore.OBJECT_STORE_DELETE_CONCURRENCY;
    }

    /**
     * How many times the store has answered "slow down" (HTTP 429/503, SlowDown, also per key in a batch delete) since
     * it was opened, counted by the retry loop before each backoff; a caller that keeps several calls in flight lowers
     * its concurrency when this grows.
     *
     * @return a count that only grows; 0 for a store that is never throttled (local)
     */
    default long throttleEvents() {
        return 0;
    }

    /**
     * The sizes of these objects where the store can give them cheaper than one stat each (S3: a bounded listing of
     * the key range each folder of the list spans, 1,000 keys per request, instead of a HeadObject per key); a
     * caller stats the rest. By default nothing (a local stat is cheap).
     *
     * @param addresses exact addresses of objects of this store (at most a batch)
     * @return size in bytes by address; -1 for an address the listing covered and did not show (missing); an
     *     address not in the map is unknown (beyond the listing's bound, or the listing failed)
     * @throws StorageException kind {@link StorageException.Kind#STOPPED} when the run's bounds end the look-up;
     *     other failures leave the sizes unknown instead of failing
     */
    default java.util.Map<String, Long> listedSizes(List<String> addresses) throws StorageException {
        return java.util.Map.of();
    }

    /**
     * Why a delete of an address would be refused without being tried, for a dry run to say what the execute run
     * would do; null when it would be tried. A local store confined to its data path refuses a file outside it, one
     * reached through a symbolic link below it, and one on a mount point below it ({@link LocalFileStore}); by default
     * nothing is refused. Reads only (no file is opened for writing).
     *
     * @param address a file address as {@link #delete} takes it
     * @return the reason, as the failed delete would give it, or null
     */
    default String refusal(String address) {
        return null;
    }

    /**
     * Why a delete of this one address would fail because of what it names rather than where it lies, for a dry run to
     * say what the execute run would do; null when nothing says so. A local store's delete refuses a folder in the
     * file's place ({@link LocalFileStore}: "Is a directory"); by default (an object store has no folders) nothing.
     * Unlike {@link #refusal}, asked per address, not per folder. Reads only.
     *
     * @param address a file address as {@link #delete} takes it
     * @return the reason, as the failed delete would give it, or null
     */
    default String objectRefusal(String address) {
        return null;
    }

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
