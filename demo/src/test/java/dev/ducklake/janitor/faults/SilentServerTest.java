package dev.ducklake.janitor.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.metrics.CatalogTarget;
import dev.ducklake.janitor.metrics.MetricsConfig;
import dev.ducklake.janitor.metrics.MetricsDaemon;
import dev.ducklake.janitor.metrics.TargetConfig;
import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.retry.RetryPolicy;
import dev.ducklake.janitor.storage.S3FileStore;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.storage.StorageLocation;
import dev.ducklake.janitor.testsupport.SilentPeer;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.JanitorProcess;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicBoolean;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Issue 10, items 2 and 3: a server that accepts TCP and never answers (a firewall black hole behind a load balancer,
 * a stuck pooler). Before the fix runs and {@code metrics} hung forever ({@code connect_timeout} bounded only the TCP
 * connect, PGCONNECT_TIMEOUT was ignored), and {@code serve} never stopped on SIGTERM (the stop thread waited on the
 * monitor of the catalog stuck connecting).
 *
 * <p>Issue 23 item 5: the same after login. A proxy forwards to the test server until the client sends a given
 * statement, then goes silent both ways (sockets open, nothing answered), and an S3 endpoint that accepts and never
 * answers: each command ends within its documented bound with its documented exit code.
 */
class SilentServerTest {

    private SilentPeer peer;

    @BeforeEach
    void silentServer() throws IOException {
        peer = SilentPeer.start();
    }

    @AfterEach
    void close() throws IOException {
        peer.close();
    }

    private String hostPort() {
        return "127.0.0.1:" + peer.port();
    }

