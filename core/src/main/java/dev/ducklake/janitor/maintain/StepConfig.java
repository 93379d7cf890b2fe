package dev.ducklake.janitor.maintain;

import java.time.Duration;
import java.util.Map;

/**
 * One step of the {@code maintain:} list as configured.
 *
 * @param name the step name (a {@link MaintenanceStep#name()})
 * @param options option name (as in the file, e.g. {@code older-than}) to its value in the normal form of its
 *     {@link OptionKind}; only the options given in the file
 * @param raw the same options as written in the file (text, numbers, booleans), for adapters that hand a value to
 *     their command's own parser (e.g. expire-snapshots' {@code OlderThan.parse}) so that the file and the flag mean
 *     exactly the same
 * @param required whether a skip (step not possible on a catalog, or not in this build) counts as a failure
 * @param runBudget the step's own run budget, or null for none (it is further capped by the catalog's and the run's)
 * @param line the line of the step in the file
 * @param every the step's cadence: it runs only when at least this long has passed since the start of its last
 *     successful run on the same catalog and schema (as recorded by {@link RunLedger}); null runs it every time
 */
public record StepConfig(String name, Map<String, Object> options, Map<String, Object> raw, boolean required, Duration runBudget, int line,
                         Duration every) {

    /** Copies the options. */
    public StepConfig {
        options = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(options));
        raw = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(raw));
    }

    /** The value of an option as written in the file (e.g. {@code "7d"}), or null when it was not given. */
    public String rawText(String key) {
        Object v = raw.get(key);
        return v == null ? null : String.valueOf(v);
    }

    /** The value of an option in normal form, or {@code fallback} when it was not given. */
    @SuppressWarnings("unchecked")
    public <T> T option(String key, T fallback) {
        Object v = options.get(key);
        return v == null ? fallback : (T) v;
    }
}
