package dev.ducklake.janitor.ops.cleanupoldfiles;

import java.time.Instant;
import java.util.List;

/**
 * What {@link CleanupOldFiles} did.
 *
 * @param schema the metadata schema
 * @param dataPath the data path used (after the override)
 * @param cutoff rows scheduled before this instant were considered
 * @param cutoffSource where the cutoff came from
 * @param dryRun whether nothing was changed
 * @param queueRowsConsidered queue rows older than the cutoff
 * @param objectsDeleted distinct objects deleted (dry run: that would be deleted); a missing object counts
 * @param bytesDeleted their sizes in bytes where the store gave them (dry run only; -1 in execute runs)
 * @param queueRowsDeleted queue rows removed (0 in a dry run)
 * @param keptLive queue rows kept because a live data or delete file resolves to the same location
 * @param keptUnresolvable queue rows kept because their path or path_is_relative is NULL
 * @param failed objects the store could not delete (their rows stay)
 * @param batches batches run
 * @param batchDeleteFallback whether the store rejected batch deletes and single deletes were used
 * @param findings up to 100 of the kept or failed paths with the reason, for the report
 */
public record CleanupOldFilesResult(String schema, String dataPath, Instant cutoff, String cutoffSource, boolean dryRun,
                                    long queueRowsConsidered, long objectsDeleted, long bytesDeleted, long queueRowsDeleted,
                                    long keptLive, long keptUnresolvable, long failed, long batches,
                                    boolean batchDeleteFallback, List<String> findings) {

    /** Whether rows were kept that the operator should look at (exit code 12) . */
    public boolean hasFindings() {
        return keptLive > 0 || keptUnresolvable > 0;
    }
}
