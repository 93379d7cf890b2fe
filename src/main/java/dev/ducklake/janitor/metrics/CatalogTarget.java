package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.catalog.CatalogDiscovery;
import dev.ducklake.janitor.pg.SqlState;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One watched catalog with its own connection: collects its gauges on demand, keeps the self-metrics (up, scrape
 * duration, per-query error counters and last-success times) and computes the delay before the next collection,
 * which backs off from 1 s to 60 s while the catalog does not answer. One broken catalog only ever affects its own
 * target.
 *
 * <p>{@link #collectOnce} is meant to be called from one thread at a time (it is synchronized); {@link #families()},
 * {@link #up()} and {@link #close()} may be called from any thread. {@link #close()} never waits for a collection in
 * progress (which may be stuck connecting to a catalog that does not answer): it aborts the connection and interrupts
 * the login instead, so that {@code serve} stops within a bounded time whatever a catalog is doing.
 */
public final class CatalogTarget implements AutoCloseable {

    /** First delay after a failure. */
    public static final Duration BACKOFF_MIN = Duration.ofSeconds(1);
    /** Longest delay between reconnect attempts. */
    public static final Duration BACKOFF_MAX = Duration.ofSeconds(60);

    static final String UP = "ducklake_janitor_up";
    static final String DURATION = "ducklake_janitor_scrape_duration_seconds";
    static final String ERRORS = "ducklake_janitor_query_errors";
    static final String LAST_SUCCESS = "ducklake_janitor_last_success_timestamp_seconds";
    static final String QUERY_LAST_SUCCESS = "ducklake_janitor_query_last_success_timestamp_seconds";
    static final String QUERY_DURATION = "ducklake_janitor_query_duration_seconds";
    /** Label of every catalog gauge: the metadata schema (the same label the Pushgateway series carry). */
    public static final String SCHEMA_LABEL = "schema";

    private final TargetConfig config;
    private final Consumer<String> log;
    private volatile Connection conn;
    private volatile Thread collecting;
    private volatile boolean closed;
    private int failures;
    private List<String> lastSchemas;

    private volatile boolean up;
    private volatile boolean everCollected;
    private volatile List<MetricFamily> catalogFamilies = List.of();
    private volatile double lastDuration = Double.NaN;
    private volatile double lastSuccess = Double.NaN;
    private final Map<String, Long> errorCounts = new LinkedHashMap<>();
    private final Map<String, Double> queryLastSuccess = new LinkedHashMap<>();
    private final Map<String, Double> queryDuration = new LinkedHashMap<>();
    private final Map<String, String> lastErrors = new LinkedHashMap<>();

    /**
     * @param config the catalog
     * @param log where state changes and query failures go (one line each, password-free)
     */
    public CatalogTarget(TargetConfig config, Consumer<String> log) {
        this.config = config;
        this.log = log;
    }

    /** The catalog's configuration. */
    public TargetConfig config() {
        return config;
    }

    /** Whether the catalog answered its last collection (connected and the metadata schema found). */
    public boolean up() {
        return up;
    }

    /** Whether a collection was attempted at least once. */
    public boolean everCollected() {
        return everCollected;
    }

    /**
     * Connects if needed and collects the catalog once. Connection failures and lost sessions mark the target
     * down ({@code up} 0, no catalog gauges) and count as an error of query {@code connect}; failed queries count
     * under their own names.
     *
     * @param interval the normal delay between collections
     * @return how long to wait before the next collection: {@code interval} after a collection in which the
     *     catalog answered, otherwise the backoff (1 s, 2 s, 4 s, ... at most 60 s)
     */
    public synchronized Duration collectOnce(Duration interval) {
        if (closed) {
            return BACKOFF_MAX;
        }
        collecting = Thread.currentThread();
        try {
            return collect(interval);
        } finally {
            collecting = null;
        }
    }

    private Duration collect(Duration interval) {
        everCollected = true;
        long t0 = System.nanoTime();
        if (conn == null) {
            try {
                conn = config.connection().openRaw();
                if (closed) {
                    closeConnection();
                    return BACKOFF_MAX;
                }
                // a socket timeout beyond the longest statement timeout: a silent network partition cannot hang the thread
                long longest = config.statementTimeout().toMillis();
                boolean unbounded = config.statementTimeout().isZero();
                for (CustomQuery q : config.queries()) {
                    longest = Math.max(longest, q.timeout().toMillis());
                    unbounded |= q.timeout().isZero();
                }
                conn.setNetworkTimeout(Runnable::run, unbounded ? 0 : (int) Math.min(Integer.MAX_VALUE, longest + 30_000));
            } catch (SQLException e) {
                closeConnection();
                lastDuration = (System.nanoTime() - t0) / 1e9;
                return down("connect", config.connection().connectionFailure(e).getMessage());
            }
        }
        List<String> schemas;
        if (config.allMetadataSchemas()) {
            try {
                schemas = CatalogDiscovery.catalogSchemas(conn);
            } catch (SQLException | JanitorException e) {
                boolean lost = e instanceof SQLException se && SqlState.classify(se) == SqlState.Kind.CONNECTION_LOST;
                if (lost) {
                    closeConnection();
                }
                lastDuration = (System.nanoTime() - t0) / 1e9;
                return down(lost ? "connect" : "catalog", "listing the metadata schemas of " + config.connection().describe()
                        + " failed: " + e.getMessage());
            }
            if (schemas.isEmpty() && !schemas.equals(lastSchemas)) {
                log.accept("catalog " + config.name() + ": no schema of " + config.connection().describe() + " holds a DuckLake catalog");
            }
            lastSchemas = schemas;
        } else {
            schemas = List.of(config.metadataSchema());
        }
        List<MetricFamily> gathered = new ArrayList<>();
        boolean lost = false;
        boolean missing = false;
        double now = System.currentTimeMillis() / 1000.0;
        for (String schema : schemas) {
            CollectResult r = new CatalogHealthCollector(conn, schema, config.name(), config.statementTimeout(),
                    config.queries()).collect();
            // in the all-schemas mode a query is named <schema>/<query>, so that one tenant's failure is told apart
            String prefix = config.allMetadataSchemas() ? schema + "/" : "";
            record(r, prefix, now);
            for (MetricFamily f : r.families()) {
                gathered.add(withSchema(f, schema));
            }
            lost |= r.connectionLost();
            missing |= !config.allMetadataSchemas() && r.errors().containsKey("catalog");
            if (lost) {
                break;
            }
        }
        lastDuration = (System.nanoTime() - t0) / 1e9;
        if (lost) {
            closeConnection();
            return down("connect", "the connection to " + config.connection().describe() + " was lost");
        }
        if (missing) {
            catalogFamilies = List.of();
            setUp(false);
            return backoff();
        }
        catalogFamilies = Exposition.merge(gathered);
        lastSuccess = now;
        failures = 0;
        setUp(true);
        return interval;
    }

    /** Adds the {@code schema} label (the metadata schema, as on the Pushgateway series) right after {@code catalog}. */
    private static MetricFamily withSchema(MetricFamily f, String schema) {
        List<String> names = new ArrayList<>(f.labelNames());
        names.add(1, SCHEMA_LABEL);
        List<MetricFamily.Sample> samples = new ArrayList<>();
        for (MetricFamily.Sample s : f.samples()) {
            List<String> values = new ArrayList<>(s.labelValues());
            values.add(1, schema);
            samples.add(new MetricFamily.Sample(values, s.value()));
        }
        return new MetricFamily(f.name(), f.help(), f.type(), names, samples);
    }

    private void record(CollectResult r, String prefix, double now) {
        synchronized (errorCounts) {
            r.durations().forEach((q, d) -> queryDuration.put(prefix + q, d));
            for (String q0 : r.succeeded()) {
                String q = prefix + q0;
                errorCounts.putIfAbsent(q, 0L);
                queryLastSuccess.put(q, now);
                if (lastErrors.remove(q) != null) {
                    log.accept("catalog " + config.name() + ": query " + q + " succeeds again");
                }
            }
            for (Map.Entry<String, String> e : r.errors().entrySet()) {
                String q = prefix + e.getKey();
                errorCounts.merge(q, 1L, Long::sum);
                String message = config.connection().redact(e.getValue());
                if (!message.equals(lastErrors.put(q, message))) {
                    log.accept("catalog " + config.name() + ": query " + q + " failed: " + message);
                }
            }
        }
    }

    private Duration down(String query, String message) {
        catalogFamilies = List.of();
        synchronized (errorCounts) {
            errorCounts.merge(query, 1L, Long::sum);
            String redacted = config.connection().redact(message);
            if (!redacted.equals(lastErrors.put(query, redacted))) {
                log.accept("catalog " + config.name() + ": " + redacted);
            }
        }
        setUp(false);
        return backoff();
    }

    private Duration backoff() {
        failures++;
        long secs = BACKOFF_MIN.toSeconds() << Math.min(failures - 1, 6);
        return Duration.ofSeconds(Math.min(secs, BACKOFF_MAX.toSeconds()));
    }

    private void setUp(boolean value) {
        if (value && !up) {
            synchronized (errorCounts) {
                lastErrors.remove("connect");
            }
            log.accept("catalog " + config.name() + ": up (" + config.connection().describe() + ", schema "
                    + config.metadataSchema() + ")");
        } else if (!value && up) {
            log.accept("catalog " + config.name() + ": down; retrying with backoff up to " + BACKOFF_MAX.toSeconds() + " s");
        }
        up = value;
    }

    /**
     * The catalog's gauges from its last collection (none while it is down) plus its self-metrics.
     *
     * @return the families, each with the {@code catalog} label
     */
    public List<MetricFamily> families() {
        List<MetricFamily> out = new ArrayList<>(catalogFamilies);
        List<String> catalogOnly = List.of(CatalogHealthCollector.CATALOG_LABEL);
        List<String> name = List.of(config.name());
        out.add(MetricFamily.gauge(UP, "1 when the catalog answered its last collection, 0 while it is unreachable or its metadata "
                + "schema is missing.", catalogOnly, name, up ? 1 : 0));
        if (!Double.isNaN(lastDuration)) {
            out.add(MetricFamily.gauge(DURATION, "Duration of the last collection of the catalog's gauges, seconds.", catalogOnly,
                    name, lastDuration));
        }
        if (!Double.isNaN(lastSuccess)) {
            out.add(MetricFamily.gauge(LAST_SUCCESS, "Unix time of the last collection in which the catalog answered, seconds.",
                    catalogOnly, name, lastSuccess));
        }
        List<MetricFamily.Sample> errs = new ArrayList<>();
        List<MetricFamily.Sample> succ = new ArrayList<>();
        List<MetricFamily.Sample> took = new ArrayList<>();
        synchronized (errorCounts) {
            queryDuration.forEach((q, t) -> took.add(new MetricFamily.Sample(List.of(config.name(), q), t)));
            errorCounts.forEach((q, n) -> errs.add(new MetricFamily.Sample(List.of(config.name(), q), n)));
            queryLastSuccess.forEach((q, t) -> succ.add(new MetricFamily.Sample(List.of(config.name(), q), t)));
        }
        List<String> perQuery = List.of(CatalogHealthCollector.CATALOG_LABEL, "query");
        out.add(new MetricFamily(ERRORS, "Failed queries per catalog and query since start (query 'connect' counts failed "
                + "connection attempts and lost sessions).", MetricFamily.Type.COUNTER, perQuery, errs));
        out.add(new MetricFamily(QUERY_DURATION, "Duration of each query's last run, seconds.", MetricFamily.Type.GAUGE,
                perQuery, took));
        out.add(new MetricFamily(QUERY_LAST_SUCCESS, "Unix time of each query's last success, seconds.", MetricFamily.Type.GAUGE,
                perQuery, succ));
        return out;
    }

    /**
     * The last error of each failing query (password-free), for the one-shot report and /-/ready.
     *
     * @return query → message; empty when everything succeeded last time
     */
    public Map<String, String> lastErrors() {
        synchronized (errorCounts) {
            return new LinkedHashMap<>(lastErrors);
        }
    }

    private void closeConnection() {
        Connection c = conn;
        conn = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // already gone
            }
        }
    }

    /**
     * Stops this target without waiting for a collection in progress: no further collection starts, the session is
     * aborted (pgJDBC closes its socket, so a query in flight fails at once) and a login in progress is interrupted.
     * Idempotent; returns at once.
     */
    @Override
    public void close() {
        closed = true;
        Thread t = collecting;
        if (t != null) {
            t.interrupt();
        }
        Connection c = conn;
        if (c != null) {
            try {
                c.abort(Runnable::run);
            } catch (SQLException | RuntimeException ignored) {
                // already gone
            }
        }
    }
}
