package dev.ducklake.janitor.ops.compact;

import dev.ducklake.janitor.JanitorException;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The dry run's check of the engine an execute run would start ({@link DuckLakeEngine#probe}), done once per run: share
 * one instance across the schemas (and catalogs) of a run, and the in-process DuckDB with its extensions is started once
 * for each set of engine settings instead of once per schema. The storage access of each data path
 * ({@link EngineStorage#resolve}) is still checked on every call: it depends on the catalog's data path.
 *
 * <p>The outcome is kept for the life of the instance, a failure too (the same reason and message each time, so each
 * schema's dry run still warns as before); a new run takes a new instance, so an extension installed in between is seen.
 * Thread-safe: catalogs run in parallel wait for the one probe rather than each starting DuckDB.
 */
public final class EngineProbe {

    /** What the engine's start depends on: the settings DuckDB starts with, and whether httpfs is loaded too. */
    private record Key(Path extensionDir, String memoryLimit, int threads, Path tempDirectory, boolean httpfs) {
    }

    /** Outcome per key: empty when the engine started with its extensions, else the failure. */
    private final Map<Key, Optional<JanitorException>> outcomes = new HashMap<>();
    private int engineStarts;

    /**
     * {@link DuckLakeEngine#probe}, the engine's start taken from an earlier call with the same settings when there is one.
     *
     * @param settings the engine settings of the run
     * @param dataPath the catalog's data_path
     * @throws JanitorException as {@link DuckLakeEngine#probe}: ENGINE_UNAVAILABLE (a failure of an earlier call with the
     *     same settings is thrown again, with its reason and message), or the storage refusal of {@link EngineStorage#resolve}
     */
    public void check(EngineSettings settings, String dataPath) throws JanitorException {
        EngineStorage.Access storage = EngineStorage.resolve(dataPath, settings.s3());
        Key key = new Key(settings.extensionDir(), settings.memoryLimit(), settings.threads(), settings.tempDirectory(),
                storage.needsHttpfs());
        Optional<JanitorException> outcome;
        synchronized (this) {
            outcome = outcomes.get(key);
            if (outcome == null) {
                engineStarts++;
                try {
                    DuckLakeEngine.probeEngine(settings, key.httpfs());
                    outcome = Optional.empty();
                } catch (JanitorException e) {
                    outcome = Optional.of(e);
                }
                outcomes.put(key, outcome);
            }
        }
        if (outcome.isPresent()) {
            JanitorException e = outcome.get();
            throw new JanitorException(e.reason(), e.getMessage(), e);
        }
    }

    /** @return how many times this instance started the engine (once per distinct settings) */
    synchronized int engineStarts() {
        return engineStarts;
    }
}
