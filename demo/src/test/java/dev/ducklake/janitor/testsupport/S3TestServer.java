package dev.ducklake.janitor.testsupport;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.ducklake.janitor.storage.S3FileStore;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real S3 API in-process: S3Proxy over jclouds' in-memory blob store, plus a fault proxy in front of it that can
 * answer like a store without multi-object delete (501 NotImplemented) or a throttling store (503 SlowDown).
 * Credentials reach the SDK through its default chain (the system properties aws.accessKeyId /
 * aws.secretAccessKey), as in production.
 */
public final class S3TestServer implements AutoCloseable {

    private static final Set<String> HOP = Set.of("host", "content-length", "connection", "expect", "upgrade",
            "transfer-encoding", "keep-alive");

    private final BlobStoreContext context;
    private final S3Proxy proxy;
    private final HttpServer faults;
    private final HttpClient http = HttpClient.newHttpClient();
    /** When set, POST ?delete (DeleteObjects) is answered 501 NotImplemented. */
    public volatile boolean rejectBatchDelete;
    /** When set, a request whose raw query contains this text is answered 403 AccessDenied (a failing listing range). */
    public volatile String denyQueriesContaining;
    /** This many next requests are answered 503 SlowDown. */
    public final AtomicInteger throttleNext = new AtomicInteger();
    /** Requests seen by the fault proxy, and DeleteObjects / DeleteObject calls forwarded. */
    public final AtomicInteger requests = new AtomicInteger();
    public final AtomicInteger batchDeletes = new AtomicInteger();
    public final AtomicInteger singleDeletes = new AtomicInteger();
    /** HeadObject requests seen by the fault proxy. */
    public final AtomicInteger heads = new AtomicInteger();
    /** Milliseconds the fault proxy waits before forwarding each request (a store far away). */
    public volatile int latencyMillis;
    /** This many next DeleteObjects requests are answered 200 with a per-key SlowDown error for every key. */
    public final AtomicInteger slowDownKeysNext = new AtomicInteger();
    /** Requests the fault proxy is handling now, and the most at once. */
    public final AtomicInteger inFlight = new AtomicInteger();
    public final AtomicInteger maxInFlight = new AtomicInteger();
    /** The most keys one DeleteObjects request carried. */
    public final AtomicInteger maxBatchKeys = new AtomicInteger();

