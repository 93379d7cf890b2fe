package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.FileStores;
import dev.ducklake.janitor.storage.PathResolver;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.storage.StorageLocation;

import java.util.Objects;

/**
 * Opens the file store that serves a data path: {@link #of} the janitor's own stores (the CLI's from its --s3-* flags,
 * the library's from its settings); tests and library callers may pass their own.
 */
@FunctionalInterface
public interface StoreOpener {

    /**
     * @param dataPath the data path in use (after the override)
     * @return the store; the caller closes it
     * @throws JanitorException STORAGE when no store serves the scheme; BRAKE_ROOT_PATH when the path is unusable
     */
    FileStore open(String dataPath) throws JanitorException;

    /**
     * The janitor's stores ({@link FileStores}: local paths and {@code file://}, {@code s3://} and {@code s3a://}).
     *
     * @param settings how to reach an object store (region, endpoint, path style; credentials always come from the
     *     AWS SDK's default chain); {@link FileStores.Options#DEFAULT} for none
     * @return the opener
     */
    static StoreOpener of(FileStores.Options settings) {
        Objects.requireNonNull(settings, "settings");
        return dataPath -> open(location(dataPath), settings);
    }

    /**
     * @param dataPath a data path
     * @return its location
     * @throws JanitorException {@link Reason#BRAKE_ROOT_PATH} when the path cannot be used (not a location)
     */
    static StorageLocation location(String dataPath) throws JanitorException {
        try {
            return new PathResolver(dataPath).dataLocation();
        } catch (IllegalArgumentException e) {
            throw new JanitorException(Reason.BRAKE_ROOT_PATH, "The data path cannot be used: " + e.getMessage());
        }
    }

    /**
     * @param location a data location
     * @param settings how to reach an object store
     * @return the store serving it; the caller closes it
     * @throws JanitorException {@link Reason#STORAGE} when no store serves its scheme or the store cannot be set up;
     *     {@link Reason#BRAKE_ROOT_PATH} when the location is unusable for it
     */
    static FileStore open(StorageLocation location, FileStores.Options settings) throws JanitorException {
        try {
            return FileStores.open(location, settings);
        } catch (IllegalArgumentException e) {
            throw new JanitorException(Reason.BRAKE_ROOT_PATH, "The data path cannot be used: " + e.getMessage());
        } catch (StorageException e) {
            throw new JanitorException(Reason.STORAGE, e.getMessage(), e);
        }
    }
}
