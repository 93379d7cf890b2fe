package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.ops.files.RunControl;
import dev.ducklake.janitor.ops.files.StorageOperation;
import dev.ducklake.janitor.ops.files.StoreOpener;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.PathResolver;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * delete-orphan-files on the shared runtime, in {@link StorageOperation}'s frame (session, lock for execute runs, data
 * path, store); the root brake is checked before the store is opened; then {@link OrphanSweep#execute} lists,
 * merges, brakes and deletes. The catalog is only read.
 */
public final class DeleteOrphanFiles extends StorageOperation<DeleteOrphanFilesOptions, DeleteOrphanFilesResult> {

    /**
     * @param spec the catalog database
     * @param options the options
     * @param opener opens the store of the data path
     * @param files receives each file
     * @param listener receives progress
     */
    public DeleteOrphanFiles(ConnectionSpec spec, DeleteOrphanFilesOptions options, StoreOpener opener, FileListener files,
                                   ProgressListener listener) {
        super(spec, options, opener, files, listener);
    }

    @Override
    protected String command() {
        return "delete-orphan-files";
    }

    @Override
    protected void checkPath(PathResolver resolver, DeleteOrphanFilesOptions options) throws JanitorException {
        OrphanSweep.checkRoot(resolver, options);
    }

    @Override
    protected DeleteOrphanFilesResult work(Connection c, FileStore store, DeleteOrphanFilesOptions options, FileListener files,
                                           RunControl control) throws JanitorException, SQLException {
        DeleteOrphanFilesOptions o = options.consult().server() == null
                ? options.withConsult(options.consult().withServer(spec())) : options;
        return OrphanSweep.execute(c, store, o, files, control);
    }

    @Override
    protected DeleteOrphanFilesResult stoppedBeforeWork(DeleteOrphanFilesOptions o, String dataPath, RunControl control) {
        return new DeleteOrphanFilesResult(o.schema(), dataPath, null, null, o.dryRun(), java.util.List.of(), 0, 0, 0, 0, 0,
                0, 0, 0, 0, 0, 0, 0, 0, o.allowShortRetention(), java.util.List.of(), 0, control.figures(), java.util.List.of(),
                java.util.List.of(), java.util.List.of(), 0, 0, STOPPED_DURING_CATALOG,
                o.inventory() == null ? "store" : "inventory", 0, 0, 0, 0);
    }
}
