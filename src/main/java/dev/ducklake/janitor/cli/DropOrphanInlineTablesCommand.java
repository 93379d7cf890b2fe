package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.ProgressListener;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.Console;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** {@code ducklake-janitor drop-orphan-inline-tables}: parses flags, calls the engine, prints. */
@Command(name = "drop-orphan-inline-tables", mixinStandardHelpOptions = true,
        description = {"Drops the inlined-data tables (ducklake_inlined_data_<table_id>_<schema_version>) of DuckLake tables that "
                + "no retained snapshot can reach, and deletes their rows from ducklake_inlined_data_tables, in batches of one "
                + "transaction each. Only empty tables are dropped (unless --include-nonempty); non-empty ones are kept "
                + "and reported. Works on the "
                + "PostgreSQL catalog directly; never opens DuckDB.",
            "A dry run (--dry-run) changes nothing and takes no lock. An execute run on a terminal asks for confirmation "
                + "unless --yes is given; non-interactive runs (cron) do not ask.",
            "Unregistered leftovers (ducklake_inlined_data_<id>_<v> without a registry row) and inlined deletion tables "
                + "(ducklake_inlined_delete_<id>) of unreachable table_ids are always reported; --include-unregistered drops them.",
            "Several catalogs: --metadata-schema may be given several times, or --all-metadata-schemas finds every schema with "
                + "a DuckLake catalog; each runs in turn with its own connection and lock. The exit code is then the worst "
                + "schema's: 1 > 9 > 3 > 8 > 6 > 5 > 4 > 7 > 0."})
public final class DropOrphanInlineTablesCommand implements Callable<Integer> {

    static final String OPERATION = "drop-orphan-inline-tables";

    /** How long a SIGTERM/SIGINT waits for the batch in flight to commit and the result to be printed. */
    static final Duration STOP_GRACE = Duration.ofSeconds(30);

    /** Counted down once {@link #call()} has printed its result (or failed): the stop hook waits for it. */
    final CountDownLatch printed = new CountDownLatch(1);

    /** Set by the stop hook: the run was stopped by SIGTERM/SIGINT (not by --run-budget). */
    final AtomicBoolean signalled = new AtomicBoolean();

    @ParentCommand
    JanitorCommand parent;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    CatalogOptions catalog;

    @Mixin
    PushOptions push;

    @Option(names = "--dry-run", description = "Report what would be dropped; no DDL, no DML, no advisory lock. Default: off.")
    boolean dryRun;

    @Option(names = "--yes", description = "Do not ask for confirmation on a terminal. Default: off (asks only when run on a terminal).")
    boolean yes;

    @Option(names = "--batch-size", paramLabel = "N", defaultValue = "500",
            description = "Tables dropped per transaction, 1 to 2000. Lowered automatically to the server's lock budget "
                    + "(max_locks_per_transaction x (max_connections + max_prepared_transactions) / 4 / 5; 320 on stock PostgreSQL). "
                    + "Default: ${DEFAULT-VALUE}.")
    int batchSize;

    @Option(names = "--max-batches", paramLabel = "N",
            description = "Stop after N batches (N >= 1); the next run resumes. Default: no limit.")
    Integer maxBatches;

    @Option(names = "--run-budget", paramLabel = "SECONDS",
            description = "Stop cleanly once this many seconds of wall-clock time are spent, checked between batches and after "
                    + "each table inside a batch (the table in flight commits; at least one table always goes through). "
                    + "A positive number, or 'inf'. Default: unbounded.")
    String runBudget;

    @Option(names = "--statement-timeout", paramLabel = "SECONDS", defaultValue = "120",
            description = "statement_timeout set for each batch, in seconds (0 = none). Default: ${DEFAULT-VALUE}.")
    double statementTimeout;

    @Option(names = "--lock-timeout", paramLabel = "SECONDS", defaultValue = "5",
            description = "lock_timeout set for each batch, in seconds (0 = none); a table locked longer by another session is "
                    + "retried once at the end of the run, then skipped and reported. Default: ${DEFAULT-VALUE}.")
    double lockTimeout;

    @Option(names = "--include-unregistered",
            description = "Also drop tables that have no registry row: unregistered leftovers ducklake_inlined_data_<id>_<v> "
                    + "and inlined deletion tables ducklake_inlined_delete_<id>, both only when the table_id is unreachable "
                    + "(same lock, emptiness check, batching and retries; re-checked under the table lock). Without it they "
                    + "are only reported. Default: off.")
    boolean includeUnregistered;

