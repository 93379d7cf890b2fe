package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.pg.ConnectionSpec;

import java.io.PrintWriter;
import java.util.Locale;

/** The text output of one drop-orphan-inline-tables result. */
final class DropOrphanInlineTablesText {

    private DropOrphanInlineTablesText() {
    }

    /**
     * The text result of one schema.
     *
     * @param signalled true when the run was stopped by SIGTERM/SIGINT: a stop then reads as such, not as a spent budget
     */
    static void print(PrintWriter out, ConnectionSpec conn, DropOrphanInlineTablesResult r, boolean signalled) {
        out.printf(Locale.ROOT, "%s%s on %s, schema %s (DuckLake format %s)%n", DropOrphanInlineTablesCommand.OPERATION, r.dryRun() ? " (dry run)" : "",
                conn.describe(), r.schema(), r.formatVersion());
        // the non-empty orphans first, with their row counts: the rows --include-nonempty would discard
        for (DropOrphanInlineTablesResult.NonEmptyTable t : r.nonEmptyTables()) {
            out.printf(Locale.ROOT, "  non-empty orphan %s: %s (%s, table_id %d%s)%s%n",
                    t.dropped() ? "dropped" : r.dryRun() ? "found" : "kept", t.tableName(), t.kind(), t.tableId(),
                    t.schemaVersion() == null ? "" : ", schema_version " + t.schemaVersion(),
                    t.rows() == null ? "" : ", " + t.rows() + " rows");
        }
        Render.row(out, "registry rows", r.registryRows());
        Render.row(out, "orphan rows", r.orphanRows());
        Render.row(out, "orphan tables present", r.orphanTablesPresent());
        Render.row(out, "orphan non-empty tables", r.orphanNonempty());
        Render.row(out, "kept by name guard", r.keptByNameGuard());
        if (r.keptNotATable() > 0) {
            Render.row(out, "kept (not a plain table)", r.keptNotATable());
        }
        Render.row(out, "unregistered leftovers", r.unregisteredOrphans());
        Render.row(out, "inlined delete orphans", r.inlinedDeleteOrphans());
        Render.row(out, "inlined delete (live, kept)", r.inlinedDeleteLive());
        Render.row(out, "unregistered non-empty", r.unregisteredNonempty());
        Render.row(out, "anomalies (never dropped)", r.unregisteredAnomalies());
        if (r.dryRun()) {
            Render.row(out, "would drop", r.wouldDrop());
        } else {
            Render.row(out, "dropped", r.dropped());
            Render.row(out, "dropped unregistered", r.droppedUnregistered());
            Render.row(out, "dropped inlined delete", r.droppedInlinedDelete());
            Render.row(out, "dropped non-empty", r.droppedNonempty());
            Render.row(out, "inlined rows dropped", r.inlinedRowsDropped());
            Render.row(out, "registry rows deleted", r.rowsDeleted());
            Render.row(out, "missing tables (rows deleted)", r.missingTables());
            Render.row(out, "skipped non-empty", r.skippedNonempty());
            Render.row(out, "skipped locked", r.skippedLocked());
            Render.row(out, "batches", r.batches());
            Render.row(out, "retries", r.retries());
            out.printf(Locale.ROOT, "  %-30s %d -> %d (requested %d)%n", "batch size", r.batchSizeStart(), r.batchSizeFinal(),
                    r.batchSizeRequested());
        }
        Render.row(out, "remaining orphan rows", r.remaining());
        Render.row(out, "remaining unregistered", r.remainingUnregistered());
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

}
