package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.retry.FailureKind;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.catalog.CatalogDiscovery;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.catalog.health.CheckRules;
import dev.ducklake.janitor.ops.files.MissingObjects;
import dev.ducklake.janitor.ops.files.StoreOpener;
import dev.ducklake.janitor.pg.SqlState;
import dev.ducklake.janitor.storage.FileStore;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The storage gauges of one watched catalog ({@code metrics --storage}, {@code serve --storage}): the counts of
 * {@code check --storage} ({@link MissingObjects#compare(Connection, String, StoreOpener, String, int, Consumer)}), computed on a connection of
 * their own, apart from the catalog-health collection, because listing the data path costs far more than the catalog
 * queries ({@code serve} runs it on its own, longer interval).
 *
 * <p>Gauges, each with the labels {@code catalog} and {@code schema}:
 * <ul>
 *   <li>{@code ducklake_check_findings{kind, severity}} for the kinds {@value CheckRules#MISSING_DATA},
 *       {@value CheckRules#MISSING_DELETE} and {@value CheckRules#SIZE_MISMATCH} (files; severity damage), the same
 *       family as the catalog rules' findings;</li>
 *   <li>{@value #LISTED} (objects), {@value #COMPARED} and {@value #UNCHECKED} (catalog file rows);</li>
 *   <li>self-metrics {@value #SUCCESS} (1 when the last comparison of the schema succeeded, 0 when it failed),
 *       {@value #DURATION} (seconds), {@value #LAST_SUCCESS} (unix seconds) and the counter {@value #ERRORS}.</li>
 * </ul>
 * A failed comparison (store unreachable, listing failed, the database error, the storage timeout) never throws: the
 * schema's counts are no longer served (stale counts are never served as fresh), {@value #SUCCESS} is 0 and
 * {@link #lastError()} says why.
 *
 * <p>Bounds: every statement runs under the catalog's statement timeout (session {@code statement_timeout}, not set
 * behind a transaction-mode pooler; socket timeout just above it), the store's calls under their own bounds ({@code CallBounds}), and the whole comparison of
 * all schemas under the storage timeout: past it the session is aborted, the store closed and the collecting thread
 * interrupted, so the comparison ends as failed. Writes only a temporary table of its own session (the sorted known set).
 * Not for concurrent use: one collection at a time.
 */
public final class StorageGauges {

    /** Objects listed under the data path. */
    static final String LISTED = "ducklake_storage_listed_objects";
    /** Retained file rows compared with the listing. */
    static final String COMPARED = "ducklake_storage_compared_files";
    /** Retained file rows not compared (outside the data path or an unresolvable location). */
    static final String UNCHECKED = "ducklake_storage_unchecked_files";
    /** 1 when the last comparison succeeded, 0 when it failed. */
    static final String SUCCESS = "ducklake_janitor_storage_check_success";
    /** Duration of the last comparison, seconds. */
    static final String DURATION = "ducklake_janitor_storage_check_duration_seconds";
    /** Unix time of the last successful comparison, seconds. */
    static final String LAST_SUCCESS = "ducklake_janitor_storage_check_last_success_timestamp_seconds";
    /** Failed comparisons since start. */
    static final String ERRORS = "ducklake_janitor_storage_check_errors";

    /** Default bound of one storage comparison (all schemas of the catalog), 10 minutes. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);
    /** Default delay between two storage comparisons in serve, 1 hour. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofHours(1);

    private static final List<String> LABELS = List.of(CatalogHealthCollector.CATALOG_LABEL, CatalogTarget.SCHEMA_LABEL);

    private final TargetConfig config;
    private final StoreOpener opener;
    private final String dataPathOverride;
    private final Duration timeout;
    private final Consumer<String> log;

    /** Per schema: the last successful result's families (removed when the schema's last comparison failed). */
    private final Map<String, List<MetricFamily>> counts = new LinkedHashMap<>();
    private final Map<String, Boolean> success = new LinkedHashMap<>();
    private final Map<String, Double> duration = new LinkedHashMap<>();
    private final Map<String, Double> lastSuccess = new LinkedHashMap<>();
    private final Map<String, Long> errors = new LinkedHashMap<>();
    private volatile String lastError;
    private volatile boolean closed;
    /** Guards the hand-over between the comparing thread and the timeout or close. */
    private final Object lock = new Object();
    private Connection conn;
    private FileStore store;
    private Thread collecting;
    private boolean expired;
    private volatile boolean everCollected;

    /**
     * @param config the catalog (connection, schema or all schemas, statement timeout)
     * @param opener opens the store of a data path
     * @param dataPathOverride the data path to list instead of the catalog's, or null
     * @param timeout bound of one comparison of all the catalog's schemas; zero = none
     * @param log where failures and recoveries go (one line each, password-free)
     */
    public StorageGauges(TargetConfig config, StoreOpener opener, String dataPathOverride, Duration timeout, Consumer<String> log) {
        this.config = config;
        this.opener = opener;
        this.dataPathOverride = dataPathOverride;
        this.timeout = timeout;
        this.log = log;
    }

    /** The catalog. */
    public TargetConfig config() {
        return config;
    }

    /** The last failure (password-free), or null when the last comparison of every schema succeeded. */
    public String lastError() {
        return lastError;
    }

    /** Whether a comparison ended at least once. */
    public boolean everCollected() {
        return everCollected;
    }

    /**
     * Compares the store with the catalog once (every schema of the catalog in the all-schemas mode), within the
     * storage timeout. Never throws.
     */
    public synchronized void collectOnce() {
        Thread self = Thread.currentThread();
        if (closed) {
            return;
        }
        synchronized (lock) {
            collecting = self;
            expired = false;
        }
        ScheduledExecutorService timer = null;
        ScheduledFuture<?> alarm = null;
        if (!timeout.isZero()) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "storage-timeout-" + config.name());
                t.setDaemon(true);
                return t;
            });
            alarm = timer.schedule(() -> stop(true), timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        List<String> schemas = known();
        Map<String, String> failures = new LinkedHashMap<>();
        java.util.Set<String> compared = new java.util.HashSet<>();
        try {
            Connection c = config.connection().withSocketTimeoutJustAbove(config.statementTimeout()).open();
            synchronized (lock) {
                conn = c;
                if (expired || closed) {
                    abort(c, null);
                }
            }
            try (c) {
                if (!dev.ducklake.janitor.pg.Pooling.transactionPooled(c)) {
                    // session-level: behind a transaction-mode pooler it would stay on a server session other
                    // applications use; there the socket timeout and the storage timeout bound the statements
                    try (PreparedStatement ps = c.prepareStatement("SELECT set_config('statement_timeout', ?, false)")) {
                        ps.setString(1, Long.toString(config.statementTimeout().toMillis()));
                        ps.execute();
                    }
                }
                schemas = config.allMetadataSchemas() ? CatalogDiscovery.catalogSchemas(c) : List.of(config.metadataSchema());
                for (String schema : schemas) {
                    if (ended() || c.isClosed()) {
                        break;
                    }
                    long t0 = System.nanoTime();
                    try {
                        CatalogInspector.inspect(c, schema, false);
                        MissingObjects.Result r = MissingObjects.compare(c, schema, opener, dataPathOverride, 0, st -> {
                            synchronized (lock) {
                                store = st;
                                if (expired || closed) {
                                    abort(null, st);
                                }
                            }
                        });
                        succeeded(schema, r, (System.nanoTime() - t0) / 1e9);
                        compared.add(schema);
                    } catch (JanitorException | SQLException | RuntimeException e) {
                        failures.put(schema, describe(e));
                        if (e instanceof SQLException se && SqlState.classify(se) == FailureKind.CONNECTION_LOST) {
                            break;
                        }
                    } finally {
                        synchronized (lock) {
                            store = null;
                        }
                    }
                }
                for (String schema : schemas) {
                    if (!failures.containsKey(schema) && !compared.contains(schema)) {
                        failures.put(schema, "not compared: the session ended");
                    }
                }
            }
        } catch (JanitorException | SQLException | RuntimeException e) {
            for (String schema : schemas) {
                failures.putIfAbsent(schema, describe(e));
            }
        } finally {
            if (alarm != null) {
                alarm.cancel(false);
                timer.shutdownNow();
            }
        }
        synchronized (lock) {
            conn = null;
            collecting = null;
            if (expired || closed) {
                Thread.interrupted(); // the alarm's interrupt is spent
            }
            if (expired) {
                String why = "storage comparison timed out after " + seconds(timeout) + " (the storage timeout, --storage-timeout)";
                failures.replaceAll((k, v) -> why + "; " + v);
            }
        }
        if (closed) {
            return; // serve is stopping: nothing more is served
        }
        synchronized (counts) {
            // schemas no longer holding a catalog are no longer reported
            List<String> now = schemas;
            counts.keySet().retainAll(now);
            success.keySet().retainAll(now);
            duration.keySet().retainAll(now);
            lastSuccess.keySet().retainAll(now);
            errors.keySet().retainAll(now);
        }
        if (!failures.isEmpty()) {
            failures.forEach((schema, why) -> failed(schema, config.connection().redact(why)));
        } else if (lastError != null) {
            log.accept("catalog " + config.name() + ": storage comparison succeeds again");
            lastError = null;
        }
        everCollected = true;
    }

    private boolean ended() {
        synchronized (lock) {
            return expired || closed;
        }
    }

    /** Ends the comparison in progress: aborts its session, closes its store and interrupts it. */
    private void stop(boolean timedOut) {
        synchronized (lock) {
            if (timedOut) {
                expired = true;
            }
            abort(conn, store);
            if (collecting != null) {
                collecting.interrupt();
            }
        }
    }

    /**
     * Stops this catalog's storage comparisons without waiting: none starts any more and the one in progress is
     * ended (its session aborted, its store closed). Idempotent; returns at once.
     */
    public void close() {
        closed = true;
        stop(false);
    }

    private List<String> known() {
        synchronized (counts) {
            if (!success.isEmpty()) {
                return new ArrayList<>(success.keySet());
            }
        }
        return List.of(config.allMetadataSchemas() ? "" : config.metadataSchema());
    }

    private static void abort(Connection c, FileStore s) {
        if (c != null) {
            try {
                c.abort(Runnable::run);
            } catch (SQLException | RuntimeException ignored) {
                // already gone
            }
        }
        if (s != null) {
            try {
                s.close();
            } catch (RuntimeException ignored) {
                // closing ends its calls in flight; nothing else to do
            }
        }
    }

    private void succeeded(String schema, MissingObjects.Result r, double secs) {
        String cat = config.name();
        List<MetricFamily.Sample> findings = new ArrayList<>();
        findings.add(finding(cat, schema, CheckRules.MISSING_DATA, r.missingData()));
        findings.add(finding(cat, schema, CheckRules.MISSING_DELETE, r.missingDelete()));
        findings.add(finding(cat, schema, CheckRules.SIZE_MISMATCH, r.sizeMismatch()));
        List<MetricFamily> fams = List.of(
                new MetricFamily(CheckFindingsGauge.NAME, CheckFindingsGauge.HELP, MetricFamily.Type.GAUGE,
                        List.of(CatalogHealthCollector.CATALOG_LABEL, CatalogTarget.SCHEMA_LABEL, "kind", "severity"), findings),
                MetricFamily.gauge(LISTED, "Objects listed under the catalog's data path by the last storage comparison (check "
                        + "--storage).", LABELS, List.of(cat, schema), r.listed()),
                MetricFamily.gauge(COMPARED, "Data and delete file rows of retained snapshots under the data path that the last "
                        + "storage comparison looked up in the listing.", LABELS, List.of(cat, schema), r.expected()),
                MetricFamily.gauge(UNCHECKED, "Retained file rows the last storage comparison could not look up (outside the data "
                        + "path or an unresolvable location).", LABELS, List.of(cat, schema), r.notChecked()));
        synchronized (counts) {
            counts.put(schema, fams);
            success.put(schema, true);
            duration.put(schema, secs);
            lastSuccess.put(schema, System.currentTimeMillis() / 1000.0);
            errors.putIfAbsent(schema, 0L);
        }
    }

    private static MetricFamily.Sample finding(String cat, String schema, String kind, long n) {
        return new MetricFamily.Sample(List.of(cat, schema, kind, CheckRules.severityOf(kind)), n);
    }

    private void failed(String schema, String message) {
        synchronized (counts) {
            counts.remove(schema);
            success.put(schema, false);
            errors.merge(schema, 1L, Long::sum);
        }
        String line = (schema.isEmpty() ? "" : "schema " + schema + ": ") + message;
        if (!line.equals(lastError)) {
            log.accept("catalog " + config.name() + ": storage comparison failed: " + line);
        }
        lastError = line;
    }

    private static String describe(Exception e) {
        if (e instanceof SQLException se) {
            String state = SqlState.codeOf(se);
            return (state == null ? "" : "SQLSTATE " + state + ": ") + se.getMessage();
        }
        if (e instanceof JanitorException) {
            return e.getMessage();
        }
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }

    /**
     * The storage gauges of the last comparison (the counts of each schema whose last comparison succeeded) and the
     * self-metrics; empty before the first comparison.
     *
     * @return the families
     */
    public List<MetricFamily> families() {
        List<MetricFamily> out = new ArrayList<>();
        List<MetricFamily.Sample> ok = new ArrayList<>();
        List<MetricFamily.Sample> took = new ArrayList<>();
        List<MetricFamily.Sample> when = new ArrayList<>();
        List<MetricFamily.Sample> errs = new ArrayList<>();
        synchronized (counts) {
            counts.values().forEach(out::addAll);
            success.forEach((s, v) -> ok.add(new MetricFamily.Sample(List.of(config.name(), s), v ? 1 : 0)));
            duration.forEach((s, v) -> took.add(new MetricFamily.Sample(List.of(config.name(), s), v)));
            lastSuccess.forEach((s, v) -> when.add(new MetricFamily.Sample(List.of(config.name(), s), v)));
            errors.forEach((s, v) -> errs.add(new MetricFamily.Sample(List.of(config.name(), s), v)));
        }
        if (ok.isEmpty()) {
            return out;
        }
        out.add(new MetricFamily(SUCCESS, "1 when the last storage comparison of the schema (metrics/serve --storage) succeeded, "
                + "0 when it failed (store unreachable, listing failed, storage timeout); its counts are then not served.",
                MetricFamily.Type.GAUGE, LABELS, ok));
        out.add(new MetricFamily(DURATION, "Duration of the last successful storage comparison of the schema, seconds.",
                MetricFamily.Type.GAUGE, LABELS, took));
        out.add(new MetricFamily(LAST_SUCCESS, "Unix time of the last successful storage comparison of the schema, seconds.",
                MetricFamily.Type.GAUGE, LABELS, when));
        out.add(new MetricFamily(ERRORS, "Failed storage comparisons of the schema since start.", MetricFamily.Type.COUNTER,
                LABELS, errs));
        return out;
    }

    private static String seconds(Duration d) {
        return java.math.BigDecimal.valueOf(d.toMillis(), 3).stripTrailingZeros().toPlainString() + " s";
    }
}
