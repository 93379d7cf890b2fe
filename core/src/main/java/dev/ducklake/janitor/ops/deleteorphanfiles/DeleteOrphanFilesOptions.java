package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.files.AgeThreshold;
import dev.ducklake.janitor.ops.files.ConsultOptions;
import dev.ducklake.janitor.ops.files.StorageOptionsBuilder;
import dev.ducklake.janitor.ops.files.StorageRunOptions;

import java.time.Duration;

/**
 * Options of {@link DeleteOrphanFiles}. Build with {@link #builder(String)}.
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
 * @param allowUnknownTableFolders delete the candidates of DuckLake table folders no consulted catalog knows (one
 *     DuckLake-named candidate and no known file make such a folder, whatever else it holds; default false: such folders stop the run with {@code BRAKE_UNKNOWN_TABLE_FOLDERS}, because a catalog the
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
        return new DeleteOrphanFilesOptions(RunOptions.builder().metadataSchema(schema).dryRun(true).build(), null, null,
                FLOOR, 0.5, false, false, ConsultOptions.defaults(), false, false, 0, null);
    }

    /** @return a builder from the {@link #defaults(String) defaults} of a schema: the way to set the options */
    public static Builder builder(String schema) {
        return defaults(schema).toBuilder();
    }

    /** @return a builder from these options */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** @throws JanitorException USAGE for a bad value */
    public void validate() throws JanitorException {
        validateShared(FLOOR, "delete-orphan-files");
        if (!(maxOrphanRatio >= 0 && maxOrphanRatio <= 1)) {
            throw new JanitorException(JanitorException.Reason.USAGE, "--max-orphan-ratio must be between 0 and 1, got "
                    + maxOrphanRatio + ".");
        }
    }

    /** @return a copy with other run options (a run's own: its schema, dry run, timeouts) */
    public DeleteOrphanFilesOptions withRun(RunOptions r) {
        return toBuilder().run(r).build();
    }

    /** @return a copy with other consulted catalogs */
    public DeleteOrphanFilesOptions withConsult(ConsultOptions c) {
        return toBuilder().consult(c).build();
    }

    /** @return a copy that deletes (false) or only lists (true) */
    public DeleteOrphanFilesOptions withDryRun(boolean d) {
        return toBuilder().dryRun(d).build();
    }

    /** The builder of {@link DeleteOrphanFilesOptions}: the shared storage options and delete-orphan-files' own. */
    public static final class Builder extends StorageOptionsBuilder<Builder, DeleteOrphanFilesOptions> {

        private double maxOrphanRatio;
        private boolean allowRootPath;
        private boolean includePuffin;
        private boolean allowUnknownTableFolders;
        private String inventory;

        private Builder(DeleteOrphanFilesOptions from) {
            super(from);
            maxOrphanRatio = from.maxOrphanRatio;
            allowRootPath = from.allowRootPath;
            includePuffin = from.includePuffin;
            allowUnknownTableFolders = from.allowUnknownTableFolders;
            inventory = from.inventory;
        }

        /**
         * @param r abort when candidates exceed this fraction of the listed files, 0 to 1
         * @return this builder
         */
        public Builder maxOrphanRatio(double r) {
            maxOrphanRatio = r;
            return this;
        }

        /**
         * @param a whether a data path that is a root may be swept
         * @return this builder
         */
        public Builder allowRootPath(boolean a) {
            allowRootPath = a;
            return this;
        }

        /**
         * @param p whether unknown .puffin files are swept too
         * @return this builder
         */
        public Builder includePuffin(boolean p) {
            includePuffin = p;
            return this;
        }

        /**
         * @param a whether candidates making up whole unknown DuckLake table folders are deleted (true) or stop the run
         * @return this builder
         */
        public Builder allowUnknownTableFolders(boolean a) {
            allowUnknownTableFolders = a;
            return this;
        }

        /**
         * @param location a local path or {@code s3://bucket/key} read instead of listing the store; null = list the store
         * @return this builder
         */
        public Builder inventory(String location) {
            inventory = location;
            return this;
        }

        /**
         * @param file a local inventory read instead of listing the store; null = list the store
         * @return this builder
         */
        public Builder inventory(java.nio.file.Path file) {
            return inventory(file == null ? null : file.toString());
        }

        @Override
        public DeleteOrphanFilesOptions build() {
            return new DeleteOrphanFilesOptions(run, dataPathOverride, olderThan, minAge, maxOrphanRatio, allowRootPath,
                    includePuffin, consult, allowUnknownTableFolders, allowShortRetention, deleteConcurrency, inventory);
        }
    }
}
