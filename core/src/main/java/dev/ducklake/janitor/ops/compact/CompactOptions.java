package dev.ducklake.janitor.ops.compact;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.runtime.RunOptions;

/**
 * Options of {@link CompactTables}.
 *
 * @param run the generic run options (metadata schema, dry run, run budget, timeouts, lock name); the batch size is unused
 * @param mode which DuckLake functions to plan and call
 * @param targetFileSize the merge target in bytes; null (default) = DuckLake's: the catalog's {@code target_file_size} option
 *     (table, then schema, then global scope), else 512 MiB ({@code DEFAULT_TARGET_FILE_SIZE})
 * @param deleteThreshold the deleted-row fraction from which a file is rewritten, 0 to 1; null (default) = DuckLake's: the
 *     catalog's {@code rewrite_delete_threshold} option, else 0.95
 * @param maxTables act on at most this many tables per run (the others are planned and reported as deferred); 0 = no limit
 * @param maxInputFiles at most this many input files per merge call (DuckLake binds ~0.2 MB per input file): the call's
 *     {@code max_compacted_files} is chosen so that no order of DuckLake's groups exceeds it; 0 = no limit (default)
 * @param maxBytes act on tables, in plan order, while the input bytes of the tables taken ({@link TablePlan#inputBytes})
 *     stay within this many bytes; a table that would go beyond is deferred (the next tables that fit are still taken); a
 *     table above it on its own is never taken, with a warning; 0 = no limit (default)
 * @param engine the in-process DuckDB's settings
 */
public record CompactOptions(RunOptions run, CompactMode mode, Long targetFileSize, Double deleteThreshold, int maxTables,
                             int maxInputFiles, long maxBytes, EngineSettings engine) {

    /** DuckLake's default target file size, bytes ({@code DuckLakeCatalog::DEFAULT_TARGET_FILE_SIZE = 1 << 29}). */
    public static final long DUCKLAKE_TARGET_FILE_SIZE = 1L << 29;
    /** DuckLake's default rewrite threshold ({@code GetDeleteThreshold}). */
    public static final double DUCKLAKE_DELETE_THRESHOLD = 0.95;

    /** @return the defaults of a mode */
    public static CompactOptions defaults(CompactMode mode) {
        return new CompactOptions(RunOptions.defaults(), mode, null, null, 0, 0, 0, EngineSettings.defaults());
    }

    /** @return a copy with other run options */
    public CompactOptions withRun(RunOptions r) {
        return new CompactOptions(r, mode, targetFileSize, deleteThreshold, maxTables, maxInputFiles, maxBytes, engine);
    }

    /** @return a copy with other engine settings */
    public CompactOptions withEngine(EngineSettings e) {
        return new CompactOptions(run, mode, targetFileSize, deleteThreshold, maxTables, maxInputFiles, maxBytes, e);
    }

    /** @return a copy with these caps */
    public CompactOptions withCaps(int tables, int inputFiles) {
        return new CompactOptions(run, mode, targetFileSize, deleteThreshold, tables, inputFiles, maxBytes, engine);
    }

    /** @return a copy with this byte cap (0 = none) */
    public CompactOptions withMaxBytes(long bytes) {
        return new CompactOptions(run, mode, targetFileSize, deleteThreshold, maxTables, maxInputFiles, bytes, engine);
    }

    /** @return a copy with these thresholds (null = DuckLake's) */
    public CompactOptions withThresholds(Long target, Double threshold) {
        return new CompactOptions(run, mode, target, threshold, maxTables, maxInputFiles, maxBytes, engine);
    }

    /**
     * Checks the values.
     *
     * @throws JanitorException USAGE naming the bad value
     */
    public void validate() throws JanitorException {
        run.validate();
        engine.validate();
        if (mode == null) {
            throw new JanitorException(Reason.USAGE, "no mode given");
        }
        if (targetFileSize != null && targetFileSize < 1) {
            throw new JanitorException(Reason.USAGE, "--target-file-size must be a positive number of bytes, got " + targetFileSize + ".");
        }
        if (deleteThreshold != null && (deleteThreshold.isNaN() || deleteThreshold < 0 || deleteThreshold > 1)) {
            throw new JanitorException(Reason.USAGE, "--delete-threshold must be between 0 and 1, got " + deleteThreshold + ".");
        }
        if (maxTables < 0 || maxInputFiles < 0) {
            throw new JanitorException(Reason.USAGE, "--max-tables and --max-input-files must be 0 (no limit) or more.");
        }
        if (maxBytes < 0) {
            throw new JanitorException(Reason.USAGE, "--max-bytes must be 0 (no limit) or a positive number of bytes, got " + maxBytes + ".");
        }
        if (maxInputFiles == 1) {
            throw new JanitorException(Reason.USAGE, "--max-input-files must be at least 2 (a merge takes two files or more), or 0.");
        }
    }
}
