package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.pg.ConnectionSpec;

import java.time.Duration;
import java.util.List;

/**
 * One catalog (tenant) the metrics side watches.
 *
 * @param name the value of the {@code catalog} label; unique per configuration
 * @param connection where the catalog database is (the password is never printed)
 * @param metadataSchema the Postgres schema holding the ducklake_* tables (ignored with {@code allMetadataSchemas})
 * @param statementTimeout statement_timeout of each built-in query (zero = none)
 * @param queries extra gauges computed on this catalog
 * @param allMetadataSchemas true to measure every schema of the database that holds a DuckLake catalog (found again at
 *     each collection, so tenants that come and go are followed), one connection for all of them
 */
public record TargetConfig(String name, ConnectionSpec connection, String metadataSchema, Duration statementTimeout,
                           List<CustomQuery> queries, boolean allMetadataSchemas) {

    /** Copies the query list. */
    public TargetConfig {
        queries = List.copyOf(queries);
    }

    /**
     * One catalog in one metadata schema.
     *
     * @param name the catalog label
     * @param connection the database
     * @param metadataSchema the metadata schema
     * @param statementTimeout statement_timeout of each built-in query (zero = none)
     * @param queries extra gauges
     */
    public TargetConfig(String name, ConnectionSpec connection, String metadataSchema, Duration statementTimeout,
                        List<CustomQuery> queries) {
        this(name, connection, metadataSchema, statementTimeout, queries, false);
    }
}
