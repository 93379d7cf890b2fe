package dev.ducklake.janitor.storage;

import java.util.Map;
import java.util.Set;

/**
 * What one batch delete did, per object address (as passed to {@link FileStore#delete}).
 *
 * @param deleted addresses that are gone now (including those that were already missing)
 * @param alreadyMissing the subset of {@code deleted} that did not exist when we asked, where the store tells
 *     (S3 does not: a delete of a missing key succeeds)
 * @param failed addresses that are still there, each with the store's reason (never credentials)
 * @param sizes size in bytes, measured just before the delete, of deleted objects that existed, when the caller asked
 *     the store to measure ({@link FileStore#delete(java.util.List, boolean)}); an address not in the map is unmeasured
 */
public record DeleteOutcome(Set<String> deleted, Set<String> alreadyMissing, Map<String, StorageException> failed,
                            Map<String, Long> sizes) {

    /** An outcome without sizes (the store measured nothing). */
    public DeleteOutcome(Set<String> deleted, Set<String> alreadyMissing, Map<String, StorageException> failed) {
        this(deleted, alreadyMissing, failed, Map.of());
    }
}
