package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.ConnectionSpec;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.droporphaninline.ProgressListener;
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

/** {@code ducklake-janitor drop-orphan-inline-tables}: parses flags, calls the engine, prints. */
@Command(name = "drop-orphan-inline-tables", mixinStandardHelpOptions = true,
        description = {"Drops the inlined-data tables (ducklake_inlined_data_<table_id>_<schema_version>) of DuckLake tables that "
                + "no retained snapshot can reach, and deletes their rows from ducklake_inlined_data_tables, in batches of one "
                + "transaction each. Only empty tables are dropped; non-empty ones are kept and reported. Works on the "
                + "PostgreSQL catalog directly; never opens DuckDB.",
            "A dry run (--dry-run) changes nothing and takes no lock. An execute run on a terminal asks for confirmation "
                + "unless --yes is given; non-interactive runs (cron) do not ask."})
public final class DropOrphanInlineTablesCommand implements Callable<Integer> {

    static final String OPERATION = "drop-orphan-inline-tables";

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

    @Option(names = "--reconnect-timeout", paramLabel = "SECONDS", defaultValue = "60",
            description = "How long to keep reconnecting (with backoff from 1 s to 10 s) after the connection is lost "
                    + "mid-run, in seconds. Default: ${DEFAULT-VALUE}.")
    double reconnectTimeout;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean json = catalog.output == CatalogOptions.Output.json;
        ConnectionSpec conn = null;
        try {
            DropOrphanInlineTablesOptions options = options();
            conn = catalog.connection(parent.env());
            MaintenanceRunReporter reporter = push.reporter(parent.env(), conn, options.metadataSchema(), OPERATION, dryRun, err);
            if (!dryRun && !yes && !confirm(conn, options.metadataSchema())) {
                throw new JanitorException(Reason.ABORTED, "Not confirmed; nothing was changed.");
            }
            DropOrphanInlineTables op = new DropOrphanInlineTables(conn, options, listener(out, err, json));
            // SIGTERM/SIGINT: stop at the next safe point and let the batch in flight commit (up to 30 s)
            Thread hook = new Thread(() -> {
                op.requestStop();
                op.awaitFinished(Duration.ofSeconds(30));
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
                Render.json(out, Render.envelope(OPERATION, conn, options.metadataSchema(), result));
            } else {
                printText(out, conn, result);
            }
            if (!result.dryRun() && result.dropped() > 0) {
                err.println("note: pg_class, pg_attribute and pg_type keep the dead rows of the " + result.dropped()
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
        g.put("ducklake_maintenance_inline_orphans_remaining",
                new MaintenanceRunReporter.PerRun(r.remaining(), "Orphan registry rows left after the last successful run."));
        g.put("ducklake_maintenance_inline_orphans_budget_exhausted_last_run",
                new MaintenanceRunReporter.PerRun(r.budgetExhausted() ? 1 : 0, "1 when the last successful run stopped on --run-budget."));
        return g;
    }

    DropOrphanInlineTablesOptions options() throws JanitorException {
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
        return DropOrphanInlineTablesOptions.defaults()
                .withMetadataSchema(catalog.metadataSchema)
                .withDryRun(dryRun)
                .withBatchSize(batchSize)
                .withMaxBatches(maxBatches == null ? 0 : maxBatches)
                .withRunBudget(budget)
                .withStatementTimeout(seconds("--statement-timeout", statementTimeout))
                .withLockTimeout(seconds("--lock-timeout", lockTimeout))
                .withLockName(catalog.lockName)
                .withReconnectTimeout(seconds("--reconnect-timeout", reconnectTimeout));
    }

    private static Duration seconds(String flag, double value) throws JanitorException {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw usage(flag + " must be 0 or more seconds, got " + value + ".");
        }
        return Duration.ofMillis(Math.round(value * 1000));
    }

    private static JanitorException usage(String message) {
        return new JanitorException(Reason.USAGE, message);
    }

    private boolean confirm(ConnectionSpec conn, String schema) {
        Console console = System.console();
        if (console == null) {
            return true;
        }
        String answer = console.readLine("Drop orphaned inlined-data tables in database '%s' on host %s:%s (schema %s)? [y/N] ",
                conn.database(), conn.host(), conn.port(), schema);
        return answer != null && (answer.strip().equalsIgnoreCase("y") || answer.strip().equalsIgnoreCase("yes"));
    }

    private ProgressListener listener(PrintWriter out, PrintWriter err, boolean json) {
        return new ProgressListener() {
            @Override
            public void info(String message) {
                err.println("info: " + message);
                err.flush();
            }

            @Override
            public void warn(String message) {
                err.println("WARN: " + message);
                err.flush();
            }

            @Override
            public void batch(BatchProgress b) {
                PrintWriter w = json ? err : out;
                w.printf(Locale.ROOT, "batch %d: dropped %d, skipped %d non-empty, %d missing, %s (size %d); %d left, ~%s to go, %s elapsed%n",
                        b.number(), b.dropped(), b.skippedNonempty(), b.missing(), Render.seconds(b.batchSeconds()), b.batchSize(),
                        b.tablesLeft(), Render.seconds(b.estimatedSecondsLeft()), Render.seconds(b.elapsedSeconds()));
                w.flush();
            }
        };
    }

    static void printText(PrintWriter out, ConnectionSpec conn, DropOrphanInlineTablesResult r) {
        out.printf(Locale.ROOT, "%s%s on %s, schema %s (DuckLake format %s)%n", OPERATION, r.dryRun() ? " (dry run)" : "",
                conn.describe(), r.schema(), r.formatVersion());
        row(out, "registry rows", r.registryRows());
        row(out, "orphan rows", r.orphanRows());
        row(out, "orphan tables present", r.orphanTablesPresent());
        row(out, "orphan non-empty tables", r.orphanNonempty());
        row(out, "kept by name guard", r.keptByNameGuard());
        if (r.keptNotATable() > 0) {
            row(out, "kept (not a plain table)", r.keptNotATable());
        }
        if (r.dryRun()) {
            long wouldDrop = Math.max(0, r.orphanTablesPresent() - r.orphanNonempty() - r.keptByNameGuard() - r.keptNotATable());
            row(out, "would drop (about)", wouldDrop);
        } else {
            row(out, "dropped", r.dropped());
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
        if (r.budgetExhausted()) {
            out.println("  stopped: run budget spent; rerun to continue");
        }
        if (r.maxBatchesReached()) {
            out.println("  stopped: --max-batches reached; rerun to continue");
        }
        for (DropOrphanInlineTablesResult.NonEmptyTable t : r.nonEmptyTables()) {
            out.printf(Locale.ROOT, "  non-empty orphan kept: %s (table_id %d, schema_version %d)%n", t.tableName(), t.tableId(),
                    t.schemaVersion());
        }
        out.printf(Locale.ROOT, "  %-30s %s%n", "elapsed", Render.seconds(r.elapsedSeconds()));
        out.flush();
    }

    private static void row(PrintWriter out, String label, long value) {
        out.printf(Locale.ROOT, "  %-30s %d%n", label, value);
    }
}
