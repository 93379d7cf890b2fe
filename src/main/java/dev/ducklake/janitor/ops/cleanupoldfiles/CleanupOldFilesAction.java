package dev.ducklake.janitor.ops.cleanupoldfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.MaintenanceRun;
import dev.ducklake.janitor.ops.ProgressListener;
import dev.ducklake.janitor.ops.StoppableOperation;
import dev.ducklake.janitor.ops.files.CatalogFiles;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.ops.files.RunControl;
import dev.ducklake.janitor.ops.files.StorageFailures;
import dev.ducklake.janitor.ops.files.StoreOpener;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.storage.FileStore;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * cleanup-old-files on the shared runtime: {@link MaintenanceRun} opens the session, inspects the catalog and takes
 * the advisory lock (execute runs); the store is opened for the catalog's data path (or the override); then
 * {@link CleanupOldFiles#execute} runs its batches, checking the stop flag, --max-batches and --run-budget between
 * them. A lost connection ends the run (exit 3): every committed batch is consistent, a rerun continues.
 */
public final class CleanupOldFilesAction extends StoppableOperation<CleanupOldFilesResult> {

    private final ConnectionSpec spec;
    private final CleanupOldFilesOptions options;
    private final StoreOpener opener;
    private final FileListener files;
    private final ProgressListener listener;

    /**
     * @param spec the catalog database
     * @param options the options
     * @param opener opens the store of the data path
     * @param files receives each file
     * @param listener receives progress
     */
    public CleanupOldFilesAction(ConnectionSpec spec, CleanupOldFilesOptions options, StoreOpener opener, FileListener files,
                                 ProgressListener listener) {
        this.spec = spec;
        this.options = options;
        this.opener = opener;
        this.files = files;
        this.listener = listener;
    }

    @Override
    protected CleanupOldFilesResult run() throws JanitorException {
        options.validate();
        try (MaintenanceRun run = MaintenanceRun.open(spec, options.run(), listener, stopFlag())) {
            run.inspectAndLock();
            Connection c = run.session().connection();
            String dataPath = CatalogFiles.resolver(c, options.schema(), options.dataPathOverride()).dataPath();
            RunControl control = new RunControl(run.recorder(), stopFlag(), options.run());
            try (FileStore store = opener.open(dataPath)) {
                return CleanupOldFiles.execute(c, store, options, StorageFailures.withProgress(files, run.recorder()), control);
            }
        } catch (SQLException e) {
            throw StorageFailures.database(e, spec);
        }
    }
}
