package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.StorageException;

import java.util.List;

/**
 * What the orphan-ratio (16) and no-known-file (15) brakes rest on. A listing is the store's own word: every listed
 * file counts. An inventory's entries are not: only the candidates are confirmed with a stat before their delete round
 * ({@link OrphanDeletes}), so an entry that is neither a candidate nor a file the catalog knows (a {@code .json}, a
 * young file, a {@code _SUCCESS}) may name nothing at all, and must not steer a brake toward deleting (trial 40: 20
 * such entries turned 5 candidates of 7 files, exit 16, into 5 of 27, deleted). Under an inventory:
 * <ul>
 *   <li>the ratio's base is the candidates plus the distinct entries a consulted catalog knows ({@code kept_known},
 *   once per canonical address: the catalog vouches that each exists, the inventory cannot add one the catalog does not
 *   name); other entries do not count. Phantom candidates only raise the ratio: they count above and below;</li>
 *   <li>brake 15 needs a known entry the store confirms: the first {@value #KNOWN_SAMPLE} known entries (byte order)
 *   are stat'd until one exists; none does (gone, or the stat failed) and the run stops as with no known file listed.
 *   This is the point of DuckLake's rule that a data file lies under the catalog's {@code data_path}
 *   ({@code ducklake_metadata_manager.cpp}, relative paths are resolved against it): a store that holds none of the
 *   catalog's files there is the wrong place, however the inventory spells it.</li>
 * </ul>
 * The near-match (18) and table-folder (17) brakes need nothing more: an unverified entry can only add candidates to
 * them (more reasons to stop); a known entry is the catalog's word, not the inventory's.
 */
final class ConfirmedBase {

    /** Known inventory entries stat'd, at most, to confirm that the store holds one of the catalog's files. */
    static final int KNOWN_SAMPLE = 16;

    private ConfirmedBase() {
    }

    /**
     * The count the orphan ratio divides by.
     *
     * @param s the survey
     * @param inventory whether the listing came from an inventory
     * @return the listed files (a listing), or the candidates plus the distinct known entries (an inventory)
     */
    static long ratioBase(OrphanSweep.Survey s, boolean inventory) {
        return inventory ? s.candidates + s.knownDistinct : s.listed;
    }

    /**
     * The orphan-ratio brake.
     *
     * @param shown the data path as messages name it ({@link dev.ducklake.janitor.storage.PathResolver#shown()})
     * @throws JanitorException BRAKE_ORPHAN_RATIO
     */
    static void checkRatio(OrphanSweep.Survey s, DeleteOrphanFilesOptions o, String shown) throws JanitorException {
        boolean inventory = o.inventory() != null;
        long base = ratioBase(s, inventory);
        if (s.candidates > o.maxOrphanRatio() * base) {
            throw new JanitorException(Reason.BRAKE_ORPHAN_RATIO, s.candidates + " of the " + base + (inventory
                    ? " inventory entries under " + shown + " that are candidates or files a consulted catalog"
                    + " knows (the " + (s.listed - base) + " others are not checked against the store and do not count)"
                    : " files under " + shown) + " would be deleted as orphans, more than --max-orphan-ratio "
                    + o.maxOrphanRatio() + ". Nothing was deleted.");
        }
    }

    /**
     * Stats the sampled known entries of an inventory until one exists.
     *
     * @param store the store
     * @param sample known entries as the inventory spells them, in byte order
     * @return null when one exists, else why none was confirmed
     * @throws StorageException STOPPED: the run was stopped (the caller ends it as a stopped listing)
     */
    static String confirmKnown(FileStore store, List<String> sample) throws StorageException {
        String failure = null;
        for (String a : sample) {
            try {
                if (store.stat(a).isPresent()) {
                    return null;
                }
            } catch (StorageException e) {
                if (e.kind() == StorageException.Kind.STOPPED) {
                    throw e;
                }
                if (failure == null) {
                    failure = CatalogInspector.printable(a) + ": " + e.getMessage();
                }
            }
        }
        return "none of the first " + sample.size() + " inventory entries the catalog knows exists in the store"
                + (failure == null ? "" : " (a stat failed: " + failure + ")");
    }
}
