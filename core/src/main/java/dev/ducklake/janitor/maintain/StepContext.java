package dev.ducklake.janitor.maintain;

import dev.ducklake.janitor.ops.files.ConsultOptions;
import dev.ducklake.janitor.pg.ConnectionSpec;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * Where and how a step runs.
 *
 * @param catalog the catalog's configured name (the {@code catalog} label of pushed metrics)
 * @param connection the catalog database (the step opens its own connections from it)
 * @param schema the metadata schema
 * @param lockName the advisory lock name of the catalog (each step takes it itself, as its command does)
 * @param dryRun whether the step must change nothing
 * @param runBudget the effective run budget of this step (its own, capped by what is left of the catalog's and the
 *     run's), or null for unbounded
 * @param onStop registers what to call to stop the step at its next safe point (SIGTERM/SIGINT)
 * @param consult what the catalog's configuration says the storage steps consult ({@code also_catalogs},
 *     {@code exclude_catalog_schemas}, {@code consult_server}), with the catalog's schemas of this run in order
 *     ({@link ConsultOptions#runSchemas()}, so that a file under two of them is counted and deleted by one pass); its
 *     {@code server} is null (each step uses its own connection)
 */
public record StepContext(String catalog, ConnectionSpec connection, String schema, String lockName, boolean dryRun,
                          Duration runBudget, Consumer<Runnable> onStop, ConsultOptions consult) {
}
