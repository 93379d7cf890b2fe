package dev.ducklake.janitor.ops.cleanupoldfiles;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.ducklake.janitor.ops.runtime.DoneOrWould;
import dev.ducklake.janitor.ops.runtime.MaintenanceResult;
import dev.ducklake.janitor.ops.runtime.RunFigures;
import dev.ducklake.janitor.ops.files.ConsultedCatalogs;

import java.util.List;
import java.util.Map;

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
 * @param filesDeleted distinct files deleted (dry run: that would be deleted); a missing file counts. JSON:
 *     {@code files_deleted} in an execute run, {@code files_would_delete} in a dry run
 * @param bytes the sizes of those files in bytes where the store gave them (a stat before each delete; a missing file
 *     counts 0). JSON: {@code bytes_deleted} in an execute run (the bytes freed), {@code bytes_would_delete} in a dry run
 * @param queueRowsDeleted queue rows removed (dry run: that would be, the rows of the files counted). JSON:
 *     {@code queue_rows_deleted} / {@code queue_rows_would_delete}
 * @param keptLive queue rows kept because a live data or delete file resolves to the same location
 * @param keptUnresolvable queue rows kept because their path or path_is_relative is NULL, or the path holds a {@code ..}
 *     segment or ends in {@code /} (ambiguous: never deleted)
 * @param keptOutsideDataPath queue rows kept because their file lies outside the data path: only the catalogs that
 *     could reach the data path were read, so a catalog elsewhere may still use it (a row written into this catalog
 *     must not delete another tenant's file); never deleted, reported as a finding
 * @param failed files the store could not delete (their rows stay); JSON {@code files_failed}; in a dry run the files
 *     the delete would refuse without trying, JSON {@code files_would_fail}
 * @param filesNotFound files counted in filesDeleted that were not found where the catalog says they are (already
 *     deleted by an earlier run, or the data path or --data-path does not say where they really are); their queue rows
 *     were deleted, as DuckLake does, and a warning names the first of them
 * @param filesUnsized files counted in filesDeleted (present, not missing) whose size the store did not give: the
 *     listing did not show them and the stat just before the delete failed (a timeout, a throttled call that ran out of
 *     retries, a refused stat); {@code bytes} leaves them out, so it is a lower bound whenever this is above 0. JSON:
 *     {@code files_unsized}
 * @param batchDeleteFallback whether the store rejected batch deletes and single deletes were used
 * @param allowShortRetention whether --allow-short-retention was given (the floor could be undercut)
 * @param findings up to 100 of the kept or failed paths with the reason, for the report
 * @param findingsTotal how many findings there were ({@code findings_truncated} says whether the list is cut)
 * @param run the generic figures (batches, stop reason, elapsed seconds, warnings)
 * @param catalogsConsulted the catalogs whose file rows were checked before a queued file was deleted (this one first)
 * @param excludedCatalogSchemas unreadable catalogs left unread by --exclude-catalog-schema
 * @param databasesNotConsulted databases of the server that could hold a catalog but were not read, with the reason
 * @param stoppedDuring null unless a stop request or the run budget cut the run short inside a batch: {@code deleting}
 *     (the delete call in flight was abandoned; the rows of files it may have deleted stay, the next run removes them
 *     as not found) or {@code stat} (a dry run's size look-up)
 */
public record CleanupOldFilesResult(String schema, String dataPath, String cutoff, String cutoffSource, boolean dryRun,
                                    long queueRowsConsidered, @JsonIgnore long filesDeleted, @JsonIgnore long bytes,
                                    @JsonIgnore long queueRowsDeleted,
                                    long keptLive, long keptUnresolvable, long keptOutsideDataPath, @JsonIgnore long failed, long filesNotFound, long filesUnsized,
                                    boolean batchDeleteFallback, boolean allowShortRetention,
                                    List<String> findings, long findingsTotal, @JsonUnwrapped RunFigures run, List<String> catalogsConsulted,
                                    List<String> excludedCatalogSchemas,
                                    List<ConsultedCatalogs.NotConsulted> databasesNotConsulted, String stoppedDuring)
        implements MaintenanceResult {

    @Override
    public boolean cutShort() {
        return stoppedDuring != null;
    }

    /** @return whether {@link #findings} lists fewer than {@link #findingsTotal} */
    @com.fasterxml.jackson.annotation.JsonProperty("findings_truncated")
    public boolean findingsTruncated() {
        return findingsTotal > findings.size();
    }

    /**
     * The figures whose key says whether they happened or would: {@code files_deleted}, {@code bytes_deleted},
     * {@code queue_rows_deleted}, {@code files_failed} in an execute run; {@code files_would_delete},
     * {@code bytes_would_delete}, {@code queue_rows_would_delete}, {@code files_would_fail} in a dry run (files the
     * execute run's delete would refuse without trying: outside the data path, through a link or on a mount below it).
     *
     * @return the figures, by JSON key
     */
    @JsonAnyGetter
    public Map<String, Long> doneOrWould() {
        return DoneOrWould.<Long>of(dryRun).figure("files_deleted", "files_would_delete", filesDeleted)
                .figure("bytes_deleted", "bytes_would_delete", bytes)
                .figure("queue_rows_deleted", "queue_rows_would_delete", queueRowsDeleted)
                .figure("files_failed", "files_would_fail", failed).map();
    }

    /** Whether rows were kept that the operator should look at (exit code 12). */
    public boolean hasFindings() {
        return keptLive > 0 || keptUnresolvable > 0 || keptOutsideDataPath > 0;
    }

    /** @return the process exit code of a completed run: 13 when files failed, 12 with findings, else 0 */
    public int exitCode() {
        return failed > 0 ? 13 : hasFindings() ? 12 : 0;
    }
}
