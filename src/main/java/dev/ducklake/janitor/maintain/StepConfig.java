package dev.ducklake.janitor.maintain;

import java.time.Duration;
import java.util.Map;

/**
 * One step of the {@code maintain:} list as configured.
 *
 * @param name the step name (a {@link MaintenanceStep#name()})
 * @param options option name (as in the file, e.g. {@code older-than}) to its value in the normal form of its
 *     {@link OptionKind}; only the options given in the file
 * @param required whether a skip (step not possible on a catalog, or not in this build) counts as a failure
 * @param runBudget the step's own run budget, or null for none (it is further capped by the catalog's and the run's)
 * @param line the line of the step in the file
 */
public record StepConfig(String name, Map<String, Object> options, boolean required, Duration runBudget, int line) {

    /** Copies the options. */
    public StepConfig {
        options = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(options));
    }

    /** The value of an option in normal form, or {@code fallback} when it was not given. */
    @SuppressWarnings("unchecked")
    public <T> T option(String key, T fallback) {
        Object v = options.get(key);
        return v == null ? fallback : (T) v;
    }
}
