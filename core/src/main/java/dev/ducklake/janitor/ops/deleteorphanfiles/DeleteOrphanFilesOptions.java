package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.files.AgeThreshold;
import dev.ducklake.janitor.ops.files.ConsultOptions;
import dev.ducklake.janitor.ops.files.StorageRunOptions;

import java.time.Duration;

/**
 * Options of {@link DeleteOrphanFiles}. Build with {@link #defaults(String)} and the {@code with…} methods.
 *
 * @param run the generic run options (schema, dry run, lock name, timeouts; the batch size is the store's: S3
 *     deletes at most 1,000 keys per request)
 * @param dataPathOverride {@code --data-path} (DuckLake's OVERRIDE_DATA_PATH), or null for the catalog's data_path
 * @param olderThan only files last modified before this are candidates; null = the catalog's delete_older_than,
 *     else 2 days (DuckLake 1.5.5's default for ducklake_delete_orphaned_files)
 * @param minAge the floor (default 24 hours, {@link #FLOOR}: a file written a while ago may belong to a commit in
 *     flight, as Iceberg's procedure refuses orphan deletion under 24 h); below {@link #FLOOR} only with
 *     {@code allowShortRetention}
 * @param maxOrphanRatio abort when candidates exceed this fraction of the listed files (default 0.5)
 * @param allowRootPath sweep a data path that is a root ({@code /}, a bucket without prefix); default false
 * @param includePuffin also consider unknown {@code .puffin} files (deletion vectors), as DuckLake releases after
 *     1.5.5 do; default false: DuckLake 1.5.5 considers only {@code .parquet}
 * @param consult which other catalogs must be read first (default: every overlapping catalog of the database and of
 *     the server's other databases; an unreadable one refuses the run), see {@link ConsultOptions}
 * @param allowUnknownTableFolders delete candidates that make up whole DuckLake table folders no consulted catalog
 *     knows (default false: such folders stop the run with {@code BRAKE_UNKNOWN_TABLE_FOLDERS}, because a catalog the
 *     run cannot see, e.g. on another server sharing the bucket, may own them)
 * @param allowShortRetention whether {@code minAge} may go below {@link #FLOOR} ({@code --allow-short-retention})
 * @param deleteConcurrency {@code --delete-concurrency}: delete calls in flight at once ({@link
 *     dev.ducklake.janitor.ops.files.ParallelDeletes}); 0 = the store's default (8 on an object store, 4 on a local
 *     file system), 1 = one call at a time
 * @param inventory {@code --inventory}: a file list or an S3 Inventory manifest (CSV or Parquet listings), a local path
 *     or an {@code s3://bucket/key} read through the data path's S3 store, read instead of listing the store
 *     ({@link Inventory}; every candidate is confirmed with a stat before its delete round); null (default) = list the store
 */
