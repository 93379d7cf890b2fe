package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.exporter.pushgateway.Scheme;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Pushes the outcome of a maintenance run (any operation) to a Prometheus Pushgateway, in the Prometheus text
 * format, with HTTP POST to {@code <url>/metrics/job/<job>/catalog/<catalog>/operation/<operation>/schema/<schema>}
 * (grouping labels in name order; a value that is not URL-safe, e.g. with a space, a {@code /} or non-ASCII
 * characters, is sent as {@code <label>@base64/<base64url>}, see {@link PushChannel}).
 *
 * <p>Series pushed (the Pushgateway adds the grouping labels job, catalog, schema and operation to each):
 * <ul>
 *   <li>{@code ducklake_maintenance_start_time_seconds}: unix time the run started (pushed at start and at the end);</li>
 *   <li>{@code ducklake_maintenance_duration_seconds{status="success"|"error"}}: duration of the last run;</li>
 *   <li>{@code ducklake_maintenance_last_success_time_seconds}: unix time the last successful run ended (success only);</li>
 *   <li>the operation's per-run gauges (success only), e.g. {@code ducklake_maintenance_inline_orphans_dropped_last_run}.</li>
 * </ul>
 * POST replaces only the series whose names are pushed, inside the run's own group. So a failed run replaces the
 * start time and the duration (with {@code status="error"}) but leaves the per-run gauges and the last-success time
 * of the previous successful run as they were: they are never overwritten with zeros. {@code operation} is part of
 * the grouping key (not a label in the body) so that runs of different operations on one catalog never replace
 * each other's series.
 *
 * <p>Push failures never fail the run: the first one is reported to the warning sink, and no further push is
 * attempted in the same run (the {@link PushChannel} is shared by the reporters of one run). Each push is bounded by
 * the channel's timeout. Not thread-safe; one per run and schema.
 */
public final class MaintenanceRunReporter {

    /** Default Pushgateway job name. */
    public static final String DEFAULT_JOB = "ducklake_janitor";
    private final PushChannel channel;
    private final String operation;
    private final Map<String, String> grouping;
    private final Consumer<String> warn;
    private long startNanos;
    private double startEpoch;

    /**
     * Where to push: a parsed Pushgateway URL.
     *
     * @param scheme http or https
     * @param address host:port plus an optional path prefix, as client_java expects it
     * @param user basic-auth user from the URL, or null
     * @param password basic-auth password from the URL, or null (never printed)
     * @param display the URL without user info, for messages
     */
    public record Target(Scheme scheme, String address, String user, String password, String display) {

        /** Hides the password. */
        @Override
        public String toString() {
            return display;
        }
    }

    private MaintenanceRunReporter(PushChannel channel, String operation, Map<String, String> grouping, Consumer<String> warn) {
        this.channel = channel;
        this.operation = operation;
        this.grouping = grouping;
        this.warn = warn;
    }

