package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.ops.compact.CompactMode;
import dev.ducklake.janitor.ops.compact.CompactOptions;
import picocli.CommandLine.Command;

/** {@code ducklake-janitor flush-inlined-data}: DuckLake's {@code ducklake_flush_inlined_data}, planned over JDBC, table by table. */
@Command(name = "flush-inlined-data", mixinStandardHelpOptions = true,
        resourceBundle = "dev.ducklake.janitor.cli.EngineCommand",
        description = {"Writes the inlined rows (and inlined deletions) of each DuckLake table to Parquet with DuckLake's own "
                + "ducklake_flush_inlined_data, one table per call, in an in-process DuckDB (DuckDB's JDBC driver "
                + "org.duckdb:duckdb_jdbc:1.5.5.0 with the ducklake and postgres extensions; the catalog is ATTACHed read-write "
                + "with the same connection settings). Which tables need it is planned over JDBC from the catalog alone: exact "
                + "inlined row counts per table, no ATTACH.",
            "A dry run (--dry-run) prints the plan and the exact CALL of each table, and ATTACHes nothing (it loads DuckDB and its extensions to warn when an execute run could not). An execute run holds "
                + "the advisory lock (--lock-name), asks for confirmation on a terminal unless --yes, refuses a catalog that "
                + "ATTACH would take too long to read (exit 20) and a catalog format the engine cannot write (exit 21).",
            "Then run expire-snapshots and cleanup-old-files: the flushed rows stay readable at older snapshots until those "
                + "expire. Several catalogs: --metadata-schema several times, or --all-metadata-schemas; the exit code is then "
                + "the worst schema's: " + dev.ducklake.janitor.JanitorException.Reason.EXIT_CODE_ORDER + "."})
public final class FlushInlinedDataCommand extends EngineCommand {

    public FlushInlinedDataCommand() {
        super(CompactMode.FLUSH_INLINED_DATA);
    }

    @Override
    CompactOptions modeOptions(CompactOptions defaults) {
        return defaults;
    }
}