    public S3TestServer() throws Exception {
        System.setProperty("aws.accessKeyId", "janitor-test");
        System.setProperty("aws.secretAccessKey", "janitor-test-secret");
        System.setProperty("aws.region", "us-east-1");
        context = ContextBuilder.newBuilder("transient").credentials("identity", "credential").build(BlobStoreContext.class);
        proxy = S3Proxy.builder().blobStore(context.getBlobStore()).endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.NONE, null, null).ignoreUnknownHeaders(true).build();
        proxy.start();
        for (int i = 0; i < 200 && !"STARTED".equals(proxy.getState()); i++) {
            Thread.sleep(25);
        }
        faults = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        faults.createContext("/", this::handle);
        // several requests at once (concurrent deletes); daemon threads so that a test JVM exits
        faults.setExecutor(java.util.concurrent.Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "s3-fault-proxy");
            t.setDaemon(true);
            return t;
        }));
        faults.start();
    }

    /** The S3Proxy endpoint, no faults. */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    /** The fault proxy's endpoint. */
    public URI faultEndpoint() {
        return URI.create("http://127.0.0.1:" + faults.getAddress().getPort());
    }

    public BlobStore blobs() {
        return context.getBlobStore();
    }

    /** A store talking to S3Proxy directly (path style, as for MinIO). */
    public S3FileStore store() {
        return new S3FileStore(new S3FileStore.Settings("us-east-1", endpoint(), true));
    }

    /** A store talking through the fault proxy. */
    public S3FileStore faultyStore() {
        return new S3FileStore(new S3FileStore.Settings("us-east-1", faultEndpoint(), true));
    }

    public S3Client client() {
        return S3Client.builder().endpointOverride(endpoint()).forcePathStyle(true)
                .region(software.amazon.awssdk.regions.Region.US_EAST_1).build();
    }

    /**
     * A bucket name unique to this test JVM ({@code base-<pid>-<random>}: pids repeat across containers).
     *
     * <p>The bucket lives in this in-process server only, but the catalogs that name it live in the test database,
     * which on an external server ({@code DUCKLAKE_JANITOR_TEST_PG_URL}) outlives the run: a catalog of an earlier run
     * that names the same bucket is consulted by the next sweep and makes its files known (a near-match test then
     * found no candidate).
     */
    public static String runBucket(String base) {
        return base + "-" + RUN;
    }

    private static final String RUN = ProcessHandle.current().pid() + "-"
            + Integer.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextInt(0x100000, 0xffffff));

    public void createBucket(String bucket) {
        blobs().createContainerInLocation(null, bucket);
    }

    public void put(String bucket, String key, int bytes) {
        // through jclouds: the SDK's aws-chunked uploads are not what this test is about
        blobs().putBlob(bucket, blobs().blobBuilder(key).payload(new byte[bytes]).contentLength(bytes).build());
    }

    public boolean exists(String bucket, String key) {
        return blobs().blobExists(bucket, key);
    }

    private void handle(HttpExchange ex) throws IOException {
        int now = inFlight.incrementAndGet();
        maxInFlight.accumulateAndGet(now, Math::max);
        try {
            handleOne(ex);
        } finally {
            inFlight.decrementAndGet();
        }
    }

    private void handleOne(HttpExchange ex) throws IOException {
        try (ex) {
            requests.incrementAndGet();
            if (latencyMillis > 0) {
                try {
                    Thread.sleep(latencyMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException(e);
                }
            }
            String query = ex.getRequestURI().getRawQuery();
            String method = ex.getRequestMethod();
            boolean batch = "POST".equals(method) && query != null && List.of(query.split("&")).contains("delete")
                    || "POST".equals(method) && "delete=".equals(query);
            String deny = denyQueriesContaining;
            if (deny != null && query != null && query.contains(deny)) {
                error(ex, 403, "AccessDenied", "Access Denied");
                return;
            }
            if (throttleNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                error(ex, 503, "SlowDown", "Please reduce your request rate.");
                return;
            }
            if (batch && rejectBatchDelete) {
                error(ex, 501, "NotImplemented", "A header you provided implies functionality that is not implemented.");
                return;
            }
            byte[] body;
            try (InputStream in = ex.getRequestBody()) {
                body = in.readAllBytes();
            }
            if (batch) {
                batchDeletes.incrementAndGet();
                String xml = new String(body, java.nio.charset.StandardCharsets.UTF_8);
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("<Key>(.*?)</Key>").matcher(xml);
                StringBuilder errors = new StringBuilder();
                int keys = 0;
                while (m.find()) {
                    keys++;
                    errors.append("<Error><Key>").append(m.group(1)).append("</Key><Code>SlowDown</Code><Message>Please reduce"
                            + " your request rate.</Message></Error>");
                }
                maxBatchKeys.accumulateAndGet(keys, Math::max);
                if (slowDownKeysNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    byte[] b = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><DeleteResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
                            + errors + "</DeleteResult>").getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    ex.getResponseHeaders().set("Content-Type", "application/xml");
                    ex.sendResponseHeaders(200, b.length);
                    ex.getResponseBody().write(b);
                    return;
                }
            } else if ("DELETE".equals(method)) {
                singleDeletes.incrementAndGet();
            } else if ("HEAD".equals(method)) {
                heads.incrementAndGet();
            }
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(endpoint() + ex.getRequestURI().getRawPath()
                    + (query == null ? "" : "?" + query)))
                    .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
            for (Map.Entry<String, List<String>> h : ex.getRequestHeaders().entrySet()) {
                if (!HOP.contains(h.getKey().toLowerCase(Locale.ROOT))) {
                    for (String v : h.getValue()) {
                        b.header(h.getKey(), v);
                    }
                }
            }
            HttpResponse<byte[]> resp;
            try {
                resp = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            for (Map.Entry<String, List<String>> h : resp.headers().map().entrySet()) {
                String k = h.getKey().toLowerCase(Locale.ROOT);
                if (!HOP.contains(k) && !k.startsWith(":")) {
                    ex.getResponseHeaders().put(h.getKey(), h.getValue());
                }
            }
            byte[] rb = resp.body();
            if ("HEAD".equals(method)) {
                // a HEAD answer carries the object's length without a body: the JDK's server sets no Content-Length for
                // HEAD itself, so pass the store's on (without it every stat through this proxy came back unsized)
                resp.headers().firstValue("content-length").ifPresent(v -> ex.getResponseHeaders().set("Content-Length", v));
            }
            ex.sendResponseHeaders(resp.statusCode(), "HEAD".equals(method) || rb.length == 0 ? -1 : rb.length);
            if (rb.length > 0 && !"HEAD".equals(method)) {
                ex.getResponseBody().write(rb);
            }
        }
    }

    private static void error(HttpExchange ex, int status, String code, String message) throws IOException {
        byte[] b = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>" + message
                + "</Message><RequestId>fault-proxy</RequestId></Error>").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/xml");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }

    @Override
    public void close() throws Exception {
        faults.stop(0);
        proxy.stop();
        context.close();
    }
}