public record DeleteOrphanFilesOptions(RunOptions run, String dataPathOverride, AgeThreshold olderThan, Duration minAge,
                                       double maxOrphanRatio, boolean allowRootPath, boolean includePuffin,
                                       ConsultOptions consult, boolean allowUnknownTableFolders,
                                       boolean allowShortRetention, int deleteConcurrency,
                                       String inventory) implements StorageRunOptions {

    /** The floor under which --min-age needs --allow-short-retention. */
    public static final Duration FLOOR = Duration.ofHours(24);

    /** Defaults for a schema (dry run). */
    public static DeleteOrphanFilesOptions defaults(String schema) {
        return new DeleteOrphanFilesOptions(RunOptions.defaults().withMetadataSchema(schema).withDryRun(true), null, null,
                FLOOR, 0.5, false, false, ConsultOptions.defaults(), false, false, 0, null);
    }

    /** @throws JanitorException USAGE for a bad value */
    public void validate() throws JanitorException {
        run.validate();
        consult.validate();
        dev.ducklake.janitor.ops.files.FileAges.checkOlderThan(olderThan);
        if (deleteConcurrency < 0 || deleteConcurrency > dev.ducklake.janitor.ops.files.ParallelDeletes.MAX_CONCURRENCY) {
            throw new JanitorException(JanitorException.Reason.USAGE, "--delete-concurrency must be between 1 and "
                    + dev.ducklake.janitor.ops.files.ParallelDeletes.MAX_CONCURRENCY + ", got " + deleteConcurrency + ".");
        }
        dev.ducklake.janitor.ops.files.FileAges.checkFloor(minAge, FLOOR, allowShortRetention, "delete-orphan-files");
        if (!(maxOrphanRatio >= 0 && maxOrphanRatio <= 1)) {
            throw new JanitorException(JanitorException.Reason.USAGE, "--max-orphan-ratio must be between 0 and 1, got "
                    + maxOrphanRatio + ".");
        }
    }

    /** @return the metadata schema */
    public String schema() {
        return run.metadataSchema();
    }

    /** @return whether nothing is deleted */
    public boolean dryRun() {
        return run.dryRun();
    }

    /** @return a copy with other run options */
    public DeleteOrphanFilesOptions withRun(RunOptions r) {
        return new DeleteOrphanFilesOptions(r, dataPathOverride, olderThan, minAge, maxOrphanRatio, allowRootPath, includePuffin,
                consult, allowUnknownTableFolders, allowShortRetention, deleteConcurrency, inventory);
    }

    /** @return a copy with the data path override */
    public DeleteOrphanFilesOptions withDataPath(String p) {
        return new DeleteOrphanFilesOptions(run, p, olderThan, minAge, maxOrphanRatio, allowRootPath, includePuffin,
                consult, allowUnknownTableFolders, allowShortRetention, deleteConcurrency, inventory);
    }

    /** @return a copy with the age limit */
    public DeleteOrphanFilesOptions withOlderThan(AgeThreshold t) {
        return new DeleteOrphanFilesOptions(run, dataPathOverride, t, minAge, maxOrphanRatio, allowRootPath, includePuffin,
                consult, allowUnknownTableFolders, allowShortRetention, deleteConcurrency, inventory);
    }

    /** @return a copy with the floor */
    public DeleteOrphanFilesOptions withMinAge(Duration d) {
        return new DeleteOrphanFilesOptions(run, dataPathOverride, olderThan, d, maxOrphanRatio, allowRootPath, includePuffin,
                consult, allowUnknownTableFolders, allowShortRetention, deleteConcurrency, inventory);
    }

    /** @return a copy with the ratio brake */
    public DeleteOrphanFilesOptions withMaxOrphanRatio(double r) {
        return new DeleteOrphanFilesOptions(run, dataPathOverride, olderThan, minAge, r, allowRootPath, includePuffin,
                consult, allowUnknownTableFolders, allowShortRetention, deleteConcurrency, inventory);
    }

    /** @return a copy that may sweep a root */
    public DeleteOrphanFilesOptions withAllowRootPath(boolean a) {
        return new DeleteOrphanFilesOptions(run, dataPathOverride, olderThan, minAge, maxOrphanRatio, a, includePuffin,
                consult, allowUnknownTableFolders, allowShortRetention, deleteConcurrency, inventory);
    }

    /** @return a copy that also sweeps unknown .puffin files */
    public DeleteOrphanFilesOptions withIncludePuffin(boolean p) {
        return new DeleteOrphanFilesOptions(run, dataPathOverride, olderThan, minAge, maxOrphanRatio, allowRootPath, p,
                consult, allowUnknownTableFolders, allowShortRetention, deleteConcurrency, inventory);
    }

    /** @return a copy with other consulted catalogs */
    public DeleteOrphanFilesOptions withConsult(ConsultOptions c) {
        return new DeleteOrphanFilesOptions(run, dataPathOverride, olderThan, minAge, maxOrphanRatio, allowRootPath, includePuffin,
                c, allowUnknownTableFolders, allowShortRetention, deleteConcurrency, inventory);
    }

    /** @return a copy that deletes (true) or stops at (false) unknown DuckLake table folders */
    public DeleteOrphanFilesOptions withAllowUnknownTableFolders(boolean a) {
        return new DeleteOrphanFilesOptions(run, dataPathOverride, olderThan, minAge, maxOrphanRatio, allowRootPath, includePuffin,
                consult, a, allowShortRetention, deleteConcurrency, inventory);
    }

    /** @return a copy that may (true) or may not go below {@link #FLOOR} */
    public DeleteOrphanFilesOptions withAllowShortRetention(boolean a) {
        return new DeleteOrphanFilesOptions(run, dataPathOverride, olderThan, minAge, maxOrphanRatio, allowRootPath, includePuffin,
                consult, allowUnknownTableFolders, a, deleteConcurrency, inventory);
    }

    /**
     * @param n delete calls in flight at once, 1 to {@value dev.ducklake.janitor.ops.files.ParallelDeletes#MAX_CONCURRENCY};
     *     0 = the store's default
     * @return a copy with that concurrency
     */
    public DeleteOrphanFilesOptions withDeleteConcurrency(int n) {
        return new DeleteOrphanFilesOptions(run, dataPathOverride, olderThan, minAge, maxOrphanRatio, allowRootPath, includePuffin, consult,
                allowUnknownTableFolders, allowShortRetention, n, inventory);
    }

    /**
     * @param location a local path or {@code s3://bucket/key} (null = list the store)
     * @return a copy that reads this inventory instead of listing the store
     */
    public DeleteOrphanFilesOptions withInventory(String location) {
        return new DeleteOrphanFilesOptions(run, dataPathOverride, olderThan, minAge, maxOrphanRatio, allowRootPath, includePuffin, consult,
                allowUnknownTableFolders, allowShortRetention, deleteConcurrency, location);
    }

    /** @return a copy that reads this local inventory instead of listing the store (null = list the store) */
    public DeleteOrphanFilesOptions withInventory(java.nio.file.Path file) {
        return withInventory(file == null ? null : file.toString());
    }

    /** @return a copy that deletes (false) or only lists (true) */
    public DeleteOrphanFilesOptions withDryRun(boolean d) {
        return withRun(run.withDryRun(d));
    }
}
