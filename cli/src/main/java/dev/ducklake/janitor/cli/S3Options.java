package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.storage.FileStores;
import picocli.CommandLine.Option;

import java.net.URI;

/**
 * How to reach an S3 data path: the flags of the storage commands, check --storage, metrics' storage figures, and of
 * flush-inlined-data and compact (whose DuckDB writes there through httpfs). One definition, so the flags read the same
 * everywhere.
 */
public final class S3Options {

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

    /** @return the flags as the storage layer takes them */
    FileStores.Options options() {
        return new FileStores.Options(s3Region, s3Endpoint, s3PathStyle);
    }

    /** Whether any of these flags was given. */
    boolean given() {
        return s3Region != null || s3Endpoint != null || s3PathStyle;
    }
}
