package dev.ducklake.janitor.ops.runtime;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The figures of a result whose JSON key says whether they happened or would: an execute run reports what it did
 * ({@code files_deleted}, {@code snapshots_expired}, {@code dropped}), a dry run what an execute run with the same
 * options would do ({@code files_would_delete}, {@code snapshots_would_expire}, {@code would_drop}); neither reports
 * the other's keys, so a dry run never says "deleted 0" and an execute run never says "would". A result returns
 * {@link #map()} from a {@code @JsonAnyGetter} method and marks the components it maps {@code @JsonIgnore}.
 *
 * @param <V> the figures' type (a count, or a count per catalog table)
 */
public final class DoneOrWould<V> {

    private final boolean dryRun;
    private final Map<String, V> figures = new LinkedHashMap<>();

    private DoneOrWould(boolean dryRun) {
        this.dryRun = dryRun;
    }

    /**
     * @param dryRun whether the result is a dry run's
     * @param <V> the figures' type
     * @return an empty set of figures
     */
    public static <V> DoneOrWould<V> of(boolean dryRun) {
        return new DoneOrWould<>(dryRun);
    }

    /**
     * A figure both kinds of run report.
     *
     * @param doneKey its key in an execute run (what happened)
     * @param wouldKey its key in a dry run (what an execute run would do)
     * @param value the figure
     * @return this
     */
    public DoneOrWould<V> figure(String doneKey, String wouldKey, V value) {
        figures.put(dryRun ? wouldKey : doneKey, value);
        return this;
    }

    /**
     * A figure only an execute run reports (a dry run cannot know it, e.g. files the store failed to delete).
     *
     * @param key its key
     * @param value the figure
     * @return this
     */
    public DoneOrWould<V> done(String key, V value) {
        if (!dryRun) {
            figures.put(key, value);
        }
        return this;
    }

    /** @return the figures by JSON key, in the order added (unmodifiable) */
    public Map<String, V> map() {
        return Collections.unmodifiableMap(figures);
    }
}
