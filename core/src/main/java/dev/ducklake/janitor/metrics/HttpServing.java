package dev.ducklake.janitor.metrics;

import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.exporter.httpserver.HealthyHandler;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The HTTP side of {@code serve}: the JDK's {@code com.sun.net.httpserver} with client_java's {@code /metrics} and
 * {@code /-/healthy} handlers, bounded so that idle or slow clients never block scrapes or probes (issue 28 item 10).
 *
 * <p>The JDK server accepts connections on one dispatcher thread and waits for a request's first byte there; it reads
 * the request line and headers, runs the handler and writes the response on a worker. Before, client_java's default
 * executor (10 workers, and a dispatcher that waits when all are busy) let ten connections that send headers and never
 * finish them stall every scrape and probe for 60 s (its default request time limit). Now:
 * <ul>
 *   <li>a client has {@link #REQUEST_TIME} from its first byte to the end of its request; a new connection that sends
 *       nothing is closed after the same time, a keep-alive connection after {@link #IDLE_TIME} idle;</li>
 *   <li>a response must be sent within {@link #RESPONSE_TIME} (a client that does not read it is cut off);</li>
 *   <li>{@link #WORKERS} workers with {@link #QUEUE} requests waiting at most: a connection beyond is closed at once,
 *       the dispatcher never waits;</li>
 *   <li>at most {@link #MAX_CONNECTIONS} connections are open; beyond, a new one is closed at once.</li>
 * </ul>
 * The time and connection limits are the JDK's {@code sun.net.httpserver.*} and {@code jdk.httpserver.maxConnections}
 * system properties, which the JDK reads once, when the first HTTP server of the JVM is created: {@link #start} sets
 * them first (a value given with {@code -D} on the command line wins), and {@code serve} creates the JVM's only HTTP
 * server.
 */
final class HttpServing {

    /** Most time from a request's first byte to its last (request line, headers, body). */
    static final Duration REQUEST_TIME = Duration.ofSeconds(10);
    /** Most time to send a response. */
    static final Duration RESPONSE_TIME = Duration.ofSeconds(60);
    /** Most time a keep-alive connection stays open between two requests. */
    static final Duration IDLE_TIME = Duration.ofSeconds(30);
    /** How often the server looks for idle connections to close. */
    static final Duration IDLE_CHECK = Duration.ofSeconds(1);
    /** Threads that read requests, run the handlers and write responses. */
    static final int WORKERS = 32;
    /** Requests waiting for a worker at most; a connection beyond is closed. */
    static final int QUEUE = 64;
    /** Open connections at most (busy and idle); a new connection beyond is closed at once. */
    static final int MAX_CONNECTIONS = 256;
    /** Connections the kernel queues before the dispatcher accepts them. */
    static final int BACKLOG = 128;

    private final HttpServer server;
    private final ThreadPoolExecutor workers;

    private HttpServing(HttpServer server, ThreadPoolExecutor workers) {
        this.server = server;
        this.workers = workers;
    }

    /**
     * Sets the JDK server's limits (unless given on the command line), binds and starts the server.
     *
     * @param host the address to listen on
     * @param port the port (0 picks a free one)
     * @param registry what {@code /metrics} serves
     * @param root the handler of every other path
     * @return the running server
     * @throws IOException when the address cannot be bound
     */
    static HttpServing start(String host, int port, PrometheusRegistry registry, HttpHandler root) throws IOException {
        limit("sun.net.httpserver.maxReqTime", REQUEST_TIME.toSeconds());
        limit("sun.net.httpserver.maxRspTime", RESPONSE_TIME.toSeconds());
        limit("sun.net.httpserver.idleInterval", IDLE_TIME.toSeconds());
        limit("sun.net.httpserver.clockTick", IDLE_CHECK.toMillis());
        limit("jdk.httpserver.maxConnections", MAX_CONNECTIONS);
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(WORKERS, WORKERS, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE), r -> {
            Thread t = new Thread(r, "serve-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        }, new ThreadPoolExecutor.AbortPolicy()); // the JDK server closes a connection its executor rejects
        pool.allowCoreThreadTimeOut(true);
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), BACKLOG);
        } catch (IOException | RuntimeException e) {
            pool.shutdownNow();
            throw e;
        }
        server.setExecutor(pool);
        server.createContext("/", closing(root));
        server.createContext("/metrics", closing(new MetricsHandler(registry)));
        server.createContext("/-/healthy", closing(new HealthyHandler()));
        server.start();
        return new HttpServing(server, pool);
    }

    private static void limit(String property, long value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, Long.toString(value));
        }
    }

    /** Ends every exchange, whatever the handler did (client_java's HTTPServer does the same). */
    private static HttpHandler closing(HttpHandler h) {
        return ex -> {
            try (ex) {
                h.handle(ex);
            }
        };
    }

    /** The port the server listens on. */
    int port() {
        return server.getAddress().getPort();
    }

    /** Stops accepting, closes every connection and stops the workers; returns at once. */
    void close() {
        server.stop(0);
        workers.shutdownNow();
    }
}
