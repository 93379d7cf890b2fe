package dev.ducklake.janitor.ops.deleteorphanfiles;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.ducklake.janitor.ops.runtime.DoneOrWould;
import dev.ducklake.janitor.ops.runtime.Figure;
import dev.ducklake.janitor.ops.runtime.MaintenanceResult;
import dev.ducklake.janitor.ops.runtime.RunFigures;
import dev.ducklake.janitor.ops.files.ConsultedCatalogs;

import java.util.List;
import java.util.Map;

/**
 * What {@link DeleteOrphanFiles} did. Every listed file is in exactly one of: kept known, kept by name, kept young,
 * kept non-canonical, candidate.
 *
 * @param schema the metadata schema
 * @param dataPath the data path swept (after the override)
 * @param cutoff files last modified before this instant (ISO-8601) were candidates
 * @param cutoffSource where the cutoff came from
 * @param dryRun whether nothing was deleted
 * @param catalogsConsulted the metadata schemas whose files counted as known (this one and overlapping tenants)
 * @param knownPaths known addresses loaded (all spellings of all consulted catalogs)
 * @param unresolvedKnownRows catalog file rows whose address could not be worked out
 * @param listed files listed under the data path
 * @param keptKnown listed files a catalog knows
 * @param keptByName listed files DuckLake's rule would not consider (name not ending in .parquet, or .puffin with the option)
 * @param keptYoung unknown candidate-named files modified at or after the cutoff (or with no time)
 * @param keptNonCanonical listed objects whose key is not in canonical spelling below the data path as spelled (a
 *     doubled slash, a {@code .} segment, a backslash, a {@code %XX} escape of an unreserved character), or (an
 *     inventory's entries) lies under another spelling of the data path: never DuckLake files, never deleted
 * @param candidates orphans found
 * @param candidateBytes their total size in bytes
 * @param deleted orphans deleted; JSON {@code files_deleted}; in a dry run the candidates the delete would not refuse,
 *     JSON {@code files_would_delete} (0 when unresolved catalog rows stop the deletion)
 * @param bytesDeleted the listed sizes of the orphans deleted, bytes; JSON {@code bytes_deleted}; in a dry run theirs,
 *     JSON {@code bytes_would_delete}
 * @param failed orphans the store could not delete; JSON {@code files_failed}; in a dry run the candidates the delete
 *     would refuse without trying (outside the data path, through a link or on a mount below it), JSON
 *     {@code files_would_fail}
 * @param keptRegisteredDuringRun candidates not deleted because the re-check just before their delete batch found a
 *     catalog row naming them (registered after the known set was read)
 * @param allowShortRetention whether --allow-short-retention was given (the floor could be undercut)
 * @param findings up to 100 notes for the operator
 * @param findingsTotal how many notes there were ({@code findings_truncated} says whether the list is cut)
 * @param run the generic figures (elapsed seconds, stop reason, warnings)
 * @param excludedCatalogSchemas unreadable catalogs left unread by --exclude-catalog-schema (their files count as unknown)
 * @param databasesNotConsulted databases of the server that could hold a catalog but were not read (no CONNECT
 *     privilege, login refused), with the reason
 * @param unknownTableFolders up to 100 DuckLake table folders of candidates that no consulted catalog knows (non-empty
 *     only when --allow-unknown-table-folders let the run go on)
 * @param unknownTableFoldersTotal how many such folders there were
 * @param leftToOtherSchemas listed files left to the pass of another schema of the same run whose data path lies
 *     deeper (counted there; not in {@code listed})
 * @param stoppedDuring null for a run that listed everything and deleted what it would; else where a stop request
 *     or the run budget cut it short inside the work ({@code listing}: nothing deleted, the counts are those of the
 *     files listed so far, no brake judged; {@code deleting}: the delete call in flight was abandoned)
 * @param listingSource {@code store} (the store was listed) or {@code inventory} ({@code --inventory}: {@code listed}
 *     and the other counts are the inventory's entries under the data path)
 * @param inventoryEntries entries the inventory held (those outside the data path included); 0 without one
 * @param inventoryGone inventory candidates the store no longer had when their delete round stat-ed them (not deleted,
 *     not failed)
 * @param inventoryModified inventory candidates kept because the store's modification time was at or after the cutoff
 *     (modified since the inventory, or no time)
 * @param inventoryStatFailed inventory candidates kept because the stat confirming them failed
 */
public record DeleteOrphanFilesResult(String schema, String dataPath, String cutoff, String cutoffSource, boolean dryRun,
                                      List<String> catalogsConsulted, @Figure.NotSummed long knownPaths, long unresolvedKnownRows, long listed,
                                      long keptKnown, long keptByName, long keptYoung, long keptNonCanonical, long candidates, long candidateBytes,
                                      @JsonIgnore long deleted, @JsonIgnore long bytesDeleted, @JsonIgnore long failed,
                                      long keptRegisteredDuringRun, boolean allowShortRetention,
                                      List<String> findings, long findingsTotal,
                                      @JsonUnwrapped RunFigures run, List<String> excludedCatalogSchemas,
                                      List<ConsultedCatalogs.NotConsulted> databasesNotConsulted, List<String> unknownTableFolders,
                                      @Figure.NotSummed long unknownTableFoldersTotal, long leftToOtherSchemas, String stoppedDuring,
                                      String listingSource, long inventoryEntries, long inventoryGone,
                                      long inventoryModified, long inventoryStatFailed)
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
     * {@code files_failed} in an execute run; {@code files_would_delete}, {@code bytes_would_delete} (the candidates the
     * delete would not refuse and their bytes, or 0 when unresolved catalog rows stop the deletion),
     * {@code files_would_fail} in a dry run.
     *
     * @return the figures, by JSON key
     */
    @JsonAnyGetter
    public Map<String, Long> doneOrWould() {
        return DoneOrWould.<Long>of(dryRun).figure("files_deleted", "files_would_delete", dryRun && hasFindings() ? 0 : deleted)
                .figure("bytes_deleted", "bytes_would_delete", dryRun && hasFindings() ? 0 : bytesDeleted)
                .figure("files_failed", "files_would_fail", failed).map();
    }

    /** Whether the operator should look at something (exit code 12): unresolved catalog rows stopped the deletion. */
    public boolean hasFindings() {
        return unresolvedKnownRows > 0 && candidates > 0;
    }

    /** @return the process exit code of a completed run: 13 when files failed, 12 with findings, else 0 */
    public int exitCode() {
        return failed > 0 ? 13 : hasFindings() ? 12 : 0;
    }
}