    /**
     * Parses a Pushgateway URL such as {@code http://pushgateway:9091} or {@code https://user:pw@vm.example/prefix}.
     *
     * @param url the URL
     * @return the target
     * @throws JanitorException {@link Reason#USAGE} when the URL is not an http(s) URL with a host (the message
     *     never repeats user info)
     */
    public static Target parseUrl(String url) throws JanitorException {
        URI uri;
        try {
            uri = new URI(url.strip());
        } catch (URISyntaxException e) {
            throw new JanitorException(Reason.USAGE, "--pushgateway-url is not a valid URL (error at character " + e.getIndex() + ").");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(java.util.Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            throw new JanitorException(Reason.USAGE, "--pushgateway-url must be an http:// or https:// URL with a host, e.g. "
                    + "http://pushgateway:9091.");
        }
        String user = null;
        String password = null;
        if (uri.getRawUserInfo() != null) {
            String ui = uri.getRawUserInfo();
            int colon = ui.indexOf(':');
            user = URLDecoder.decode(colon >= 0 ? ui.substring(0, colon) : ui, StandardCharsets.UTF_8);
            password = colon >= 0 ? URLDecoder.decode(ui.substring(colon + 1), StandardCharsets.UTF_8) : "";
        }
        String hostPort = uri.getHost().contains(":") && !uri.getHost().startsWith("[") ? "[" + uri.getHost() + "]" : uri.getHost();
        if (uri.getPort() >= 0) {
            hostPort += ":" + uri.getPort();
        }
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        while (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (path.endsWith("/metrics")) {
            path = path.substring(0, path.length() - "/metrics".length());
        }
        return new Target(scheme.equals("https") ? Scheme.HTTPS : Scheme.HTTP, hostPort + path, user, password,
                scheme + "://" + hostPort + path);
    }

    /**
     * A reporter for one run.
     *
     * @param channel where and how to push (shared by the reporters of one run), or null for none (then every method
     *     does nothing: dry runs, no URL given)
     * @param job the Pushgateway job name (e.g. {@link #DEFAULT_JOB})
     * @param catalog the catalog label value
     * @param schema the metadata schema label value
     * @param operation the operation name, e.g. {@code drop-orphan-inline-tables}
     * @param warn where push failures go
     * @return the reporter
     */
    public static MaintenanceRunReporter create(PushChannel channel, String job, String catalog, String schema, String operation,
                                                Consumer<String> warn) {
        Map<String, String> grouping = new LinkedHashMap<>();
        grouping.put("job", job);
        grouping.put("catalog", catalog);
        grouping.put("schema", schema);
        grouping.put("operation", operation);
        return new MaintenanceRunReporter(channel, operation, grouping, warn);
    }

    /** Whether this reporter pushes at all. */
    public boolean enabled() {
        return channel != null;
    }

    /** Records the start time and pushes {@code ducklake_maintenance_start_time_seconds}. */
    public void started() {
        startNanos = System.nanoTime();
        startEpoch = System.currentTimeMillis() / 1000.0;
        if (!enabled()) {
            return;
        }
        PrometheusRegistry reg = new PrometheusRegistry();
        startGauge(reg);
        push(reg);
    }

    /**
     * Pushes a successful run: start time, duration with {@code status="success"}, last-success time and the
     * operation's per-run gauges.
     *
     * @param perRunGauges metric name → value (and help text via {@link PerRun}); pushed as gauges
     */
    public void succeeded(Map<String, PerRun> perRunGauges) {
        if (!enabled()) {
            return;
        }
        PrometheusRegistry reg = new PrometheusRegistry();
        startGauge(reg);
        durationGauge(reg, "success");
        Gauge.builder().name("ducklake_maintenance_last_success_time_seconds")
                .help("Unix time the last successful run of this operation ended, seconds.").register(reg)
                .set(System.currentTimeMillis() / 1000.0);
        perRunGauges.forEach((name, v) -> {
            if (v.labels().isEmpty()) {
                Gauge.builder().name(name).help(v.help()).register(reg).set(v.value());
            } else {
                Gauge.builder().name(name).help(v.help()).labelNames(v.labels().keySet().toArray(new String[0])).register(reg)
                        .labelValues(v.labels().values().toArray(new String[0])).set(v.value());
            }
        });
        push(reg);
    }

    /**
     * Pushes only the given gauges, leaving every other series of the group as it was: for a run that was not due
     * ({@code maintain}'s {@code every}), which did not start, yet must keep its cadence known to the alerts.
     *
     * @param gauges metric name → value and help
     */
    public void pushOnly(Map<String, PerRun> gauges) {
        if (!enabled() || gauges.isEmpty()) {
            return;
        }
        PrometheusRegistry reg = new PrometheusRegistry();
        gauges.forEach((name, v) -> Gauge.builder().name(name).help(v.help()).register(reg).set(v.value()));
        push(reg);
    }

    /** Pushes a failed run: start time and duration with {@code status="error"} only (per-run gauges are kept). */
    public void failed() {
        if (!enabled()) {
            return;
        }
        PrometheusRegistry reg = new PrometheusRegistry();
        startGauge(reg);
        durationGauge(reg, "error");
        push(reg);
    }

    /**
     * A per-run gauge.
     *
     * @param value the value
     * @param help its help text
     * @param labels labels of the series in order (e.g. {@code short_retention}), empty for none
     */
    public record PerRun(double value, String help, Map<String, String> labels) {
        /** A gauge without labels. */
        public PerRun(double value, String help) {
            this(value, help, Map.of());
        }
    }

    private void startGauge(PrometheusRegistry reg) {
        Gauge.builder().name("ducklake_maintenance_start_time_seconds").help("Unix time the last run of this operation started, seconds.")
                .register(reg).set(startEpoch);
    }

    private void durationGauge(PrometheusRegistry reg, String status) {
        Gauge.builder().name("ducklake_maintenance_duration_seconds").help("Duration of the last run of this operation, seconds; "
                + "status is success or error.").labelNames("status").register(reg)
                .labelValues(status).set((System.nanoTime() - startNanos) / 1e9);
    }

    private void push(PrometheusRegistry reg) {
        if (channel.failed()) {
            return;
        }
        java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
        try {
            PrometheusTextFormatWriter.create().write(buf, reg.scrape());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        String failure = channel.post(grouping, buf.toByteArray());
        if (failure != null) {
            warn.accept("push of " + operation + " metrics to the Pushgateway " + channel.target().display() + " failed: " + failure
                    + "; no further pushes in this run (the run itself is not affected)");
        }
    }
}
