package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.metrics.MetricsConfig;
import dev.ducklake.janitor.metrics.TargetConfig;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** Options of {@code metrics} and {@code serve} naming the catalogs to measure: one via --catalog, or a YAML file. */
public final class MetricsTargetOptions {

    /** Environment variable read when --config is not given. */
    static final String ENV_CONFIG = "DUCKLAKE_JANITOR_METRICS_CONFIG";

    @Option(names = "--config", paramLabel = "FILE",
            description = "Metrics YAML file: several catalogs (each with its own connection and catalog label) and extra gauges "
                    + "defined as SQL; see the README. Default: $DUCKLAKE_JANITOR_METRICS_CONFIG; without it, the one catalog of --catalog.")
    Path config;

    @Option(names = "--catalog-label", paramLabel = "NAME",
            description = "Value of the catalog label for the --catalog catalog. Default: the database name.")
    String catalogLabel;

    @Option(names = "--all-metadata-schemas",
            description = "Measure every schema of the --catalog database that holds a DuckLake catalog (found again at each "
                    + "collection), over one connection; each series carries the schema label. Not with --metadata-schema. "
                    + "Default: off.")
    boolean allMetadataSchemas;

    @Option(names = "--statement-timeout", paramLabel = "SECONDS",
            description = "statement_timeout of each collection query, in seconds (0 = none). Default: 30 (or the YAML's).")
    Double statementTimeout;

    /**
     * The catalogs to measure and the collection interval.
     *
     * @param catalog the shared catalog options (--catalog, --password-file, --metadata-schema)
     * @param env the environment
     * @return the configuration (a one-catalog configuration without --config)
     * @throws JanitorException CONFIG for a bad YAML file, USAGE for bad flags or both --config and --catalog
     */
    MetricsConfig resolve(CatalogOptions catalog, Map<String, String> env) throws JanitorException {
        Path file = config != null ? config
                : catalog.catalog == null && env.get(ENV_CONFIG) != null ? Path.of(env.get(ENV_CONFIG)) : null;
        if (statementTimeout != null && (!(statementTimeout >= 0) || statementTimeout > 86_400)) {
            throw new JanitorException(Reason.USAGE, "--statement-timeout must be 0 to 86400 seconds, got " + Render.number(statementTimeout) + ".");
        }
        if (file != null) {
            if (catalog.catalog != null) {
                throw new JanitorException(Reason.USAGE, "Give either --config or --catalog, not both: the YAML file names its catalogs.");
            }
            if (allMetadataSchemas) {
                throw new JanitorException(Reason.USAGE, "--all-metadata-schemas applies to --catalog; in the YAML file set "
                        + "all_metadata_schemas: true on the catalog entry.");
            }
            MetricsConfig cfg = MetricsConfig.load(file, env);
            if (statementTimeout == null) {
                return cfg;
            }
            Duration t = dev.ducklake.janitor.Durations.ofSeconds(statementTimeout);
            return new MetricsConfig(cfg.source(), cfg.interval(), cfg.catalogs().stream()
                    .map(c -> new TargetConfig(c.name(), c.connection(), c.metadataSchema(), t, c.queries(), c.allMetadataSchemas()))
                    .toList());
        }
        ConnectionSpec spec = catalog.connection(env);
        Duration t = statementTimeout == null ? MetricsConfig.DEFAULT_STATEMENT_TIMEOUT : dev.ducklake.janitor.Durations.ofSeconds(statementTimeout);
        String label = catalogLabel != null ? catalogLabel : spec.database();
        if (allMetadataSchemas && !catalog.metadataSchemas.isEmpty()) {
            throw new JanitorException(Reason.USAGE, "Give either --all-metadata-schemas or --metadata-schema, not both.");
        }
        return new MetricsConfig(null, MetricsConfig.DEFAULT_INTERVAL, List.of(new TargetConfig(label, spec, catalog.singleSchema(), t,
                List.of(), allMetadataSchemas)));
    }
}
