package dev.ducklake.janitor.ops.cleanupoldfiles;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.ducklake.janitor.ops.MaintenanceResult;
import dev.ducklake.janitor.ops.RunFigures;
import dev.ducklake.janitor.ops.files.ConsultedCatalogs;

import java.util.List;

/**
 * What {@link CleanupOldFiles} did.
 *
 * @param schema the metadata schema
 * @param dataPath the data path used (after the override)
 * @param cutoff rows scheduled before this instant (ISO-8601) were considered
 * @param cutoffSource where the cutoff came from ({@code --older-than}, {@code delete_older_than option},
 *     {@code default 2 days}, or one of those raised to --min-age)
 * @param dryRun whether nothing was changed
 * @param queueRowsConsidered queue rows older than the cutoff
 * @param filesDeleted distinct files deleted (dry run: that would be deleted); a missing file counts
 * @param bytesWouldDelete their sizes in bytes where the store gave them (dry run only; -1 in execute runs)
 * @param queueRowsDeleted queue rows removed (0 in a dry run)
 * @param keptLive queue rows kept because a live data or delete file resolves to the same location
 * @param keptUnresolvable queue rows kept because their path or path_is_relative is NULL, or the path holds a {@code ..}
 *     segment or ends in {@code /} (ambiguous: never deleted)
 * @param failed files the store could not delete (their rows stay)
 * @param filesNotFound files counted in filesDeleted that were not found where the catalog says they are (already
 *     deleted by an earlier run, or the data path or --data-path does not say where they really are); their queue rows
 *     were deleted, as DuckLake does, and a warning names the first of them
 * @param batchDeleteFallback whether the store rejected batch deletes and single deletes were used
 * @param allowShortRetention whether --allow-short-retention was given (the floor could be undercut)
 * @param findings up to 100 of the kept or failed paths with the reason, for the report
 * @param run the generic figures (batches, stop reason, elapsed seconds, warnings)
 * @param catalogsConsulted the catalogs whose file rows were checked before a queued file was deleted (this one first)
 * @param excludedCatalogSchemas unreadable catalogs left unread by --exclude-catalog-schema
 * @param databasesNotConsulted databases of the server that could hold a catalog but were not read, with the reason
 * @param stoppedDuring null unless a stop request or the run budget cut the run short inside a batch: {@code deleting}
 *     (the delete call in flight was abandoned; the rows of files it may have deleted stay, the next run removes them
 *     as not found) or {@code stat} (a dry run's size look-up)
 */
public record CleanupOldFilesResult(String schema, String dataPath, String cutoff, String cutoffSource, boolean dryRun,
                                    long queueRowsConsidered, long filesDeleted, long bytesWouldDelete, long queueRowsDeleted,
                                    long keptLive, long keptUnresolvable, long failed, long filesNotFound, boolean batchDeleteFallback,
                                    boolean allowShortRetention,
                                    List<String> findings, @JsonUnwrapped RunFigures run, List<String> catalogsConsulted,
                                    List<String> excludedCatalogSchemas,
                                    List<ConsultedCatalogs.NotConsulted> databasesNotConsulted, String stoppedDuring)
        implements MaintenanceResult {

    @Override
    public boolean cutShort() {
        return stoppedDuring != null;
    }

    /** Whether rows were kept that the operator should look at (exit code 12). */
    public boolean hasFindings() {
        return keptLive > 0 || keptUnresolvable > 0;
    }

    /** @return the process exit code of a completed run: 13 when files failed, 12 with findings, else 0 */
    public int exitCode() {
        return failed > 0 ? 13 : hasFindings() ? 12 : 0;
    }
}
