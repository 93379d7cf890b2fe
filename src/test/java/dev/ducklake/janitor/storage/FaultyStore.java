package dev.ducklake.janitor.storage;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Test fault injector around a real store: objects whose address matches a predicate fail to delete (the rest of
 * the batch goes through the real store), and every delete call is recorded.
 */
public final class FaultyStore implements FileStore {

    private final FileStore inner;
    private final Predicate<String> failing;
    public final List<Integer> deleteCalls = new ArrayList<>();

    public FaultyStore(FileStore inner, Predicate<String> failing) {
        this.inner = inner;
        this.failing = failing;
    }

    @Override
    public Listing list(StorageLocation prefix) throws StorageException {
        return inner.list(prefix);
    }

    @Override
    public DeleteOutcome delete(List<String> addresses) throws StorageException {
        deleteCalls.add(addresses.size());
        List<String> pass = new ArrayList<>();
        Map<String, StorageException> failed = new LinkedHashMap<>();
        for (String a : addresses) {
            if (failing.test(a)) {
                failed.put(a, new StorageException(StorageException.Kind.OTHER, a + ": injected failure", null));
            } else {
                pass.add(a);
            }
        }
        DeleteOutcome o = inner.delete(pass);
        failed.putAll(o.failed());
        Set<String> deleted = new HashSet<>(o.deleted());
        return new DeleteOutcome(deleted, o.alreadyMissing(), failed);
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
    public void close() {
        inner.close();
    }
}
