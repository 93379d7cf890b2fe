package dev.ducklake.janitor.metrics;

import com.sun.net.httpserver.HttpExchange;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The metrics daemon: one collection thread per catalog (each with its own connection, statement timeout and
 * reconnect backoff, so a broken or slow catalog never delays or hides the others) and an HTTP server (the JDK's,
 * with client_java's handlers, bounded per request and connection so that slow clients never block others:
 * {@link HttpServing}) with
 * <ul>
 *   <li>{@code GET /metrics}: the gauges of the last collection of every catalog plus the self-metrics, in the
 *       Prometheus text format (served from memory; a scrape never waits for a database);</li>
 *   <li>{@code GET /-/healthy}: 200 while the process serves HTTP (liveness);</li>
 *   <li>{@code GET /-/ready}: 200 while the {@link ReadyPolicy} holds (default: every configured catalog answered its
 *       last collection; or at least one), else 503; the body names each catalog's state ({@code up}, {@code down}
 *       with the reason, or {@code not collected yet} before its first collection ends) (readiness);</li>
 *   <li>anything else: 404.</li>
 * </ul>
 */
public final class MetricsDaemon implements AutoCloseable {

    /** When {@code /-/ready} answers 200. */
    public enum ReadyPolicy {
        /** Every configured catalog answered its last collection (a down tenant takes the pod out of the Service). */
        ALL,
        /** At least one catalog answered its last collection (a down tenant only shows {@code ducklake_janitor_up 0}). */
        ANY
    }

    private final ReadyPolicy readyPolicy;

    /** Default bound of one collection of a catalog (each metadata schema's part in the all-schemas mode). */
    public static final Duration DEFAULT_COLLECTION_TIMEOUT = Duration.ofSeconds(30);
    /** How often the watchdog looks for collections past their timeout. */
    static final Duration WATCHDOG_PERIOD = Duration.ofMillis(200);

    private final List<CatalogTarget> targets;
    private final Duration interval;
    private final Duration collectionTimeout;
    private ScheduledExecutorService watchdog;
    private final Consumer<String> log;
    private final List<ScheduledExecutorService> schedulers = new ArrayList<>();
    private HttpServing server;
    private List<StorageGauges> storage = List.of();
    private Duration storageInterval = StorageGauges.DEFAULT_INTERVAL;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * @param targets the catalogs to watch (at least one); the daemon closes them
     * @param interval delay between collections of a catalog that answers
     * @param log where state changes and failures go
     */
    public MetricsDaemon(List<CatalogTarget> targets, Duration interval, Consumer<String> log) {
        this(targets, interval, log, ReadyPolicy.ALL);
    }

    /**
     * @param targets the catalogs to watch (at least one); the daemon closes them
     * @param interval delay between collections of a catalog that answers
     * @param log where state changes and failures go
     * @param readyPolicy when /-/ready answers 200
     */
    public MetricsDaemon(List<CatalogTarget> targets, Duration interval, Consumer<String> log, ReadyPolicy readyPolicy) {
        this(targets, interval, DEFAULT_COLLECTION_TIMEOUT, log, readyPolicy);
    }

