package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.pg.ConnectionSpec;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/** The text output of one drop-orphan-inline-tables result. */
final class DropOrphanInlineTablesText {

    private DropOrphanInlineTablesText() {
    }

    /**
     * The text result of one schema.
     *
     * @param signalled true when the run was stopped by SIGTERM/SIGINT: a stop then reads as such, not as a spent budget
     * @param verbose true to list every non-empty orphan (else one summary line)
     */
    static void print(PrintWriter out, ConnectionSpec conn, DropOrphanInlineTablesResult r, boolean signalled, boolean verbose) {
        out.printf(Locale.ROOT, "%s%s on %s, schema %s (DuckLake format %s)%n", DropOrphanInlineTablesCommand.OPERATION, r.dryRun() ? " (dry run)" : "",
                conn.describe(), r.schema(), r.formatVersion());
        // the non-empty orphans first, with their row counts: the rows --include-nonempty would discard
        nonEmpty(out, r, verbose);
        Render.rows(out, "registry rows", r.registryRows(), "orphan rows", r.orphanRows(),
                "orphan tables present", r.orphanTablesPresent(), "orphan non-empty tables", r.orphanNonempty(),
                "kept by name guard", r.keptByNameGuard());
        if (r.keptNotATable() > 0) {
            Render.row(out, "kept (not a plain table)", r.keptNotATable());
        }
        Render.rows(out, "unregistered leftovers", r.unregisteredOrphans(), "inlined delete orphans", r.inlinedDeleteOrphans(),
                "inlined delete (live, kept)", r.inlinedDeleteLive(), "unregistered non-empty", r.unregisteredNonempty(),
                "anomalies (never dropped)", r.unregisteredAnomalies());
        if (r.dryRun()) {
            Render.row(out, "would drop", r.wouldDrop());
        } else {
            Render.rows(out, "dropped", r.dropped(), "dropped unregistered", r.droppedUnregistered(),
                    "dropped inlined delete", r.droppedInlinedDelete(), "dropped non-empty", r.droppedNonempty(),
                    "inlined rows dropped", r.inlinedRowsDropped(), "registry rows deleted", r.rowsDeleted(),
                    "missing tables (rows deleted)", r.missingTables(), "skipped non-empty", r.skippedNonempty());
            if (r.skippedNonempty() > 0) {
                Render.rows(out, "  of them registered", r.skippedNonemptyRegistered(),
                        "  of them unregistered", r.skippedNonemptyUnregistered(),
                        "  of them inlined delete", r.skippedNonemptyInlinedDelete());
            }
            Render.row(out, "skipped locked", r.skippedLocked());
            Render.row(out, "batches", r.batches());
            Render.row(out, "retries", r.retries());
            out.printf(Locale.ROOT, "  %-30s %d -> %d (requested %d)%n", "batch size", r.batchSizeStart(), r.batchSizeFinal(),
                    r.batchSizeRequested());
        }
        if (!r.dryRun()) {
            // a dry run drops nothing: what is left is what it counted above, not what an execute run would leave
            Render.row(out, "remaining orphan rows", r.remaining());
            Render.row(out, "remaining unregistered", r.remainingUnregistered());
        }
        if (r.budgetExhausted() || r.stopRequested()) {
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
            out.printf(Locale.ROOT, "  ... and %d more unregistered orphan(s) found (JSON lists up to 1000; unregistered_tables_total has them all)%n", more);
        }
        for (DropOrphanInlineTablesResult.Anomaly a : r.anomalyTables()) {
            out.printf(Locale.ROOT, "  anomaly: %s: %s%n", a.tableName(), a.reason());
        }
        out.printf(Locale.ROOT, "  %-30s %s%n", "elapsed", Render.seconds(r.elapsedSeconds()));
        out.flush();
    }

    /**
     * One line for the non-empty orphans (count, rows, what happens to them and the flag that drops them); with
     * --verbose one line per table instead.
     */
    private static void nonEmpty(PrintWriter out, DropOrphanInlineTablesResult r, boolean verbose) {
        List<DropOrphanInlineTablesResult.NonEmptyTable> tables = r.nonEmptyTables();
        if (tables.isEmpty()) {
            return;
        }
        if (verbose) {
            for (DropOrphanInlineTablesResult.NonEmptyTable t : tables) {
                out.printf(Locale.ROOT, "  non-empty orphan %s: %s (%s, table_id %d%s)%s%n",
                        t.dropped() ? "dropped" : r.dryRun() ? (r.includeNonempty() ? "that would be dropped" : "found") : "kept", t.tableName(), t.kind(), t.tableId(),
                        t.schemaVersion() == null ? "" : ", schema_version " + t.schemaVersion(),
                        t.rows() == null ? "" : ", " + Render.count(t.rows(), "row", "rows"));
            }
            return;
        }
        long dropped = tables.stream().filter(DropOrphanInlineTablesResult.NonEmptyTable::dropped).count();
        long counted = tables.stream().filter(t -> t.rows() != null).count();
        long rows = tables.stream().filter(t -> t.rows() != null).mapToLong(DropOrphanInlineTablesResult.NonEmptyTable::rows).sum();
        String what = dropped > 0 ? "dropped (--include-nonempty)"
                : r.dryRun() ? (r.includeNonempty() ? "would be dropped (--include-nonempty)" : "found, kept without --include-nonempty")
                : "kept; --include-nonempty drops them";
        out.printf(Locale.ROOT, "  non-empty orphans: %d table(s)%s, %s (listed with --verbose and in --output json)%n",
                tables.size(), counted == tables.size() ? " holding " + Render.count(rows, "row", "rows") : counted == 0 ? "" : ", " + counted
                        + " of them counted holding " + Render.count(rows, "row", "rows"), what);
    }
}
