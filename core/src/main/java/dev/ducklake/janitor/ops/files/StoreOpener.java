package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.storage.FileStore;

/** Opens the file store that serves a data path (the CLI builds it from the --s3-* flags; tests pass their own). */
@FunctionalInterface
public interface StoreOpener {

    /**
     * @param dataPath the data path in use (after the override)
     * @return the store; the caller closes it
     * @throws JanitorException STORAGE when no store serves the scheme; BRAKE_ROOT_PATH when the path is unusable
     */
    FileStore open(String dataPath) throws JanitorException;
}
