package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogInspector;
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
                + "(each with its own connection, statement timeout, collection timeout and reconnect backoff from 1 s to 60 s) and "
                + "serves them over HTTP: "
                + "/metrics (Prometheus text), /-/healthy (liveness), /-/ready (200 while every catalog answers, or with "
                + "--ready-policy any while at least one does; else 503). "
                + "A broken catalog shows ducklake_janitor_up 0 and never hides the others. With --storage it also compares each "
                + "catalog's data path with its file rows (check --storage's counts), apart from the catalog collection, every "
                + "--storage-interval. Reads only. Stops on SIGTERM/SIGINT."})
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

    @Mixin
    MetricsStorageOptions storage;

    @Option(names = "--storage-interval", paramLabel = "SECONDS",
            description = "With --storage: delay between the end of one storage comparison of a catalog and the start of the next, "
                    + "in seconds (the first runs at start, on its own thread and connection, never delaying the catalog "
                    + "gauges; its counts are served until the next one ends). Default: 3600.")
    Double storageInterval;

    /** The default of --listen: loopback only, since the HTTP server has no authentication. */
    static final String DEFAULT_LISTEN = "127.0.0.1:9187";

    @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = DEFAULT_LISTEN,
            description = "Address and port of the HTTP server (port 0 picks a free one; an empty host, :9187, is every "
                    + "interface). It has no authentication: the default is loopback only; in a container give "
                    + "0.0.0.0:9187 and let a network policy decide who may connect (docs/serve.md). Default: ${DEFAULT-VALUE}.")
    String listen;

    @Option(names = "--interval", paramLabel = "SECONDS",
            description = "Delay between two collections of a catalog that answers, in seconds. Default: 60 (or the YAML's interval_seconds).")
    Double interval;

    @Option(names = "--collection-timeout", paramLabel = "SECONDS",
            description = "Bound of one collection of a catalog, in seconds: the login and the queries of its metadata schema "
                    + "(with --all-metadata-schemas / all_metadata_schemas: of each schema) must end within it. Past it the "
                    + "catalog is down at once (ducklake_janitor_up 0, its gauges no longer served, /-/ready says why), its "
                    + "session is ended and the next collection reconnects: a catalog that goes silent is seen within this "
                    + "time. Keep it above the slowest collection you expect. Default: 30.")
    Double collectionTimeout;

    @Option(names = "--ready-policy", paramLabel = "POLICY", defaultValue = "all",
            description = "When /-/ready answers 200: all (every catalog answered its last collection; use it as the "
                    + "readinessProbe when one pod serves one tenant) or any (at least one did; use it when one pod serves many "
                    + "tenants, so that one tenant down does not take the metrics of the others out of the Service). "
                    + "Default: ${DEFAULT-VALUE}.")
    String readyPolicy;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        String[] hostPort = parseListen(listen);
        if (interval != null && (!(interval > 0) || interval > 86_400)) {
            throw new JanitorException(Reason.USAGE, "--interval must be more than 0 and at most 86400 seconds, got " + Render.number(interval) + ".");
        }
        if (collectionTimeout != null && (!(collectionTimeout > 0) || collectionTimeout > 86_400)) {
            throw new JanitorException(Reason.USAGE, "--collection-timeout must be more than 0 and at most 86400 seconds, got "
                    + Render.number(collectionTimeout) + ".");
        }
        Duration bound = collectionTimeout != null ? dev.ducklake.janitor.Durations.ofSeconds(collectionTimeout)
                : MetricsDaemon.DEFAULT_COLLECTION_TIMEOUT;
        MetricsConfig cfg = targets.resolve(catalog, parent.env());
        Duration every = interval != null ? dev.ducklake.janitor.Durations.ofSeconds(interval) : cfg.interval();
        List<CatalogTarget> list = new ArrayList<>();
        for (TargetConfig t : cfg.catalogs()) {
            list.add(new CatalogTarget(t, msg -> log(err, msg)));
        }
        MetricsDaemon.ReadyPolicy policy;
        if ("all".equalsIgnoreCase(readyPolicy)) {
            policy = MetricsDaemon.ReadyPolicy.ALL;
        } else if ("any".equalsIgnoreCase(readyPolicy)) {
            policy = MetricsDaemon.ReadyPolicy.ANY;
        } else {
            throw new JanitorException(Reason.USAGE, "--ready-policy must be all or any, got " + CatalogInspector.printable(readyPolicy) + ".");
        }
        if (storageInterval != null && (!storage.storage || !(storageInterval > 0) || storageInterval > 7 * 86_400)) {
            throw new JanitorException(Reason.USAGE, !storage.storage ? "--storage-interval only applies with --storage."
                    : "--storage-interval must be more than 0 and at most 604800 seconds, got " + Render.number(storageInterval) + ".");
        }
        List<dev.ducklake.janitor.metrics.StorageGauges> stores = storage.build(cfg, msg -> log(err, msg));
        Duration storageEvery = storageInterval != null ? dev.ducklake.janitor.Durations.ofSeconds(storageInterval)
                : dev.ducklake.janitor.metrics.StorageGauges.DEFAULT_INTERVAL;
        MetricsDaemon daemon = new MetricsDaemon(list, every, bound, msg -> log(err, msg), policy).withStorage(stores, storageEvery);
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
                + String.join(", ", list.stream().map(t -> t.config().name() + " (" + t.config().connection().describe() + ", "
                + t.schemaDescription() + ")").toList()) + "; collecting every " + every.toMillis() / 1000.0 + " s, each within "
                + bound.toMillis() / 1000.0 + " s" + (stores.isEmpty() ? "" : "; comparing storage every "
                + storageEvery.toMillis() / 1000.0 + " s"));
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
            throw new JanitorException(Reason.USAGE, "--listen must be HOST:PORT, e.g. 127.0.0.1:9187 or 0.0.0.0:9187, got '" + listen + "'.");
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