    /**
     * @param targets the catalogs to watch (at least one); the daemon closes them
     * @param interval delay between collections of a catalog that answers
     * @param collectionTimeout bound of each collection ({@link CatalogTarget#collectOnce(Duration, Duration)}): past
     *     it the catalog is down ({@code ducklake_janitor_up 0}, no stale gauges, not ready) and its session is ended;
     *     zero = none
     * @param log where state changes and failures go
     * @param readyPolicy when /-/ready answers 200
     */
    public MetricsDaemon(List<CatalogTarget> targets, Duration interval, Duration collectionTimeout, Consumer<String> log,
                         ReadyPolicy readyPolicy) {
        this.readyPolicy = readyPolicy;
        if (collectionTimeout.isNegative()) {
            throw new IllegalArgumentException("negative collection timeout");
        }
        this.collectionTimeout = collectionTimeout;
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("no catalog to watch");
        }
        this.targets = List.copyOf(targets);
        this.interval = interval;
        this.log = log;
    }

    /**
     * Also runs the storage comparison of each catalog ({@code serve --storage}): on a thread and connection of its own
     * per catalog, first at start and then {@code interval} after the end of the previous one, apart from the catalog
     * collection (listing a data path costs far more than the catalog queries). Its gauges are served with the catalog's;
     * a failed comparison shows as {@code ducklake_janitor_storage_check_success 0} and a {@code storage: failed} line of
     * /-/ready, and changes neither the catalog's gauges nor the readiness status. Call before {@link #start}.
     *
     * @param gauges one per catalog (may be empty); the daemon closes them
     * @param interval delay between two comparisons of a catalog
     * @return this daemon
     */
    public MetricsDaemon withStorage(List<StorageGauges> gauges, Duration interval) {
        this.storage = List.copyOf(gauges);
        this.storageInterval = interval;
        return this;
    }

    /**
     * Starts the collection threads (each catalog is collected at once) and the HTTP server.
     *
     * @param host the address to listen on ({@code 0.0.0.0} for all interfaces)
     * @param port the port (0 picks a free one, see {@link #port()})
     * @throws IOException when the port cannot be bound
     */
    public void start(String host, int port) throws IOException {
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register((MultiCollector) this::snapshots);
        server = HttpServing.start(host, port, registry, this::handle);
        if (!collectionTimeout.isZero()) {
            watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread th = new Thread(r, "metrics-watchdog");
                th.setDaemon(true);
                return th;
            });
            watchdog.scheduleAtFixedRate(() -> {
                for (CatalogTarget t : targets) {
                    try {
                        t.enforceDeadline();
                    } catch (RuntimeException e) {
                        log.accept("catalog " + t.config().name() + ": watchdog: " + e);
                    }
                }
            }, WATCHDOG_PERIOD.toMillis(), WATCHDOG_PERIOD.toMillis(), TimeUnit.MILLISECONDS);
        }
        for (CatalogTarget t : targets) {
            ScheduledExecutorService ses = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread th = new Thread(r, "metrics-" + t.config().name());
                th.setDaemon(true);
                return th;
            });
            schedulers.add(ses);
            ses.schedule(() -> cycle(ses, t), 0, TimeUnit.MILLISECONDS);
        }
        for (StorageGauges g : storage) {
            ScheduledExecutorService ses = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread th = new Thread(r, "storage-" + g.config().name());
                th.setDaemon(true);
                return th;
            });
            schedulers.add(ses);
            ses.schedule(() -> storageCycle(ses, g), 0, TimeUnit.MILLISECONDS);
        }
    }

    private void storageCycle(ScheduledExecutorService ses, StorageGauges g) {
        try {
            g.collectOnce();
        } catch (RuntimeException e) {
            log.accept("catalog " + g.config().name() + ": storage comparison: unexpected " + e.getClass().getSimpleName() + ": "
                    + e.getMessage());
        } finally {
            if (!ses.isShutdown()) {
                ses.schedule(() -> storageCycle(ses, g), storageInterval.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    private void cycle(ScheduledExecutorService ses, CatalogTarget t) {
        Duration next = interval;
        try {
            next = t.collectOnce(interval, collectionTimeout);
        } catch (RuntimeException e) {
            log.accept("catalog " + t.config().name() + ": unexpected " + e.getClass().getSimpleName() + ": " + e.getMessage());
            next = CatalogTarget.BACKOFF_MAX;
        } finally {
            if (!ses.isShutdown()) {
                ses.schedule(() -> cycle(ses, t), next.toMillis(), TimeUnit.MILLISECONDS);
            }
        }
    }

    /** The port the HTTP server listens on. */
    public int port() {
        return server.port();
    }

    /** Whether the ready policy holds: every catalog (ALL) or at least one (ANY) answered its last collection. */
    public boolean ready() {
        return readyPolicy == ReadyPolicy.ALL ? targets.stream().allMatch(CatalogTarget::up)
                : targets.stream().anyMatch(CatalogTarget::up);
    }

    /** The families /metrics serves now: every catalog's last gauges and self-metrics. */
    public List<MetricFamily> families() {
        List<MetricFamily> all = new ArrayList<>();
        for (CatalogTarget t : targets) {
            all.addAll(t.families());
        }
        for (StorageGauges g : storage) {
            all.addAll(g.families());
        }
        return Exposition.merge(all);
    }

    private MetricSnapshots snapshots() {
        return Exposition.snapshots(families());
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getPath();
            if ("/-/ready".equals(path)) {
                StringBuilder body = new StringBuilder();
                for (CatalogTarget t : targets) {
                    body.append(t.config().name()).append(t.up() ? ": up"
                            : t.everCollected() || t.stale() ? ": down" : ": not collected yet");
                    String why = t.up() ? null : t.downReason();
                    if (why != null) {
                        body.append(" (").append(why).append(')');
                    }
                    body.append('\n');
                }
                for (StorageGauges g : storage) {
                    String why = g.lastError();
                    body.append(g.config().name()).append(" storage: ").append(!g.everCollected() ? "not compared yet"
                            : why == null ? "ok" : "failed (" + why + ")").append('\n');
                }
                reply(ex, ready() ? 200 : 503, (ready() ? "ok\n" : "not ready\n") + body);
            } else if ("/".equals(path)) {
                reply(ex, 200, "ducklake-janitor metrics: /metrics, /-/healthy, /-/ready\n");
            } else {
                reply(ex, 404, "not found\n");
            }
        }
    }

    private static void reply(HttpExchange ex, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        if ("HEAD".equals(ex.getRequestMethod())) {
            ex.sendResponseHeaders(status, -1);
            return;
        }
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** How long {@link #close()} waits in total for the collection threads to end. */
    public static final Duration STOP_WAIT = Duration.ofSeconds(5);

    /**
     * Stops the HTTP server and the collection threads and aborts every catalog connection, within about
     * {@link #STOP_WAIT} whatever a catalog is doing (a collection stuck connecting or in a query is aborted, never
     * waited for; the collection threads are daemon threads); idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (server != null) {
            server.close();
        }
        if (watchdog != null) {
            watchdog.shutdownNow();
        }
        for (ScheduledExecutorService ses : schedulers) {
            ses.shutdownNow();
        }
        for (CatalogTarget t : targets) {
            t.close();
        }
        for (StorageGauges g : storage) {
            g.close();
        }
        long deadline = System.nanoTime() + STOP_WAIT.toNanos();
        for (ScheduledExecutorService ses : schedulers) {
            try {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !ses.awaitTermination(left, TimeUnit.NANOSECONDS)) {
                    log.accept("stop: a catalog collection did not end within " + STOP_WAIT.toSeconds() + " s; leaving it behind");
                    break;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
    }
}
