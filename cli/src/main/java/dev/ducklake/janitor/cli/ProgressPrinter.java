package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.pg.Sql;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Locale;

/**
 * Renders the engine's progress for an operator: one line per batch (stdout in text mode, stderr when stdout
 * carries the JSON document), warnings and, unless quiet, informational lines on stderr.
 */
final class ProgressPrinter implements ProgressListener {

    private final PrintWriter out;
    private final PrintWriter err;
    private final boolean json;
    private final boolean showInfo;
    private final boolean verbose;

    /**
     * @param out standard output
     * @param err standard error
     * @param json whether stdout is reserved for one JSON document
     * @param showInfo whether informational lines are printed
     * @param verbose whether detail lines are printed (--verbose)
     */
    ProgressPrinter(PrintWriter out, PrintWriter err, boolean json, boolean showInfo, boolean verbose) {
        this.out = out;
        this.err = err;
        this.json = json;
        this.showInfo = showInfo;
        this.verbose = verbose;
    }

    @Override
    public void detail(String message) {
        if (verbose || StructuredLog.enabled(StructuredLog.Level.debug)) {
            err.println("info: " + Sql.lineSafe(message));
            err.flush();
        }
    }

    @Override
    public void info(String message) {
        if (showInfo) {
            err.println("info: " + Sql.lineSafe(message));
            err.flush();
        }
    }

    @Override
    public void warn(String message) {
        // one warning, one line: a path with a newline in it must not forge another
        err.println("WARN: " + Sql.lineSafe(message));
        err.flush();
    }

    @Override
    public void batch(BatchProgress b) {
        if (!StructuredLog.enabled(StructuredLog.Level.info)) {
            // --quiet / --log-level warn: progress is info, also where text mode prints it on stdout
            return;
        }
        // --log-format json: the batch line goes to stderr as one JSON object carrying these fields
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("batch", b.number());
        fields.put("dropped", b.dropped());
        fields.put("skipped_nonempty", b.skippedNonempty());
        fields.put("missing", b.missing());
        fields.put("batch_seconds", b.batchSeconds());
        fields.put("batch_size", b.batchSize());
        fields.put("tables_left", b.tablesLeft());
        fields.put("estimated_seconds_left", b.estimatedSecondsLeft());
        fields.put("elapsed_seconds", b.elapsedSeconds());
        if (StructuredLog.json()) {
            StructuredLog.nextLineFields(fields);
        }
        PrintWriter w = json || StructuredLog.json() ? err : out;
        StructuredLog.Context ctx = StructuredLog.context();
        if (ctx != null && PurgeOrphanStatsCommand.OPERATION.equals(ctx.operation())) {
            // purge-orphan-stats: a unit is a dropped table's id, an act a deleted stats row (nothing is skipped or missing)
            fields.put("rows_deleted", b.dropped());
            if (StructuredLog.json()) {
                StructuredLog.nextLineFields(fields);
            }
            w.printf(Locale.ROOT, "batch %d: deleted %d orphan stats rows, %s (size %d table ids); %d table ids left, ~%s to go, "
                    + "%s elapsed%n", b.number(), b.dropped(), Render.seconds(b.batchSeconds()), b.batchSize(), b.tablesLeft(),
                    Render.seconds(b.estimatedSecondsLeft()), Render.seconds(b.elapsedSeconds()));
            w.flush();
            return;
        }
        w.printf(Locale.ROOT, "batch %d: dropped %d, skipped %d non-empty, %d missing, %s (size %d); %d left, ~%s to go, %s elapsed%n",
                b.number(), b.dropped(), b.skippedNonempty(), b.missing(), Render.seconds(b.batchSeconds()), b.batchSize(),
                b.tablesLeft(), Render.seconds(b.estimatedSecondsLeft()), Render.seconds(b.elapsedSeconds()));
        w.flush();
    }
}
