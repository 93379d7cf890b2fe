package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.metrics.MaintenanceRunReporter;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Builds the per-run gauges an {@link OperationAdapter} hands to the Pushgateway reporter, in the order they are
 * added (the order they are pushed in).
 */
final class PerRunGauges {

    private final Map<String, MaintenanceRunReporter.PerRun> gauges = new LinkedHashMap<>();
    private final Map<String, String> labels = new LinkedHashMap<>();

    /**
     * Puts a label on every gauge added after this call.
     *
     * @param name the label name
     * @param value its value
     * @return this
     */
    PerRunGauges label(String name, String value) {
        labels.put(name, value);
        return this;
    }

    /**
     * @param name the metric name ({@code ducklake_maintenance_<what>_last_run} by the naming convention)
     * @param value the value of the last successful run
     * @param help the metric's help text
     * @return this
     */
    PerRunGauges add(String name, double value, String help) {
        gauges.put(name, new MaintenanceRunReporter.PerRun(value, help, java.util.Collections.unmodifiableMap(new LinkedHashMap<>(labels))));
        return this;
    }

    /** @return the gauges by name, in the order added */
    Map<String, MaintenanceRunReporter.PerRun> map() {
        return gauges;
    }
}
