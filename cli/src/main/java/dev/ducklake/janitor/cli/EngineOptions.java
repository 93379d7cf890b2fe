package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.ops.compact.CompactOptions;
import dev.ducklake.janitor.ops.compact.EngineSettings;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/** The flags of flush-inlined-data and compact: DuckLake's engine (in-process DuckDB) and the ATTACH limits. */
final class EngineOptions {

    @Option(names = "--duckdb-extension-dir", paramLabel = "DIR",
            description = "Load the ducklake and postgres_scanner extensions (and httpfs, for a data path on S3) from the "
                    + ".duckdb_extension files under DIR (searched recursively; for air-gapped images). Default: INSTALL them "
                    + "from DuckDB's extension repository.")
    Path extensionDir;

    @Option(names = "--duckdb-memory-limit", paramLabel = "SIZE", defaultValue = EngineSettings.DEFAULT_MEMORY_LIMIT,
            description = "DuckDB's memory_limit (it spills to --duckdb-temp-directory beyond it). The default leaves room for the "
                    + "JVM's default heap in a 512 MiB pod. Default: ${DEFAULT-VALUE}.")
    String memoryLimit;

    @Option(names = "--duckdb-threads", paramLabel = "N", defaultValue = "" + EngineSettings.DEFAULT_THREADS,
            description = "DuckDB's threads (more threads need more memory). Default: ${DEFAULT-VALUE}.")
    int threads;

    @Option(names = "--duckdb-temp-directory", paramLabel = "DIR",
            description = "DuckDB's temp_directory for spill files. Default: <java.io.tmpdir>/ducklake-janitor-duckdb.")
    Path tempDirectory;

    @Option(names = "--max-attach-inlined-tables", paramLabel = "N", defaultValue = "" + EngineSettings.DEFAULT_MAX_ATTACH_INLINED_TABLES,
            description = "Refuse (exit 20) before attaching when the metadata schema holds more inlined tables (registered or "
                    + "leaked): DuckDB's ATTACH reads every one (minutes and GiB at 200,000). 0 = no limit. Default: ${DEFAULT-VALUE}.")
    long maxAttachInlinedTables;

    @Option(names = "--max-attach-columns", paramLabel = "N", defaultValue = "" + EngineSettings.DEFAULT_MAX_ATTACH_COLUMNS,
            description = "Refuse (exit 20) before attaching when the metadata schema's tables have more pg_attribute rows. "
                    + "0 = no limit. Default: ${DEFAULT-VALUE}.")
    long maxAttachColumns;

    @Option(names = "--max-tables", paramLabel = "N",
            description = "Act on at most N tables per run, in schema and table name order (the others are reported as deferred; "
                    + "the next run takes them). Default: no limit.")
    int maxTables;

    /** --s3-region, --s3-endpoint, --s3-path-style: for a catalog whose data path is on S3 (DuckDB's httpfs). */
    @Mixin
    S3Options s3;

    EngineSettings settings() {
        return new EngineSettings(extensionDir, memoryLimit, threads, tempDirectory, maxAttachInlinedTables, maxAttachColumns,
                s3.options());
    }

    CompactOptions apply(CompactOptions o) {
        return o.withEngine(settings()).withCaps(maxTables, o.maxInputFiles());
    }
}
