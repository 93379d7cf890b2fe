package dev.ducklake.janitor.ops.compact;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.storage.FileStores;

import java.nio.file.Path;

/**
 * How the in-process DuckDB that runs DuckLake's functions is set up ({@link DuckLakeEngine}).
 *
 * @param extensionDir where the {@code ducklake} and {@code postgres_scanner} {@code .duckdb_extension} files are (searched
 *     recursively, e.g. a PyPI wheel's {@code extensions/v1.5.5/}); null = DuckDB's extension repository ({@code INSTALL})
 * @param memoryLimit DuckDB's {@code memory_limit} (DuckDB's size grammar, e.g. {@code 192MiB}); default
 *     {@value #DEFAULT_MEMORY_LIMIT}, so that DuckDB plus the JVM's default heap fit a 512 MiB pod; DuckDB spills to
 *     {@code tempDirectory} beyond it
 * @param threads DuckDB's {@code threads}; default {@value #DEFAULT_THREADS} (one table at a time; more threads need more memory)
 * @param tempDirectory DuckDB's {@code temp_directory} (spill files); null = {@code java.io.tmpdir}/ducklake-janitor-duckdb
 * @param maxAttachInlinedTables refuse (exit 20) when the metadata schema holds more inlined tables (registered or not)
 *     than this; default {@value #DEFAULT_MAX_ATTACH_INLINED_TABLES}; 0 = no limit
 * @param maxAttachColumns refuse (exit 20) when the metadata schema's relations have more {@code pg_attribute} rows than
 *     this; default {@value #DEFAULT_MAX_ATTACH_COLUMNS}; 0 = no limit
 * @param s3 region, endpoint and addressing of an S3 data path (the {@code --s3-*} flags the storage commands take), for
 *     DuckDB's {@code httpfs} ({@link EngineStorage}); never null
 */
public record EngineSettings(Path extensionDir, String memoryLimit, int threads, Path tempDirectory, long maxAttachInlinedTables,
                             long maxAttachColumns, FileStores.Options s3) {

    /** Null-safe S3 options. */
    public EngineSettings {
        s3 = s3 == null ? FileStores.Options.DEFAULT : s3;
    }

    /** Default DuckDB memory_limit. */
    public static final String DEFAULT_MEMORY_LIMIT = "192MiB";
    /** Default DuckDB threads. */
    public static final int DEFAULT_THREADS = 1;
    /**
     * Default limit of inlined tables: DuckDB 1.5.5 ATTACHes a catalog with 20,000 leaked inlined tables in seconds, with
     * 230,000 in 84 s and 1.8 GiB (docs/benchmarks.md), far beyond a 512 MiB pod.
     */
    public static final long DEFAULT_MAX_ATTACH_INLINED_TABLES = 20_000;
    /** Default limit of pg_attribute rows of the metadata schema (about five per inlined table plus the catalog's own). */
    public static final long DEFAULT_MAX_ATTACH_COLUMNS = 150_000;

    /** @return the defaults (extension repository, 192MiB, 1 thread, java.io.tmpdir, 20,000 tables, 150,000 columns) */
    public static EngineSettings defaults() {
        return new EngineSettings(null, DEFAULT_MEMORY_LIMIT, DEFAULT_THREADS, null, DEFAULT_MAX_ATTACH_INLINED_TABLES,
                DEFAULT_MAX_ATTACH_COLUMNS, FileStores.Options.DEFAULT);
    }

    /** @return a copy with this extension directory */
    public EngineSettings withExtensionDir(Path dir) {
        return new EngineSettings(dir, memoryLimit, threads, tempDirectory, maxAttachInlinedTables, maxAttachColumns, s3);
    }

    /** @return a copy with these S3 options */
    public EngineSettings withS3(FileStores.Options options) {
        return new EngineSettings(extensionDir, memoryLimit, threads, tempDirectory, maxAttachInlinedTables, maxAttachColumns, options);
    }

    /** @return a copy with these ATTACH limits */
    public EngineSettings withAttachLimits(long inlinedTables, long columns) {
        return new EngineSettings(extensionDir, memoryLimit, threads, tempDirectory, inlinedTables, columns, s3);
    }

    /**
     * Checks the values.
     *
     * @throws JanitorException USAGE naming the bad value
     */
    public void validate() throws JanitorException {
        if (memoryLimit == null || !memoryLimit.matches("[0-9]+(\\.[0-9]+)?\\s*([KMGT]i?B|[KMGT]|B|bytes)?")) {
            throw new JanitorException(Reason.USAGE, "--duckdb-memory-limit must be a size such as 192MiB or 1GB, got '"
                    + memoryLimit + "'.");
        }
        if (threads < 1 || threads > 256) {
            throw new JanitorException(Reason.USAGE, "--duckdb-threads must be between 1 and 256, got " + threads + ".");
        }
        if (maxAttachInlinedTables < 0 || maxAttachColumns < 0) {
            throw new JanitorException(Reason.USAGE, "--max-attach-inlined-tables and --max-attach-columns must be 0 (no limit) or more.");
        }
    }
}
