package dev.ducklake.janitor.api;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFiles;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesOptions;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesResult;
import dev.ducklake.janitor.ops.runtime.MaintenanceOperation;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.pg.ConnectionSpec;

/**
 * {@code delete-orphan-files}: deletes the files under the data path that no row of this catalog, of any other catalog
 * whose data path overlaps (this database, the server's other databases, {@link #alsoCatalog}) and of the deletion queue
 * knows: DuckLake data file names ({@code .parquet}; {@code .puffin} with {@link #includePuffin}) last modified before
 * {@link #olderThan}. The catalog is only read. The brakes of the CLI hold (nothing deleted, also in a dry run): a root
 * data path, no known file listed, more candidates than {@link #maxOrphanRatio}, whole unknown table folders, a
 * candidate a catalog names under another scheme (docs/storage-safety.md). The same engine and defaults as the CLI
 * command; a dry run unless {@code dryRun(false)}.
 *
 * <pre>{@code
 * DeleteOrphanFilesResult dry = Janitor.on(connectionString, "lake_meta").deleteOrphanFiles()
 *         .s3(new FileStores.Options("eu-central-1", null, false)).execute();   // a dry run
 * long candidates = dry.candidates();
 * }</pre>
 *
 * No batches: one listing, then the deletes; {@link #batchSize} and {@link #maxBatches} fail the run with
 * {@link Reason#USAGE} (the CLI has no such flags here), {@link #runBudget} bounds the listing, every store call and the
 * deletes. Age floor 24 hours ({@link DeleteOrphanFilesOptions#FLOOR}).
 */
public final class DeleteOrphanFilesAction extends StorageMaintenanceAction<DeleteOrphanFilesAction, DeleteOrphanFilesResult> {

    private Double maxOrphanRatio;
    private boolean allowRootDataPath;
    private boolean includePuffin;
    private boolean allowUnknownTableFolders;
    private String inventory;

    DeleteOrphanFilesAction(Janitor janitor) {
        super(janitor);
    }

    /**
     * Abort ({@link Reason#BRAKE_ORPHAN_RATIO}) when candidates exceed this fraction of the files listed under the data
     * path (from an inventory: of its candidates and the entries a consulted catalog knows, other entries being
     * unchecked), because so many unknown files more likely mean a wrong data path than a leak. CLI {@code --max-orphan-ratio}.
     * Default 0.5; outside 0 to 1 the run fails with {@link Reason#USAGE}.
     *
     * @param fraction the fraction, 0 to 1
     * @return this action
     */
    public DeleteOrphanFilesAction maxOrphanRatio(double fraction) {
        this.maxOrphanRatio = fraction;
        return this;
    }

    /**
     * Allow sweeping a data path that is a root ({@code /} or {@code s3://bucket/} without a prefix). CLI
     * {@code --allow-root-data-path}. Default false: such a path stops the run with {@link Reason#BRAKE_ROOT_PATH}.
     *
     * @param allow whether a root may be swept
     * @return this action
     */
    public DeleteOrphanFilesAction allowRootDataPath(boolean allow) {
        this.allowRootDataPath = allow;
        return this;
    }

    /**
     * Also delete unknown {@code .puffin} files (deletion vectors), as DuckLake releases after 1.5.5 do. CLI
     * {@code --include-puffin}. Default false: only {@code .parquet} files are candidates (known {@code .puffin} files
     * are never deleted).
     *
     * @param include whether unknown .puffin files are candidates
     * @return this action
     */
    public DeleteOrphanFilesAction includePuffin(boolean include) {
        this.includePuffin = include;
        return this;
    }

    /**
     * Delete the candidates of DuckLake table folders no consulted catalog knows (one DuckLake-named candidate and no
     * known file make such a folder, whatever else it holds; logged as a warning). CLI
     * {@code --allow-unknown-table-folders}. Default false: they stop the run with
     * {@link Reason#BRAKE_UNKNOWN_TABLE_FOLDERS}, because a catalog this run cannot see (another server sharing the
     * storage) may own them; name it with {@link #alsoCatalog} instead.
     *
     * @param allow whether such folders may be swept
     * @return this action
     */
    public DeleteOrphanFilesAction allowUnknownTableFolders(boolean allow) {
        this.allowUnknownTableFolders = allow;
        return this;
    }

    /**
     * Read the store's objects from this inventory instead of listing the data path: a local file or an
     * {@code s3://bucket/key} read through the data path's store; a plain list or an S3 Inventory manifest.json (CSV, or
     * Parquet with DuckDB's JDBC driver). Every brake applies, and each candidate is confirmed with a stat just before
     * its delete round. CLI {@code --inventory}. Default null: list the store.
     *
     * @param location the inventory, or null to list the store
     * @return this action
     */
    public DeleteOrphanFilesAction inventory(String location) {
        this.inventory = location;
        return this;
    }

    @Override
    MaintenanceOperation<DeleteOrphanFilesResult> operation(ConnectionSpec spec, String schema, ProgressListener listener)
            throws JanitorException {
        if (batchesSet()) {
            throw new JanitorException(Reason.USAGE, "delete-orphan-files has no batches (one listing, then the deletes in the"
                    + " store's own requests): batchSize and maxBatches do not apply; bound the run with runBudget.");
        }
        DeleteOrphanFilesOptions.Builder b = DeleteOrphanFilesOptions.builder(schema).run(runOptions(DEFAULTS, schema))
                .dataPath(dataPathOverride()).olderThan(olderThanOrNull())
                .minAge(minAgeOr(DeleteOrphanFilesOptions.FLOOR)).allowShortRetention(shortRetentionAllowed())
                .deleteConcurrency(concurrency()).consult(consult(spec)).allowRootPath(allowRootDataPath)
                .includePuffin(includePuffin).allowUnknownTableFolders(allowUnknownTableFolders)
                .inventory(inventory);
        if (maxOrphanRatio != null) {
            b.maxOrphanRatio(maxOrphanRatio);
        }
        DeleteOrphanFilesOptions o = b.build();
        return new DeleteOrphanFiles(spec, o, opener(), fileListener(), listener);
    }
}
