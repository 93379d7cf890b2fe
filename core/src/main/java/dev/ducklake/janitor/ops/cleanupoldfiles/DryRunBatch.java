package dev.ducklake.janitor.ops.cleanupoldfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.ops.files.FolderRefusals;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.storage.StorageLocation;
import dev.ducklake.janitor.storage.StoredObject;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A dry run's batch of cleanup-old-files: counts what would go into the run's {@link CleanupTally}, changes nothing. Apart
 * from the execute path ({@link QueueSweep}) so that the hot loop of an execute run stays small.
 */
final class DryRunBatch {

    private final FileStore store;
    private final FileListener listener;
    private final CleanupTally t;
    /** Whether the execute run's delete would refuse a file, asked once per folder for the whole dry run. */
    private final FolderRefusals refusals;

    /**
     * @param store the file store serving the data path (listings and stats only)
     * @param listener receives each file that would be deleted
     * @param t the run's figures
     */
    DryRunBatch(FileStore store, FileListener listener, CleanupTally t) {
        this.store = store;
        this.listener = listener;
        this.t = t;
        this.refusals = new FolderRefusals(store);
    }

    /**
     * Counts what one batch would delete (sizes from a listing where the store has one, else a stat per file) and
     * lists each file as {@code would_delete}, or as {@code would_fail} (counted in {@code failed}, its rows not in
     * the rows that would go) when the execute run's delete would refuse it without trying; changes nothing. A stop inside the look-ups ends the batch with a
     * finding and {@code stoppedDuring = "stat"}.
     *
     * @param candidates the batch's queue entries whose files would go (their rows counted)
     * @param toDelete canonical location to address, one per file not already counted in this batch
     * @param doneCanonical the canonical locations counted so far in this batch; those counted here are added
     * @throws JanitorException {@link Reason#STORAGE} when the store refuses access
     */
    void count(List<QueueCursor.Entry> candidates, Map<String, String> toDelete, Set<String> doneCanonical)
            throws JanitorException {
        // what the execute run would refuse without trying (failed, exit 13): its queue rows would stay
        Map<String, String> refused = refusals(toDelete);
        for (QueueCursor.Entry e : candidates) {
            if (!refused.containsKey(e.canonical())) {
                t.rowsWouldDelete += e.rows();
            }
        }
        Map<String, Long> listed;
        try {
            listed = toDelete.isEmpty() ? Map.of() : store.listedSizes(new ArrayList<>(toDelete.values()));
        } catch (StorageException e) {
            t.stoppedDuring = "stat";
            t.finding("stopped while looking up the sizes of " + toDelete.size() + " files (" + e.getMessage()
                    + "); the dry run's counts are those of the files looked at so far");
            return;
        }
        for (Map.Entry<String, String> d : toDelete.entrySet()) {
            String why = refused.get(d.getKey());
            if (why != null) {
                t.failed++;
                t.finding("would fail: " + d.getValue() + ": " + why);
                listener.file("would_fail", d.getValue(), -1, null, why);
                continue;
            }
            Optional<StoredObject> s;
            try {
                Long size = listed.get(d.getValue());
                // a listed object exists, one the listing passed over is missing: no stat either way
                s = size == null ? stat(d.getValue()) : size < 0 ? Optional.empty()
                        : Optional.of(new StoredObject(StorageLocation.parseFile(d.getValue()), d.getValue(), size, null));
            } catch (StorageException e) {
                t.stoppedDuring = "stat";
                t.finding("stopped while looking up " + d.getValue() + " (" + e.getMessage() + "); the dry run's counts"
                        + " are those of the files looked at so far");
                return;
            }
            long size = s.map(StoredObject::sizeBytes).orElse(-1L);
            if (size > 0) {
                t.bytes += size;
            } else if (size < 0 && s.isPresent()) {
                t.unsized++;
            }
            t.deleted++;
            if (s.isEmpty()) {
                t.notFound(d.getValue());
            }
            doneCanonical.add(d.getKey());
            listener.file("would_delete", d.getValue(), size, s.map(StoredObject::lastModified).orElse(null),
                    s.isPresent() ? null : "already missing");
        }
    }

    /**
     * The files of a batch the execute run's delete would refuse without trying ({@link FolderRefusals}).
     *
     * @param toDelete canonical location to address
     * @return canonical location to the reason, for the refused ones only
     */
    private Map<String, String> refusals(Map<String, String> toDelete) {
        Map<String, String> out = new HashMap<>();
        for (Map.Entry<String, String> d : toDelete.entrySet()) {
            String why = refusals.of(d.getValue());
            if (why != null) {
                out.put(d.getKey(), why);
            }
        }
        return out;
    }

    /**
     * @return the object; empty when the store says it is missing; an object of size -1 when the stat failed for
     *     another reason (its size is unknown, and it is never taken for missing)
     * @throws StorageException kind STOPPED only: the bounds ended the look-up
     */
    private Optional<StoredObject> stat(String address) throws JanitorException, StorageException {
        try {
            return store.stat(address);
        } catch (StorageException e) {
            if (e.kind() == StorageException.Kind.STOPPED) {
                throw e;
            }
            if (e.kind() == StorageException.Kind.ACCESS_DENIED) {
                throw new JanitorException(Reason.STORAGE, "The file store refused access: " + e.getMessage(), e);
            }
            // the stat failed: the file may well be there (never counted as missing), its size is unknown
            return Optional.of(new StoredObject(StorageLocation.parseFile(address), address, -1, null));
        }
    }
}
