package dev.ducklake.janitor.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The self-metrics of one watched catalog ({@link CatalogTarget}): {@code up}, the last collection's duration and
 * last success, and per query its failure count, last duration, last success and last error (password-free). The
 * collecting thread and the watchdog record; any thread reads. One monitor guards the per-query maps.
 */
final class TargetSelfMetrics {

    static final String UP = "ducklake_janitor_up";
    static final String DURATION = "ducklake_janitor_scrape_duration_seconds";
    static final String ERRORS = "ducklake_janitor_query_errors";
    static final String LAST_SUCCESS = "ducklake_janitor_last_success_timestamp_seconds";
    static final String QUERY_LAST_SUCCESS = "ducklake_janitor_query_last_success_timestamp_seconds";
    static final String QUERY_DURATION = "ducklake_janitor_query_duration_seconds";

    private final TargetConfig config;
    private final Consumer<String> log;
    private volatile double lastDuration = Double.NaN;
    private volatile double lastSuccess = Double.NaN;
    private final Map<String, Long> errorCounts = new LinkedHashMap<>();
    private final Map<String, Double> queryLastSuccess = new LinkedHashMap<>();
    private final Map<String, Double> queryDuration = new LinkedHashMap<>();
    private final Map<String, String> lastErrors = new LinkedHashMap<>();

    /**
     * @param config the catalog (its name labels every family; its connection redacts every message)
     * @param log where a query's new failure and its recovery go (one line each, password-free)
     */
    TargetSelfMetrics(TargetConfig config, Consumer<String> log) {
        this.config = config;
        this.log = log;
    }

    /** The duration of the collection that just ended, seconds. */
    void collectionTook(double seconds) {
        lastDuration = seconds;
    }

    /** The start of a collection in which the catalog answered, Unix time in seconds. */
    void collectionSucceeded(double unixSeconds) {
        lastSuccess = unixSeconds;
    }

    /**
     * Records one metadata schema's queries: their durations, their successes (a query that succeeds after failing is
     * logged once) and their failures (counted; a message that differs from the query's last one is logged).
     *
     * @param r what the collection of one metadata schema produced
     * @param prefix put before each query name ({@code <schema>/} in the all-schemas mode, else empty)
     * @param now the collection's start, Unix time in seconds
     */
    void record(CollectResult r, String prefix, double now) {
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

    /**
     * Counts a failure of the whole collection ({@code connect} or {@code catalog}) and keeps its message, redacted;
     * logs it when it differs from that query's last one.
     *
     * @param query the pseudo-query failed: {@code connect} (login, lost session, timeout) or {@code catalog}
     * @param message what went wrong (may hold a password: redacted here)
     */
    void failed(String query, String message) {
        synchronized (errorCounts) {
            errorCounts.merge(query, 1L, Long::sum);
            String redacted = config.connection().redact(message);
            if (!redacted.equals(lastErrors.put(query, redacted))) {
                log.accept("catalog " + config.name() + ": " + redacted);
            }
        }
    }

    /**
     * Keeps the watchdog's timeout message as {@code connect}'s last error at once, for /-/ready; it is counted once
     * the collecting thread records the failure ({@link #failed}).
     */
    void timedOut(String message) {
        synchronized (errorCounts) {
            lastErrors.put("connect", message);
        }
    }

    /** Forgets {@code connect}'s last error: the catalog is up again. */
    void connected() {
        synchronized (errorCounts) {
            lastErrors.remove("connect");
        }
    }

    /**
     * The last error of each failing query (password-free).
     *
     * @return query → message, a copy; empty when everything succeeded last time
     */
    Map<String, String> lastErrors() {
        synchronized (errorCounts) {
            return new LinkedHashMap<>(lastErrors);
        }
    }

    /**
     * The self-metric families, each with the {@code catalog} label: {@link #UP}, then the last collection's
     * {@link #DURATION} and {@link #LAST_SUCCESS} once known, then per query {@link #ERRORS},
     * {@link #QUERY_DURATION} and {@link #QUERY_LAST_SUCCESS}.
     *
     * @param up the value of {@link #UP}: whether the catalog answered and its collection is not stale
     * @return the families, in that order
     */
    List<MetricFamily> families(boolean up) {
        List<MetricFamily> out = new ArrayList<>();
        List<String> catalogOnly = List.of(CatalogHealthCollector.CATALOG_LABEL);
        List<String> name = List.of(config.name());
        out.add(MetricFamily.gauge(UP, "1 when the catalog answered its last collection, 0 while it is unreachable or its metadata "
                + "schema is missing or its collection passed the collection timeout.", catalogOnly, name, up ? 1 : 0));
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
}
