package dev.ducklake.janitor.ops.deleteorphanfiles;

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
 * delete-orphan-files on the shared runtime: {@link MaintenanceRun} opens the session, inspects the catalog and takes
 * the advisory lock (execute runs); the root brake is checked; the store is opened for the catalog's data path (or
 * the override); then {@link DeleteOrphanFiles#execute} lists, merges, brakes and deletes. The catalog is only read.
 */
public final class DeleteOrphanFilesAction extends StoppableOperation<DeleteOrphanFilesResult> {

    private final ConnectionSpec spec;
    private final DeleteOrphanFilesOptions options;
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
    public DeleteOrphanFilesAction(ConnectionSpec spec, DeleteOrphanFilesOptions options, StoreOpener opener, FileListener files,
                                 ProgressListener listener) {
        this.spec = spec;
        this.options = options;
        this.opener = opener;
        this.files = files;
        this.listener = listener;
    }

    @Override
    protected DeleteOrphanFilesResult run() throws JanitorException {
        options.validate();
        try (MaintenanceRun run = MaintenanceRun.open(spec, options.run(), listener, stopFlag())) {
            run.inspectAndLock();
            Connection c = run.session().connection();
            dev.ducklake.janitor.storage.PathResolver resolver = CatalogFiles.resolver(c, options.schema(), options.dataPathOverride());
            DeleteOrphanFiles.checkRoot(resolver, options);
            String dataPath = resolver.dataPath();
            RunControl control = new RunControl(run.recorder(), stopFlag(), options.run());
            try (FileStore store = opener.open(dataPath)) {
                return DeleteOrphanFiles.execute(c, store, options, StorageFailures.withProgress(files, run.recorder()), control);
            }
        } catch (SQLException e) {
            throw StorageFailures.database(e, spec);
        }
    }
}
