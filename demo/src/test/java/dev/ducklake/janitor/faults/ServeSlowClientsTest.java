package dev.ducklake.janitor.faults;

import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.testsupport.JanitorProcess;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 28 item 10: ten connections that send a request line and headers but never finish stalled {@code serve}
 * ({@code /metrics} and {@code /-/healthy} timed out for ~60 s; reopening them kept 13 of 15 probes failing over
 * 150 s): client_java's default executor has 10 threads and blocks the JDK server's dispatcher when they are busy, and
 * the JDK server had no request time limit. {@code serve} runs in its own JVM here, as in production, so that the
 * JDK server's limits ({@code sun.net.httpserver.*}, read once per JVM) are exactly those {@code serve} sets.
 */
class ServeSlowClientsTest {

    /** Connections that send a request line and headers but never the blank line that ends them. */
    private static final int HALF_REQUESTS = 15;
    /** Connections that send nothing at all. */
    private static final int SILENT = 5;
    /** How long the slow clients keep at it (above serve's request time limit, so that they are closed and reopened). */
    private static final long LOAD_MILLIS = 25_000;
    /** The most a probe may wait for its whole answer. */
    private static final int PROBE_TIMEOUT_MILLIS = 5_000;

    @Test
    void slowAndSilentClientsNeverBlockScrapesOrProbes() throws Exception {
        String schema = TestPostgres.get().freshSchema("slow_clients");
        try (Connection c = TestPostgres.get().connect()) {
            DemoScenario.build(c, schema, 3);
        }
        JanitorProcess p = JanitorProcess.start(Map.of(), "serve", "--catalog", TestPostgres.get().url(), "--metadata-schema", schema,
                "--listen", "127.0.0.1:0", "--interval", "5");
        SlowClients slow = null;
        try {
            int port = awaitPort(p);
            assertThat(probe(port, "/-/healthy")).as("serve answers before the slow clients come").startsWith("HTTP/1.1 200");
            slow = new SlowClients(port);
            slow.start();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (slow.opened.get() < HALF_REQUESTS + SILENT && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            Thread.sleep(500);
            List<String> failures = new ArrayList<>();
            int probes = 0;
            double slowest = 0;
            long end = System.nanoTime() + LOAD_MILLIS * 1_000_000L;
            while (System.nanoTime() < end) {
                for (String path : List.of("/metrics", "/-/healthy")) {
                    long t0 = System.nanoTime();
                    probes++;
                    try {
                        String status = probe(port, path);
                        if (!status.startsWith("HTTP/1.1 200")) {
                            failures.add(path + ": " + status);
                        }
                    } catch (IOException e) {
                        failures.add(path + ": " + e);
                    }
                    slowest = Math.max(slowest, (System.nanoTime() - t0) / 1e9);
                }
                Thread.sleep(500);
            }
            assertThat(failures).as("probes that failed or took over %d ms while %d half requests and %d silent connections were "
                    + "open (of %d probes; stderr: %s)", PROBE_TIMEOUT_MILLIS, HALF_REQUESTS, SILENT, probes, p.err()).isEmpty();
            assertThat(slow.opened.get()).as("the slow clients were all connected").isGreaterThanOrEqualTo(HALF_REQUESTS + SILENT);
            assertThat(slow.closedByServer.get()).as("serve closes connections that do not finish their request within its time limit")
                    .isGreaterThanOrEqualTo(HALF_REQUESTS);
            System.out.printf("slow clients: %d probes all answered, slowest %.3f s; %d slow connections opened, %d closed by serve%n",
                    probes, slowest, slow.opened.get(), slow.closedByServer.get());
        } finally {
            if (slow != null) {
                slow.close();
            }
            p.terminate(30);
            p.cleanup();
        }
    }

    private static int awaitPort(JanitorProcess p) throws InterruptedException {
        Pattern serving = Pattern.compile("serving http://127\\.0\\.0\\.1:([0-9]+)/metrics");
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < deadline) {
            Matcher m = serving.matcher(p.err());
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            if (!p.process().isAlive()) {
                throw new AssertionError("serve ended: " + p.err());
            }
            Thread.sleep(100);
        }
        throw new AssertionError("serve did not start listening: " + p.err());
    }

    /** One GET on a new connection; returns the status line once the whole answer was read. */
    private static String probe(int port, String path) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), PROBE_TIMEOUT_MILLIS);
            s.setSoTimeout(PROBE_TIMEOUT_MILLIS);
            long deadline = System.nanoTime() + PROBE_TIMEOUT_MILLIS * 1_000_000L;
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            int n;
            while ((n = in.read(buf)) >= 0) {
                body.write(buf, 0, n);
                if (System.nanoTime() > deadline) {
                    throw new SocketTimeoutException("no whole answer within " + PROBE_TIMEOUT_MILLIS + " ms");
                }
            }
            String text = body.toString(StandardCharsets.ISO_8859_1);
            int eol = text.indexOf("\r\n");
            return eol < 0 ? "no status line: '" + text + "'" : text.substring(0, eol);
        }
    }

    /**
     * {@link #HALF_REQUESTS} connections that send a request line and headers without the final blank line and
     * {@link #SILENT} that send nothing; each one serve closes is opened again (the attack loop), for as long as the test runs.
     */
    private static final class SlowClients implements AutoCloseable {
        private final int port;
        private final Socket[] sockets = new Socket[HALF_REQUESTS + SILENT];
        final AtomicInteger opened = new AtomicInteger();
        final AtomicInteger closedByServer = new AtomicInteger();
        private volatile boolean stop;
        private final Thread thread;

        SlowClients(int port) {
            this.port = port;
            this.thread = new Thread(this::run, "slow-clients");
            thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        private void run() {
            byte[] buf = new byte[1024];
            while (!stop) {
                for (int i = 0; i < sockets.length && !stop; i++) {
                    try {
                        if (sockets[i] == null) {
                            Socket s = new Socket();
                            s.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2_000);
                            s.setSoTimeout(1);
                            if (i < HALF_REQUESTS) {
                                OutputStream out = s.getOutputStream();
                                out.write(("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow-" + i + "\r\n")
                                        .getBytes(StandardCharsets.US_ASCII));
                                out.flush();
                            }
                            sockets[i] = s;
                            opened.incrementAndGet();
                        } else {
                            try {
                                if (sockets[i].getInputStream().read(buf) < 0) {
                                    closedByServer.incrementAndGet();
                                    sockets[i].close();
                                    sockets[i] = null;
                                }
                            } catch (SocketTimeoutException stillOpen) {
                                // the server keeps it open
                            }
                        }
                    } catch (IOException e) {
                        // reset by the server: count it as closed and open it again
                        if (sockets[i] != null) {
                            closedByServer.incrementAndGet();
                            try {
                                sockets[i].close();
                            } catch (IOException ignored) {
                                // gone already
                            }
                            sockets[i] = null;
                        }
                    }
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join(5_000);
            for (Socket s : sockets) {
                if (s != null) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // gone already
                    }
                }
            }
        }
    }
}
