package dev.ducklake.janitor.storage;

import java.net.URI;

/**
 * Chooses the {@link FileStore} for a location's scheme. Add GCS ({@code gs}) or Azure ({@code az}, {@code abfss})
 * here with their own implementations.
 */
public final class FileStores {

    private FileStores() {
    }

    /**
     * Options for object stores, from the command line.
     *
     * @param s3Region S3 region or null (SDK region chain, else us-east-1)
     * @param s3Endpoint endpoint override or null
     * @param s3PathStyle path-style bucket addressing
     */
    public record Options(String s3Region, URI s3Endpoint, boolean s3PathStyle) {
        /** No overrides. */
        public static final Options DEFAULT = new Options(null, null, false);
    }

    /**
     * Opens the store that serves a location.
     *
     * @param location the data path
     * @param options object-store settings
     * @return the store (close it)
     * @throws StorageException kind OTHER when the scheme has no implementation
     */
    public static FileStore open(StorageLocation location, Options options) throws StorageException {
        switch (location.scheme()) {
            case "file":
                return new LocalFileStore();
            case "s3":
                return new S3FileStore(new S3FileStore.Settings(options.s3Region(), options.s3Endpoint(), options.s3PathStyle()));
            default:
                throw new StorageException(StorageException.Kind.OTHER, "No file store for scheme '" + location.scheme()
                        + "://' (supported: local paths, file://, s3://, s3a://)", null);
        }
    }
}
