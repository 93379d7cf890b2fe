package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogDiscovery;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * drop-orphan-inline-tables over several metadata schemas (DuckLake catalogs) of one database: each schema in
 * turn, with its own engine instance, connection and advisory lock ({@code lock name || ':' || schema}); one
 * failing schema does not stop the others. Prints a section per schema and a total; returns the worst exit code
 * by {@link #SEVERITY}.
 */
final class MultiSchemaRun {

    /**
     * Exit codes a schema can end with, most severe first: internal error (a bug), database error after retries
     * and lost connection (work may be half done), storage error, permission denied, unsafe catalog state, unsupported format
     * version, not a catalog, the delete-orphan-files brakes, configuration and usage errors, a declined
     * confirmation, advisory lock held (another run is on it; retry later), done with findings. 0 = ok.
     */
    static final List<Integer> SEVERITY = List.of(1, 9, 3, 13, 8, 6, 5, 4, 14, 15, 16, 11, 2, 10, 7, 12, 0);

    /** Result fields that are not summed into the total. */
    private static final Set<String> NOT_SUMMED = Set.of("batch_size_requested", "batch_size_start", "batch_size_final");

    private MultiSchemaRun() {
    }

    /** One schema's outcome: a result, or the error that stopped it. */
    record Outcome(String schema, DropOrphanInlineTablesResult result, JanitorException error) {
        int exitCode() {
            return error == null ? 0 : error.reason().exitCode();
        }
    }

    static int run(DropOrphanInlineTablesCommand cmd, ConnectionSpec conn, DropOrphanInlineTablesOptions base, PrintWriter out,
                   PrintWriter err, boolean json) throws JanitorException {
        List<String> schemas = cmd.allMetadataSchemas ? discover(conn) : cmd.catalog.metadataSchemas.stream().distinct().toList();
        if (!base.dryRun() && !cmd.yes && !cmd.confirm(conn, String.join(", ", schemas))) {
            throw new JanitorException(Reason.ABORTED, "Not confirmed; nothing was changed.");
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<DropOrphanInlineTables> current = new AtomicReference<>();
        // SIGTERM/SIGINT: no further schema; the one running stops at its next safe point and its batch commits (up to 30 s)
        Thread hook = new Thread(() -> {
            long t0 = System.nanoTime();
            stop.set(true);
            cmd.signalled.set(true);
            DropOrphanInlineTables op = current.get();
            boolean finished = true;
            if (op != null) {
                op.requestStop();
                finished = op.awaitFinished(DropOrphanInlineTablesCommand.STOP_GRACE);
            }
            if (finished) {
                cmd.awaitPrinted(t0);
            }
        }, "ducklake-janitor-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        List<Outcome> outcomes = new ArrayList<>();
        List<String> notRun = new ArrayList<>();
        try {
            for (String schema : schemas) {
                if (stop.get()) {
                    notRun.add(schema);
                    continue;
                }
                err.println("info: == schema " + schema + " ==");
                err.flush();
                DropOrphanInlineTables op = new DropOrphanInlineTables(conn, base.withMetadataSchema(schema), cmd.listener(out, err, json));
                current.set(op);
                MaintenanceRunReporter reporter = cmd.push.reporter(cmd.parent.env(), conn, schema,
                        DropOrphanInlineTablesCommand.OPERATION, base.dryRun(), err);
                reporter.started();
                try {
                    DropOrphanInlineTablesResult result = op.execute();
                    reporter.succeeded(DropOrphanInlineTablesCommand.pushedGauges(result));
                    outcomes.add(new Outcome(schema, result, null));
                } catch (RuntimeException e) {
                    reporter.failed();
                    throw e;
                } catch (JanitorException e) {
                    reporter.failed();
                    err.println("error: schema " + schema + ": " + conn.redact(e.getMessage()));
                    err.println("hint: " + e.reason().hint());
                    err.flush();
                    outcomes.add(new Outcome(schema, null, e));
                }
            }
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // shutting down already
            }
        }
        int exit = worst(outcomes);
        if (json) {
            Map<String, Object> doc = document(conn, outcomes, notRun, exit);
            doc.put("stopped_by_signal", cmd.signalled.get());
            Render.json(out, doc);
        } else {
            printText(out, conn, outcomes, notRun, exit, cmd.signalled.get());
        }
        long dropped = outcomes.stream().filter(o -> o.result != null && !o.result.dryRun())
                .mapToLong(o -> o.result.dropped() + o.result.droppedUnregistered() + o.result.droppedInlinedDelete()).sum();
        if (dropped > 0) {
            err.println("note: pg_class, pg_attribute and pg_type keep the dead rows of the " + dropped
                    + " dropped tables until (auto)vacuum processes them. Do not run VACUUM FULL on a live catalog.");
            err.flush();
        }
        return exit;
    }

    private static List<String> discover(ConnectionSpec conn) throws JanitorException {
        try (Connection c = conn.open()) {
            List<String> found = CatalogDiscovery.catalogSchemas(c);
            if (found.isEmpty()) {
                throw new JanitorException(Reason.NOT_A_CATALOG, "No schema of database " + conn.database()
                        + " holds a DuckLake catalog (a ducklake_metadata table with a 'version' key).");
            }
            return found;
        } catch (SQLException e) {
            throw new JanitorException(Reason.DATABASE_ERROR, "Could not list the DuckLake catalogs of " + conn.describe() + ": "
                    + conn.redact(e.getMessage()), e);
        }
    }

    /** The worst exit code of the outcomes by {@link #SEVERITY} (0 when all succeeded). */
    static int worst(List<Outcome> outcomes) {
        int worst = 0;
        for (Outcome o : outcomes) {
            int code = o.exitCode();
            int rank = SEVERITY.indexOf(code);
            if (rank < 0) {
                rank = 0; // an exit code not in the list is treated as the most severe
            }
            if (rank < SEVERITY.indexOf(worst)) {
                worst = code;
            }
        }
        return worst;
    }

    static Map<String, Object> document(ConnectionSpec conn, List<Outcome> outcomes, List<String> notRun, int exit) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("operation", DropOrphanInlineTablesCommand.OPERATION);
        doc.put("tool_version", VersionProvider.version());
        long failed = outcomes.stream().filter(o -> o.error != null).count();
        doc.put("status", failed == 0 && notRun.isEmpty() ? "ok" : failed == outcomes.size() ? "error" : "partial");
        doc.put("exit_code", exit);
        Map<String, Object> cat = Render.catalog(conn, null);
        cat.remove("schema");
        doc.put("catalog", cat);
        List<Map<String, Object>> sections = new ArrayList<>();
        for (Outcome o : outcomes) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("schema", o.schema);
            if (o.error == null) {
                s.put("status", "ok");
                s.putAll(fields(o.result));
            } else {
                s.put("status", "error");
                s.put("reason", o.error.reason().name().toLowerCase(Locale.ROOT));
                s.put("exit_code", o.error.reason().exitCode());
                s.put("message", conn.redact(o.error.getMessage()));
                s.put("hint", o.error.reason().hint());
            }
            sections.add(s);
        }
        doc.put("schemas", sections);
        doc.put("not_run", notRun);
        doc.put("total", total(outcomes));
        return doc;
    }

    /** Sums every count of the successful results (booleans, lists and batch sizes are not summed). */
    static Map<String, Object> total(List<Outcome> outcomes) {
        Map<String, Object> total = new LinkedHashMap<>();
        total.put("schemas", outcomes.size());
        total.put("schemas_ok", outcomes.stream().filter(o -> o.error == null).count());
        total.put("schemas_failed", outcomes.stream().filter(o -> o.error != null).count());
        for (Outcome o : outcomes) {
            if (o.result == null) {
                continue;
            }
            for (Map.Entry<String, Object> e : fields(o.result).entrySet()) {
                if (NOT_SUMMED.contains(e.getKey())) {
                    continue;
                }
                if (e.getValue() instanceof Double d) {
                    total.merge(e.getKey(), d, (a, b) -> (Double) a + (Double) b);
                } else if (e.getValue() instanceof Number n) {
                    total.merge(e.getKey(), n.longValue(), (a, b) -> ((Number) a).longValue() + ((Number) b).longValue());
                }
            }
        }
        return total;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> fields(DropOrphanInlineTablesResult r) {
        return Render.JSON.convertValue(r, Map.class);
    }

    private static void printText(PrintWriter out, ConnectionSpec conn, List<Outcome> outcomes, List<String> notRun, int exit,
                                  boolean signalled) {
        for (Outcome o : outcomes) {
            if (o.error == null) {
                DropOrphanInlineTablesCommand.printText(out, conn, o.result, signalled);
            } else {
                out.printf(Locale.ROOT, "%s on %s, schema %s: FAILED (exit %d, %s): %s%n", DropOrphanInlineTablesCommand.OPERATION,
                        conn.describe(), o.schema, o.error.reason().exitCode(), o.error.reason().name().toLowerCase(Locale.ROOT),
                        conn.redact(o.error.getMessage()));
            }
            out.println();
        }
        Map<String, Object> t = total(outcomes);
        out.printf(Locale.ROOT, "total over %d schema(s): %d ok, %d failed%s; exit code %d%n", outcomes.size(),
                (Long) t.get("schemas_ok"), (Long) t.get("schemas_failed"),
                notRun.isEmpty() ? "" : ", not run (stopped): " + String.join(", ", notRun), exit);
        // a dry run's total shows what would go, an execute run's what went (not "would drop 0" / "dropped 0")
        boolean dry = outcomes.stream().anyMatch(o -> o.result != null && o.result.dryRun());
        List<String> executeOnly = List.of("dropped", "dropped_unregistered", "dropped_inlined_delete", "dropped_nonempty",
                "inlined_rows_dropped", "skipped_nonempty");
        for (String key : List.of("registry_rows", "orphan_rows", "unregistered_orphans", "inlined_delete_orphans",
                "would_drop", "dropped", "dropped_unregistered", "dropped_inlined_delete", "dropped_nonempty",
                "inlined_rows_dropped", "skipped_nonempty", "unregistered_anomalies", "remaining", "remaining_unregistered")) {
            if (dry ? executeOnly.contains(key) : key.equals("would_drop")) {
                continue;
            }
            Object v = t.get(key);
            if (v != null) {
                DropOrphanInlineTablesCommand.row(out, key.replace('_', ' '), ((Number) v).longValue());
            }
        }
        out.flush();
    }
}
