package dev.ducklake.janitor.storage;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Test fault injector around a real store: objects whose address matches a predicate fail to delete (the rest of
 * the batch goes through the real store), and every delete call is recorded.
 */
public final class FaultyStore extends ForwardingStore {

    private final Predicate<String> failing;
    public final List<Integer> deleteCalls = java.util.Collections.synchronizedList(new ArrayList<>());

    public FaultyStore(FileStore inner, Predicate<String> failing) {
        super(inner);
        this.failing = failing;
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
}
