package dev.ducklake.janitor.storage;

import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Amazon S3 and S3-compatible stores (MinIO, Ceph RGW, S3Proxy) through the AWS SDK for Java v2.
 *
 * <p>Credentials come only from the SDK's default provider chain (system properties {@code aws.accessKeyId} /
 * {@code aws.secretAccessKey}, the environment variables {@code AWS_ACCESS_KEY_ID} / {@code AWS_SECRET_ACCESS_KEY} /
 * {@code AWS_SESSION_TOKEN}, web identity (EKS IRSA), the shared files {@code ~/.aws/credentials} and
 * {@code ~/.aws/config} with {@code AWS_PROFILE}, container and instance metadata). They are never printed: errors
 * carry the S3 error code, HTTP status and request id only.
 *
 * <p>Listing uses ListObjectsV2 pages of up to 1,000 keys with the continuation token; S3 returns keys in UTF-8
 * byte order. The schema and table folders under the listed prefix are listed {@value #LIST_CONCURRENCY} at a time
 * ({@link FolderParallelListing}: one-level listings with the delimiter '/' find them, key ranges of whole folders
 * are listed in the background and read back in order). Keys ending in {@code /} (folder markers) are not objects and
 * are skipped. Deletes use
 * DeleteObjects with at most 1,000 keys; a store that answers a batch delete with 501 / NotImplemented /
 * MissingContentMD5 / MethodNotAllowed is switched to DeleteObject per key for the rest of the run.
 *
 * <p>Timeouts ({@link Timeouts#DEFAULTS}), so that a store that accepts TCP and never answers cannot hang a run: TCP
 * connect 10 s, each read 30 s, each HTTP attempt 30 s, each call with the SDK's retries 60 s (a page of a listing
 * or a batch delete of 1,000 keys takes seconds). A call that runs out fails as
 * {@link StorageException.Kind#TRANSIENT} ("no answer from the store in time"), which {@link StorageRetry} retries
 * up to {@link dev.ducklake.janitor.retry.RetryPolicy#MAX_ATTEMPTS} times: a silent store ends a request within about
 * five minutes.
 *
 * <p>Within a run's {@link CallBounds} ({@link #bound}) each call's timeout is also capped at what is left of the run
 * budget, the retries end with it, and a stop request (SIGTERM/SIGINT) abandons a call in flight within
 * {@value StorageRetry#STOP_POLL_MILLIS} ms (the call runs on a daemon thread that the SDK's own timeout ends); the
 * call then fails with {@link StorageException.Kind#STOPPED}.
 */
public final class S3FileStore extends AbstractFileStore {

    private static final Pattern ADDRESS = Pattern.compile("^([A-Za-z0-9+.-]+)://([^/]+)/(.*)$", Pattern.DOTALL);

    /**
     * Settings of the S3 requests.client().
     *
     * @param region the region, or null for the SDK's region chain ({@code AWS_REGION}, profile), falling back to
     *     {@code us-east-1}
     * @param endpoint an endpoint override such as {@code http://minio:9000}, or null for AWS
     * @param pathStyle whether to address buckets in the path ({@code endpoint/bucket/key}), which MinIO and Ceph
     *     usually need
     */
    public record Settings(String region, URI endpoint, boolean pathStyle) {
    }

    /**
     * The client's time bounds.
     *
     * @param connect TCP connect (and TLS handshake) of one connection
     * @param read the longest wait for any read on an open connection (the SDK's socket timeout)
     * @param attempt one HTTP attempt, connect to last byte (the SDK's {@code apiCallAttemptTimeout})
     * @param call one call, all the SDK's retries included (the SDK's {@code apiCallTimeout}): the most any single
     *     S3 request can wait
     */
    public record Timeouts(Duration connect, Duration read, Duration attempt, Duration call) {
        /** 10 s connect, 30 s read, 30 s per attempt, 60 s per call. */
        public static final Timeouts DEFAULTS = new Timeouts(Duration.ofSeconds(10), Duration.ofSeconds(30),
                Duration.ofSeconds(30), Duration.ofSeconds(60));
    }

    /** Folder ranges a listing fetches at once by default ({@link FolderParallelListing}). */
    public static final int LIST_CONCURRENCY = 8;

    private final Timeouts timeouts;
    private final S3Requests requests;
    private final S3Listings listings;
    private final S3Sizes sizes;

    /**
     * Builds a client from the settings and the default credentials chain.
     *
     * @param settings region, endpoint, path style
     */
    public S3FileStore(Settings settings) {
        this(settings, Timeouts.DEFAULTS);
    }

    /**
     * Builds a client from the settings, the default credentials chain and the given time bounds.
     *
     * @param settings region, endpoint, path style
     * @param timeouts connect, read, attempt and call bounds
     */
    public S3FileStore(Settings settings, Timeouts timeouts) {
        this(settings, timeouts, LIST_CONCURRENCY);
    }

    /**
     * Builds a client from the settings, the default credentials chain, the given time bounds and listing concurrency.
     *
     * @param settings region, endpoint, path style
     * @param timeouts connect, read, attempt and call bounds
     * @param listConcurrency folder ranges a listing fetches at once; 1 lists page after page
     */
    public S3FileStore(Settings settings, Timeouts timeouts, int listConcurrency) {
        this.timeouts = timeouts;
        int concurrency = Math.max(1, listConcurrency);
        S3ClientBuilder b = S3Client.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder()
                        .connectionTimeout(timeouts.connect())
                        .socketTimeout(timeouts.read()))
                .overrideConfiguration(ClientOverrideConfiguration.builder()
                        .apiCallAttemptTimeout(timeouts.attempt())
                        .apiCallTimeout(timeouts.call())
                        // every attempt answered 503/429 (the SDK retries some itself) counts as throttling
                        .addExecutionInterceptor(new software.amazon.awssdk.core.interceptor.ExecutionInterceptor() {
                            @Override
                            public void afterTransmission(software.amazon.awssdk.core.interceptor.Context.AfterTransmission ctx,
                                                          software.amazon.awssdk.core.interceptor.ExecutionAttributes attrs) {
                                int status = ctx.httpResponse().statusCode();
                                if (status == 503 || status == 429) {
                                    throttled();
                                }
                            }
                        })
                        .build())
                .credentialsProvider(DefaultCredentialsProvider.builder().build())
                .region(Region.of(region(settings.region())))
                .forcePathStyle(settings.pathStyle())
                // checksums only where the API requires them: S3-compatible stores (older MinIO, Ceph) reject
                // the SDK's default trailing checksums
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
        if (settings.endpoint() != null) {
            b.endpointOverride(settings.endpoint());
        }
        this.requests = new S3Requests(b.build(), timeouts, this::throttled);
        this.listings = new S3Listings(requests, concurrency);
        this.sizes = new S3Sizes(requests, listings, concurrency);
    }

    @Override
    public void bound(CallBounds b) {
        requests.bound(b);
    }

    private StorageRetry retry() {
        return requests.retry();
    }

    private <T> T call(S3Requests.SdkCall<T> c, String where) throws StorageException {
        return requests.call(c, where);
    }

    /** @return the client's time bounds */
    public Timeouts timeouts() {
        return timeouts;
    }

    /**
     * The region a client of these settings uses: the explicit one, else the SDK's region chain ({@code AWS_REGION},
     * the profile), else {@code us-east-1}. Also for DuckDB's S3 secret in {@code flush-inlined-data} and {@code compact}.
     *
     * @param explicit the region given, or null
     * @return the region id
     */
    public static String resolveRegion(String explicit) {
        return region(explicit);
    }

    /**
     * AWS credentials as resolved by the SDK's default provider chain (the same chain this store's clients use), for a
     * client that is not the SDK (DuckDB's httpfs). Never to be logged: {@link #toString()} shows the key id only.
     *
     * @param keyId the access key id
     * @param secret the secret access key
     * @param sessionToken the session token of temporary credentials (web identity, a role), or null
     */
    public record Credentials(String keyId, String secret, String sessionToken) {
        @Override
        public String toString() {
            return "Credentials[keyId=" + keyId + "]";
        }
    }

    /**
     * Resolves the default provider chain once.
     *
     * @return the credentials
     * @throws StorageException kind OTHER when the chain has none, naming where credentials may come from (never a value)
     */
    public static Credentials resolveCredentials() throws StorageException {
        try (DefaultCredentialsProvider chain = DefaultCredentialsProvider.builder().build()) {
            software.amazon.awssdk.auth.credentials.AwsCredentials c = chain.resolveCredentials();
            String token = c instanceof software.amazon.awssdk.auth.credentials.AwsSessionCredentials session ? session.sessionToken() : null;
            return new Credentials(c.accessKeyId(), c.secretAccessKey(), token);
        } catch (SdkException e) {
            throw new StorageException(StorageException.Kind.OTHER, "No AWS credentials found in the default provider chain"
                    + " (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE and ~/.aws, web identity, container or instance"
                    + " role). Nothing was done.", null);
        }
    }

    private static String region(String explicit) {
        if (explicit != null && !explicit.isBlank()) {
            return explicit;
        }
        try {
            return new DefaultAwsRegionProviderChain().getRegion().id();
        } catch (SdkException e) {
            return "us-east-1";
        }
    }

    /** Bucket and key of an {@code s3://bucket/key} address, the key byte for byte. */
    static String[] split(String address) throws StorageException {
        Matcher m = ADDRESS.matcher(address.replace('\\', '/'));
        if (!m.matches()) {
            throw new StorageException(StorageException.Kind.OTHER, "Not an object address: " + address, null);
        }
        return new String[] {m.group(2), m.group(3)};
    }

    /**
     * Lists a prefix; with a list concurrency above 1 (the default, {@value #LIST_CONCURRENCY}) its schema and table
     * folders are listed concurrently by a {@link FolderParallelListing}, in the same order as one flat listing.
     */
    @Override
    public Listing list(StorageLocation prefix) throws StorageException {
        return listings.list(prefix.asPrefix());
    }

    @Override
    public DeleteOutcome delete(List<String> addresses) throws StorageException {
        Set<String> deleted = new HashSet<>();
        Set<String> missing = new HashSet<>();
        Map<String, StorageException> failed = new LinkedHashMap<>();
        Map<String, Map<String, String>> byBucket = new LinkedHashMap<>();
        for (String a : addresses) {
            try {
                String[] bk = split(a);
                byBucket.computeIfAbsent(bk[0], k -> new LinkedHashMap<>()).put(bk[1], a);
            } catch (StorageException e) {
                failed.put(a, e);
            }
        }
        for (Map.Entry<String, Map<String, String>> e : byBucket.entrySet()) {
            String bucket = e.getKey();
            Map<String, String> keys = e.getValue();
            if (batchDeleteEnabled()) {
                try {
                    batchDelete(bucket, keys, deleted, failed);
                    continue;
                } catch (StorageException ex) {
                    if (ex.kind() != StorageException.Kind.BATCH_DELETE_UNSUPPORTED) {
                        throw ex;
                    }
                    disableBatchDelete();
                }
            }
            for (Map.Entry<String, String> k : keys.entrySet()) {
                try {
                    retry().call("delete " + k.getValue(), () -> call(
                            ov -> requests.client().deleteObject(r -> r.bucket(bucket).key(k.getKey()).overrideConfiguration(ov)), k.getValue()));
                    deleted.add(k.getValue());
                } catch (StorageException ex) {
                    if (ex.kind() == StorageException.Kind.STOPPED) {
                        throw ex;
                    }
                    if (ex.kind() == StorageException.Kind.NOT_FOUND) {
                        deleted.add(k.getValue());
                        missing.add(k.getValue());
                    } else if (ex.kind() == StorageException.Kind.ACCESS_DENIED && failed.isEmpty() && deleted.isEmpty()) {
                        throw ex;
                    } else {
                        failed.put(k.getValue(), ex);
                    }
                }
            }
        }
        return new DeleteOutcome(deleted, missing, failed);
    }

    /**
     * One DeleteObjects request in quiet mode (the answer lists only the keys that failed), inside the one retry
     * loop: a key the answer says is throttled or hit an internal error ({@code SlowDown}, {@code InternalError},
     * {@code ServiceUnavailable}) is sent again, alone with the others like it, after the policy's backoff; when the
     * policy gives up they are failed (each with its reason), not the whole call. Keys deleted by an earlier
     * attempt stay deleted.
     */
    private void batchDelete(String bucket, Map<String, String> keys, Set<String> deleted,
                             Map<String, StorageException> failed) throws StorageException {
        Map<String, String> pending = new LinkedHashMap<>(keys);
        Map<String, StorageException> retrying = new LinkedHashMap<>();
        StorageException[] perKey = new StorageException[1];
        try {
            retry().call("delete batch in s3://" + bucket, () -> {
                List<ObjectIdentifier> ids = new ArrayList<>(pending.size());
                for (String k : pending.keySet()) {
                    ids.add(ObjectIdentifier.builder().key(k).build());
                }
                Delete d = Delete.builder().objects(ids).quiet(true).build();
                DeleteObjectsResponse resp = call(ov -> requests.client().deleteObjects(r -> r.bucket(bucket).delete(d)
                        .overrideConfiguration(ov)), "s3://" + bucket + " (DeleteObjects)");
                retrying.clear();
                Map<String, String> errored = new LinkedHashMap<>();
                boolean throttledKey = false;
                for (S3Error err : resp.errors()) {
                    String address = pending.get(err.key());
                    if (address == null) {
                        continue;
                    }
                    errored.put(err.key(), address);
                    String code = err.code();
                    if ("NoSuchKey".equals(code)) {
                        deleted.add(address);
                    } else if ("SlowDown".equals(code) || "InternalError".equals(code) || "ServiceUnavailable".equals(code)) {
                        throttledKey |= "SlowDown".equals(code);
                        retrying.put(err.key(), new StorageException("SlowDown".equals(code) ? StorageException.Kind.THROTTLED
                                : StorageException.Kind.TRANSIENT, address + ": " + code + " " + err.message(), null));
                    } else {
                        StorageException.Kind kind = "AccessDenied".equals(code) ? StorageException.Kind.ACCESS_DENIED
                                : StorageException.Kind.OTHER;
                        failed.put(address, new StorageException(kind, address + ": " + code + " " + err.message(), null));
                    }
                }
                for (Map.Entry<String, String> k : pending.entrySet()) {
                    if (!errored.containsKey(k.getKey())) {
                        deleted.add(k.getValue());
                    }
                }
                pending.keySet().retainAll(retrying.keySet());
                if (!retrying.isEmpty()) {
                    throw perKey[0] = new StorageException(throttledKey ? StorageException.Kind.THROTTLED : StorageException.Kind.TRANSIENT,
                            "s3://" + bucket + " (DeleteObjects): " + retrying.size() + " key(s) answered "
                                    + (throttledKey ? "SlowDown" : "InternalError"), null);
                }
                return null;
            });
        } catch (StorageException e) {
            if (e != perKey[0] || retrying.isEmpty()) {
                throw e;
            }
            // the policy gave up on the keys the store kept refusing: they fail, the rest of the call stands
            for (Map.Entry<String, StorageException> k : retrying.entrySet()) {
                failed.put(keys.get(k.getKey()), k.getValue());
            }
        }
    }

    /**
     * Sizes from listings instead of a HeadObject per key ({@link S3Sizes}): each folder's keys in up to the list
     * concurrency's runs of key ranges listed at once, each bounded where a HeadObject per key gets cheaper; -1 for a
     * key a range listed to its end did not show (missing). A listing failure other than a stop leaves sizes unknown.
     */
    @Override
    public Map<String, Long> listedSizes(List<String> addresses) throws StorageException {
        return sizes.listedSizes(addresses);
    }

    @Override
    public Optional<StoredObject> stat(String address) throws StorageException {
        String[] bk = split(address);
        try {
            HeadObjectResponse h = retry().call("stat " + address,
                    () -> call(ov -> requests.client().headObject(r -> r.bucket(bk[0]).key(bk[1]).overrideConfiguration(ov)), address));
            return Optional.of(new StoredObject(StorageLocation.parse(address), address,
                    h.contentLength() == null ? -1 : h.contentLength(), h.lastModified()));
        } catch (StorageException e) {
            if (e.kind() == StorageException.Kind.NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** GetObject through the retry loop; the body is streamed (the call's timeout ends with the answer's headers). */
    @Override
    public java.io.InputStream read(String address) throws StorageException {
        String[] bk = split(address);
        return retry().call("read " + address,
                () -> call(ov -> requests.client().getObject(r -> r.bucket(bk[0]).key(bk[1]).overrideConfiguration(ov)), address));
    }

    @Override
    public void close() {
        sizes.close();
        requests.close();
    }
}
