package dev.ducklake.janitor.storage;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A test store that hands every call to a real one; a fault injector or hook overrides only the calls it changes
 * ({@link FaultyStore} the deletes, a listing hook the listing).
 */
public abstract class ForwardingStore implements FileStore {

    /** The real store every call not overridden goes to. */
    protected final FileStore inner;

    protected ForwardingStore(FileStore inner) {
        this.inner = inner;
    }

    @Override
    public Listing list(StorageLocation prefix) throws StorageException {
        return inner.list(prefix);
    }

    @Override
    public DeleteOutcome delete(List<String> addresses) throws StorageException {
        return inner.delete(addresses);
    }

    @Override
    public Optional<StoredObject> stat(String address) throws StorageException {
        return inner.stat(address);
    }

    @Override
    public int maxDeleteBatch() {
        return inner.maxDeleteBatch();
    }

    @Override
    public void disableBatchDelete() {
        inner.disableBatchDelete();
    }

    @Override
    public boolean batchDeleteEnabled() {
        return inner.batchDeleteEnabled();
    }

    @Override
    public int defaultDeleteConcurrency() {
        return inner.defaultDeleteConcurrency();
    }

    @Override
    public long throttleEvents() {
        return inner.throttleEvents();
    }

    @Override
    public Map<String, Long> listedSizes(List<String> addresses) throws StorageException {
        return inner.listedSizes(addresses);
    }

    @Override
    public void bound(CallBounds bounds) {
        inner.bound(bounds);
    }

    @Override
    public void close() {
        inner.close();
    }
}
