package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
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
            description = "Ids per transaction, 1 to 100000: table_ids for the table-level stats, data_file_ids for the per-file "
                    + "stats. Default: ${DEFAULT-VALUE}.")
    int batchSize;

    @Option(names = "--max-batches", paramLabel = "N",
            description = "Stop after N batches (N >= 1); the next run continues. Default: no limit.")
    Integer maxBatches;

    @Option(names = "--statement-timeout", paramLabel = "SECONDS",
            defaultValue = "" + PurgeOrphanStatsOptions.DEFAULT_STATEMENT_TIMEOUT_SECONDS,
            description = "statement_timeout of each statement, in seconds (0 = none). Default: ${DEFAULT-VALUE}.")
    double statementTimeout;

    @Option(names = "--lock-timeout", paramLabel = "SECONDS", defaultValue = "" + PurgeOrphanStatsOptions.DEFAULT_LOCK_TIMEOUT_SECONDS,
            description = "lock_timeout of each statement, in seconds (0 = none); a batch that waits longer is retried "
                    + "(5 attempts with backoff). Default: ${DEFAULT-VALUE}.")
    double lockTimeout;

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
            PurgeOrphanStatsOptions base = PurgeOrphanStatsOptions.defaults().withDryRun(dryRun).withBatchSize(batchSize)
                    .withMaxBatches(maxBatches).withTimeouts(SchemaLoop.pgTimeout("--statement-timeout", statementTimeout),
                            SchemaLoop.pgTimeout("--lock-timeout", lockTimeout)).withLockName(catalog.lockName);
            base.validate();
            conn = catalog.connection(parent.env());
            push.validate(parent.env());
            List<String> schemas = SchemaLoop.schemas(catalog, allMetadataSchemas, conn);
            if (!dryRun && !yes && !confirm(conn, String.join(", ", schemas))) {
                throw new JanitorException(Reason.ABORTED, "Not confirmed; nothing was changed.");
            }
            ConnectionSpec c = conn;
            List<SchemaLoop.Outcome> outcomes = SchemaLoop.run(schemas, schema -> {
                MaintenanceRunReporter reporter = push.reporter(parent.env(), c, schema, OPERATION, dryRun, err);
                reporter.started();
                PurgeOrphanStatsResult r;
                try {
                    r = new PurgeOrphanStats(c, base.withMetadataSchema(schema), b -> {
                        if (!json) {
                            err.printf(Locale.ROOT, "batch %d: %s %d ids, %d rows deleted, %.3f s%n", b.number(), b.table(), b.ids(),
                                    b.rows(), b.seconds());
                            err.flush();
                        }
                    }).execute();
                    reporter.succeeded(pushedGauges(r));
                } catch (JanitorException | RuntimeException e) {
                    reporter.failed();
                    throw e;
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> fields = Render.JSON.convertValue(r, Map.class);
                return new SchemaLoop.Outcome(schema, r, fields, 0, null);
            }, conn, err);
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
        out.printf(Locale.ROOT, "  %s %,d rows; %d batch(es), %d retries, remaining %,d, %s%s%n", r.dryRun() ? "would delete" : "deleted",
                r.dryRun() ? r.orphanRowsTotal() : r.rowsDeletedTotal(), r.batches(), r.retries(), r.remaining(),
                Render.seconds(r.elapsedSeconds()), r.maxBatchesReached() ? " (stopped by --max-batches; rerun to continue)" : "");
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
