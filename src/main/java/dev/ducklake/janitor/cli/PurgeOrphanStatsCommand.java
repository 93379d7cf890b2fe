package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.ops.RunOptions;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStats;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStatsOptions;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStatsResult;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.Console;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code ducklake-janitor purge-orphan-stats}: parses flags, runs {@link PurgeOrphanStats} on each schema, prints. */
@Command(name = "purge-orphan-stats", mixinStandardHelpOptions = true,
        description = {"Deletes orphaned statistics rows (the orphaned_stats_rows finding of check): ducklake_table_stats and "
                + "ducklake_table_column_stats rows of table_ids that have no ducklake_table row at all, and per-file stats rows "
                + "(ducklake_file_column_stats, ducklake_file_variant_stats, ducklake_file_partition_value) of data files that no "
                + "longer exist. DuckLake reads both table-stats tables on every commit, so orphans slow every writer.",
            "Never touches the stats of a table_id that has any ducklake_table row. Works in batches of one transaction each "
                + "(a table_id's table stats and column stats together, table stats first); holds the advisory lock "
                + "(--lock-name); a dry run (--dry-run) only counts. Exit codes: 0 done, the usual codes otherwise."})
public final class PurgeOrphanStatsCommand implements Callable<Integer> {

    static final String OPERATION = "purge-orphan-stats";

    @ParentCommand
    JanitorCommand parent;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    CatalogOptions catalog;

    @Mixin
    PushOptions push;

    @Option(names = "--dry-run", description = "Count the rows that would be deleted; no DML, no advisory lock. Default: off.")
    boolean dryRun;

    @Option(names = "--yes", description = "Do not ask for confirmation on a terminal. Default: off (asks only when run on a terminal).")
    boolean yes;

    @Option(names = "--batch-size", paramLabel = "IDS", defaultValue = "" + PurgeOrphanStatsOptions.DEFAULT_BATCH_SIZE,
            description = "Ids per transaction, 1 to 2000: table_ids for the table-level stats (a table_id's table stats and "
                    + "column stats always go together), data_file_ids for the per-file stats. Default: ${DEFAULT-VALUE}.")
    int batchSize;

    @Option(names = "--max-batches", paramLabel = "N", defaultValue = "0",
            description = "Stop after N batches; the next run continues (0 = no limit). Default: ${DEFAULT-VALUE}.")
    int maxBatches;

    @Option(names = "--run-budget", paramLabel = "SECONDS",
            description = "Stop cleanly between batches once this many seconds of wall-clock time are spent (at least one batch "
                    + "always runs). Default: unbounded.")
    Double runBudget;

    @Option(names = "--statement-timeout", paramLabel = "SECONDS", defaultValue = "" + RunOptions.DEFAULT_STATEMENT_TIMEOUT_SECONDS,
            description = "statement_timeout of each statement, in seconds (0 = none); a batch that runs out is retried "
                    + "(5 attempts with backoff). Default: ${DEFAULT-VALUE}.")
    double statementTimeout;

    @Option(names = "--lock-timeout", paramLabel = "SECONDS", defaultValue = "" + RunOptions.DEFAULT_LOCK_TIMEOUT_SECONDS,
            description = "lock_timeout of each statement, in seconds (0 = none); a batch that waits longer is retried. "
                    + "Default: ${DEFAULT-VALUE}.")
    double lockTimeout;

    @Option(names = "--reconnect-timeout", paramLabel = "SECONDS", defaultValue = "" + RunOptions.DEFAULT_RECONNECT_TIMEOUT_SECONDS,
            description = "How long to keep reconnecting (backoff from 1 s to 10 s) after the connection is lost mid-run, in seconds; "
                    + "the advisory lock is re-taken. Default: ${DEFAULT-VALUE}.")
    double reconnectTimeout;

