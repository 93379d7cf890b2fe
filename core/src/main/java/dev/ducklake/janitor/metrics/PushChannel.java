package dev.ducklake.janitor.metrics;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * The Pushgateway of one command invocation, shared by every {@link MaintenanceRunReporter} of the run (one per
 * schema): where to push, how long one push may take, and whether pushing has failed.
 *
 * <p>A slow Pushgateway must not slow maintenance: each push is bounded by {@code timeout} in total (connect, send
 * and response), and after the first failed push no further push is attempted for the rest of the run (the reporter
 * warns once). {@link #timeSpent()} is the wall time spent pushing, which the CLI counts inside {@code --run-budget}.
 *
 * <p>Grouping values go into the URL path as the Pushgateway API expects: a value made only of URL-safe characters
 * ({@code A-Z a-z 0-9 _ . ~ -}) as is, anything else (spaces, {@code /}, non-ASCII, the empty value) as
 * {@code <label>@base64/<base64url of the UTF-8 bytes>} (Pushgateway README, "URL"): never form-encoded, where a
 * space would become a literal {@code +}. Thread-safe.
 */
public final class PushChannel {

    /** Default bound of one push, seconds. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    private static final Pattern URL_SAFE = Pattern.compile("[A-Za-z0-9_.~-]+");

    private final MaintenanceRunReporter.Target target;
    private final Duration timeout;
    private final AtomicBoolean failed = new AtomicBoolean();
    private final AtomicLong nanosSpent = new AtomicLong();
    private volatile HttpClient client;

    /**
     * @param target where to push (see {@link MaintenanceRunReporter#parseUrl})
     * @param timeout the longest one push may take in total (more than zero)
     */
    public PushChannel(MaintenanceRunReporter.Target target, Duration timeout) {
        if (timeout == null || timeout.isZero() || timeout.isNegative()) {
            throw new IllegalArgumentException("push timeout must be positive");
        }
        this.target = target;
        this.timeout = timeout;
    }

    /** Where pushes go. */
    public MaintenanceRunReporter.Target target() {
        return target;
    }

    /** The bound of one push. */
    public Duration timeout() {
        return timeout;
    }

    /** Whether a push has failed (then no further push is attempted). */
    public boolean failed() {
        return failed.get();
    }

    /** Wall time spent in pushes so far (successful and failed). */
    public Duration timeSpent() {
        return Duration.ofNanos(nanosSpent.get());
    }

    /**
     * The URL path of a group: {@code /metrics/job/<job>} followed by the other grouping labels in name order.
     *
     * @param grouping label → value; must contain {@code job}
     * @return the path, each value encoded as described in the class comment
     */
    public static String groupPath(Map<String, String> grouping) {
        StringBuilder b = new StringBuilder("/metrics");
        b.append(segment("job", grouping.get("job")));
        for (Map.Entry<String, String> e : new TreeMap<>(grouping).entrySet()) {
            if (!e.getKey().equals("job")) {
                b.append(segment(e.getKey(), e.getValue()));
            }
        }
        return b.toString();
    }

    private static String segment(String label, String value) {
        String v = value == null ? "" : value;
        if (URL_SAFE.matcher(v).matches()) {
            return "/" + label + "/" + v;
        }
        String enc = Base64.getUrlEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8));
        return "/" + label + "@base64/" + (enc.isEmpty() ? "=" : enc);
    }

    /**
     * POSTs one body to a group (Pushgateway semantics: replaces only the metric names pushed, in that group).
     * Does nothing after a failure.
     *
     * @param grouping the grouping key (with {@code job})
     * @param body the metrics in the Prometheus text format
     * @return null when pushed (or skipped after an earlier failure), else why it failed (never the password)
     */
    String post(Map<String, String> grouping, byte[] body) {
        if (failed.get()) {
            return null;
        }
        long t0 = System.nanoTime();
        try {
            HttpRequest.Builder rb = HttpRequest.newBuilder(URI.create(target.scheme().name().toLowerCase(java.util.Locale.ROOT)
                            + "://" + target.address() + groupPath(grouping)))
                    .timeout(timeout)
                    .header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body));
            if (target.user() != null) {
                String creds = target.user() + ":" + (target.password() == null ? "" : target.password());
                rb.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(creds.getBytes(StandardCharsets.UTF_8)));
            }
            CompletableFuture<HttpResponse<String>> f = client().sendAsync(rb.build(), HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> resp;
            try {
                resp = f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                f.cancel(true);
                return fail("no answer within " + seconds(timeout) + " s (--pushgateway-timeout)");
            } catch (ExecutionException e) {
                Throwable c = e.getCause() == null ? e : e.getCause();
                if (c instanceof java.net.http.HttpTimeoutException) {
                    return fail("no answer within " + seconds(timeout) + " s (--pushgateway-timeout)");
                }
                if (c instanceof java.net.ConnectException) {
                    return fail("connection refused");
                }
                return fail(c.getMessage() == null ? "the request failed" : c.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                f.cancel(true);
                return fail("interrupted");
            }
            if (resp.statusCode() / 100 != 2) {
                String text = resp.body() == null ? "" : resp.body().strip();
                return fail("HTTP " + resp.statusCode() + (text.isEmpty() ? "" : ": " + (text.length() > 200 ? text.substring(0, 200) : text)));
            }
            return null;
        } catch (IllegalArgumentException | SecurityException e) {
            return fail("invalid request: " + e.getMessage());
        } finally {
            nanosSpent.addAndGet(System.nanoTime() - t0);
        }
    }

    private String fail(String why) {
        failed.set(true);
        String msg = why;
        if (target.password() != null && !target.password().isEmpty()) {
            msg = msg.replace(target.password(), "***");
        }
        return msg;
    }

    private HttpClient client() {
        HttpClient c = client;
        if (c == null) {
            synchronized (this) {
                if (client == null) {
                    client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER).build();
                }
                c = client;
            }
        }
        return c;
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? Long.toString(d.toSeconds()) : Double.toString(d.toMillis() / 1000.0);
    }
}
