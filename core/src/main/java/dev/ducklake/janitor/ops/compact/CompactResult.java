package dev.ducklake.janitor.ops.compact;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.ducklake.janitor.ops.runtime.Figure;
import dev.ducklake.janitor.ops.runtime.MaintenanceResult;
import dev.ducklake.janitor.ops.runtime.RunFigures;

import java.util.List;
import java.util.Map;

/**
 * What {@link CompactTables} did (or, in a dry run, would do) in one metadata schema.
 *
 * @param schema the metadata schema
 * @param formatVersion the catalog format version
 * @param mode the command ({@code flush-inlined-data} or {@code compact})
 * @param dryRun whether nothing was changed
 * @param duckdbVersion the engine's DuckDB version; null when DuckDB was not started (dry run, nothing to do)
 * @param extensionVersions the loaded extensions' versions ({@code ducklake}, {@code postgres_scanner}); null likewise
 * @param attachCost what ATTACH would scan ({@link AttachCost})
 * @param tablesScanned live tables planned (auto_compact on)
 * @param tablesWithWork of those, tables with at least one call
 * @param tablesDone tables whose calls all ran
 * @param tablesDeferred tables with work left for a later run (--max-tables, --run-budget, a stop)
 * @param callsIssued DuckLake calls that ran
 * @param inlinedRows inlined rows of the tables with work (flush)
 * @param mergeInputFiles files the planned merges take (compact, without the cap)
 * @param rewriteFiles files planned for a rewrite (compact)
 * @param inputBytes input bytes of the tables with work ({@link TablePlan#inputBytes}; compact)
 * @param inputBytesTaken of those, the input bytes of the tables the run acted on (what --max-bytes caps; 0 in a dry run)
 * @param remainingTablesWithWork tables with work after the run (planned again after an execute run; the dry run's plan otherwise)
 * @param tables every table with work, in plan order
 * @param run the generic figures (batches = calls, retries, elapsed, warnings), flattened into the JSON
 * @param stoppedDuring null unless a stop request or the run budget cancelled a DuckLake call in flight:
 *     {@value CompactTables#STOPPED_DURING_CALL} (DuckDB rolled the call back; its table is {@code stopped})
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CompactResult(String schema, String formatVersion, String mode, boolean dryRun, String duckdbVersion,
                            Map<String, String> extensionVersions, AttachCost attachCost, long tablesScanned, long tablesWithWork,
                            long tablesDone, long tablesDeferred, long callsIssued, long inlinedRows, long mergeInputFiles,
                            long rewriteFiles, long inputBytes, long inputBytesTaken, @Figure.Remaining long remainingTablesWithWork, List<TableOutcome> tables,
                            @JsonUnwrapped RunFigures run, String stoppedDuring) implements MaintenanceResult {

    @Override
    public boolean cutShort() {
        return stoppedDuring != null;
    }

    @Override
    public String cutShortDuring() {
        return "a DuckLake call";
    }
}
