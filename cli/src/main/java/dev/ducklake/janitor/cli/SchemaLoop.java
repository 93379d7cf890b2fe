package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogDiscovery;
import dev.ducklake.janitor.pg.ConnectionSpec;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The schema loop of {@code check} (a read-only report, not a maintenance operation, so not run by
 * {@link MaintenanceRunner}): which metadata schemas to check (--metadata-schema, repeatable, or --all-metadata-schemas;
 * schemas without USAGE are skipped), one after the other, and the JSON document of a check over several schemas (the
 * shape of the maintenance commands': {@code schemas}, per-schema {@code status} and {@code exit_code}, the worst exit
 * code by {@link Reason#worseExitCode}).
 */
final class SchemaLoop {

    private SchemaLoop() {
    }

    /** One schema's outcome: a JSON-able result and its exit code, or the error that stopped it. */
    record Outcome(String schema, Object result, Map<String, Object> fields, int exitCode, JanitorException error) {
    }

    /** One schema's work: returns the result's fields and the schema's exit code. */
    @FunctionalInterface
    interface Work {
        Outcome run(String schema) throws JanitorException;
    }

    /**
     * The schemas to run on.
     *
     * @throws JanitorException USAGE when both selections are given; NOT_A_CATALOG when discovery finds none
     */
    static List<String> schemas(CatalogOptions catalog, boolean all, ConnectionSpec conn, java.io.PrintWriter err)
            throws JanitorException {
        if (all && !catalog.metadataSchemas.isEmpty()) {
            throw new JanitorException(Reason.USAGE, "--all-metadata-schemas and --metadata-schema exclude each other: give one or the other.");
        }
        if (!all) {
            return catalog.metadataSchemas.isEmpty() ? List.of(catalog.metadataSchema) : catalog.metadataSchemas.stream().distinct().toList();
        }
        try (Connection c = conn.open()) {
            CatalogDiscovery.Found discovered = CatalogDiscovery.discover(c);
            for (String schema : discovered.noUsage()) {
                err.println("WARN: " + CatalogDiscovery.skippedNote(schema, conn.user()));
                err.flush();
            }
            List<String> found = discovered.schemas();
            if (found.isEmpty()) {
                throw CatalogDiscovery.noCatalog(conn.database());
            }
            return found;
        } catch (SQLException e) {
            throw new JanitorException(Reason.DATABASE_ERROR, "Could not list the DuckLake catalogs of " + conn.describe() + ": "
                    + conn.redact(e.getMessage()), e);
        }
    }

    /** Runs the work on each schema; a failing schema does not stop the others. */
    static List<Outcome> run(List<String> schemas, Work work, ConnectionSpec conn, java.io.PrintWriter err) {
        List<Outcome> out = new ArrayList<>();
        for (String schema : schemas) {
            StructuredLog.Context ctx = StructuredLog.context();
            StructuredLog.context(new StructuredLog.Context(conn.database(), schema, ctx == null ? null : ctx.operation(), false));
            if (schemas.size() > 1) {
                err.println("info: == schema " + schema + " ==");
                err.flush();
            }
            try {
                out.add(work.run(schema));
            } catch (JanitorException e) {
                err.println("error: schema " + schema + ": " + conn.redact(e.getMessage()));
                err.println("hint: " + e.reason().hint());
                err.flush();
                out.add(new Outcome(schema, null, null, e.reason().exitCode(), e));
            }
        }
        return out;
    }

    /** The worst exit code by {@link Reason#worseExitCode}. */
    static int worst(List<Outcome> outcomes) {
        int worst = 0;
        for (Outcome o : outcomes) {
            worst = Reason.worseExitCode(o.exitCode(), worst);
        }
        return worst;
    }

    /** The JSON document of a run over several schemas. */
    static Map<String, Object> document(String operation, ConnectionSpec conn, List<Outcome> outcomes, int exit) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("operation", operation);
        doc.put("tool_version", VersionProvider.version());
        long failed = outcomes.stream().filter(o -> o.error() != null).count();
        doc.put("status", failed == 0 ? "ok" : failed == outcomes.size() ? "error" : "partial");
        doc.put("exit_code", exit);
        Map<String, Object> cat = Render.catalog(conn, null);
        cat.remove("schema");
        doc.put("catalog", cat);
        List<Map<String, Object>> sections = new ArrayList<>();
        for (Outcome o : outcomes) {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("schema", o.schema());
            if (o.error() == null) {
                s.putAll(o.fields());
                s.put("exit_code", o.exitCode());
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
        return doc;
    }

    /** Seconds as a PostgreSQL timeout: 0 to INT_MAX milliseconds. */
    static java.time.Duration pgTimeout(String flag, double value) throws JanitorException {
        if (!(value >= 0) || Double.isInfinite(value) || value * 1000 > Integer.MAX_VALUE) {
            throw new JanitorException(Reason.USAGE, flag + " must be between 0 and " + Integer.MAX_VALUE / 1000
                    + " seconds (PostgreSQL's limit), got " + value + ".");
        }
        return dev.ducklake.janitor.Durations.ofSeconds(value);
    }
}
