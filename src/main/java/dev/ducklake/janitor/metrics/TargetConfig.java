package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.pg.ConnectionSpec;

import java.time.Duration;
import java.util.List;

/**
 * One catalog (tenant) the metrics side watches.
 *
 * @param name the value of the {@code catalog} label; unique per configuration
 * @param connection where the catalog database is (the password is never printed)
 * @param metadataSchema the Postgres schema holding the ducklake_* tables
 * @param statementTimeout statement_timeout of each built-in query (zero = none)
 * @param queries extra gauges computed on this catalog
 */
public record TargetConfig(String name, ConnectionSpec connection, String metadataSchema, Duration statementTimeout,
                           List<CustomQuery> queries) {

    /** Copies the query list. */
    public TargetConfig {
        queries = List.copyOf(queries);
    }
}
