package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.retry.Backoff;
import dev.ducklake.janitor.retry.FailureKind;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.catalog.CatalogDiscovery;
import dev.ducklake.janitor.pg.SqlState;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
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
 *
 * <p>A collection may be bounded by a <em>collection timeout</em> ({@link #collectOnce(Duration, Duration)}; issue 28
 * item 12): the login and schema discovery plus the first metadata schema's queries, and then each further schema's
 * queries, must end within it. Once it has passed, {@link #up()} is false and {@link #families()} serves no catalog
 * gauge (stale values are never served as fresh), at once, while the collecting thread may still be blocked;
 * {@link #enforceDeadline()} (called by the daemon's watchdog) then aborts the session or interrupts the login, and
 * the next collection reconnects.
 */
public final class CatalogTarget implements AutoCloseable {

    /** First delay after a failure. */
    public static final Duration BACKOFF_MIN = Duration.ofSeconds(1);
    /** Longest delay between reconnect attempts. */
    public static final Duration BACKOFF_MAX = Duration.ofSeconds(60);
    /** The wait before the next collection after consecutive failures: {@link #BACKOFF_MIN} doubling up to {@link #BACKOFF_MAX}. */
    private static final Backoff RECONNECT_BACKOFF = new Backoff(BACKOFF_MIN.toMillis(), BACKOFF_MAX.toMillis());

    /** Label of every catalog gauge: the metadata schema (the same label the Pushgateway series carry). */
    public static final String SCHEMA_LABEL = "schema";

    private final TargetConfig config;
    private final Consumer<String> log;
    /** Up, durations, per-query error counters and last-success times, last errors. */
    private final TargetSelfMetrics self;
    private volatile Connection conn;
    private volatile Thread collecting;
    private volatile boolean closed;
    private int failures;
    private List<String> lastSchemas;

    private volatile boolean up;
    private volatile boolean everCollected;
    /** Guards the hand-over between the collecting thread and the watchdog ({@link #enforceDeadline()}). */
    private final Object watch = new Object();
    /** System.nanoTime() by which the current part of the collection must end; 0 = not collecting or no bound. */
    private volatile long deadline;
    /** The bound of the current collection (zero = none). */
    private volatile Duration collectionTimeout = Duration.ZERO;
    /** Whether the watchdog found the current (or last) collection past its deadline. */
    private volatile boolean timedOut;
    /** Why the watchdog ended the current (or last) collection, set before {@link #timedOut}; null when it did not. */
    private volatile String timeoutReason;
    /** Whether the collecting thread is inside the login. */
    private volatile boolean loggingIn;
    private volatile long loginStarted;
    private volatile List<MetricFamily> catalogFamilies = List.of();

    /**
     * @param config the catalog
     * @param log where state changes and query failures go (one line each, password-free)
     */
    public CatalogTarget(TargetConfig config, Consumer<String> log) {
        this.config = config;
        this.log = log;
        this.self = new TargetSelfMetrics(config, log);
    }

    /** The catalog's configuration. */
    public TargetConfig config() {
        return config;
    }

    /**
     * Whether the catalog answered its last collection (connected and the metadata schema found) and the collection
     * in progress, if any, is within its collection timeout.
     */
    public boolean up() {
        return up && !stale();
    }

    /** Whether a collection ended at least once (before: /-/ready says "not collected yet"). */
    public boolean everCollected() {
        return everCollected;
    }

    /**
     * Whether the collection in progress has passed its collection timeout (or the last one ended so): the values of
     * the last collection are no longer served and the catalog counts as down.
     */
    public boolean stale() {
        if (timedOut) {
            return true;
        }
        long d = deadline;
        return d != 0 && System.nanoTime() - d > 0;
    }

    /**
     * Why the catalog is down, for /-/ready: the collection timeout when the collection in progress passed it, else
     * the last connection or catalog error.
     *
     * @return the reason (password-free), or null when none is known
     */
    public String downReason() {
        String recorded = timeoutReason;
        if (timedOut && recorded != null) {
            return recorded;
        }
        if (stale() && !timedOut) {
            // past the deadline, before the watchdog recorded it (it then records the same message)
            synchronized (watch) {
                return timeoutMessage(loggingIn);
            }
        }
        Map<String, String> errs = lastErrors();
        return errs.containsKey("connect") ? errs.get("connect") : errs.get("catalog");
    }

    /** What this target measures, for log lines: {@code schema NAME} or every schema holding a catalog. */
    public String schemaDescription() {
        return config.allMetadataSchemas() ? "every schema holding a DuckLake catalog" : "schema " + config.metadataSchema();
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
    public Duration collectOnce(Duration interval) {
        return collectOnce(interval, Duration.ZERO);
    }

    /**
     * {@link #collectOnce(Duration)} bounded by a collection timeout: the login, the schema discovery and the first
     * metadata schema's queries must end within {@code timeout}, then each further schema's queries within
     * {@code timeout} of the schema before. Past it the target is down at once ({@link #stale()}); the session is
     * aborted by {@link #enforceDeadline()}.
     *
     * @param interval the normal delay between collections
     * @param timeout the collection timeout; zero = none (the socket timeouts bound the reads)
     * @return how long to wait before the next collection, as {@link #collectOnce(Duration)}
     */
    public synchronized Duration collectOnce(Duration interval, Duration timeout) {
        if (closed) {
            return BACKOFF_MAX;
        }
        synchronized (watch) {
            collecting = Thread.currentThread();
            collectionTimeout = timeout;
            timedOut = false;
            timeoutReason = null;
            deadline = timeout.isZero() ? 0 : nonZero(System.nanoTime() + timeout.toNanos());
        }
        try {
            return collect(interval);
        } finally {
            synchronized (watch) {
                collecting = null;
                deadline = 0;
                loggingIn = false;
            }
            if (timedOut && !closed) {
                Thread.interrupted(); // the watchdog's interrupt of a login is spent
            }
            everCollected = true;
        }
    }

    private static long nonZero(long nanos) {
        return nanos == 0 ? 1 : nanos;
    }

    /** Starts the next part of a bounded collection (the next metadata schema): its own collection timeout. */
    private void nextPart() {
        synchronized (watch) {
            if (deadline != 0 && !timedOut) {
                deadline = nonZero(System.nanoTime() + collectionTimeout.toNanos());
            }
        }
    }

    /**
     * Ends a collection that has passed its collection timeout: marks the target down (its last error names the
     * timeout, for /-/ready and the log), interrupts a login in progress and aborts the session, so that the
     * collecting thread ends and the next collection reconnects. Does nothing otherwise; returns at once; may be
     * called from any thread (the daemon calls it a few times a second).
     */
    public void enforceDeadline() {
        Thread t;
        Connection c;
        String message;
        synchronized (watch) {
            long d = deadline;
            if (collecting == null || timedOut || d == 0 || System.nanoTime() - d <= 0) {
                return;
            }
            t = collecting;
            c = conn;
            message = timeoutMessage(loggingIn);
            // the reason first: /-/ready may ask between this block and the error record below
            timeoutReason = message;
            timedOut = true;
            if (loggingIn) {
                t.interrupt(); // pgJDBC waits for its login thread interruptibly
            }
        }
        self.timedOut(message); // counted once the collecting thread records the failure
        log.accept("catalog " + config.name() + ": " + message + "; marked down, ending the session");
        if (c != null) {
            try {
                c.abort(Runnable::run);
            } catch (SQLException | RuntimeException ignored) {
                // already gone
            }
        }
    }

    private String timeoutMessage(boolean login) {
        String seconds = java.math.BigDecimal.valueOf(collectionTimeout.toMillis(), 3).stripTrailingZeros().toPlainString() + " s";
        return (login ? "login to " + config.connection().describe() + " timed out after " + seconds
                : "collection timed out after " + seconds + " (no answer from " + config.connection().describe() + ")")
                + " (the collection timeout, serve --collection-timeout)";
    }

    private Duration collect(Duration interval) {
        long t0 = System.nanoTime();
        if (conn == null) {
            // bounded collections: the login's own reads (session settings) end by the collection timeout too
            dev.ducklake.janitor.pg.ConnectionSpec spec = collectionTimeout.isZero() ? config.connection()
                    : config.connection().withSocketTimeoutSeconds((int) Math.min(Integer.MAX_VALUE,
                            collectionTimeout.toSeconds() + 2));
            try {
                synchronized (watch) {
                    loggingIn = true;
                    loginStarted = System.nanoTime();
                }
                Connection opened;
                try {
                    opened = spec.openRaw();
                } finally {
                    synchronized (watch) {
                        loggingIn = false;
                    }
                }
                conn = opened;
                if (closed || timedOut) {
                    closeConnection();
                    self.collectionTook((System.nanoTime() - t0) / 1e9);
                    return closed ? BACKOFF_MAX : down("connect", timeoutMessage(true));
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
                self.collectionTook((System.nanoTime() - t0) / 1e9);
                if (timedOut) {
                    return down("connect", timeoutMessage(true));
                }
                if (closed) {
                    log.accept("catalog " + config.name() + ": login to " + config.connection().describe() + " interrupted after "
                            + String.format(java.util.Locale.ROOT, "%.1f", (System.nanoTime() - loginStarted) / 1e9)
                            + " s: serve is stopping");
                    return BACKOFF_MAX;
                }
                return down("connect", config.connection().connectionFailure(e).getMessage());
            }
        }
        List<String> schemas;
        if (config.allMetadataSchemas()) {
            try {
                schemas = CatalogDiscovery.catalogSchemas(conn);
            } catch (SQLException | JanitorException e) {
                boolean lost = timedOut || e instanceof SQLException se && SqlState.classify(se) == FailureKind.CONNECTION_LOST;
                if (lost) {
                    closeConnection();
                }
                self.collectionTook((System.nanoTime() - t0) / 1e9);
                if (timedOut) {
                    return down("connect", timeoutMessage(false));
                }
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
        boolean first = true;
        for (String schema : schemas) {
            if (!first) {
                nextPart();
            }
            first = false;
            CollectResult r = new CatalogHealthCollector(conn, schema, config.name(), config.statementTimeout(),
                    config.queries()).collect();
            if (timedOut) {
                // the watchdog ended this collection: what the aborted session returned is not a measurement
                lost = true;
                break;
            }
            // in the all-schemas mode a query is named <schema>/<query>, so that one tenant's failure is told apart
            String prefix = config.allMetadataSchemas() ? schema + "/" : "";
            self.record(r, prefix, now);
            for (MetricFamily f : r.families()) {
                gathered.add(withSchema(f, schema));
            }
            lost |= r.connectionLost();
            missing |= !config.allMetadataSchemas() && r.errors().containsKey("catalog");
            if (lost) {
                break;
            }
        }
        self.collectionTook((System.nanoTime() - t0) / 1e9);
        if (lost || timedOut) {
            closeConnection();
            return down("connect", timedOut ? timeoutMessage(false)
                    : "the connection to " + config.connection().describe() + " was lost");
        }
        if (missing) {
            catalogFamilies = List.of();
            setUp(false);
            return backoff();
        }
        catalogFamilies = Exposition.merge(gathered);
        self.collectionSucceeded(now);
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

    private Duration down(String query, String message) {
        catalogFamilies = List.of();
        self.failed(query, message);
        setUp(false);
        return backoff();
    }

    private Duration backoff() {
        failures++;
        return Duration.ofMillis(RECONNECT_BACKOFF.millis(failures));
    }

    private void setUp(boolean value) {
        if (value && !up) {
            self.connected();
            log.accept("catalog " + config.name() + ": up (" + config.connection().describe() + ", " + schemaDescription() + ")");
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
        boolean stale = stale();
        List<MetricFamily> out = new ArrayList<>(stale ? List.of() : catalogFamilies);
        out.addAll(self.families(up && !stale));
        return out;
    }

    /**
     * The last error of each failing query (password-free), for the one-shot report and /-/ready.
     *
     * @return query → message; empty when everything succeeded last time
     */
    public Map<String, String> lastErrors() {
        return self.lastErrors();
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
