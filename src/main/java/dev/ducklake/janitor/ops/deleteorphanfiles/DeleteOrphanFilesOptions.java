package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.ops.files.AgeThreshold;

import java.time.Duration;

/**
 * Options of {@link DeleteOrphanFiles}. Build with {@link #defaults(String)} and the {@code with…} methods.
 *
 * @param schema the metadata schema
 * @param dataPathOverride {@code --data-path} (DuckLake's OVERRIDE_DATA_PATH), or null for the catalog's data_path
 * @param olderThan only files last modified before this are candidates; null = the catalog's delete_older_than,
 *     else 2 days (DuckLake 1.5.5's default for ducklake_delete_orphaned_files)
 * @param minAge the floor (default 1 hour: a file written moments ago may belong to a commit in flight)
 * @param maxOrphanRatio abort when candidates exceed this fraction of the listed files (default 0.5)
 * @param allowRootPath sweep a data path that is a root ({@code /}, a bucket without prefix); default false
 * @param dryRun list candidates, delete nothing (default true)
 * @param lockName the advisory lock of execute runs
 * @param includePuffin also consider unknown {@code .puffin} files (deletion vectors), as DuckLake releases after 1.5.5
 *     do; default false: DuckLake 1.5.5 considers only {@code .parquet}
 */
public record DeleteOrphanFilesOptions(String schema, String dataPathOverride, AgeThreshold olderThan, Duration minAge,
                                       double maxOrphanRatio, boolean allowRootPath, boolean dryRun, String lockName,
                                       boolean includePuffin) {

    /** Defaults for a schema. */
    public static DeleteOrphanFilesOptions defaults(String schema) {
        return new DeleteOrphanFilesOptions(schema, null, null, Duration.ofHours(1), 0.5, false, true, "ducklake-maintenance", false);
    }

    /** @return a copy with the data path override */
    public DeleteOrphanFilesOptions withDataPath(String p) {
        return new DeleteOrphanFilesOptions(schema, p, olderThan, minAge, maxOrphanRatio, allowRootPath, dryRun, lockName, includePuffin);
    }

    /** @return a copy with the age limit */
    public DeleteOrphanFilesOptions withOlderThan(AgeThreshold t) {
        return new DeleteOrphanFilesOptions(schema, dataPathOverride, t, minAge, maxOrphanRatio, allowRootPath, dryRun, lockName, includePuffin);
    }

    /** @return a copy with the floor */
    public DeleteOrphanFilesOptions withMinAge(Duration d) {
        return new DeleteOrphanFilesOptions(schema, dataPathOverride, olderThan, d, maxOrphanRatio, allowRootPath, dryRun, lockName, includePuffin);
    }

    /** @return a copy with the ratio brake */
    public DeleteOrphanFilesOptions withMaxOrphanRatio(double r) {
        return new DeleteOrphanFilesOptions(schema, dataPathOverride, olderThan, minAge, r, allowRootPath, dryRun, lockName, includePuffin);
    }

    /** @return a copy that may sweep a root */
    public DeleteOrphanFilesOptions withAllowRootPath(boolean a) {
        return new DeleteOrphanFilesOptions(schema, dataPathOverride, olderThan, minAge, maxOrphanRatio, a, dryRun, lockName, includePuffin);
    }

    /** @return a copy that deletes (false) or only lists (true) */
    public DeleteOrphanFilesOptions withDryRun(boolean d) {
        return new DeleteOrphanFilesOptions(schema, dataPathOverride, olderThan, minAge, maxOrphanRatio, allowRootPath, d, lockName, includePuffin);
    }

    /** @return a copy that also sweeps unknown .puffin files */
    public DeleteOrphanFilesOptions withIncludePuffin(boolean p) {
        return new DeleteOrphanFilesOptions(schema, dataPathOverride, olderThan, minAge, maxOrphanRatio, allowRootPath, dryRun,
                lockName, p);
    }

    /** @return a copy with the lock name */
    public DeleteOrphanFilesOptions withLockName(String n) {
        return new DeleteOrphanFilesOptions(schema, dataPathOverride, olderThan, minAge, maxOrphanRatio, allowRootPath, dryRun, n, includePuffin);
    }
}
