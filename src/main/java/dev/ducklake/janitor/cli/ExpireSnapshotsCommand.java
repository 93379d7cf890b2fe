package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogDiscovery;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.ops.expiresnapshots.ExpireProgress;
import dev.ducklake.janitor.ops.expiresnapshots.ExpireSnapshots;
import dev.ducklake.janitor.ops.expiresnapshots.ExpireSnapshotsOptions;
import dev.ducklake.janitor.ops.expiresnapshots.ExpireSnapshotsResult;
import dev.ducklake.janitor.ops.expiresnapshots.OlderThan;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.PrintWriter;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code ducklake-janitor expire-snapshots}: parses flags, calls {@link ExpireSnapshots}, prints. */
@Command(name = "expire-snapshots", mixinStandardHelpOptions = true,
        description = {"Expires DuckLake snapshots directly in the PostgreSQL catalog, with the semantics of DuckLake 1.5.5's "
                + "ducklake_expire_snapshots: the snapshots go, and with them every catalog row no remaining snapshot can see "
                + "(tables, files, stats, views, schemas, tags, macros, inlined tables). Removed data and delete files are "
                + "queued in ducklake_files_scheduled_for_deletion (delete them from storage later with DuckLake's "
                + "ducklake_cleanup_old_files); no file is deleted here.",
            "Works oldest first in batches of snapshots, one transaction each; a run stopped anywhere leaves a consistent "
                + "catalog and the next run continues. Never expires the newest snapshot nor one younger than --min-age.",
            "Do not run DuckLake's own expiry or CHECKPOINT at the same time: they do not take the janitor's advisory lock.",
            "A dry run (--dry-run) changes nothing and takes no lock; it reports per batch what would go."})
public final class ExpireSnapshotsCommand implements Callable<Integer> {

    static final String OPERATION = "expire-snapshots";

    @ParentCommand
    JanitorCommand parent;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    CatalogOptions catalog;

    @Mixin
    PushOptions push;

    @Option(names = "--older-than", paramLabel = "T",
            description = "Expire snapshots whose snapshot_time is strictly before T. T is an ISO-8601 instant with offset or Z "
                    + "(2026-11-30T12:00:00Z, fractional seconds allowed) or a duration counted back from the server's now() "
                    + "at the start of the run: <n>s, <n>m, <n>h, <n>d (45s, 90m, 36h, 7d). Default: none.")
    String olderThan;

    @Option(names = "--retain-last", paramLabel = "N",
            description = "Never expire the newest N snapshots (N >= 1). With --older-than, a snapshot goes only when both allow it. "
                    + "Default: none.")
    Integer retainLast;

    @Option(names = "--versions", paramLabel = "ID", split = ",",
            description = "Expire exactly these snapshot ids (comma-separated); not with --older-than / --retain-last. "
                    + "Without any of the three the catalog's own expire_older_than option is used; without that, a usage error. "
                    + "Default: none.")
    List<Long> versions;

    @Option(names = "--min-age", paramLabel = "D", defaultValue = "1h",
            description = "Never expire a snapshot younger than D (<n>s|m|h|d), whatever the other options say: an open DuckLake "
                    + "transaction may still need it for its conflict check. 0s is allowed. Default: ${DEFAULT-VALUE}.")
    String minAge;

    @Option(names = "--dry-run", description = "Report what would go, per batch and in total; no writes, no advisory lock. Default: off.")
    boolean dryRun;

    @Option(names = "--yes", description = "Do not ask for confirmation on a terminal. Default: off (asks only on a terminal).")
    boolean yes;

    @Option(names = "--batch-size", paramLabel = "N", defaultValue = "" + ExpireSnapshotsOptions.DEFAULT_BATCH_SIZE,
            description = "Snapshots expired per transaction, 1 to 1000000. Each batch re-checks every rule against the snapshots "
                    + "left, in one pass over the catalog tables. The inlined tables one batch drops are limited separately by "
                    + "the server's lock budget (as drop-orphan-inline-tables). Default: ${DEFAULT-VALUE}.")
    int batchSize;

