package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.metrics.CatalogTarget;
import dev.ducklake.janitor.metrics.MetricsConfig;
import dev.ducklake.janitor.metrics.MetricsDaemon;
import dev.ducklake.janitor.metrics.TargetConfig;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code ducklake-janitor serve}: the metrics daemon. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Runs the metrics daemon: collects the catalog-health gauges of every configured catalog in the background "
                + "(each with its own connection, statement timeout and reconnect backoff from 1 s to 60 s) and serves them over HTTP: "
                + "/metrics (Prometheus text), /-/healthy (liveness), /-/ready (200 while every catalog answers, else 503). "
                + "A broken catalog shows ducklake_janitor_up 0 and never hides the others. Reads only. Stops on SIGTERM/SIGINT."})
public final class ServeCommand implements Callable<Integer> {

    @ParentCommand
    JanitorCommand parent;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    CatalogOptions catalog;

    @Mixin
    VerboseOption verbose;

    @Mixin
    MetricsTargetOptions targets;

    @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = "0.0.0.0:9187",
            description = "Address and port of the HTTP server (port 0 picks a free one). Default: ${DEFAULT-VALUE}.")
    String listen;

    @Option(names = "--interval", paramLabel = "SECONDS",
            description = "Delay between two collections of a catalog that answers, in seconds. Default: 60 (or the YAML's interval_seconds).")
    Double interval;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        String[] hostPort = parseListen(listen);
        if (interval != null && (!(interval > 0) || interval > 86_400)) {
            throw new JanitorException(Reason.USAGE, "--interval must be more than 0 and at most 86400 seconds, got " + interval + ".");
        }
        MetricsConfig cfg = targets.resolve(catalog, parent.env());
        Duration every = interval != null ? dev.ducklake.janitor.Durations.ofSeconds(interval) : cfg.interval();
        List<CatalogTarget> list = new ArrayList<>();
        for (TargetConfig t : cfg.catalogs()) {
            list.add(new CatalogTarget(t, msg -> log(err, msg)));
        }
        MetricsDaemon daemon = new MetricsDaemon(list, every, msg -> log(err, msg));
        try {
            daemon.start(hostPort[0], Integer.parseInt(hostPort[1]));
        } catch (IOException e) {
            daemon.close();
            throw new JanitorException(Reason.USAGE, "Cannot listen on " + listen + ": " + e.getMessage() + ".", e);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            log(err, "stopping (signal): closing the HTTP server and the catalog connections");
            daemon.close();
            stopped.countDown();
        }, "ducklake-janitor-serve-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        log(err, "serving http://" + hostPort[0] + ":" + daemon.port() + "/metrics for " + cfg.catalogs().size() + " catalog(s): "
                + String.join(", ", cfg.catalogs().stream().map(c -> c.name() + " (" + c.connection().describe() + ", schema "
                + c.metadataSchema() + ")").toList()) + "; collecting every " + every.toMillis() / 1000.0 + " s");
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // shutting down already: the hook closes the daemon
            }
            daemon.close();
        }
        return ExitCodes.OK;
    }

    static String[] parseListen(String listen) throws JanitorException {
        int colon = listen == null ? -1 : listen.lastIndexOf(':');
        if (colon < 0) {
            throw new JanitorException(Reason.USAGE, "--listen must be HOST:PORT, e.g. 0.0.0.0:9187, got '" + listen + "'.");
        }
        String host = listen.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty()) {
            host = "0.0.0.0";
        }
        String port = listen.substring(colon + 1);
        if (!port.matches("[0-9]{1,5}") || Integer.parseInt(port) > 65535) {
            throw new JanitorException(Reason.USAGE, "--listen port must be 0 to 65535, got '" + port + "'.");
        }
        return new String[] {host, port};
    }

    private static void log(PrintWriter err, String msg) {
        synchronized (err) {
            err.println(Instant.now().truncatedTo(ChronoUnit.SECONDS) + " " + msg);
            err.flush();
        }
    }
}