    @Test
    void aRunEndsWithExit3NamingHostAndPortWithinTheConnectTimeout() {
        long t0 = System.nanoTime();
        CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> CliRun.run("drop-orphan-inline-tables", "--catalog",
                "postgresql://janitor@" + hostPort() + "/lake?connect_timeout=2", "--dry-run", "--output", "json"));
        double took = (System.nanoTime() - t0) / 1e9;
        assertThat(run.exitCode()).as("stderr: %s", run.err()).isEqualTo(3);
        assertThat(run.err()).contains(hostPort()).contains("no answer within 2 s");
        assertThat(run.out()).contains("\"exit_code\" : 3");
        assertThat(took).as("seconds").isLessThan(15);
        assertThat(peer.accepted()).as("the server was reached over TCP").isNotEmpty();
    }

    @Test
    void pgConnectTimeoutIsHonoured() {
        CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> CliRun.run(Map.of("PGCONNECT_TIMEOUT", "3"),
                "drop-orphan-inline-tables", "--catalog", "host=127.0.0.1 port=" + peer.port() + " dbname=lake user=j",
                "--dry-run"));
        assertThat(run.exitCode()).isEqualTo(3);
        assertThat(run.err()).contains(hostPort()).contains("no answer within 3 s");
    }

    @Test
    void theDefaultBoundsALoginWithoutAnyTimeoutGiven() {
        assertThat(ConnectionSpec.DEFAULT_CONNECT_TIMEOUT_SECONDS).isEqualTo(10);
        CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(40), () -> CliRun.run("metrics", "--catalog",
                "postgresql://janitor@" + hostPort() + "/lake"));
        assertThat(run.exitCode()).as("metrics: exit 3; stderr: %s", run.err()).isEqualTo(3);
        assertThat(run.err()).contains(hostPort()).contains("no answer within 10 s");
    }

    @Test
    void libpqConnectTimeoutSemantics() throws Exception {
        assertThat(ConnectionSpec.parse("host=h connect_timeout=1", Map.of(), null).connectTimeoutSeconds()).as("1 is taken as 2")
                .isEqualTo(2);
        assertThat(ConnectionSpec.parse("host=h connect_timeout=0", Map.of(), null).connectTimeoutSeconds()).as("0 waits forever")
                .isZero();
        assertThat(ConnectionSpec.parse("host=h", Map.of("PGCONNECT_TIMEOUT", "7"), null).connectTimeoutSeconds()).isEqualTo(7);
        assertThat(ConnectionSpec.parse("jdbc:postgresql://h/d?connectTimeout=4", Map.of(), null).connectTimeoutSeconds()).isEqualTo(4);
        ConnectionSpec s = ConnectionSpec.parse("host=h", Map.of(), null);
        assertThat(s.socketTimeoutSeconds()).as("reads bounded unless a caller asks otherwise")
                .isEqualTo(ConnectionSpec.SOCKET_TIMEOUT_FLOOR_SECONDS);
        assertThat(s.withSocketTimeoutAbove(Duration.ofSeconds(900)).socketTimeoutSeconds()).as("beyond the statement timeout")
                .isEqualTo(900 + ConnectionSpec.SOCKET_TIMEOUT_MARGIN_SECONDS);
        assertThat(s.withSocketTimeoutAbove(Duration.ofSeconds(120)).socketTimeoutSeconds()).as("never below the floor")
                .isEqualTo(ConnectionSpec.SOCKET_TIMEOUT_FLOOR_SECONDS);
        assertThat(s.withSocketTimeoutAbove(Duration.ZERO).socketTimeoutSeconds()).isZero();
    }

    @Test
    void sigtermWhileConnectingEndsTheRunPromptlyWithItsResultDocument() throws Exception {
        // a long connect_timeout: only the stop request can end the login promptly
        JanitorProcess p = JanitorProcess.start(Map.of(), "drop-orphan-inline-tables", "--catalog",
                "postgresql://janitor@" + hostPort() + "/lake?connect_timeout=60", "--yes", "--output", "json");
        try {
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (peer.accepted().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(peer.accepted()).as("the run is connecting").isNotEmpty();
            Thread.sleep(500);
            long t0 = System.nanoTime();
            int code = p.terminate(20);
            double took = (System.nanoTime() - t0) / 1e9;
            assertThat(code).as("stderr: %s", p.err()).isEqualTo(143);
            assertThat(took).as("seconds from SIGTERM to exit").isLessThan(8);
            JsonNode doc = new ObjectMapper().readTree(p.out());
            assertThat(doc.get("status").asText()).as("the document says the run was stopped").isEqualTo("stopped");
            assertThat(doc.get("exit_code").asInt()).as("and carries the process's exit code").isEqualTo(143);
            assertThat(doc.get("message").asText()).contains("interrupted by a stop request").contains(hostPort());
        } finally {
            p.cleanup();
        }
    }

    @Test
    void serveStopsWithinBoundedTimeWhileACatalogIsStuckConnectingAndLogsWhy() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        ConnectionSpec forever = ConnectionSpec.parse("postgresql://janitor@" + hostPort() + "/lake?connect_timeout=0", Map.of(), null);
        ConnectionSpec bounded = ConnectionSpec.parse("postgresql://janitor@" + hostPort() + "/other?connect_timeout=2", Map.of(), null);
        List<CatalogTarget> targets = List.of(
                new CatalogTarget(new TargetConfig("stuck", forever, "public", MetricsConfig.DEFAULT_STATEMENT_TIMEOUT, List.of()), log::add),
                new CatalogTarget(new TargetConfig("slow", bounded, "public", MetricsConfig.DEFAULT_STATEMENT_TIMEOUT, List.of()), log::add));
        MetricsDaemon daemon = new MetricsDaemon(targets, Duration.ofSeconds(60), log::add);
        daemon.start("127.0.0.1", 0);
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (log.stream().noneMatch(l -> l.contains("no answer within 2 s")) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(log).as("why the catalog is down").anyMatch(l -> l.startsWith("catalog slow:") && l.contains("no answer within 2 s")
                && l.contains(hostPort()));
        assertThat(daemon.ready()).isFalse();
        long t0 = System.nanoTime();
        assertTimeoutPreemptively(Duration.ofSeconds(20), daemon::close);
        double took = (System.nanoTime() - t0) / 1e9;
        assertThat(took).as("seconds to stop").isLessThan(MetricsDaemon.STOP_WAIT.toSeconds() + 2);
    }

    /**
     * Forwards to the test server until the client's bytes contain {@code marker}, then forwards nothing more in
     * either direction, leaving both sockets open: a server (or the network) gone silent in the middle of a session.
     */
    static final class GoesSilentProxy implements AutoCloseable {
        final ServerSocket listen;
        final AtomicBoolean silent = new AtomicBoolean();
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();

        GoesSilentProxy(String marker) throws IOException {
            ConnectionSpec up = TestPostgres.get().spec();
            listen = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
            byte[] m = marker.getBytes(StandardCharsets.UTF_8);
            Thread t = new Thread(() -> {
                while (!listen.isClosed()) {
                    try {
                        Socket client = listen.accept();
                        Socket server = new Socket(up.host(), Integer.parseInt(up.port()));
                        sockets.add(client);
                        sockets.add(server);
                        pump(client.getInputStream(), server.getOutputStream(), m);
                        pump(server.getInputStream(), client.getOutputStream(), null);
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "silent-proxy");
            t.setDaemon(true);
            t.start();
        }

        private void pump(InputStream in, OutputStream out, byte[] marker) {
            Thread t = new Thread(() -> {
                byte[] buf = new byte[65536];
                String seen = "";
                try {
                    int n;
                    while ((n = in.read(buf)) >= 0) {
                        if (marker != null && !silent.get()) {
                            String chunk = seen + new String(buf, 0, n, StandardCharsets.ISO_8859_1);
                            if (chunk.contains(new String(marker, StandardCharsets.ISO_8859_1))) {
                                silent.set(true);
                            }
                            seen = chunk.substring(Math.max(0, chunk.length() - marker.length));
                        }
                        if (!silent.get()) {
                            out.write(buf, 0, n);
                            out.flush();
                        }
                    }
                } catch (IOException e) {
                    // a socket closed
                }
            }, "silent-proxy-pump");
            t.setDaemon(true);
            t.start();
        }

        String url(String extra) {
            ConnectionSpec up = TestPostgres.get().spec();
            return "postgresql://" + up.user() + "@127.0.0.1:" + listen.getLocalPort() + "/" + up.database() + extra;
        }

        @Override
        public void close() throws IOException {
            listen.close();
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    private static String demoCatalog(String prefix) throws Exception {
        String schema = TestPostgres.get().freshSchema(prefix);
        try (Connection c = TestPostgres.get().connect()) {
            DemoScenario.build(c, schema, 3);
        }
        return schema;
    }

    @Test
    void checkEndsWithExit3WhenTheServerGoesSilentAfterLogin() throws Exception {
        String schema = demoCatalog("silent_check");
        // the first rule's transaction: logged in, catalog inspected, then nothing answers
        try (GoesSilentProxy proxy = new GoesSilentProxy("set_config('search_path'")) {
            long t0 = System.nanoTime();
            CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(90), () -> CliRun.run("check", "--catalog", proxy.url(""),
                    "--metadata-schema", schema, "--statement-timeout", "1"));
            double took = (System.nanoTime() - t0) / 1e9;
            assertThat(proxy.silent).as("the proxy went silent mid-session").isTrue();
            assertThat(run.exitCode()).as("check: exit 3; stderr: %s", run.err()).isEqualTo(3);
            assertThat(took).as("seconds: the statement timeout plus the %d s margin", ConnectionSpec.SOCKET_TIMEOUT_MARGIN_SECONDS)
                    .isGreaterThanOrEqualTo(1 + ConnectionSpec.SOCKET_TIMEOUT_MARGIN_SECONDS - 1)
                    .isLessThan(1 + ConnectionSpec.SOCKET_TIMEOUT_MARGIN_SECONDS + 40);
        }
    }

    @Test
    void metricsReportsTheCatalogDownWhenTheServerGoesSilentAfterLogin() throws Exception {
        String schema = demoCatalog("silent_metrics");
        try (GoesSilentProxy proxy = new GoesSilentProxy("set_config('search_path'")) {
            long t0 = System.nanoTime();
            CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(90), () -> CliRun.run("metrics", "--catalog", proxy.url(""),
                    "--metadata-schema", schema, "--statement-timeout", "1"));
            double took = (System.nanoTime() - t0) / 1e9;
            assertThat(proxy.silent).as("the proxy went silent mid-session").isTrue();
            assertThat(run.exitCode()).as("metrics: exit 3; stderr: %s", run.err()).isEqualTo(3);
            assertThat(run.out()).contains("ducklake_janitor_up{catalog=");
            assertThat(took).as("seconds").isLessThan(1 + ConnectionSpec.SOCKET_TIMEOUT_MARGIN_SECONDS + 40);
        }
    }

    private static java.net.http.HttpResponse<String> get(int port, String path) throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        return http.send(java.net.http.HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(3)).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
    }

    private static void await(String what, java.util.function.BooleanSupplier condition, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(condition.getAsBoolean()).as(what).isTrue();
    }

    /**
     * Issue 28 item 12: a catalog that answered and then goes silent (sockets open, nothing answered) kept
     * {@code up 1}, {@code /-/ready} 200 and its last values for statement timeout + 30 s (~70 s by default). It is
     * down within one collection timeout of the collection that hangs, its gauges are no longer served, and the
     * reconnect's login to the silent server is bounded too and logged as such (never pgJDBC's SQLSTATE 99999).
     */
    @Test
    void serveMarksACatalogThatGoesSilentDownWithinOneCollectionTimeout() throws Exception {
        String schema = demoCatalog("silent_serve");
        List<String> log = new CopyOnWriteArrayList<>();
        Duration interval = Duration.ofSeconds(1);
        Duration timeout = Duration.ofSeconds(3);
        try (GoesSilentProxy proxy = new GoesSilentProxy("marker the client never sends")) {
            ConnectionSpec spec = ConnectionSpec.parse(proxy.url(""), Map.of(), null);
            CatalogTarget target = new CatalogTarget(new TargetConfig("silent", spec, schema, MetricsConfig.DEFAULT_STATEMENT_TIMEOUT,
                    List.of()), log::add);
            MetricsDaemon daemon = new MetricsDaemon(List.of(target), interval, timeout, log::add, MetricsDaemon.ReadyPolicy.ALL);
            try {
                daemon.start("127.0.0.1", 0);
                await("the catalog answers through the proxy", daemon::ready, Duration.ofSeconds(30));
                assertThat(get(daemon.port(), "/-/ready").body()).contains("silent: up");
                String gauge = "ducklake_inlined_data_registry_rows{catalog=\"silent\",schema=\"" + schema + "\"}";
                assertThat(get(daemon.port(), "/metrics").body()).contains(gauge)
                        .containsPattern("(?m)^ducklake_janitor_up\\{catalog=\"silent\"[^}]*\\} 1(\\.0)?$");

                proxy.silent.set(true);
                long t0 = System.nanoTime();
                await("the catalog is down", () -> !daemon.ready(), interval.plus(timeout).plusSeconds(10));
                double took = (System.nanoTime() - t0) / 1e9;
                assertThat(took).as("seconds from the silence to down: at most one interval, then one collection timeout")
                        .isLessThan(interval.plus(timeout).toMillis() / 1000.0 + 1.5);
                java.net.http.HttpResponse<String> ready = get(daemon.port(), "/-/ready");
                assertThat(ready.statusCode()).isEqualTo(503);
                assertThat(ready.body()).contains("silent: down").contains("timed out after 3 s");
                String body = get(daemon.port(), "/metrics").body();
                assertThat(body).as("stale values are not served").doesNotContain(gauge)
                        .containsPattern("(?m)^ducklake_janitor_up\\{catalog=\"silent\"[^}]*\\} 0(\\.0)?$");
                await("the watchdog logs the timeout, naming the server", () -> log.stream()
                        .anyMatch(l -> l.startsWith("catalog silent: collection timed out after 3 s")
                        && l.contains("127.0.0.1:" + proxy.listen.getLocalPort())), Duration.ofSeconds(2));

                await("the reconnect's login to the silent server is bounded and named", () -> log.stream()
                        .anyMatch(l -> l.startsWith("catalog silent: login to ") && l.contains("timed out after 3 s")), Duration.ofSeconds(30));
                assertThat(log).as("no pgJDBC 'Something unusual has occurred'")
                        .noneMatch(l -> l.contains("99999") || l.contains("Something unusual"));
                assertThat(daemon.ready()).isFalse();
            } finally {
                assertTimeoutPreemptively(Duration.ofSeconds(20), daemon::close);
            }
        }
    }

    /**
     * Issue 28 item 12, the login: a server that accepts the login and goes silent at the session's first statement
     * hung the collection for the socket timeout (600 s) with {@code /-/ready} saying {@code down} before anything
     * was collected (issue 24: it says "not collected yet"). The login is bounded by the collection timeout.
     */
    @Test
    void serveBoundsALoginWhoseSessionGoesSilentAndSaysNotCollectedYetMeanwhile() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        try (GoesSilentProxy proxy = new GoesSilentProxy("SET jit")) {
            ConnectionSpec spec = ConnectionSpec.parse(proxy.url(""), Map.of(), null);
            MetricsDaemon daemon = new MetricsDaemon(List.of(new CatalogTarget(new TargetConfig("silent", spec, "public",
                    MetricsConfig.DEFAULT_STATEMENT_TIMEOUT, List.of()), log::add)), Duration.ofSeconds(60), Duration.ofSeconds(8),
                    log::add, MetricsDaemon.ReadyPolicy.ALL);
            try {
                long t0 = System.nanoTime();
                daemon.start("127.0.0.1", 0);
                java.net.http.HttpResponse<String> first = get(daemon.port(), "/-/ready");
                System.out.printf("first /-/ready after %.3f s%n", (System.nanoTime() - t0) / 1e9);
                assertThat(first.statusCode()).isEqualTo(503);
                assertThat(first.body()).as("before the first collection ends").contains("silent: not collected yet");
                await("the login is bounded", () -> log.stream().anyMatch(l -> l.startsWith("catalog silent: login to ")
                        && l.contains("timed out after 8 s")), Duration.ofSeconds(20));
                assertThat(proxy.silent).as("the session went silent after the login").isTrue();
                assertThat((System.nanoTime() - t0) / 1e9).as("seconds").isLessThan(8 + 1.5);
                assertThat(get(daemon.port(), "/-/ready").body()).contains("silent: down (").contains("login to ")
                        .contains("timed out after 8 s");
                assertThat(log).noneMatch(l -> l.contains("99999") || l.contains("Something unusual"));
            } finally {
                assertTimeoutPreemptively(Duration.ofSeconds(20), daemon::close);
            }
        }
    }

    @Test
    void anInterruptedLoginIsNamedSoNotAsPgjdbcsSomethingUnusual() throws Exception {
        ConnectionSpec spec = ConnectionSpec.parse("postgresql://janitor@" + hostPort() + "/lake", Map.of(), null);
        java.sql.SQLException pgjdbc = new org.postgresql.util.PSQLException("Something unusual has occurred to cause the driver to "
                + "fail. Please report this exception.", org.postgresql.util.PSQLState.UNEXPECTED_ERROR,
                new RuntimeException("Interrupted while attempting to connect."));
        assertThat(spec.connectionFailure(pgjdbc).getMessage()).contains(hostPort()).contains("the login was interrupted")
                .doesNotContain("Something unusual").doesNotContain("99999");
    }

    @Test
    void maintainEndsTheStepWithExit3WhenTheServerGoesSilentAfterLogin(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
            throws Exception {
        String schema = demoCatalog("silent_maintain");
        try (GoesSilentProxy proxy = new GoesSilentProxy("set_config('search_path'")) {
            java.nio.file.Path cfg = tmp.resolve("maintain.yaml");
            java.nio.file.Files.writeString(cfg, "catalogs:\n  - name: silent\n    connection: " + proxy.url("") + "\n"
                    + "    metadata_schema: " + schema + "\n"
                    + "maintain:\n  - check: {statement-timeout: 1s}\n");
            long t0 = System.nanoTime();
            CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(120), () -> CliRun.run("maintain", "--config", cfg.toString()));
            double took = (System.nanoTime() - t0) / 1e9;
            assertThat(proxy.silent).as("the proxy went silent mid-session").isTrue();
            assertThat(run.exitCode()).as("maintain: exit 3; %s", run.all()).isEqualTo(3);
            assertThat(took).as("seconds").isLessThan(1 + ConnectionSpec.SOCKET_TIMEOUT_MARGIN_SECONDS + 40);
        }
    }

    @Test
    void parsedConnectionsBoundReadsByDefault() throws Exception {
        ConnectionSpec s = ConnectionSpec.parse("host=h", Map.of(), null);
        assertThat(s.socketTimeoutSeconds()).as("every path: schema discovery, maintain steps, probes")
                .isEqualTo(ConnectionSpec.SOCKET_TIMEOUT_FLOOR_SECONDS);
        assertThat(s.withSocketTimeoutJustAbove(Duration.ofSeconds(60)).socketTimeoutSeconds()).as("check: no floor")
                .isEqualTo(60 + ConnectionSpec.SOCKET_TIMEOUT_MARGIN_SECONDS);
        assertThat(s.withSocketTimeoutJustAbove(Duration.ZERO).socketTimeoutSeconds()).as("no statement timeout asked").isZero();
    }

    @Test
    void anS3EndpointThatNeverAnswersEndsTheCallWithinItsBound() throws Exception {
        assertThat(S3FileStore.Timeouts.DEFAULTS).isEqualTo(new S3FileStore.Timeouts(Duration.ofSeconds(10), Duration.ofSeconds(30),
                Duration.ofSeconds(30), Duration.ofSeconds(60)));
        String key = System.getProperty("aws.accessKeyId");
        String secret = System.getProperty("aws.secretAccessKey");
        System.setProperty("aws.accessKeyId", "janitor-test");
        System.setProperty("aws.secretAccessKey", "janitor-test-secret");
        try (S3FileStore store = new S3FileStore(new S3FileStore.Settings("us-east-1", URI.create("http://" + hostPort()), true),
                new S3FileStore.Timeouts(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(2)))) {
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
                try (var listing = store.list(StorageLocation.parse("s3://bucket/lake/"))) {
                    listing.hasNext();
                }
            }))
                    .isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.TRANSIENT))
                    .hasMessageContaining("no answer from the store in time");
            double took = (System.nanoTime() - t0) / 1e9;
            assertThat(took).as("seconds: the whole-call bound of 2 s, retried %d times", RetryPolicy.MAX_ATTEMPTS)
                    .isLessThan(RetryPolicy.MAX_ATTEMPTS * 2 + 20);
            assertThat(peer.accepted()).as("the endpoint was reached over TCP").isNotEmpty();
        } finally {
            restore("aws.accessKeyId", key);
            restore("aws.secretAccessKey", secret);
        }
    }

    private String[] s3Flags() {
        return new String[] {"--s3-endpoint", "http://" + hostPort(), "--s3-path-style", "--s3-region", "us-east-1"};
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /**
     * Issue 28 item 15: an S3 endpoint that accepts requests and never answers took 635 s to fail (21 attempts of 30 s)
     * and --run-budget did not bound it. Now the budget caps every call and the retries: the run ends soon after the
     * budget with its result document (status stopped, what was done so far, exit 0 as for any budget stop).
     */
    @Test
    void aStorageRunAgainstASilentS3EndpointEndsAtItsRunBudgetWithItsDocument() throws Exception {
        String key = System.getProperty("aws.accessKeyId");
        String secret = System.getProperty("aws.secretAccessKey");
        System.setProperty("aws.accessKeyId", "janitor-test");
        System.setProperty("aws.secretAccessKey", "janitor-test-secret");
        try {
            dev.ducklake.janitor.testsupport.FileCatalog cat = dev.ducklake.janitor.testsupport.FileCatalog.create("silent_s3_dof",
                    "s3://silent/lake/");
            long t0 = System.nanoTime();
            CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(90), () -> CliRun.run(concat(new String[] {"delete-orphan-files",
                    "--catalog", TestPostgres.get().url(), "--metadata-schema", cat.schema, "--dry-run", "--output", "json",
                    "--run-budget", "20s"}, s3Flags())));
            double took = (System.nanoTime() - t0) / 1e9;
            assertThat(peer.accepted()).as("the endpoint was reached").isNotEmpty();
            assertThat(run.exitCode()).as("a budget stop exits 0; stderr: %s", run.err()).isZero();
            assertThat(took).as("seconds: the 20 s budget, then the document").isBetween(19.0, 35.0);
            JsonNode doc = new ObjectMapper().readTree(run.out());
            assertThat(doc.get("status").asText()).as("the document says the run was cut short").isEqualTo("stopped");
            assertThat(doc.get("exit_code").asInt()).isZero();
            assertThat(doc.get("stopped_during").asText()).isEqualTo("listing");
            assertThat(doc.get("budget_exhausted").asBoolean()).isTrue();
            assertThat(doc.get("listed").asLong()).isZero();
            assertThat(doc.get("files_would_delete").asLong()).isZero();
            assertThat(doc.get("warnings").toString()).contains("the run budget ran out while listing");

            // cleanup-old-files: the delete call hangs; the run stops at its budget, the queue row stays
            dev.ducklake.janitor.testsupport.FileCatalog queue = dev.ducklake.janitor.testsupport.FileCatalog.create("silent_s3_cof",
                    "s3://silent/lake/");
            queue.queue("main/test/old.parquet", true, Duration.ofDays(3));
            long t1 = System.nanoTime();
            CliRun cleanup = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> CliRun.run(concat(new String[] {"cleanup-old-files",
                    "--catalog", TestPostgres.get().url(), "--metadata-schema", queue.schema, "--yes", "--output", "json",
                    "--run-budget", "5s"}, s3Flags())));
            double tookCleanup = (System.nanoTime() - t1) / 1e9;
            assertThat(cleanup.exitCode()).as("stderr: %s", cleanup.err()).isZero();
            assertThat(tookCleanup).as("seconds").isBetween(4.0, 20.0);
            JsonNode cdoc = new ObjectMapper().readTree(cleanup.out());
            assertThat(cdoc.get("status").asText()).isEqualTo("stopped");
            assertThat(cdoc.get("stopped_during").asText()).isEqualTo("deleting");
            assertThat(cdoc.get("files_deleted").asLong()).isZero();
            assertThat(cdoc.get("queue_rows_deleted").asLong()).isZero();
            assertThat(queue.queueRows()).as("the row of a file whose delete was abandoned stays").isEqualTo(1);
        } finally {
            restore("aws.accessKeyId", key);
            restore("aws.secretAccessKey", secret);
        }
    }

    /** Issue 28 items 14 and 15 in maintain: a storage step whose S3 call its run-budget cut short is 'stopped', the chain goes on. */
    @Test
    void aMaintainStorageStepCutShortByItsBudgetIsStoppedAndTheNextStepRuns(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
            throws Exception {
        String key = System.getProperty("aws.accessKeyId");
        String secret = System.getProperty("aws.secretAccessKey");
        System.setProperty("aws.accessKeyId", "janitor-test");
        System.setProperty("aws.secretAccessKey", "janitor-test-secret");
        try {
            dev.ducklake.janitor.testsupport.FileCatalog cat = dev.ducklake.janitor.testsupport.FileCatalog.create("silent_s3_maint",
                    "s3://silent/lake/");
            java.nio.file.Path cfg = java.nio.file.Files.writeString(tmp.resolve("m.yaml"), "catalogs:\n  - name: lake\n    connection: "
                    + TestPostgres.get().url() + "\n    metadata_schema: " + cat.schema + "\nmaintain:\n"
                    + "  - delete-orphan-files: {run-budget: 3s, s3-endpoint: \"http://" + hostPort() + "\", s3-path-style: true,"
                    + " s3-region: us-east-1}\n  - purge-orphan-stats: {}\n");
            CliRun run = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> CliRun.run("maintain", "--config", cfg.toString(),
                    "--dry-run", "--output", "json"));
            JsonNode doc = new ObjectMapper().readTree(run.out());
            JsonNode steps = doc.get("catalogs").get(0).get("steps");
            assertThat(steps.get(0).get("status").asText()).as("%s", run.err()).isEqualTo("stopped");
            assertThat(steps.get(0).get("exit_code").asInt()).as("a budget stop: exit 0").isZero();
            assertThat(steps.get(0).get("message").asText()).contains("run budget ran out during a store call");
            assertThat(steps.get(0).get("result").get("stopped_during").asText()).isEqualTo("listing");
            assertThat(steps.get(1).get("status").asText()).as("the next step runs").isEqualTo("ok");
            assertThat(doc.get("summary").get("steps_stopped").asLong()).isEqualTo(1);
            assertThat(run.exitCode()).isZero();
        } finally {
            restore("aws.accessKeyId", key);
            restore("aws.secretAccessKey", secret);
        }
    }

    /** Issue 28 item 15: SIGTERM during a hung S3 call exited after 30 s with no result document. */
    @Test
    void sigtermDuringAHungS3CallEndsPromptlyWithTheDocument() throws Exception {
        dev.ducklake.janitor.testsupport.FileCatalog cat = dev.ducklake.janitor.testsupport.FileCatalog.create("silent_s3_sig",
                "s3://silent/lake/");
        JanitorProcess p = JanitorProcess.start(Map.of("AWS_ACCESS_KEY_ID", "janitor-test", "AWS_SECRET_ACCESS_KEY", "janitor-test-secret"),
                concat(new String[] {"delete-orphan-files", "--catalog", TestPostgres.get().url(), "--metadata-schema", cat.schema,
                        "--yes", "--output", "json"}, s3Flags()));
        try {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (peer.accepted().isEmpty() && p.process().isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(peer.accepted()).as("the run is waiting on S3; stderr: %s", p.err()).isNotEmpty();
            Thread.sleep(1000);
            long t0 = System.nanoTime();
            int code = p.terminate(40);
            double took = (System.nanoTime() - t0) / 1e9;
            assertThat(code).as("stderr: %s", p.err()).isEqualTo(143);
            assertThat(took).as("seconds from SIGTERM to exit").isLessThan(10);
            JsonNode doc = new ObjectMapper().readTree(p.out());
            assertThat(doc.get("status").asText()).isEqualTo("stopped");
            assertThat(doc.get("exit_code").asInt()).isEqualTo(143);
            assertThat(doc.get("stopped_by_signal").asBoolean()).isTrue();
            assertThat(doc.get("stopped_during").asText()).isEqualTo("listing");
            assertThat(doc.get("files_deleted").asLong()).isZero();
        } finally {
            p.cleanup();
        }
    }

    private static void restore(String property, String value) {
        if (value == null) {
            System.clearProperty(property);
        } else {
            System.setProperty(property, value);
        }
    }
}
