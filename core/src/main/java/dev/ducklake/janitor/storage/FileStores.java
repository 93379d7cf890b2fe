package dev.ducklake.janitor.storage;

import java.net.URI;
import java.nio.file.Paths;

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
    /**
     * Refuses local storage unless the JVM decodes file names as UTF-8. The JVM turns the bytes of a listed file name
     * into a string with {@code sun.jnu.encoding}, which follows the locale (LANG/LC_ALL) at start-up; under
     * {@code LANG=en_US.ISO-8859-1} or the C locale ({@code env -i}, many cron and systemd environments) a registered
     * {@code import_ë/part.parquet} is listed under another spelling, looks unknown and would be deleted. DuckLake
     * stores paths as UTF-8, so names must compare byte-exact.
     *
     * @param jnuEncoding the JVM's file-name encoding ({@code sun.jnu.encoding})
     * @throws StorageException kind OTHER, naming the setting and the fix
     */
    static void requireUtf8FileNames(String jnuEncoding) throws StorageException {
        if (jnuEncoding == null || !jnuEncoding.replace("-", "").equalsIgnoreCase("UTF8")) {
            throw new StorageException(StorageException.Kind.OTHER, "The JVM decodes file names as " + jnuEncoding
                    + " (sun.jnu.encoding, set from the locale LANG/LC_ALL at start-up), not UTF-8: a file with a non-ASCII"
                    + " name would not compare equal to its catalog path and could be deleted while live. Nothing was done."
                    + " Run with a UTF-8 locale, e.g. LC_ALL=C.UTF-8 (the container image and the CronJob set it).", null);
        }
    }

    public static FileStore open(StorageLocation location, Options options) throws StorageException {
        switch (location.scheme()) {
            case "file":
                requireUtf8FileNames(System.getProperty("sun.jnu.encoding"));
                // deletes confined to the data path: no file is deleted through a symbolic link below it
                return new LocalFileStore(Paths.get(location.asPrefix().path()));
            case "s3":
                return new S3FileStore(new S3FileStore.Settings(options.s3Region(), options.s3Endpoint(), options.s3PathStyle()));
            default:
                throw new StorageException(StorageException.Kind.OTHER, "No file store for scheme '" + location.scheme()
                        + "://' (supported: local paths, file://, s3://, s3a://)", null);
        }
    }
}
