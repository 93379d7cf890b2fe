package dev.ducklake.janitor.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.metrics.CatalogTarget;
import dev.ducklake.janitor.metrics.MetricsConfig;
import dev.ducklake.janitor.metrics.MetricsDaemon;
import dev.ducklake.janitor.metrics.TargetConfig;
import dev.ducklake.janitor.testsupport.Cli;
import dev.ducklake.janitor.testsupport.JanitorProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Issue 10, items 2 and 3: a server that accepts TCP and never answers (a firewall black hole behind a load balancer,
 * a stuck pooler). Before the fix runs and {@code metrics} hung forever ({@code connect_timeout} bounded only the TCP
 * connect, PGCONNECT_TIMEOUT was ignored), and {@code serve} never stopped on SIGTERM (the stop thread waited on the
 * monitor of the catalog stuck connecting).
 */
class SilentServerTest {

    private ServerSocket server;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();
    private Thread acceptor;

    @BeforeEach
    void silentServer() throws IOException {
        server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        acceptor = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    accepted.add(server.accept());
                } catch (IOException e) {
                    return;
                }
            }
        }, "silent-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    @AfterEach
    void close() throws IOException {
        server.close();
        for (Socket s : accepted) {
            s.close();
        }
    }

    private String hostPort() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    @Test
    void aRunEndsWithExit3NamingHostAndPortWithinTheConnectTimeout() {
        long t0 = System.nanoTime();
        Cli.Run run = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> Cli.run("drop-orphan-inline-tables", "--catalog",
                "postgresql://janitor@" + hostPort() + "/lake?connect_timeout=2", "--dry-run", "--output", "json"));
        double took = (System.nanoTime() - t0) / 1e9;
        assertThat(run.exitCode()).as("stderr: %s", run.err()).isEqualTo(3);
        assertThat(run.err()).contains(hostPort()).contains("no answer within 2 s");
        assertThat(run.out()).contains("\"exit_code\" : 3");
        assertThat(took).as("seconds").isLessThan(15);
        assertThat(accepted).as("the server was reached over TCP").isNotEmpty();
    }

    @Test
    void pgConnectTimeoutIsHonoured() {
        Cli.Run run = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> Cli.run(Map.of("PGCONNECT_TIMEOUT", "3"),
                "drop-orphan-inline-tables", "--catalog", "host=127.0.0.1 port=" + server.getLocalPort() + " dbname=lake user=j",
                "--dry-run"));
        assertThat(run.exitCode()).isEqualTo(3);
        assertThat(run.err()).contains(hostPort()).contains("no answer within 3 s");
    }

    @Test
    void theDefaultBoundsALoginWithoutAnyTimeoutGiven() {
        assertThat(ConnectionSpec.DEFAULT_CONNECT_TIMEOUT_SECONDS).isEqualTo(10);
        Cli.Run run = assertTimeoutPreemptively(Duration.ofSeconds(40), () -> Cli.run("metrics", "--catalog",
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
        assertThat(s.socketTimeoutSeconds()).as("no socket timeout unless asked").isZero();
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
            while (accepted.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(accepted).as("the run is connecting").isNotEmpty();
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
}
