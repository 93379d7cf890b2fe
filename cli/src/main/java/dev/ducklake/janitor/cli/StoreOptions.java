package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.files.StoreOpener;
import dev.ducklake.janitor.storage.FileStore;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Flags that say where the catalog's files are and how to reach the store: the storage commands' and check --storage's. */
public final class StoreOptions {

    @Option(names = "--data-path", paramLabel = "PATH",
            description = "Use this data path instead of ducklake_metadata's data_path, for when the lake is mounted elsewhere "
                    + "where the janitor runs (like DuckLake's OVERRIDE_DATA_PATH). A local path, file://, s3:// or s3a:// URL. "
                    + "Relative paths in the catalog resolve against it; absolute ones stay as stored. Default: the catalog's data_path.")
    String dataPath;

    /** --s3-region, --s3-endpoint, --s3-path-style. */
    @Mixin
    S3Options s3;

    /**
     * Checked before the store is opened (set by {@code maintain}, e.g. that S3 credentials resolve, so that a step that
     * cannot use its store is skipped before it changes anything); null for none.
     */
    LocationCheck beforeOpen;

    /** A check of the data location before its store is opened. */
    interface LocationCheck {
        /**
         * @param location the data location in use
         * @throws JanitorException STORAGE when the store cannot be used
         */
        void check(dev.ducklake.janitor.storage.StorageLocation location) throws JanitorException;
    }

    FileStore open(String catalogDataPath) throws JanitorException {
        dev.ducklake.janitor.storage.StorageLocation location = StoreOpener.location(dataPath != null ? dataPath : catalogDataPath);
        if (beforeOpen != null) {
            beforeOpen.check(location);
        }
        return StoreOpener.open(location, s3.options());
    }

    /** Whether any of these flags was given. */
    boolean given() {
        return dataPath != null || s3.given();
    }
}
