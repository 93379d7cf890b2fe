package dev.ducklake.janitor.testsupport;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A Pushgateway stand-in: a real HTTP server on loopback (an ephemeral port) that records every request, and either
 * answers 200 at once ({@link #recording()}) or holds each request for a while without answering
 * ({@link #silent(Duration)}: a gateway that accepts the connection and never replies in time).
 *
 * <pre>
 *     try (FakePushgateway gateway = FakePushgateway.recording()) {
 *         ... "--pushgateway-url", gateway.url() ...
 *         assertThat(gateway.requests()).anyMatch(r -&gt; r.path().contains("/operation/"));
 *     }
 * </pre>
 */
public final class FakePushgateway implements AutoCloseable {

    /**
     * One request as the gateway received it.
     *
     * @param method the HTTP method (PUT, POST, DELETE)
     * @param path the raw path ({@code /metrics/job/…})
     * @param contentType the Content-Type header, or null
     * @param body the body as UTF-8 text (empty for a silent gateway, which does not read it)
     */
    public record Request(String method, String path, String contentType, String body) {
    }

    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final HttpServer server;
    private final ExecutorService executor;

    private FakePushgateway(Duration silence) {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.createContext("/", ex -> {
            if (silence == null) {
                requests.add(new Request(ex.getRequestMethod(), ex.getRequestURI().getRawPath(),
                        ex.getRequestHeaders().getFirst("Content-Type"),
                        new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
                ex.sendResponseHeaders(200, -1);
            } else {
                requests.add(new Request(ex.getRequestMethod(), ex.getRequestURI().getRawPath(),
                        ex.getRequestHeaders().getFirst("Content-Type"), ""));
                try {
                    Thread.sleep(silence.toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            ex.close();
        });
        // a silent gateway holds each request on its own daemon thread, so that it neither serialises the requests
        // nor keeps the test JVM alive
        executor = silence == null ? null : Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "fake-pushgateway");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.start();
    }

    /** @return a started gateway that records each request and answers 200 */
    public static FakePushgateway recording() {
        return new FakePushgateway(null);
    }

    /**
     * @param silence how long each request is held before the connection is closed without an answer
     * @return a started gateway that records each request's path and never answers in time
     */
    public static FakePushgateway silent(Duration silence) {
        return new FakePushgateway(silence);
    }

    /** @return {@code http://127.0.0.1:<port>} */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** @return the requests received so far, oldest first (a live view: it grows while the gateway runs) */
    public List<Request> requests() {
        return requests;
    }

    /** Forgets the requests received so far. */
    public void clear() {
        requests.clear();
    }

    /** Stops the server at once. */
    @Override
    public void close() {
        server.stop(0);
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
