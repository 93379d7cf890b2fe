package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.runtime.Figure;
import dev.ducklake.janitor.ops.runtime.MaintenanceResult;
import dev.ducklake.janitor.ops.runtime.RunFigures;
import dev.ducklake.janitor.pg.ConnectionSpec;

import java.io.PrintWriter;
import java.lang.annotation.Annotation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The output of one operation over several metadata schemas: one section per schema (its result's fields, or its
 * error), the schemas not run (stopped), a total of every count, and the worst exit code. Generic over the
 * operation's result: the fields are the result's JSON fields.
 *
 * @param <R> the operation's result
 */
final class MultiSchemaReport<R extends MaintenanceResult> {

    /**
     * One schema's outcome: a result, or the error that stopped it.
     *
     * @param schema the metadata schema
     * @param result its result, or null
     * @param error its error, or null
     * @param startedAt when the schema's run started
     * @param finishedAt when it ended
     * @param <R> the result type
     */
    record Outcome<R>(String schema, R result, JanitorException error, java.time.Instant startedAt, java.time.Instant finishedAt) {
        int exitCode() {
            return error == null ? 0 : error.reason().exitCode();
        }
    }

    private final OperationAdapter<R> adapter;
    private final ConnectionSpec conn;
    private final List<Outcome<R>> outcomes;
    private final List<String> notRun;
    private final int signalExit;
    /** The result's numbers that are not counts ({@link Figure.NotSummed}, the generic figures' too), by JSON name. */
    private final Set<String> notSummed;
    /** The result's figures of what is left ({@link Figure.Remaining}), by JSON name. */
    private final Set<String> remaining;

    /**
     * @param signalExit the exit code of the signal that stopped the run (130, 143), or 0 when none did
     */
    MultiSchemaReport(OperationAdapter<R> adapter, ConnectionSpec conn, List<Outcome<R>> outcomes, List<String> notRun,
                      int signalExit) {
        this.adapter = adapter;
        this.conn = conn;
        this.outcomes = outcomes;
        this.notRun = notRun;
        this.signalExit = signalExit;
        this.notSummed = new HashSet<>(figures(adapter.resultType(), Figure.NotSummed.class));
        this.notSummed.addAll(figures(RunFigures.class, Figure.NotSummed.class));
        this.remaining = figures(adapter.resultType(), Figure.Remaining.class);
    }

    /**
     * @param type a result record (or its generic figures)
     * @param kind a {@link Figure} annotation
     * @return the JSON names of its components that carry it
     */
    private static Set<String> figures(Class<?> type, Class<? extends Annotation> kind) {
        BeanDescription d = Render.JSON.getSerializationConfig().introspect(Render.JSON.constructType(type));
        Set<String> names = new HashSet<>();
        for (BeanPropertyDefinition p : d.findProperties()) {
            if (p.hasGetter() && p.getGetter().hasAnnotation(kind) || p.hasField() && p.getField().hasAnnotation(kind)) {
                names.add(p.getName());
            }
        }
        return names;
    }

    /**
     * @return the process's exit code: the signal's after SIGTERM/SIGINT, else the worst exit code of the schemas
     *     by {@link Reason#worseExitCode} (0 when all succeeded)
     */
    int exitCode() {
        if (signalExit != 0) {
            return signalExit;
        }
        int worst = 0;
        for (Outcome<R> o : outcomes) {
            int code = o.error() == null && o.result() != null ? adapter.exitCode(o.result()) : o.exitCode();
            worst = Reason.worseExitCode(code, worst);
        }
        return worst;
    }