    @Option(names = "--include-nonempty",
            description = "Also drop orphans that still hold rows (a table dropped before its inlined rows were flushed). "
                    + "No retained snapshot can read those rows; DuckLake's own snapshot expiry drops such tables whatever "
                    + "their content. The dry run lists each with its exact row count first. Default: off (skipped with a warning).")
    boolean includeNonempty;

    @Option(names = "--all-metadata-schemas",
            description = "Run on every schema of the database that holds a DuckLake catalog (a ducklake_metadata table with "
                    + "a 'version' key), one after the other; not with --metadata-schema. Default: off.")
    boolean allMetadataSchemas;

    @Option(names = "--reconnect-timeout", paramLabel = "SECONDS", defaultValue = "60",
            description = "How long to keep reconnecting (with backoff from 1 s to 10 s) after the connection is lost "
                    + "mid-run, in seconds. Default: ${DEFAULT-VALUE}.")
    double reconnectTimeout;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean json = catalog.output == CatalogOptions.Output.json;
        try {
            return run(out, err, json);
        } finally {
            printed.countDown();
        }
    }

    private int run(PrintWriter out, PrintWriter err, boolean json) throws Exception {
        ConnectionSpec conn = null;
        try {
            DropOrphanInlineTablesOptions options = options();
            conn = catalog.connection(parent.env());
            push.validate(parent.env());
            if (allMetadataSchemas || catalog.metadataSchemas.size() > 1) {
                return MultiSchemaRun.run(this, conn, options, out, err, json);
            }
            MaintenanceRunReporter reporter = push.reporter(parent.env(), conn, options.metadataSchema(), OPERATION, dryRun, err);
            if (!dryRun && !yes && !confirm(conn, options.metadataSchema())) {
                throw new JanitorException(Reason.ABORTED, "Not confirmed; nothing was changed.");
            }
            DropOrphanInlineTables op = new DropOrphanInlineTables(conn, options, listener(out, err, json));
            // SIGTERM/SIGINT: stop at the next safe point and let the batch in flight commit (up to 30 s)
            Thread hook = new Thread(() -> {
                long t0 = System.nanoTime();
                signalled.set(true);
                op.requestStop();
                if (op.awaitFinished(STOP_GRACE)) {
                    awaitPrinted(t0);
                }
            }, "ducklake-janitor-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            DropOrphanInlineTablesResult result;
            reporter.started();
            try {
                result = op.execute();
                reporter.succeeded(pushedGauges(result));
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
            if (json) {
                Map<String, Object> doc = Render.envelope(OPERATION, conn, options.metadataSchema(), result);
                doc.put("stopped_by_signal", signalled.get());
                Render.json(out, doc);
            } else {
                printText(out, conn, result, signalled.get());
            }
            long droppedTables = result.dropped() + result.droppedUnregistered() + result.droppedInlinedDelete();
            if (!result.dryRun() && droppedTables > 0) {
                err.println("note: pg_class, pg_attribute and pg_type keep the dead rows of the " + droppedTables
                        + " dropped tables until (auto)vacuum processes them; a plain VACUUM (ANALYZE) of those catalogs helps. "
                        + "Do not run VACUUM FULL on a live catalog.");
                err.flush();
            }
            return ExitCodes.OK;
        } catch (JanitorException e) {
            if (json) {
                Render.json(out, Render.error(OPERATION, conn, catalog.metadataSchema, e));
            }
            throw e;
        }
    }

    /** The per-run gauges pushed after a successful execute run (names documented in the README). */
    static Map<String, MaintenanceRunReporter.PerRun> pushedGauges(DropOrphanInlineTablesResult r) {
        Map<String, MaintenanceRunReporter.PerRun> g = new LinkedHashMap<>();
        g.put("ducklake_maintenance_inline_orphans_dropped_last_run",
                new MaintenanceRunReporter.PerRun(r.dropped(), "Orphaned inlined-data tables dropped by the last successful run."));
        g.put("ducklake_maintenance_inline_orphans_skipped_nonempty_last_run",
                new MaintenanceRunReporter.PerRun(r.skippedNonempty(), "Non-empty orphaned inlined-data tables kept by the last successful run."));
        g.put("ducklake_maintenance_inline_orphans_dropped_unregistered_last_run",
                new MaintenanceRunReporter.PerRun(r.droppedUnregistered(), "Unregistered leftover inlined-data tables dropped by the last successful run."));
        g.put("ducklake_maintenance_inline_orphans_dropped_inlined_delete_last_run",
                new MaintenanceRunReporter.PerRun(r.droppedInlinedDelete(), "Inlined deletion tables of unreachable tables dropped by the last successful run."));
        g.put("ducklake_maintenance_inline_orphans_remaining",
                new MaintenanceRunReporter.PerRun(r.remaining(), "Orphan registry rows left after the last successful run."));
        g.put("ducklake_maintenance_inline_orphans_budget_exhausted_last_run",
                new MaintenanceRunReporter.PerRun(r.budgetExhausted() ? 1 : 0,
                        "1 when the last successful run stopped early (--run-budget spent, or SIGTERM/SIGINT); the rest is left for the next run."));
        return g;
    }

    DropOrphanInlineTablesOptions options() throws JanitorException {
        if (allMetadataSchemas && !catalog.metadataSchemas.isEmpty()) {
            throw usage("--all-metadata-schemas and --metadata-schema exclude each other: give one or the other.");
        }
        if (batchSize < 1 || batchSize > 2000) {
            throw usage("--batch-size must be between 1 and 2000 tables, got " + batchSize + ".");
        }
        if (maxBatches != null && maxBatches < 1) {
            throw usage("--max-batches must be 1 or more, got " + maxBatches + " (leave it out for no limit).");
        }
        Duration budget = null;
        if (runBudget != null) {
            String b = runBudget.strip().toLowerCase(Locale.ROOT);
            if (!b.equals("inf") && !b.equals("infinity")) {
                double secs;
                try {
                    secs = Double.parseDouble(b);
                } catch (NumberFormatException e) {
                    throw usage("--run-budget must be a positive number of seconds or 'inf', got '" + runBudget + "'.");
                }
                if (!(secs > 0) || Double.isInfinite(secs) || Double.isNaN(secs)) {
                    throw usage("--run-budget must be a positive number of seconds or 'inf', got '" + runBudget + "'.");
                }
                budget = Duration.ofNanos((long) (secs * 1e9));
            }
        }
        DropOrphanInlineTablesOptions options = DropOrphanInlineTablesOptions.defaults()
                .withMetadataSchema(catalog.metadataSchema)
                .withDryRun(dryRun)
                .withBatchSize(batchSize)
                .withMaxBatches(maxBatches == null ? 0 : maxBatches)
                .withRunBudget(budget)
                .withStatementTimeout(pgTimeout("--statement-timeout", statementTimeout))
                .withLockTimeout(pgTimeout("--lock-timeout", lockTimeout))
                .withLockName(catalog.lockName)
                .withReconnectTimeout(seconds("--reconnect-timeout", reconnectTimeout))
                .withIncludeUnregistered(includeUnregistered)
                .withIncludeNonempty(includeNonempty);
        // every schema's options are checked before any schema runs: a bad value must not come after changes
        for (String schema : catalog.metadataSchemas) {
            options.withMetadataSchema(schema).validate();
        }
        options.validate();
        return options;
    }

    private static Duration seconds(String flag, double value) throws JanitorException {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw usage(flag + " must be 0 or more seconds, got " + value + ".");
        }
        return dev.ducklake.janitor.Durations.ofSeconds(value);
    }

    /** A PostgreSQL timeout setting: at most INT_MAX milliseconds (about 24.8 days), else the server refuses it mid-run. */
    private static Duration pgTimeout(String flag, double value) throws JanitorException {
        Duration d = seconds(flag, value);
        if (d.toMillis() > Integer.MAX_VALUE) {
            throw usage(flag + " must be at most " + Integer.MAX_VALUE / 1000 + " seconds (PostgreSQL's limit), got " + value + ".");
        }
        return d;
    }

    private static JanitorException usage(String message) {
        return new JanitorException(Reason.USAGE, message);
    }

    boolean confirm(ConnectionSpec conn, String schema) {
        Console console = System.console();
        if (console == null) {
            return true;
        }
        String answer = console.readLine("Drop orphaned inlined-data tables in database '%s' on host %s:%s (schema %s)? [y/N] ",
                conn.database(), conn.host(), conn.port(), schema);
        return answer != null && (answer.strip().equalsIgnoreCase("y") || answer.strip().equalsIgnoreCase("yes"));
    }

    ProgressListener listener(PrintWriter out, PrintWriter err, boolean json) {
        return new ProgressPrinter(out, err, json, true);
    }

    /**
     * Lets a stop hook wait until the result of the stopped run is printed, so that a SIGTERM/SIGINT still ends with
     * the text or JSON result on stdout before the JVM exits; together with the wait for the engine at most
     * {@link #STOP_GRACE} after the signal (Kubernetes' default grace period is 30 s).
     *
     * @param signalNanos {@link System#nanoTime()} when the hook started
     */
    void awaitPrinted(long signalNanos) {
        long left = STOP_GRACE.toNanos() - (System.nanoTime() - signalNanos);
        try {
            printed.await(Math.max(left, 0), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void printText(PrintWriter out, ConnectionSpec conn, DropOrphanInlineTablesResult r) {
        printText(out, conn, r, false);
    }

    /**
     * The text result of one schema.
     *
     * @param signalled true when the run was stopped by SIGTERM/SIGINT: a stop then reads as such, not as a spent budget
     */
    static void printText(PrintWriter out, ConnectionSpec conn, DropOrphanInlineTablesResult r, boolean signalled) {
        out.printf(Locale.ROOT, "%s%s on %s, schema %s (DuckLake format %s)%n", OPERATION, r.dryRun() ? " (dry run)" : "",
                conn.describe(), r.schema(), r.formatVersion());
        // the non-empty orphans first, with their row counts: the rows --include-nonempty would discard
        for (DropOrphanInlineTablesResult.NonEmptyTable t : r.nonEmptyTables()) {
            out.printf(Locale.ROOT, "  non-empty orphan %s: %s (%s, table_id %d%s)%s%n",
                    t.dropped() ? "dropped" : r.dryRun() ? "found" : "kept", t.tableName(), t.kind(), t.tableId(),
                    t.schemaVersion() == null ? "" : ", schema_version " + t.schemaVersion(),
                    t.rows() == null ? "" : ", " + t.rows() + " rows");
        }
        row(out, "registry rows", r.registryRows());
        row(out, "orphan rows", r.orphanRows());
        row(out, "orphan tables present", r.orphanTablesPresent());
        row(out, "orphan non-empty tables", r.orphanNonempty());
        row(out, "kept by name guard", r.keptByNameGuard());
        if (r.keptNotATable() > 0) {
            row(out, "kept (not a plain table)", r.keptNotATable());
        }
        row(out, "unregistered leftovers", r.unregisteredOrphans());
        row(out, "inlined delete orphans", r.inlinedDeleteOrphans());
        row(out, "inlined delete (live, kept)", r.inlinedDeleteLive());
        row(out, "unregistered non-empty", r.unregisteredNonempty());
        row(out, "anomalies (never dropped)", r.unregisteredAnomalies());
        if (r.dryRun()) {
            row(out, "would drop", r.wouldDrop());
        } else {
            row(out, "dropped", r.dropped());
            row(out, "dropped unregistered", r.droppedUnregistered());
            row(out, "dropped inlined delete", r.droppedInlinedDelete());
            row(out, "dropped non-empty", r.droppedNonempty());
            row(out, "inlined rows dropped", r.inlinedRowsDropped());
            row(out, "registry rows deleted", r.rowsDeleted());
            row(out, "missing tables (rows deleted)", r.missingTables());
            row(out, "skipped non-empty", r.skippedNonempty());
            row(out, "skipped locked", r.skippedLocked());
            row(out, "batches", r.batches());
            row(out, "retries", r.retries());
            out.printf(Locale.ROOT, "  %-30s %d -> %d (requested %d)%n", "batch size", r.batchSizeStart(), r.batchSizeFinal(),
                    r.batchSizeRequested());
        }
        row(out, "remaining orphan rows", r.remaining());
        row(out, "remaining unregistered", r.remainingUnregistered());
        if (r.budgetExhausted()) {
            out.println(signalled ? "  stopped: SIGTERM/SIGINT received (the batch in flight committed); rerun to continue"
                    : "  stopped: run budget spent; rerun to continue");
        }
        if (r.maxBatchesReached()) {
            out.println("  stopped: --max-batches reached; rerun to continue");
        }
        int shown = Math.min(r.unregisteredTables().size(), 20);
        // the list is what the survey found at the start; an execute run with --include-unregistered may have dropped them
        String label = r.dryRun() ? "unregistered orphan" : "unregistered orphan found at start";
        for (String t : r.unregisteredTables().subList(0, shown)) {
            out.printf(Locale.ROOT, "  %s: %s%n", label, t);
        }
        long more = r.unregisteredOrphans() + r.inlinedDeleteOrphans() - shown;
        if (more > 0) {
            out.printf(Locale.ROOT, "  ... and %d more unregistered orphan(s) found (JSON lists up to 1000)%n", more);
        }
        for (DropOrphanInlineTablesResult.Anomaly a : r.anomalyTables()) {
            out.printf(Locale.ROOT, "  anomaly: %s: %s%n", a.tableName(), a.reason());
        }
        out.printf(Locale.ROOT, "  %-30s %s%n", "elapsed", Render.seconds(r.elapsedSeconds()));
        out.flush();
    }

    static void row(PrintWriter out, String label, long value) {
        out.printf(Locale.ROOT, "  %-30s %d%n", label, value);
    }
}
