/**
 * The maintenance runtime every operation runs on (the frame: run, session, query runner, batch loop, sizer, recorder,
 * budget, options, figures). The operations themselves are the sibling packages of {@code ops}, one each.
 *
 * <h2>The contract</h2>
 * An operation is a {@link dev.ducklake.janitor.ops.runtime.MaintenanceOperation}: options in (its constructor), one
 * {@code execute()} returning a result record, {@code requestStop()} / {@code awaitFinished(Duration)} for
 * SIGTERM/SIGINT. It extends {@link dev.ducklake.janitor.ops.runtime.StoppableOperation} and implements {@code run()}.
 *
 * <h2>The runtime</h2>
 * <ul>
 *   <li>{@link dev.ducklake.janitor.ops.runtime.RunOptions}: schema, dry run, batch size, max batches, run budget,
 *       statement/lock/reconnect timeouts, lock name, with their defaults as constants;</li>
 *   <li>{@link dev.ducklake.janitor.ops.runtime.MaintenanceRun}: the frame of one run (clock, session, figures, queries,
 *       batch loops), opened in a try-with-resources;</li>
 *   <li>{@link dev.ducklake.janitor.ops.runtime.MaintenanceSession}: the run's one connection (inspect, advisory lock,
 *       reconnect that ends this run's stale backend and re-takes the lock, close); helpers get the session and
 *       call {@code connection()} per transaction;</li>
 *   <li>{@link dev.ducklake.janitor.retry.RetryPolicy}: failure kind to retry / reconnect / halve / fail (package retry, below ops and storage),
 *       applied by the one {@link dev.ducklake.janitor.retry.RetryLoop} that {@link dev.ducklake.janitor.ops.runtime.BatchLoop},
 *       {@link dev.ducklake.janitor.ops.runtime.QueryRunner}, every store call and every DuckLake call run through (their
 *       differences are hooks; the session's are {@code SessionRetryHooks});</li>
 *   <li>{@link dev.ducklake.janitor.ops.runtime.BatchLoop} with {@link dev.ducklake.janitor.ops.runtime.BatchSizer}: adaptive
 *       batches, --max-batches, --run-budget, stop, progress; it reads its units from a
 *       {@link dev.ducklake.janitor.ops.runtime.BatchSource} (a list, a {@link dev.ducklake.janitor.ops.runtime.KeysetSource}, parts one
 *       after the other) and the operation supplies a {@link dev.ducklake.janitor.ops.runtime.BatchWork};</li>
 *   <li>{@link dev.ducklake.janitor.ops.runtime.RunBudget}: the run's one clock (start, --run-budget deadline, stop flag),
 *       read by the batch loop, the retry backoffs, the storage operations' {@code files.RunControl} and their store
 *       calls;</li>
 *   <li>{@link dev.ducklake.janitor.ops.runtime.RunFigures} (in every result, {@code @JsonUnwrapped}) filled through
 *       {@link dev.ducklake.janitor.ops.runtime.RunRecorder}; {@link dev.ducklake.janitor.ops.runtime.ProgressListener} with typed
 *       {@link dev.ducklake.janitor.ops.runtime.ProgressListener.Phase} events.</li>
 * </ul>
 *
 * <h2>The shapes of a run</h2>
 * Every shape opens the same frame ({@code MaintenanceRun.open(spec, runOptions, listener, stopFlag())} in a
 * try-with-resources); they differ in where the units come from.
 * <pre>{@code
 * // 1. a list surveyed into memory (drop-orphan-inline-tables): the loop works through it in batches
 * List<Candidate> units = run.queries().readOnly("survey", timeout, c -> Survey.list(c, schema));
 * run.batchLoop(run.batchSizer(), new DropWork(schema)).run(units);
 *
 * // 2. a keyset query read page by page after the last key (purge-orphan-stats): memory stays one page
 * BatchSource<Long> ids = run.keyset("listing orphaned ids", 50_000,
 *         (c, last, limit) -> Orphans.after(c, schema, last == null ? Long.MIN_VALUE : last, limit));
 * run.batchLoop(sizer, new PurgeWork(schema)).run(ids);     // or BatchSource.concat(List.of(ids, moreIds))
 *
 * // 3. a storage listing (cleanup-old-files, delete-orphan-files): files.StorageOperation opens the store for the
 * //    catalog's data path, bound by files.RunControl over run.budget(); the work walks the listing
 * protected MyResult work(Connection c, FileStore store, MyOptions o, FileListener files, RunControl control) {
 *     try (FileStore.Listing listing = store.list(root)) {
 *         while (listing.hasNext() && !control.exhausted()) { ... delete a batch ...; if (!control.batchDone()) break; }
 *     }
 *     return new MyResult(..., control.figures());
 * }
 *
 * // 4. read-only (check): a dry run's options, no lock; each read retried and reconnected by the run's QueryRunner
 * try (MaintenanceRun run = MaintenanceRun.open(spec, options.runOptions(), ProgressListener.NONE, new AtomicBoolean())) {
 *     CatalogInfo info = run.queries().withRetries("the catalog inspection", c -> CatalogInspector.inspect(c, schema, false));
 *     List<RuleOutcome> outcomes = run.queries().withRetries("the check", c -> RuleEvaluation.evaluate(c, info, ...));
 * }
 * }</pre>
 *
 * <h2>Adding an operation (example)</h2>
 * <pre>{@code
 * // ops/purgeexample/PurgeExampleOptions.java
 * public record PurgeExampleOptions(RunOptions run, long olderThanSnapshot) { ... validate() calls run.validate() }
 *
 * // ops/purgeexample/PurgeExampleResult.java: counts by name, the generic figures flattened into the JSON
 * public record PurgeExampleResult(String schema, boolean dryRun, long rowsFound, long rowsDeleted,
 *                                  @JsonUnwrapped RunFigures run) implements MaintenanceResult { }
 *
 * // ops/purgeexample/PurgeBatch.java (package-private): one batch's transaction, opened and committed by the loop
 * final class PurgeBatch implements BatchWork<Long, PurgeBatch.Done> {
 *     record Done(int consumed, int handled, boolean truncated, int acted, int skipped, int missing)
 *             implements BatchOutcome { }
 *     public Done attempt(Connection c, List<Long> ids) throws SQLException {
 *         try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + Sql.qualified(schema, "t")
 *                 + " WHERE id = ANY (?)")) {
 *             ps.setArray(1, c.createArrayOf("bigint", ids.toArray()));
 *             int n = ps.executeUpdate();
 *             return new Done(ids.size(), ids.size(), false, n, 0, ids.size() - n);
 *         }
 *     }
 *     public void committed(Done d) { deleted += d.acted(); }
 *     public String privilegeNeeded() { return "to delete rows of t"; }
 *     public String units() { return "rows"; }
 * }
 *
 * // ops/purgeexample/PurgeExample.java: the action
 * public final class PurgeExample extends StoppableOperation<PurgeExampleResult> {
 *     protected PurgeExampleResult run() throws JanitorException {
 *         options.validate();
 *         try (MaintenanceRun run = MaintenanceRun.open(spec, options.run(), listener, stopFlag())) {
 *             CatalogInfo info = run.inspectAndLock();
 *             BatchSizer sizer = run.batchSizer();
 *             List<Long> ids = run.queries().readOnly("survey", options.run().statementTimeout(), c -> survey(c));
 *             PurgeBatch batch = new PurgeBatch(info.schema());
 *             if (!options.run().dryRun()) {
 *                 run.batchLoop(sizer, batch).run(ids);
 *             }
 *             return new PurgeExampleResult(info.schema(), options.run().dryRun(), ids.size(), batch.deleted,
 *                     run.figures());
 *         } catch (SQLException e) {
 *             throw new JanitorException(Reason.DATABASE_ERROR, "...", e);
 *         }
 *     }
 * }
 * }</pre>
 * The CLI side is a thin picocli command over the option mixins and the generic runner (see {@code cli}).
 */
package dev.ducklake.janitor.ops.runtime;