    /** @return the JSON document: operation, version, status, exit code, catalog, sections, not_run, total */
    Map<String, Object> document() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("operation", adapter.operation());
        doc.put("tool_version", VersionProvider.version());
        long failed = outcomes.stream().filter(o -> o.error() != null).count();
        doc.put("status", signalExit != 0 ? "stopped"
                : failed == 0 && notRun.isEmpty() ? "ok" : failed == outcomes.size() ? "error" : "partial");
        doc.put("exit_code", exitCode());
        Map<String, Object> cat = Render.catalog(conn, null);
        cat.remove("schema");
        doc.put("catalog", cat);
        List<Map<String, Object>> sections = new ArrayList<>();
        for (Outcome<R> o : outcomes) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("schema", o.schema());
            s.put("started_at", o.startedAt().toString());
            s.put("finished_at", o.finishedAt().toString());
            if (o.error() == null) {
                s.put("status", "ok");
                s.putAll(fields(o.result()));
            } else {
                s.put("status", "error");
                s.put("reason", o.error().reason().name().toLowerCase(Locale.ROOT));
                s.put("exit_code", o.error().reason().exitCode());
                s.put("message", conn.redact(o.error().getMessage()));
                s.put("hint", o.error().reason().hint());
            }
            sections.add(s);
        }
        doc.put("schemas", sections);
        doc.put("not_run", notRun);
        doc.put("total", total());
        return doc;
    }

    /**
     * @return every count of the successful results summed (booleans, lists and batch sizes are not); what is left
     *     ({@link Figure.Remaining}) is null when some schema did not run, since nobody looked
     */
    Map<String, Object> total() {
        Map<String, Object> total = new LinkedHashMap<>();
        total.put("schemas", outcomes.size() + notRun.size());
        total.put("schemas_ok", outcomes.stream().filter(o -> o.error() == null).count());
        total.put("schemas_failed", outcomes.stream().filter(o -> o.error() != null).count());
        total.put("schemas_not_run", (long) notRun.size());
        for (Outcome<R> o : outcomes) {
            if (o.result() == null) {
                continue;
            }
            for (Map.Entry<String, Object> e : fields(o.result()).entrySet()) {
                if (notSummed.contains(e.getKey())) {
                    continue;
                }
                if (e.getValue() instanceof Double d) {
                    total.merge(e.getKey(), d, (a, b) -> (Double) a + (Double) b);
                } else if (e.getValue() instanceof Number n) {
                    total.merge(e.getKey(), n.longValue(), (a, b) -> ((Number) a).longValue() + ((Number) b).longValue());
                }
            }
        }
        if (!notRun.isEmpty()) {
            for (String key : remaining) {
                total.put(key, null);
            }
        }
        return total;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> fields(Object result) {
        return Render.JSON.convertValue(result, Map.class);
    }

    /** Prints each schema's text (or its failure), then the total. */
    void printText(PrintWriter out, boolean signalled) {
        for (Outcome<R> o : outcomes) {
            if (o.error() == null) {
                adapter.printText(out, conn, o.result(), signalled);
            } else {
                out.printf(Locale.ROOT, "%s on %s, schema %s: FAILED (exit %d, %s): %s%n", adapter.operation(),
                        conn.describe(), o.schema(), o.error().reason().exitCode(), o.error().reason().name().toLowerCase(Locale.ROOT),
                        conn.redact(o.error().getMessage()));
            }
            out.println();
        }
        Map<String, Object> t = total();
        out.printf(Locale.ROOT, "total over %d schema(s): %d ok, %d failed%s; exit code %d%n", outcomes.size() + notRun.size(),
                (Long) t.get("schemas_ok"), (Long) t.get("schemas_failed"),
                notRun.isEmpty() ? "" : ", not run (stopped): " + String.join(", ", notRun), exitCode());
        boolean dry = outcomes.stream().anyMatch(o -> o.result() != null && o.result().dryRun());
        for (String key : adapter.totalFields(dry)) {
            Object v = t.get(key);
            if (v != null) {
                Render.row(out, key.replace('_', ' '), ((Number) v).longValue());
            } else if (t.containsKey(key)) {
                out.printf(Locale.ROOT, "  %-30s unknown (%d schema(s) not run)%n", key.replace('_', ' '), notRun.size());
            }
        }
        out.flush();
    }
}
