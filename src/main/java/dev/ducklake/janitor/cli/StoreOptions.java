package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.FileStores;
import dev.ducklake.janitor.storage.PathResolver;
import dev.ducklake.janitor.storage.StorageException;
import picocli.CommandLine.Option;

import java.net.URI;

/** Flags that say where the catalog's files are and how to reach the store: the storage commands' and check --storage's. */
public final class StoreOptions {

    @Option(names = "--data-path", paramLabel = "PATH",
            description = "Use this data path instead of ducklake_metadata's data_path, for when the lake is mounted elsewhere "
                    + "where the janitor runs (like DuckLake's OVERRIDE_DATA_PATH). A local path, file://, s3:// or s3a:// URL. "
                    + "Relative paths in the catalog resolve against it; absolute ones stay as stored. Default: the catalog's data_path.")
    String dataPath;

    @Option(names = "--s3-region", paramLabel = "REGION",
            description = "S3 region. Default: the AWS SDK's region chain (AWS_REGION, the profile), else us-east-1.")
    String s3Region;

    @Option(names = "--s3-endpoint", paramLabel = "URL",
            description = "S3 endpoint override for S3-compatible stores (MinIO, Ceph RGW), e.g. http://minio:9000. Default: AWS.")
    URI s3Endpoint;

    @Option(names = "--s3-path-style",
            description = "Address buckets in the URL path (endpoint/bucket/key) instead of the host name; MinIO and Ceph usually "
                    + "need it. Credentials always come from the AWS SDK default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, "
                    + "AWS_PROFILE and ~/.aws, web identity, container/instance roles) and are never printed. Default: off.")
    boolean s3PathStyle;

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
        String p = dataPath != null ? dataPath : catalogDataPath;
        try {
            dev.ducklake.janitor.storage.StorageLocation location = new PathResolver(p).dataLocation();
            if (beforeOpen != null) {
                beforeOpen.check(location);
            }
            return FileStores.open(location, new FileStores.Options(s3Region, s3Endpoint, s3PathStyle));
        } catch (IllegalArgumentException e) {
            throw new JanitorException(Reason.BRAKE_ROOT_PATH, "The data path cannot be used: " + e.getMessage());
        } catch (StorageException e) {
            throw new JanitorException(Reason.STORAGE, e.getMessage(), e);
        }
    }


    /** Whether any of these flags was given. */
    boolean given() {
        return dataPath != null || s3Region != null || s3Endpoint != null || s3PathStyle;
    }
}
