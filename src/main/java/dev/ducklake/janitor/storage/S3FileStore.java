package dev.ducklake.janitor.storage;

import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * byte order. Keys ending in {@code /} (folder markers) are not objects and are skipped. Deletes use
 * DeleteObjects with at most 1,000 keys; a store that answers a batch delete with 501 / NotImplemented /
 * MissingContentMD5 / MethodNotAllowed is switched to DeleteObject per key for the rest of the run.
 *
 * <p>Timeouts ({@link Timeouts#DEFAULTS}), so that a store that accepts TCP and never answers cannot hang a run: TCP
 * connect 10 s, each read 30 s, each HTTP attempt 30 s, each call with the SDK's retries 60 s (a page of a listing
 * or a batch delete of 1,000 keys takes seconds). A call that runs out fails as
 * {@link StorageException.Kind#TRANSIENT} ("no answer from the store in time"), which {@link StorageRetry} retries
 * up to {@link dev.ducklake.janitor.ops.RetryPolicy#MAX_ATTEMPTS} times: a silent store ends a request within about
 * five minutes.
 *
 * <p>Within a run's {@link CallBounds} ({@link #bound}) each call's timeout is also capped at what is left of the run
 * budget, the retries end with it, and a stop request (SIGTERM/SIGINT) abandons a call in flight within
 * {@value StorageRetry#STOP_POLL_MILLIS} ms (the call runs on a daemon thread that the SDK's own timeout ends); the
 * call then fails with {@link StorageException.Kind#STOPPED}.
 */
public final class S3FileStore extends AbstractFileStore {

    private static final Pattern ADDRESS = Pattern.compile("^([A-Za-z0-9+.-]+)://([^/]+)/(.*)$", Pattern.DOTALL);

    private final S3Client client;

    /**
     * Settings of the S3 client.
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

    private final Timeouts timeouts;
    private volatile CallBounds bounds = CallBounds.NONE;
    /** Runs the calls of a bound store, so that the caller can stop waiting for one (daemon threads). */
    private final ExecutorService calls = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "ducklake-janitor-s3-call");
        t.setDaemon(true);
        return t;
    });

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
        this.timeouts = timeouts;
        S3ClientBuilder b = S3Client.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder()
                        .connectionTimeout(timeouts.connect())
                        .socketTimeout(timeouts.read()))
                .overrideConfiguration(ClientOverrideConfiguration.builder()
                        .apiCallAttemptTimeout(timeouts.attempt())
                        .apiCallTimeout(timeouts.call())
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
        this.client = b.build();
    }

    @Override
    public void bound(CallBounds b) {
        bounds = b == null ? CallBounds.NONE : b;
    }

    private StorageRetry retry() {
        return StorageRetry.within(bounds);
    }

    /** @return the client's time bounds */
    public Timeouts timeouts() {
        return timeouts;
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

    @Override
    public Listing list(StorageLocation prefix) throws StorageException {
        StorageLocation p = prefix.asPrefix();
        return new Pages(p.bucket(), p.path());
    }

    private final class Pages implements Listing {
        private final String bucket;
        private final String prefix;
        private String token;
        private boolean done;
        private Iterator<S3Object> page = List.<S3Object>of().iterator();
        private StoredObject next;

        Pages(String bucket, String prefix) throws StorageException {
            this.bucket = bucket;
            this.prefix = prefix;
            fetch();
        }

        private void fetch() throws StorageException {
            ListObjectsV2Request.Builder r = ListObjectsV2Request.builder().bucket(bucket).maxKeys(1000);
            if (!prefix.isEmpty()) {
                r.prefix(prefix);
            }
            if (token != null) {
                r.continuationToken(token);
            }
            ListObjectsV2Request req = r.build();
            ListObjectsV2Response resp = retry().call("list s3://" + bucket + "/" + prefix,
                    () -> call(ov -> client.listObjectsV2(ov == null ? req : req.toBuilder().overrideConfiguration(ov).build()),
                            "list s3://" + bucket + "/" + prefix));
            page = resp.contents().iterator();
            token = resp.nextContinuationToken();
            done = !Boolean.TRUE.equals(resp.isTruncated()) || token == null;
        }

        @Override
        public boolean hasNext() {
            while (next == null) {
                if (page.hasNext()) {
                    S3Object o = page.next();
                    if (o.key().endsWith("/")) {
                        continue;
                    }
                    String address = "s3://" + bucket + "/" + o.key();
                    StorageLocation location;
                    try {
                        location = StorageLocation.parse(address);
                    } catch (IllegalArgumentException e) {
                        continue; // a key with a '..' segment has no unambiguous location: never a candidate
                    }
                    next = new StoredObject(location, address, o.size() == null ? -1 : o.size(), o.lastModified());
                } else if (done) {
                    return false;
                } else {
                    try {
                        fetch();
                    } catch (StorageException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
            return true;
        }

        @Override
        public StoredObject next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            StoredObject o = next;
            next = null;
            return o;
        }

        @Override
        public void close() {
            done = true;
            page = List.<S3Object>of().iterator();
        }
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
                            ov -> client.deleteObject(r -> r.bucket(bucket).key(k.getKey()).overrideConfiguration(ov)), k.getValue()));
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

    private void batchDelete(String bucket, Map<String, String> keys, Set<String> deleted,
                             Map<String, StorageException> failed) throws StorageException {
        List<ObjectIdentifier> ids = new ArrayList<>(keys.size());
        for (String k : keys.keySet()) {
            ids.add(ObjectIdentifier.builder().key(k).build());
        }
        Delete d = Delete.builder().objects(ids).quiet(false).build();
        DeleteObjectsResponse resp = retry().call("delete batch in s3://" + bucket, () -> call(
                ov -> client.deleteObjects(r -> r.bucket(bucket).delete(d).overrideConfiguration(ov)), "s3://" + bucket + " (DeleteObjects)"));
        Set<String> errored = new HashSet<>();
        for (S3Error err : resp.errors()) {
            String address = keys.get(err.key());
            if (address == null) {
                continue;
            }
            errored.add(err.key());
            if ("NoSuchKey".equals(err.code())) {
                deleted.add(address);
            } else {
                StorageException.Kind kind = "AccessDenied".equals(err.code()) ? StorageException.Kind.ACCESS_DENIED
                        : "SlowDown".equals(err.code()) || "InternalError".equals(err.code())
                        ? StorageException.Kind.TRANSIENT : StorageException.Kind.OTHER;
                failed.put(address, new StorageException(kind, address + ": " + err.code() + " " + err.message(), null));
            }
        }
        for (Map.Entry<String, String> k : keys.entrySet()) {
            if (!errored.contains(k.getKey())) {
                deleted.add(k.getValue());
            }
        }
    }

    @Override
    public Optional<StoredObject> stat(String address) throws StorageException {
        String[] bk = split(address);
        try {
            HeadObjectResponse h = retry().call("stat " + address,
                    () -> call(ov -> client.headObject(r -> r.bucket(bk[0]).key(bk[1]).overrideConfiguration(ov)), address));
            return Optional.of(new StoredObject(StorageLocation.parse(address), address,
                    h.contentLength() == null ? -1 : h.contentLength(), h.lastModified()));
        } catch (StorageException e) {
            if (e.kind() == StorageException.Kind.NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** One SDK request; {@code override} (null for none) caps its call timeout at the budget left. */
    private interface SdkCall<T> {
        T run(AwsRequestOverrideConfiguration override);
    }

    /** The least call timeout given to a request near the end of the budget. */
    private static final Duration MIN_CALL_TIMEOUT = Duration.ofMillis(10);
    /** How long past the budget's end a call may still run before it is abandoned (the SDK's timer ends it first). */
    private static final Duration BUDGET_GRACE = Duration.ofSeconds(2);

    /**
     * Runs one SDK request: unbound, on the calling thread; bound ({@link #bound}), with its call timeout capped at the
     * budget left, on a daemon thread while the caller watches the stop request.
     */
    private <T> T call(SdkCall<T> c, String where) throws StorageException {
        CallBounds b = bounds;
        if (b == CallBounds.NONE) {
            try {
                return c.run(null);
            } catch (SdkException e) {
                throw classify(e, where);
            }
        }
        Duration left = b.remaining();
        AwsRequestOverrideConfiguration ov = left == null || left.compareTo(timeouts.call()) >= 0 ? null
                : AwsRequestOverrideConfiguration.builder().apiCallTimeout(left.compareTo(MIN_CALL_TIMEOUT) < 0
                        ? MIN_CALL_TIMEOUT : left).build();
        Future<T> f;
        try {
            f = calls.submit(() -> c.run(ov));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new StorageException(StorageException.Kind.OTHER, where + ": the store is closed", e);
        }
        try {
            while (true) {
                try {
                    return f.get(StorageRetry.STOP_POLL_MILLIS, TimeUnit.MILLISECONDS);
                } catch (TimeoutException t) {
                    Duration r = b.remaining();
                    if (b.stopRequested() || r != null && r.plus(BUDGET_GRACE).isNegative()) {
                        f.cancel(true);
                        throw b.ended(where, null);
                    }
                }
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SdkException se) {
                throw classify(se, where);
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error er) {
                throw er;
            }
            throw new StorageException(StorageException.Kind.OTHER, where + ": " + cause.getClass().getSimpleName(), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            f.cancel(true);
            throw b.ended(where, e);
        }
    }

    /**
     * Classifies an SDK failure: 404 / NoSuchKey = not found; 429, 503, SlowDown, Throttling = throttled;
     * 501 / NotImplemented / MissingContentMD5 / 405 = batch delete unsupported; 401 / 403 = access denied;
     * other 5xx, client-side I/O and a call or attempt that ran out of time ({@link Timeouts}) = transient.
     *
     * @param e the SDK's exception
     * @param where the address or bucket concerned
     * @return the classified exception, its message without credentials
     */
    static StorageException classify(SdkException e, String where) {
        if (e instanceof NoSuchKeyException) {
            return new StorageException(StorageException.Kind.NOT_FOUND, "Not found: " + where, e);
        }
        if (e instanceof S3Exception s3) {
            int status = s3.statusCode();
            String code = s3.awsErrorDetails() == null ? null : s3.awsErrorDetails().errorCode();
            String msg = where + ": HTTP " + status + (code == null ? "" : " " + code)
                    + (s3.requestId() == null ? "" : " (request id " + s3.requestId() + ")");
            if (status == 404 && !"NoSuchBucket".equals(code)) {
                return new StorageException(StorageException.Kind.NOT_FOUND, msg, e);
            }
            if (status == 429 || status == 503 || "SlowDown".equals(code) || "Throttling".equals(code)
                    || "ThrottlingException".equals(code) || "RequestLimitExceeded".equals(code)) {
                return new StorageException(StorageException.Kind.THROTTLED, msg, e);
            }
            if (status == 501 || status == 405 || "NotImplemented".equals(code) || "MissingContentMD5".equals(code)) {
                return new StorageException(StorageException.Kind.BATCH_DELETE_UNSUPPORTED, msg, e);
            }
            if (status == 401 || status == 403) {
                return new StorageException(StorageException.Kind.ACCESS_DENIED, msg, e);
            }
            if (status >= 500) {
                return new StorageException(StorageException.Kind.TRANSIENT, msg, e);
            }
            return new StorageException(StorageException.Kind.OTHER, msg, e);
        }
        if (e instanceof ApiCallTimeoutException || e instanceof ApiCallAttemptTimeoutException) {
            // the SDK's message names the bound in milliseconds and nothing secret
            return new StorageException(StorageException.Kind.TRANSIENT, where + ": no answer from the store in time ("
                    + e.getMessage() + ")", e);
        }
        if (e instanceof SdkClientException) {
            String m = String.valueOf(e.getMessage());
            if (m.contains("credentials") || m.contains("Credentials")) {
                return new StorageException(StorageException.Kind.ACCESS_DENIED, where
                        + ": no AWS credentials found in the default provider chain", null);
            }
            return new StorageException(StorageException.Kind.TRANSIENT, where + ": " + e.getClass().getSimpleName(), e);
        }
        return new StorageException(StorageException.Kind.OTHER, where + ": " + e.getClass().getSimpleName(), e);
    }

    @Override
    public void close() {
        calls.shutdownNow();
        client.close();
    }
}
