package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.bench.BenchReport;
import dev.ducklake.janitor.bench.ScaleBenchmark;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.LockBudget;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code ducklake-janitor bench}: the scale benchmark of drop-orphan-inline-tables ({@link ScaleBenchmark}),
 * on an embedded PostgreSQL started with a larger lock table, or on a server given by URL.
 */
@Command(name = OptionalCommands.BENCH, mixinStandardHelpOptions = true, description = {OptionalCommands.BENCH_DESCRIPTION_WHAT,
        OptionalCommands.BENCH_DESCRIPTION_VARIANTS, OptionalCommands.BENCH_DESCRIPTION_SERVER})
public final class BenchCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--n", paramLabel = "N", split = ",", defaultValue = "20000",
            description = "Catalog sizes: leaked inlined tables, comma-separated (1 to 1000000). Default: ${DEFAULT-VALUE}.")
    List<Integer> sizes;

    @Option(names = "--full", description = "Shorthand for --n 230000, the size of the leak that motivated the tool.")
    boolean full;

    @Option(names = "--batch-sizes", paramLabel = "N", split = ",", defaultValue = "500,2000",
            description = "Batch sizes of the batched variants, comma-separated (1 to 2000; lowered to the lock budget). "
                    + "Default: ${DEFAULT-VALUE}.")
    List<Integer> batchSizes;

    @Option(names = "--variants", paramLabel = "LIST", split = ",", defaultValue = "a,b,c,d",
            description = "Variant groups to run: a (janitor), b (seed baseline), c (floors c and c'), c' (the floor c' alone), "
                    + "d (dry run, metric query). Default: ${DEFAULT-VALUE}.")
    List<String> variants;

    @Option(names = "--fsync", paramLabel = "LIST", split = ",", defaultValue = "off",
            description = "Embedded server configurations to run, comma-separated, each on its own embedded server: off (fsync, "
                    + "synchronous_commit and full_page_writes off: the test default) and on (all three on, as in production). "
                    + "With both, results go to --out/fsync-off and --out/fsync-on and a side-by-side table is printed. "
                    + "Ignored with --url (the server's own settings are reported). Default: ${DEFAULT-VALUE}.")
    List<String> fsync;

    @Option(names = "--url", paramLabel = "CONN",
            description = "Run on this server instead of an embedded one: a connection string (as --catalog) to a maintenance "
                    + "database, by a role with CREATEDB. Default: an embedded PostgreSQL.")
    String url;

    @Option(names = "--max-locks-per-transaction", paramLabel = "N", defaultValue = "1024",
            description = "max_locks_per_transaction of the embedded server (sets the lock budget, so that batches of 2000 "
                    + "are not capped). Default: ${DEFAULT-VALUE}.")
    int maxLocks;

    @Option(names = "--build-per-transaction", paramLabel = "N", defaultValue = "2000",
            description = "Tables created per transaction while building a catalog. Default: ${DEFAULT-VALUE}.")
    int buildPerTransaction;

    @Option(names = "--log-statements", paramLabel = "DIR",
            description = "Embedded server only: log every statement with its duration (log_min_duration_statement=0, csvlog) "
                    + "into this folder, for the per-phase profile of scripts/bench-phase-profile.py. Slows the run; use it with "
                    + "small N. Default: off.")
    Path logStatements;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "bench-out",
            description = "Folder for results.csv, batches.csv and the PNG plots. Default: ${DEFAULT-VALUE}.")
    Path out;

    @Option(names = "--replot", description = "Only redraw the PNG plots from --out's batches.csv (and results.csv: scaling.png) of earlier runs. Default: off.")
    boolean replot;

    @Override
    public Integer call() throws Exception {
        PrintWriter o = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (replot) {
            System.setProperty("java.awt.headless", "true");
            for (Path p : BenchReport.replot(out)) {
                err.println("bench: wrote " + p);
            }
            err.flush();
            return ExitCodes.OK;
        }
        List<Integer> ns = full ? List.of(230_000) : sizes;
        for (int n : ns) {
            if (n < 1 || n > 1_000_000) {
                throw new JanitorException(Reason.USAGE, "--n must be between 1 and 1000000, got " + n + ".");
            }
        }
        for (int b : batchSizes) {
            if (b < 1 || b > LockBudget.MAX_BATCH) {
                throw new JanitorException(Reason.USAGE, "--batch-sizes must be between 1 and 2000, got " + b + ".");
            }
        }
        Set<String> groups = new LinkedHashSet<>();
        for (String v : variants) {
            String g = v.strip().toLowerCase(Locale.ROOT);
            if (!Set.of("a", "b", "c", "c'", "d").contains(g)) {
                throw new JanitorException(Reason.USAGE, "--variants takes a, b, c, c' and d, got '" + v + "'.");
            }
            groups.add(g);
        }
        if (buildPerTransaction < 1 || maxLocks < 10) {
            throw new JanitorException(Reason.USAGE, "--build-per-transaction must be ≥ 1 and --max-locks-per-transaction ≥ 10.");
        }
        System.setProperty("java.awt.headless", "true");
        Runtime rt = Runtime.getRuntime();
        err.printf(Locale.ROOT, "bench: java %s, %d cpus, max heap %d MiB%n", System.getProperty("java.version"),
                rt.availableProcessors(), rt.maxMemory() / (1024 * 1024));
        ScaleBenchmark.Options opts = new ScaleBenchmark.Options(ns, batchSizes, groups, buildPerTransaction);
        Set<String> configs = new LinkedHashSet<>();
        for (String f : fsync) {
            String g = f.strip().toLowerCase(Locale.ROOT);
            if (!Set.of("on", "off").contains(g)) {
                throw new JanitorException(Reason.USAGE, "--fsync takes on and off, got '" + f + "'.");
            }
            configs.add(g);
        }
        Map<String, ScaleBenchmark.Report> reports = new java.util.LinkedHashMap<>();
        if (url != null) {
            ConnectionSpec admin = ConnectionSpec.parse(url, Map.of(), null);
            reports.put("url", run(admin, opts, err, out));
        } else {
            for (String config : configs) {
                Path dir = configs.size() > 1 ? out.resolve("fsync-" + config) : out;
                err.printf("bench: starting an embedded PostgreSQL with max_locks_per_transaction=%d, fsync %s ...%n", maxLocks, config);
                err.flush();
                EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                        .setServerConfig("max_locks_per_transaction", Integer.toString(maxLocks))
                        .setServerConfig("fsync", config)
                        .setServerConfig("synchronous_commit", config)
                        .setServerConfig("full_page_writes", config);
                if (logStatements != null) {
                    Path logDir = (configs.size() > 1 ? logStatements.resolve("fsync-" + config) : logStatements).toAbsolutePath();
                    java.nio.file.Files.createDirectories(logDir);
                    builder.setServerConfig("logging_collector", "on").setServerConfig("log_destination", "csvlog")
                            .setServerConfig("log_directory", logDir.toString()).setServerConfig("log_min_duration_statement", "0");
                }
                try (EmbeddedPostgres pg = EmbeddedServers.start(builder, "bench")) {
                    reports.put("fsync " + config, run(ConnectionSpec.parse(pg.getJdbcUrl("postgres", "postgres"), Map.of(), null),
                            opts, err, dir));
                }
            }
        }
        for (Map.Entry<String, ScaleBenchmark.Report> e : reports.entrySet()) {
            ScaleBenchmark.Report report = e.getValue();
            BenchReport r = new BenchReport(report);
            Path dir = reports.size() > 1 ? out.resolve(e.getKey().replace(' ', '-')) : out;
            o.println();
            o.println("server: " + report.server());
            for (int i = 0; i < ns.size(); i++) {
                o.printf(Locale.ROOT, "N=%d: catalog built in %.1f s (each destructive variant runs on its own fresh build)%n", ns.get(i),
                        report.buildSeconds().get(i));
            }
            o.println();
            r.printTable(o);
            if (ns.size() > 1) {
                o.println();
                r.printScaling(o);
            }
            for (Path p : r.write(dir)) {
                err.println("bench: wrote " + p);
            }
        }
        if (reports.size() > 1) {
            o.println();
            BenchReport.printSideBySide(reports, o);
        }
        err.flush();
        return ExitCodes.OK;
    }

    private static ScaleBenchmark.Report run(ConnectionSpec admin, ScaleBenchmark.Options opts, PrintWriter err, Path outDir)
            throws Exception {
        return new ScaleBenchmark(admin, opts, line -> {
            err.println("bench: " + line);
            err.flush();
        }, soFar -> {
            try {
                new BenchReport(new ScaleBenchmark.Report(soFar, List.of(), null, "")).write(outDir);
            } catch (java.io.IOException e) {
                err.println("bench: could not write partial results: " + e.getMessage());
            }
        }).run();
    }
}