    @Option(names = "--max-batches", paramLabel = "N", description = "Stop after N batches (N >= 1); the next run continues. Default: no limit.")
    Integer maxBatches;

    @Option(names = "--run-budget", paramLabel = "SECONDS",
            description = "Stop cleanly once this many seconds of wall-clock time are spent, checked between batches (the first "
                    + "batch always runs). Default: unbounded.")
    Double runBudget;

    @Option(names = "--statement-timeout", paramLabel = "SECONDS", defaultValue = "300",
            description = "statement_timeout of each batch, in seconds (0 = none). Default: ${DEFAULT-VALUE}.")
    double statementTimeout;

    @Option(names = "--lock-timeout", paramLabel = "SECONDS", defaultValue = "5",
            description = "lock_timeout of each batch, in seconds (0 = none); a timeout is retried up to 5 times. Default: ${DEFAULT-VALUE}.")
    double lockTimeout;

    @Option(names = "--reconnect-timeout", paramLabel = "SECONDS", defaultValue = "60",
            description = "How long to keep reconnecting after the connection is lost mid-run, in seconds. Default: ${DEFAULT-VALUE}.")
    double reconnectTimeout;

    @Option(names = "--all-metadata-schemas",
            description = "Run on every schema of the database that holds a DuckLake catalog, one after the other; not with "
                    + "--metadata-schema. Default: off.")
    boolean allMetadataSchemas;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean json = catalog.output == CatalogOptions.Output.json;
        ConnectionSpec conn = null;
        try {
            ExpireSnapshotsOptions base = options();
            conn = catalog.connection(parent.env());
            push.validate(parent.env());
            List<String> schemas = schemas(conn);
            if (!dryRun && !yes && System.console() != null) {
                String answer = System.console().readLine("Expire snapshots in database '%s' on host %s (schemas %s)? [y/N] ",
                        conn.database(), conn.host(), String.join(", ", schemas));
                if (answer == null || !(answer.strip().equalsIgnoreCase("y") || answer.strip().equalsIgnoreCase("yes"))) {
                    throw new JanitorException(Reason.ABORTED, "Not confirmed; nothing was changed.");
                }
            }
            if (schemas.size() == 1) {
                ExpireSnapshotsResult r = runOne(conn, base.withMetadataSchema(schemas.get(0)), out, err, json);
                print(out, conn, r, json);
                return ExitCodes.OK;
            }
            List<Object> docs = new ArrayList<>();
            int exit = 0;
            for (String schema : schemas) {
                try {
                    ExpireSnapshotsResult r = runOne(conn, base.withMetadataSchema(schema), out, err, json);
                    if (json) {
                        docs.add(Render.envelope(OPERATION, conn, schema, r));
                    } else {
                        printText(out, conn, r);
                    }
                } catch (JanitorException e) {
                    exit = worse(exit, e.reason().exitCode());
                    err.println("ERROR: schema " + schema + ": " + conn.redact(e.getMessage()));
                    err.flush();
                    docs.add(Render.error(OPERATION, conn, schema, e));
                }
            }
            if (json) {
                Map<String, Object> doc = new LinkedHashMap<>();
                doc.put("operation", OPERATION);
                doc.put("schemas", docs);
                doc.put("exit_code", exit);
                Render.json(out, doc);
            }
            return exit;
        } catch (JanitorException e) {
            if (json) {
                Render.json(out, Render.error(OPERATION, conn, catalog.metadataSchema, e));
            }
            throw e;
        }
    }

    private List<String> schemas(ConnectionSpec conn) throws JanitorException {
        if (!allMetadataSchemas) {
            return catalog.metadataSchemas.isEmpty() ? List.of(catalog.metadataSchema) : catalog.metadataSchemas;
        }
        try (Connection c = conn.open()) {
            List<String> found = CatalogDiscovery.catalogSchemas(c);
            if (found.isEmpty()) {
                throw new JanitorException(Reason.NOT_A_CATALOG, "No schema of database " + conn.database() + " holds a DuckLake catalog.");
            }
            return found;
        } catch (java.sql.SQLException e) {
            throw new JanitorException(Reason.DATABASE_ERROR, "listing the catalog schemas failed: " + conn.redact(e.getMessage()), e);
        }
    }

    private ExpireSnapshotsResult runOne(ConnectionSpec conn, ExpireSnapshotsOptions options, PrintWriter out, PrintWriter err,
                                         boolean json) throws JanitorException {
        MaintenanceRunReporter reporter = push.reporter(parent.env(), conn, options.metadataSchema(), OPERATION, options.dryRun(), err);
        ExpireSnapshots op = new ExpireSnapshots(conn, options, listener(err));
        // SIGTERM/SIGINT: stop after the batch in flight and let it commit (up to 30 s, Kubernetes' default grace)
        Thread hook = new Thread(() -> {
            op.requestStop();
            op.awaitFinished(Duration.ofSeconds(30));
        }, "ducklake-janitor-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        reporter.started();
        try {
            ExpireSnapshotsResult r = op.execute();
            reporter.succeeded(pushedGauges(r));
            return r;
        } catch (JanitorException | RuntimeException e) {
            reporter.failed();
            throw e;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // shutting down already
            }
        }
    }

    /** The per-run gauges pushed after a successful execute run (names as in the README). */
    static Map<String, MaintenanceRunReporter.PerRun> pushedGauges(ExpireSnapshotsResult r) {
        Map<String, MaintenanceRunReporter.PerRun> g = new LinkedHashMap<>();
        g.put("ducklake_maintenance_snapshots_expired_last_run",
                new MaintenanceRunReporter.PerRun(r.snapshotsExpired(), "Snapshots expired by the last successful run."));
        g.put("ducklake_maintenance_data_files_scheduled_last_run",
                new MaintenanceRunReporter.PerRun(r.dataFilesScheduled(), "Data files queued for deletion by the last successful run."));
        g.put("ducklake_maintenance_delete_files_scheduled_last_run",
                new MaintenanceRunReporter.PerRun(r.deleteFilesScheduled(), "Delete files queued for deletion by the last successful run."));
        g.put("ducklake_maintenance_tables_removed_last_run",
                new MaintenanceRunReporter.PerRun(r.tablesRemoved(), "DuckLake tables removed by the last successful run."));
        g.put("ducklake_maintenance_inlined_tables_dropped_last_run",
                new MaintenanceRunReporter.PerRun(r.inlinedTablesDropped(), "Inlined tables dropped by the last successful run."));
        return g;
    }

    ExpireSnapshotsOptions options() throws JanitorException {
        if (allMetadataSchemas && !catalog.metadataSchemas.isEmpty()) {
            throw usage("--all-metadata-schemas and --metadata-schema exclude each other: give one or the other.");
        }
        if (maxBatches != null && maxBatches < 1) {
            throw usage("--max-batches must be 1 or more, got " + maxBatches + " (leave it out for no limit).");
        }
        if (runBudget != null && (!(runBudget > 0) || runBudget.isInfinite())) {
            throw usage("--run-budget must be a positive number of seconds, got " + runBudget + ".");
        }
        Duration min = OlderThan.parseDuration(minAge);
        if (min == null) {
            throw usage("--min-age must be a duration <n>s|m|h|d (e.g. 1h, 30m, 0s), got '" + minAge + "'.");
        }
        ExpireSnapshotsOptions o = ExpireSnapshotsOptions.defaults()
                .withMetadataSchema(catalog.metadataSchema)
                .withDryRun(dryRun)
                .withOlderThan(olderThan == null ? null : OlderThan.parse(olderThan, "--older-than"))
                .withRetainLast(retainLast)
                .withVersions(versions)
                .withMinAge(min)
                .withBatchSize(batchSize)
                .withMaxBatches(maxBatches == null ? 0 : maxBatches)
                .withRunBudget(runBudget == null ? null : Duration.ofNanos((long) (runBudget * 1e9)))
                .withTimeouts(seconds("--statement-timeout", statementTimeout), seconds("--lock-timeout", lockTimeout))
                .withLockName(catalog.lockName)
                .withReconnectTimeout(seconds("--reconnect-timeout", reconnectTimeout));
        for (String schema : catalog.metadataSchemas) {
            o.withMetadataSchema(schema).validate();
        }
        o.validate();
        return o;
    }

    private static Duration seconds(String flag, double value) throws JanitorException {
        if (!(value >= 0) || Double.isInfinite(value) || value * 1000 > Integer.MAX_VALUE) {
            throw usage(flag + " must be between 0 and " + Integer.MAX_VALUE / 1000 + " seconds, got " + value + ".");
        }
        return dev.ducklake.janitor.Durations.ofSeconds(value);
    }

    /** The worse of two exit codes by the severity order of the multi-schema runs. */
    static int worse(int a, int b) {
        int ra = MultiSchemaRun.SEVERITY.indexOf(a);
        int rb = MultiSchemaRun.SEVERITY.indexOf(b);
        return (rb < 0 ? -1 : rb) < (ra < 0 ? -1 : ra) ? b : a;
    }

    private static JanitorException usage(String message) {
        return new JanitorException(Reason.USAGE, message);
    }

    private static ExpireProgress listener(PrintWriter err) {
        return new ExpireProgress() {
            @Override
            public void info(String message) {
                err.println("INFO: " + message);
                err.flush();
            }

            @Override
            public void warn(String message) {
                err.println("WARN: " + message);
                err.flush();
            }

            @Override
            public void batch(ExpireSnapshotsResult.Batch b, boolean dryRun) {
                err.printf(Locale.ROOT, "%s batch %d: snapshots %d (%d..%d) data_files %d delete_files %d tables %d inlined_tables %d "
                                + "other_rows %d in %s%n", dryRun ? "would expire," : "expired,", b.number(), b.snapshots(),
                        b.firstSnapshot(), b.lastSnapshot(), b.dataFiles(), b.deleteFiles(), b.tables(), b.inlinedTables(),
                        b.otherRows(), Render.seconds(b.seconds()));
                err.flush();
            }
        };
    }

    private static void print(PrintWriter out, ConnectionSpec conn, ExpireSnapshotsResult r, boolean json) {
        if (json) {
            Render.json(out, Render.envelope(OPERATION, conn, r.schema(), r));
        } else {
            printText(out, conn, r);
        }
    }

    static void printText(PrintWriter out, ConnectionSpec conn, ExpireSnapshotsResult r) {
        out.printf(Locale.ROOT, "%s%s on %s, schema %s (DuckLake format %s)%n", OPERATION, r.dryRun() ? " (dry run)" : "",
                conn.describe(), r.schema(), r.formatVersion());
        out.printf(Locale.ROOT, "  %-30s %s%n", "criterion", r.criterion());
        out.printf(Locale.ROOT, "  %-30s %s%n", "cutoff", r.cutoff() == null ? "-" : r.cutoff());
        out.printf(Locale.ROOT, "  %-30s %s%n", "min-age protects from", r.minAgeCutoff() == null ? "-" : r.minAgeCutoff());
        String verb = r.dryRun() ? "would " : "";
        row(out, verb + "expire snapshots", r.snapshotsExpired());
        row(out, verb + "schedule data files", r.dataFilesScheduled());
        row(out, verb + "schedule delete files", r.deleteFilesScheduled());
        row(out, verb + "remove tables", r.tablesRemoved());
        row(out, verb + "drop inlined tables", r.inlinedTablesDropped());
        row(out, verb + "delete other rows", r.otherRowsDeleted());
        out.printf(Locale.ROOT, "  %-30s %s%n", "oldest retained snapshot", r.oldestRetainedSnapshot());
        row(out, "batches", r.batches());
        row(out, "retries", r.run().retries());
        if (r.budgetExhausted()) {
            out.println("  stopped: run budget spent or stop requested; rerun to continue");
        }
        if (r.maxBatchesReached()) {
            out.println("  stopped: --max-batches reached; rerun to continue");
        }
        for (String w : r.warnings()) {
            out.println("  warning: " + w);
        }
        out.printf(Locale.ROOT, "  %-30s %s%n", "elapsed", Render.seconds(r.elapsedSeconds()));
        out.flush();
    }

    private static void row(PrintWriter out, String label, long value) {
        out.printf(Locale.ROOT, "  %-30s %d%n", label, value);
    }
}