    @Option(names = "--all-metadata-schemas",
            description = "Run on every schema of the database that holds a DuckLake catalog, one after the other, each with its own "
                    + "connection and lock; not with --metadata-schema (which may be given several times). Default: off.")
    boolean allMetadataSchemas;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean json = catalog.output == CatalogOptions.Output.json;
        ConnectionSpec conn = null;
        try {
            if (runBudget != null && !(runBudget > 0)) {
                throw new JanitorException(Reason.USAGE, "--run-budget must be a positive number of seconds.");
            }
            PurgeOrphanStatsOptions base = PurgeOrphanStatsOptions.defaults().withRun(RunOptions.defaults().withDryRun(dryRun)
                    .withBatchSize(batchSize).withMaxBatches(maxBatches)
                    .withRunBudget(runBudget == null ? null : dev.ducklake.janitor.Durations.ofSeconds(runBudget))
                    .withStatementTimeout(SchemaLoop.pgTimeout("--statement-timeout", statementTimeout))
                    .withLockTimeout(SchemaLoop.pgTimeout("--lock-timeout", lockTimeout))
                    .withReconnectTimeout(SchemaLoop.pgTimeout("--reconnect-timeout", reconnectTimeout))
                    .withLockName(catalog.lockName));
            base.validate();
            conn = catalog.connection(parent.env());
            push.validate(parent.env());
            List<String> schemas = SchemaLoop.schemas(catalog, allMetadataSchemas, conn);
            if (!dryRun && !yes && !confirm(conn, String.join(", ", schemas))) {
                throw new JanitorException(Reason.ABORTED, "Not confirmed; nothing was changed.");
            }
            ConnectionSpec c = conn;
            java.util.concurrent.atomic.AtomicReference<PurgeOrphanStats> current = new java.util.concurrent.atomic.AtomicReference<>();
            // SIGTERM/SIGINT: the batch in flight commits, the run stops (up to 30 s)
            Thread hook = new Thread(() -> {
                PurgeOrphanStats op = current.get();
                if (op != null) {
                    op.requestStop();
                    op.awaitFinished(java.time.Duration.ofSeconds(30));
                }
            }, "ducklake-janitor-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            List<SchemaLoop.Outcome> outcomes;
            try {
            outcomes = SchemaLoop.run(schemas, schema -> {
                MaintenanceRunReporter reporter = push.reporter(parent.env(), c, schema, OPERATION, dryRun, err);
                reporter.started();
                PurgeOrphanStatsResult r;
                try {
                    PurgeOrphanStats op = new PurgeOrphanStats(c, base.withMetadataSchema(schema), listener(err, json));
                    current.set(op);
                    r = op.execute();
                    reporter.succeeded(pushedGauges(r));
                } catch (JanitorException | RuntimeException e) {
                    reporter.failed();
                    throw e;
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> fields = Render.JSON.convertValue(r, Map.class);
                return new SchemaLoop.Outcome(schema, r, fields, 0, null);
            }, conn, err);
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException ignored) {
                    // shutting down already
                }
            }
            int exit = SchemaLoop.worst(outcomes);
            boolean single = !allMetadataSchemas && schemas.size() == 1;
            if (single && outcomes.get(0).error() != null) {
                throw outcomes.get(0).error();
            }
            if (json) {
                if (single) {
                    Render.json(out, Render.envelope(OPERATION, conn, schemas.get(0), outcomes.get(0).result()));
                } else {
                    Render.json(out, SchemaLoop.document(OPERATION, conn, outcomes, exit));
                }
            } else {
                for (SchemaLoop.Outcome o : outcomes) {
                    printText(out, conn, o);
                }
                out.flush();
            }
            return exit;
        } catch (JanitorException e) {
            if (json) {
                Render.json(out, Render.error(OPERATION, conn, catalog.metadataSchema, e));
            }
            throw e;
        }
    }

    /** The per-run gauges pushed after a successful execute run (names in the README). */
    static Map<String, MaintenanceRunReporter.PerRun> pushedGauges(PurgeOrphanStatsResult r) {
        Map<String, MaintenanceRunReporter.PerRun> g = new LinkedHashMap<>();
        g.put("ducklake_maintenance_orphan_stats_rows_deleted_last_run", new MaintenanceRunReporter.PerRun(r.rowsDeletedTotal(),
                "Orphaned stats rows deleted by the last successful purge-orphan-stats run."));
        g.put("ducklake_maintenance_orphan_stats_rows_remaining", new MaintenanceRunReporter.PerRun(r.remaining(),
                "Orphaned stats rows left after the last successful purge-orphan-stats run."));
        return g;
    }

    private static void printText(PrintWriter out, ConnectionSpec conn, SchemaLoop.Outcome o) {
        if (o.error() != null) {
            out.printf(Locale.ROOT, "%s on %s, schema %s: FAILED (exit %d, %s): %s%n", OPERATION, conn.describe(), o.schema(),
                    o.error().reason().exitCode(), o.error().reason().name().toLowerCase(Locale.ROOT), conn.redact(o.error().getMessage()));
            return;
        }
        PurgeOrphanStatsResult r = (PurgeOrphanStatsResult) o.result();
        out.printf(Locale.ROOT, "%s on %s, schema %s (DuckLake format %s)%s%n", OPERATION, conn.describe(), r.schema(),
                r.formatVersion(), r.dryRun() ? ": DRY RUN, nothing changed" : "");
        for (Map.Entry<String, Long> e : r.orphanRows().entrySet()) {
            out.printf(Locale.ROOT, "  %-34s orphaned %,d%s%n", e.getKey(), e.getValue(),
                    r.dryRun() ? "" : String.format(Locale.ROOT, ", deleted %,d", r.rowsDeleted().get(e.getKey())));
        }
        out.printf(Locale.ROOT, "  %s %,d rows; %d batch(es), %d retries, %d reconnects, remaining %,d, %s%s%n",
                r.dryRun() ? "would delete" : "deleted", r.dryRun() ? r.orphanRowsTotal() : r.rowsDeletedTotal(), r.run().batches(),
                r.run().retries(), r.run().reconnects(), r.remaining(), Render.seconds(r.run().elapsedSeconds()),
                r.run().stopReason() == dev.ducklake.janitor.ops.RunFigures.StopReason.COMPLETED ? "" : " (stopped early: "
                        + r.run().stopReason().name().toLowerCase(Locale.ROOT) + "; rerun to continue)");
    }

    private static dev.ducklake.janitor.ops.ProgressListener listener(PrintWriter err, boolean json) {
        return new dev.ducklake.janitor.ops.ProgressListener() {
            @Override
            public void warn(String message) {
                err.println("WARN: " + message);
                err.flush();
            }

            @Override
            public void batch(BatchProgress b) {
                if (!json) {
                    err.printf(Locale.ROOT, "batch %d: %d rows deleted, %.3f s (elapsed %.1f s)%n", b.number(), b.dropped(),
                            b.batchSeconds(), b.elapsedSeconds());
                    err.flush();
                }
            }
        };
    }

    private boolean confirm(ConnectionSpec conn, String schemas) {
        Console console = System.console();
        if (console == null) {
            return true;
        }
        String answer = console.readLine("Delete orphaned stats rows in database '%s' on host %s:%s (schema %s)? [y/N] ",
                conn.database(), conn.host(), conn.port(), schemas);
        return answer != null && (answer.strip().equalsIgnoreCase("y") || answer.strip().equalsIgnoreCase("yes"));
    }
}
