package dev.ducklake.janitor.metrics;

import java.util.List;
import java.util.Map;

/**
 * What one collection of a catalog produced.
 *
 * @param families the metric families computed (each already carries the {@code catalog} label); a query that
 *     failed contributes none
 * @param succeeded the queries that succeeded, in the order they ran
 * @param durations seconds each query took (succeeded or failed), by query name
 * @param errors the queries that failed, query name → message (password-free), in the order they ran
 * @param connectionLost whether a query failed because the session is gone (SQLSTATE class 08, admin shutdown
 *     and similar); the caller then reconnects
 * @param seconds wall-clock duration of the collection, seconds
 */
public record CollectResult(List<MetricFamily> families, List<String> succeeded, Map<String, Double> durations,
                            Map<String, String> errors, boolean connectionLost, double seconds) {

    /** Copies the collections. */
    public CollectResult {
        families = List.copyOf(families);
        succeeded = List.copyOf(succeeded);
        durations = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(durations));
        errors = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(errors));
    }

    /**
     * Whether an error message of {@link #errors()} is a missing privilege (SQLSTATE 42501): the message format
     * {@code SQLSTATE <code>: <text>} is written by {@link CatalogHealthCollector} only.
     *
     * @param message a value of {@link #errors()}
     * @return true for insufficient_privilege
     */
    public static boolean permissionDenied(String message) {
        return message != null && message.startsWith("SQLSTATE " + dev.ducklake.janitor.pg.SqlState.INSUFFICIENT_PRIVILEGE.code() + ":");
    }

    /**
     * The family with this base name, for tests and reports.
     *
     * @param name the metric's base name ({@link MetricFamily#name()})
     * @return the family, or null when the query computing it failed or it does not exist
     */
    public MetricFamily family(String name) {
        return families.stream().filter(f -> f.name().equals(name)).findFirst().orElse(null);
    }
}
