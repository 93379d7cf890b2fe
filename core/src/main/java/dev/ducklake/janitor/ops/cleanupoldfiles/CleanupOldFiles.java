package dev.ducklake.janitor.ops.cleanupoldfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.ops.files.RunControl;
import dev.ducklake.janitor.ops.files.StorageOperation;
import dev.ducklake.janitor.ops.files.StoreOpener;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.storage.FileStore;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * cleanup-old-files on the shared runtime, in {@link StorageOperation}'s frame (session, lock for execute runs, data
 * path, store); {@link QueueSweep#execute} runs its batches, checking the stop flag, --max-batches and
 * --run-budget between them. A batch's queue-row delete is retried on the session after a transient failure
 * ({@link dev.ducklake.janitor.ops.files.CatalogRetry}); a lost connection ends the run (exit 3): every committed batch
 * is consistent, a rerun continues.
 */
public final class CleanupOldFiles extends StorageOperation<CleanupOldFilesOptions, CleanupOldFilesResult> {

    /**
     * @param spec the catalog database
     * @param options the options
     * @param opener opens the store of the data path
     * @param files receives each file
     * @param listener receives progress
     */
    public CleanupOldFiles(ConnectionSpec spec, CleanupOldFilesOptions options, StoreOpener opener, FileListener files,
                                 ProgressListener listener) {
        super(spec, options, opener, files, listener);
    }

    @Override
    protected String command() {
        return "cleanup-old-files";
    }

    @Override
    protected CleanupOldFilesResult work(Connection c, FileStore store, CleanupOldFilesOptions options, FileListener files,
                                         RunControl control) throws JanitorException, SQLException {
        CleanupOldFilesOptions o = options.consult().server() == null
                ? options.withConsult(options.consult().withServer(spec())) : options;
        return QueueSweep.execute(c, store, o, files, control);
    }

    @Override
    protected CleanupOldFilesResult stoppedBeforeWork(CleanupOldFilesOptions o, String dataPath, RunControl control) {
        return new CleanupOldFilesResult(o.schema(), dataPath, null, null, o.dryRun(), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false,
                o.allowShortRetention(), java.util.List.of(), 0, control.figures(), java.util.List.of(), java.util.List.of(),
                java.util.List.of(), STOPPED_DURING_CATALOG);
    }
}
