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
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
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

    /** Folder ranges a listing fetches at once by default ({@link FolderParallelListing}). */
    public static final int LIST_CONCURRENCY = 8;

    private final Timeouts timeouts;
    private final int listConcurrency;
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
        this.listConcurrency = Math.max(1, listConcurrency);
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
        this.client = b.build();
    }

    @Override
    public void bound(CallBounds b) {
        bounds = b == null ? CallBounds.NONE : b;
    }

    private StorageRetry retry() {
        return StorageRetry.within(bounds, this::throttled);
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
        StorageLocation p = prefix.asPrefix();
        if (listConcurrency <= 1) {
            return new Pages(p.bucket(), p.path());
        }
        String bucket = p.bucket();
        return new FolderParallelListing(new FolderParallelListing.Source() {
            @Override
            public Iterator<FolderParallelListing.Entry> level(String folder) throws StorageException {
                return new Level(bucket, folder);
            }

            @Override
            public Listing range(String within, String startAfter, String endBefore) throws StorageException {
                return new Pages(bucket, within, startAfter, 0, endBefore);
            }
        }, p.path(), listConcurrency);
    }

    /** The object a listed key stands for, or null for a folder marker (a key ending in '/') or a key with a '..' segment. */
    private static StoredObject stored(String bucket, S3Object o) {
        if (o.key().endsWith("/")) {
            return null;
        }
        String address = "s3://" + bucket + "/" + o.key();
        try {
            return new StoredObject(StorageLocation.parse(address), address, o.size() == null ? -1 : o.size(), o.lastModified());
        } catch (IllegalArgumentException e) {
            return null; // a key with a '..' segment has no unambiguous location: never a candidate
        }
    }

    /**
     * One ListObjectsV2 page of up to 1,000 keys, through the retry loop and the run's bounds.
     *
     * @param delimiter "/" for one folder level, or null for every key under the prefix
     * @param token the continuation token of the page before, or null for the first page
     * @param startAfter keys after this one only (first page), or null
     */
    private ListObjectsV2Response listPage(String bucket, String prefix, String delimiter, String token, String startAfter)
            throws StorageException {
        ListObjectsV2Request.Builder r = ListObjectsV2Request.builder().bucket(bucket).maxKeys(1000);
        if (!prefix.isEmpty()) {
            r.prefix(prefix);
        }
        if (delimiter != null) {
            r.delimiter(delimiter);
        }
        if (token != null) {
            r.continuationToken(token);
        } else if (startAfter != null) {
            r.startAfter(startAfter);
        }
        ListObjectsV2Request req = r.build();
        String where = "list s3://" + bucket + "/" + prefix + (delimiter == null ? "" : " (one level)");
        return retry().call(where,
                () -> call(ov -> client.listObjectsV2(ov == null ? req : req.toBuilder().overrideConfiguration(ov).build()), where));
    }

    /** A listing page after page: its entries one at a time, the next page fetched when one is used up. */
    private abstract static class Paged<E, T> extends LookAhead<T> {
        private Iterator<E> page = List.<E>of().iterator();
        /** Whether the last page was fetched. */
        boolean done;

        /** Fetches the next page into {@link #page(Iterator)} and sets {@link #done} after the last. */
        abstract void nextPage() throws StorageException;

        /** @return the element an entry of a page stands for, or null to skip it */
        abstract T element(E entry);

        final void page(Iterator<E> entries) {
            page = entries;
        }

        @Override
        protected final T fetch() {
            while (true) {
                if (page.hasNext()) {
                    T t = element(page.next());
                    if (t != null) {
                        return t;
                    }
                } else if (done) {
                    return null;
                } else {
                    try {
                        nextPage();
                    } catch (StorageException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
        }
    }

    /** One folder level (ListObjectsV2 with the delimiter '/'): its objects and sub-folders merged in byte order, page by page. */
    private final class Level extends Paged<FolderParallelListing.Entry, FolderParallelListing.Entry> {
        private final String bucket;
        private final String folder;
        private String token;
        private String last;

        Level(String bucket, String folder) throws StorageException {
            this.bucket = bucket;
            this.folder = folder;
            nextPage();
        }

        @Override
        void nextPage() throws StorageException {
            ListObjectsV2Response resp = listPage(bucket, folder, "/", token, null);
            List<FolderParallelListing.Entry> entries = new ArrayList<>(resp.contents().size() + resp.commonPrefixes().size());
            for (S3Object o : resp.contents()) {
                StoredObject so = stored(bucket, o);
                if (so != null) {
                    entries.add(new FolderParallelListing.Entry(o.key(), so));
                } else if (o.key().endsWith("/") && o.key().length() > folder.length()) {
                    // a folder marker some stores (S3Proxy's jclouds back ends) return as an object in place of the
                    // common prefix, hiding the folder's keys: it stands for the folder
                    entries.add(new FolderParallelListing.Entry(o.key(), null));
                }
            }
            for (software.amazon.awssdk.services.s3.model.CommonPrefix cp : resp.commonPrefixes()) {
                entries.add(new FolderParallelListing.Entry(cp.prefix(), null));
            }
            // a page holds the next keys and folders together in byte order; each list is sorted, merge them
            entries.sort((a, b) -> StorageLocation.compareCodePoints(a.key(), b.key()));
            page(entries.iterator());
            token = resp.nextContinuationToken();
            done = !Boolean.TRUE.equals(resp.isTruncated()) || token == null;
        }

        @Override
        FolderParallelListing.Entry element(FolderParallelListing.Entry e) {
            // strictly ascending: a folder a store gave on two pages (marker, then prefix) is one entry
            if (last != null && StorageLocation.compareCodePoints(e.key(), last) <= 0) {
                return null;
            }
            last = e.key();
            return e;
        }
    }

    private final class Pages extends Paged<S3Object, StoredObject> implements Listing {
        private final String bucket;
        private final String prefix;
        private String token;
        /** Keys after this one only (ListObjectsV2 StartAfter), or null. */
        private final String startAfter;
        /** The most pages fetched, then the listing ends; 0 for no bound. */
        private final long maxPages;
        private long pages;
        /** Whether the page bound ended the listing before the store did. */
        private boolean cut;
        /** The first key past the listing (it ends before it), or null for the end of the prefix. */
        private final String endBefore;

        /** @return whether the page bound ended the listing before the store's last page */
        boolean cut() {
            return cut;
        }

        Pages(String bucket, String prefix) throws StorageException {
            this(bucket, prefix, null, 0, null);
        }

        Pages(String bucket, String prefix, String startAfter, long maxPages) throws StorageException {
            this(bucket, prefix, startAfter, maxPages, null);
        }

        Pages(String bucket, String prefix, String startAfter, long maxPages, String endBefore) throws StorageException {
            this.bucket = bucket;
            this.endBefore = endBefore;
            this.prefix = prefix;
            this.startAfter = startAfter == null || startAfter.isEmpty() ? null : startAfter;
            this.maxPages = maxPages;
            nextPage();
        }

        @Override
        void nextPage() throws StorageException {
            pages++;
            ListObjectsV2Response resp = listPage(bucket, prefix, null, token, startAfter);
            page(resp.contents().iterator());
            token = resp.nextContinuationToken();
            done = !Boolean.TRUE.equals(resp.isTruncated()) || token == null;
            if (!done && maxPages > 0 && pages >= maxPages) {
                done = true;
                cut = true;
            }
        }

        @Override
        StoredObject element(S3Object o) {
            if (endBefore != null && StorageLocation.compareCodePoints(o.key(), endBefore) >= 0) {
                close();
                return null;
            }
            return stored(bucket, o);
        }

        @Override
        public void close() {
            done = true;
            page(List.<S3Object>of().iterator());
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
                DeleteObjectsResponse resp = call(ov -> client.deleteObjects(r -> r.bucket(bucket).delete(d)
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
     * Sizes from a listing instead of a HeadObject per key: the keys are grouped by bucket and folder, each folder's
     * keys (in byte order) are cut into up to {@code LIST_CONCURRENCY} runs of at least {@value #SIZE_RUN_KEYS} keys,
     * and the runs are listed at once, each from just before its smallest key to its largest, stopping after
     * {@link #sizeListingPages} pages (beyond that a HeadObject per key, {@value #OBJECT_STORE_DELETE_CONCURRENCY} at a
     * time, is cheaper; the keys left unknown are stat-ed by the caller). A key of a range listed to its end that the listing
     * did not show is missing (-1). A listing failure other than a stop leaves the sizes unknown.
     */
    @Override
    public Map<String, Long> listedSizes(List<String> addresses) throws StorageException {
        // keys in S3's (UTF-8 byte) order, so that a run of them is one key range
        Map<String, java.util.TreeMap<String, String>> byFolder = new LinkedHashMap<>();
        for (String a : addresses) {
            String[] bk;
            try {
                bk = split(a);
            } catch (StorageException e) {
                continue;
            }
            int slash = bk[1].lastIndexOf('/');
            String folder = bk[0] + "/" + (slash < 0 ? "" : bk[1].substring(0, slash + 1));
            byFolder.computeIfAbsent(folder, f -> new java.util.TreeMap<>(StorageLocation.BYTE_ORDER)).put(bk[1], a);
        }
        // each folder's keys in up to LIST_CONCURRENCY runs of at least SIZE_RUN_KEYS keys, listed at once
        List<Callable<Map<String, Long>>> runs = new ArrayList<>();
        for (Map.Entry<String, java.util.TreeMap<String, String>> f : byFolder.entrySet()) {
            String bucket = f.getKey().substring(0, f.getKey().indexOf('/'));
            String prefix = f.getKey().substring(bucket.length() + 1);
            List<Map.Entry<String, String>> keys = new ArrayList<>(f.getValue().entrySet());
            int parts = (int) Math.max(1, Math.min(listConcurrency, keys.size() / SIZE_RUN_KEYS));
            for (int i = 0; i < parts; i++) {
                List<Map.Entry<String, String>> run = keys.subList(i * keys.size() / parts, (i + 1) * keys.size() / parts);
                runs.add(() -> sizeRun(bucket, prefix, run));
            }
        }
        Map<String, Long> sizes = new HashMap<>();
        if (runs.size() == 1) {
            sizes.putAll(callSizeRun(runs.get(0)));
            return sizes;
        }
        List<Future<Map<String, Long>>> futures = new ArrayList<>();
        try {
            for (Callable<Map<String, Long>> r : runs) {
                futures.add(sizing().submit(() -> callSizeRun(r)));
            }
            for (Future<Map<String, Long>> f : futures) {
                sizes.putAll(f.get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw bounds.ended("size listing", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof StorageException se) {
                throw se; // STOPPED: the run's bounds ended a listing
            }
            throw new StorageException(StorageException.Kind.OTHER, "size listing: " + e.getCause(), e.getCause());
        } finally {
            futures.forEach(f -> f.cancel(true));
        }
        return sizes;
    }

    /** Fewest keys of one folder per concurrent size listing. */
    static final int SIZE_RUN_KEYS = 64;

    private Map<String, Long> callSizeRun(Callable<Map<String, Long>> run) throws StorageException {
        try {
            return run.call();
        } catch (StorageException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new StorageException(StorageException.Kind.OTHER, "size listing: " + e, e);
        }
    }

    /** The pool of concurrent size listings, made on first use. */
    private ExecutorService sizing() {
        synchronized (calls) {
            if (sizing == null) {
                sizing = Executors.newFixedThreadPool(listConcurrency, r -> {
                    Thread t = new Thread(r, "ducklake-janitor-s3-sizes");
                    t.setDaemon(true);
                    return t;
                });
            }
            return sizing;
        }
    }

    private ExecutorService sizing;

    /**
     * Sizes of one run of a folder's keys (in byte order) from one listing of the key range they span, bounded by
     * {@link #sizeListingPages}; -1 for a key of a range listed to its end that the listing did not show.
     *
     * @throws StorageException kind STOPPED when the run's bounds end the listing; other failures leave the sizes unknown
     */
    private Map<String, Long> sizeRun(String bucket, String prefix, List<Map.Entry<String, String>> run) throws StorageException {
        Map<String, Long> sizes = new HashMap<>();
        Map<String, String> keys = new HashMap<>();
        run.forEach(k -> keys.put(k.getKey(), k.getValue()));
        String first = run.get(0).getKey();
        String last = run.get(run.size() - 1).getKey();
        try (Pages pages = new Pages(bucket, prefix, first.substring(0, first.length() - 1), sizeListingPages(run.size()))) {
            boolean covered = false;
            Set<String> seen = new HashSet<>();
            while (pages.hasNext()) {
                StoredObject o = pages.next();
                String key = o.address().substring(("s3://" + bucket + "/").length());
                if (StorageLocation.compareCodePoints(key, last) > 0) {
                    covered = true;
                    break;
                }
                String a = keys.get(key);
                if (a != null) {
                    seen.add(key);
                    if (o.sizeBytes() >= 0) {
                        sizes.put(a, o.sizeBytes());
                    }
                }
            }
            if (covered || !pages.cut()) {
                // the listing went past the range: a key of it that was not listed is not there
                for (Map.Entry<String, String> k : keys.entrySet()) {
                    if (!seen.contains(k.getKey())) {
                        sizes.put(k.getValue(), -1L);
                    }
                }
            }
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof StorageException se && se.kind() == StorageException.Kind.STOPPED) {
                throw se;
            }
        } catch (StorageException e) {
            if (e.kind() == StorageException.Kind.STOPPED) {
                throw e;
            }
        }
        return sizes;
    }

    /** How many times the pages a folder's keys need a size listing may read at least before it gives up. */
    static final int SIZE_LISTING_SLACK = 3;

    /**
     * The most pages a size listing of one folder reads for {@code keys} keys: a page and a HeadObject each cost one
     * round trip, and the keys left unknown are stat-ed {@link #OBJECT_STORE_DELETE_CONCURRENCY} at a time, so listing
     * pays while it reads fewer pages than {@code keys / 8} (DuckLake's file names are random: a batch's keys are spread
     * over its whole folder, whose pages outnumber the keys' own); never fewer than {@value #SIZE_LISTING_SLACK} times
     * the pages the keys fill.
     *
     * @param keys keys to size in the folder
     * @return pages
     */
    static long sizeListingPages(int keys) {
        return Math.max(((keys + 999L) / 1000) * SIZE_LISTING_SLACK, keys / OBJECT_STORE_DELETE_CONCURRENCY);
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
        synchronized (calls) {
            if (sizing != null) {
                sizing.shutdownNow();
            }
        }
        client.close();
    }
}
