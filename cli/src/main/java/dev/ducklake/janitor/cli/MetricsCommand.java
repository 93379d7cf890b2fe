package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.metrics.CatalogTarget;
import dev.ducklake.janitor.metrics.CollectResult;
import dev.ducklake.janitor.metrics.Exposition;
import dev.ducklake.janitor.metrics.MetricFamily;
import dev.ducklake.janitor.metrics.MetricsConfig;
import dev.ducklake.janitor.metrics.StorageGauges;
import dev.ducklake.janitor.metrics.TargetConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code ducklake-janitor metrics}: collects the catalog-health gauges once and prints them. */
@Command(name = "metrics", mixinStandardHelpOptions = true,
        description = {"Computes the catalog-health gauges once (inlined-data tables and leaks, pg_attribute size, snapshots, files, "
                + "size bands, top partitions, format version, self-metrics) and prints them in the Prometheus text format "
                + "(--output text, the default) or as one JSON document (--output json). Reads only.",
            "Exit code 0 when every query succeeded; 3 when a catalog cannot be reached, 4 when its metadata schema is missing "
                + "or holds no DuckLake catalog, "
                + "8 when a query lacked a privilege, 9 when some other query failed, 13 when only the storage comparison (--storage) "
                + "failed (the gauges that could be computed are printed first)."})
public final class MetricsCommand extends CatalogCommand implements Callable<Integer> {

    static final String OPERATION = "metrics";

    @Mixin
    MetricsTargetOptions targets;

    @Mixin
    MetricsStorageOptions storage;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        MetricsConfig cfg = targets.resolve(catalog, parent.env());
        List<StorageGauges> stores = storage.build(cfg, msg -> { });
        List<CatalogTarget> collected = new ArrayList<>();
        List<MetricFamily> families = new ArrayList<>();
        for (int i = 0; i < cfg.catalogs().size(); i++) {
            try (CatalogTarget target = new CatalogTarget(cfg.catalogs().get(i), msg -> { })) {
                target.collectOnce(cfg.interval());
                collected.add(target);
                families.addAll(target.families());
            }
            if (!stores.isEmpty()) {
                stores.get(i).collectOnce();
                families.addAll(stores.get(i).families());
            }
        }
        JanitorException failure = null;
        for (CatalogTarget t : collected) {
            for (Map.Entry<String, String> e : t.lastErrors().entrySet()) {
                err.println("WARN: catalog " + t.config().name() + ": " + (e.getKey().equals("connect") ? "" : "query " + e.getKey() + ": ")
                        + e.getValue());
                Reason reason = reason(e.getKey(), e.getValue());
                if (failure == null || reason.exitCode() < failure.reason().exitCode()) {
                    failure = new JanitorException(reason, "catalog " + t.config().name() + ": " + e.getValue());
                }
            }
        }
        for (StorageGauges g : stores) {
            if (g.lastError() != null) {
                err.println("WARN: catalog " + g.config().name() + ": storage comparison: " + g.lastError());
                if (failure == null) {
                    failure = new JanitorException(Reason.STORAGE, "catalog " + g.config().name() + ": storage comparison: "
                            + g.lastError());
                }
            }
        }
        err.flush();
        if (output.json()) {
            Render.json(out, document(cfg, collected, stores, Exposition.merge(families), failure));
        } else {
            out.print(Exposition.text(families));
            out.flush();
        }
        if (failure != null) {
            throw failure;
        }
        return ExitCodes.OK;
    }

    /**
     * The reason of a failed query: {@code connect} a connection failure, {@code catalog} (or {@code <schema>/catalog}
     * under --all-metadata-schemas) a metadata schema that is missing or holds no DuckLake catalog.
     */
    private static Reason reason(String query, String message) {
        if (query.equals("connect")) {
            return Reason.CONNECTION;
        }
        if (CollectResult.permissionDenied(message)) {
            return Reason.PERMISSION_DENIED;
        }
        return query.equals("catalog") || query.endsWith("/catalog") ? Reason.NOT_A_CATALOG : Reason.DATABASE_ERROR;
    }

    /**
     * The JSON document: operation, tool version, status, exit code, catalog (the --catalog one, never the password;
     * {@code config} instead for a YAML file), then each catalog's state and the gauges.
     */
    private static Map<String, Object> document(MetricsConfig cfg, List<CatalogTarget> targets, List<StorageGauges> stores,
                                                List<MetricFamily> families, JanitorException failure) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("operation", OPERATION);
        doc.put("tool_version", VersionProvider.version());
        boolean ok = targets.stream().allMatch(t -> t.up() && t.lastErrors().isEmpty())
                && stores.stream().allMatch(g -> g.lastError() == null);
        doc.put("status", ok && failure == null ? "ok" : "error");
        doc.put("exit_code", failure == null ? ExitCodes.OK : failure.reason().exitCode());
        if (cfg.source() != null) {
            doc.put("config", String.valueOf(cfg.source()));
        } else {
            TargetConfig only = cfg.catalogs().get(0);
            Map<String, Object> cat = Render.catalog(only.connection(), only.metadataSchema());
            if (only.allMetadataSchemas()) {
                cat.remove("schema");
            }
            doc.put("catalog", cat);
        }
        List<Map<String, Object>> cats = new ArrayList<>();
        for (CatalogTarget t : targets) {
            Map<String, Object> c = Render.catalog(t.config().connection(), t.config().metadataSchema());
            c.put("name", t.config().name());
            c.put("up", t.up());
            c.put("errors", t.lastErrors());
            if (!stores.isEmpty()) {
                StorageGauges g = stores.get(cats.size());
                Map<String, Object> st = new LinkedHashMap<>();
                st.put("status", g.lastError() == null ? "ok" : "failed");
                st.put("error", g.lastError());
                c.put("storage", st);
            }
            cats.add(c);
        }
        doc.put("catalogs", cats);
        List<Map<String, Object>> metrics = new ArrayList<>();
        for (MetricFamily f : families) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", f.exposedName());
            m.put("type", f.type().name().toLowerCase(java.util.Locale.ROOT));
            m.put("help", f.help());
            List<Map<String, Object>> samples = new ArrayList<>();
            for (MetricFamily.Sample s : f.samples()) {
                Map<String, Object> sm = new LinkedHashMap<>();
                Map<String, String> labels = new LinkedHashMap<>();
                for (int i = 0; i < f.labelNames().size(); i++) {
                    labels.put(f.labelNames().get(i), s.labelValues().get(i));
                }
                sm.put("labels", labels);
                sm.put("value", s.value());
                samples.add(sm);
            }
            m.put("samples", samples);
            metrics.add(m);
        }
        doc.put("metrics", metrics);
        return doc;
    }
}
