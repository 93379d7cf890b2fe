package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.ops.compact.CompactMode;
import dev.ducklake.janitor.ops.compact.CompactOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ducklake-janitor compact}: DuckLake's merge_adjacent_files and rewrite_data_files, planned over JDBC, table by table. */
@Command(name = "compact", mixinStandardHelpOptions = true,
        resourceBundle = "dev.ducklake.janitor.cli.EngineCommand",
        description = {"Merges adjacent small Parquet files (ducklake_merge_adjacent_files) and rewrites files with many deleted "
                + "rows (ducklake_rewrite_data_files) with DuckLake's own functions, one table per call, in an in-process DuckDB "
                + "(DuckDB's JDBC driver org.duckdb:duckdb_jdbc:1.5.5.0 with the ducklake and postgres extensions; the catalog "
                + "is ATTACHed read-write with the same connection settings). The plan is made over JDBC from the catalog alone, "
                + "no ATTACH: per table, live files below the target size grouped per schema version and partition as DuckLake "
                + "groups them, and files whose deleted-row fraction reaches the threshold.",
            "A dry run (--dry-run) prints the plan with its figures and the exact CALLs, and ATTACHes nothing (it loads "
                + "DuckDB and its extensions to warn when an execute run could not). An execute run holds the advisory lock (--lock-name), asks for confirmation on a terminal unless --yes, refuses a catalog that "
                + "ATTACH would take too long to read (exit 20) and a catalog format the engine cannot write (exit 21).",
            "The replaced files stay readable at older snapshots; expire-snapshots and cleanup-old-files remove them later. "
                + "Several catalogs: --metadata-schema several times, or --all-metadata-schemas; the exit code is then the worst "
                + "schema's: " + dev.ducklake.janitor.JanitorException.Reason.EXIT_CODE_ORDER + "."})
public final class CompactCommand extends EngineCommand {

    @Option(names = "--target-file-size", paramLabel = "BYTES",
            description = "Merge files below this size, up to about this size per merged file (given to DuckLake's calls "
                    + "as DuckDB's ducklake_target_file_size setting; the catalog is not changed). Default: DuckLake's: the "
                    + "catalog's target_file_size option (table, schema, global), else 536870912 (512 MiB).")
    Long targetFileSize;

    @Option(names = "--delete-threshold", paramLabel = "FRACTION",
            description = "Rewrite files whose deleted rows make up at least this fraction (0 to 1). Default: DuckLake's: the "
                    + "catalog's rewrite_delete_threshold option, else 0.95.")
    Double deleteThreshold;

    @Option(names = "--max-input-files", paramLabel = "N",
            description = "At most N input files per merge call (DuckLake binds about 0.2 MB per input file): the call's "
                    + "max_compacted_files is chosen so that no order of DuckLake's groups exceeds N; the table is then planned and "
                    + "called again while the run budget, --max-batches and --max-bytes allow, and what is left is merged by the "
                    + "next run. Where one DuckLake merge step alone takes more than N files (small files adding up to less "
                    + "than the target), a pass runs at a lower target (DuckDB's ducklake_target_file_size) whose steps fit, and "
                    + "later passes merge its outputs; a step no lower target splits leaves the table untouched (warned). "
                    + "At least 2. Default: no limit.")
    int maxInputFiles;

    @Option(names = "--max-bytes", paramLabel = "BYTES",
            description = "Act on tables, in plan order, while the input bytes of the tables taken (their merge inputs and "
                    + "rewrite files, file_size_bytes; with --max-input-files the most its capped merge can take) stay within "
                    + "BYTES; a table that would go beyond is deferred to the next run and the next tables that fit are still "
                    + "taken; a table above BYTES on its own is never taken (a warning names it). Default: 0 (no limit).")
    long maxBytes;

    public CompactCommand() {
        super(CompactMode.COMPACT);
    }

    @Override
    CompactOptions modeOptions(CompactOptions defaults) {
        return defaults.withThresholds(targetFileSize, deleteThreshold).withCaps(defaults.maxTables(), maxInputFiles)
                .withMaxBytes(maxBytes);
    }
}
