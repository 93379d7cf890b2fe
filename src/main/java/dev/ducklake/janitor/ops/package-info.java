/**
 * The maintenance runtime every operation runs on, and the operations themselves (one sub-package each).
 *
 * <h2>The contract</h2>
 * An operation is a {@link dev.ducklake.janitor.ops.MaintenanceOperation}: options in (its constructor), one
 * {@code execute()} returning a result record, {@code requestStop()} / {@code awaitFinished(Duration)} for
 * SIGTERM/SIGINT. It extends {@link dev.ducklake.janitor.ops.StoppableOperation} and implements {@code run()}.
 *
 * <h2>The runtime</h2>
 * <ul>
 *   <li>{@link dev.ducklake.janitor.ops.RunOptions}: schema, dry run, batch size, max batches, run budget,
 *       statement/lock/reconnect timeouts, lock name, with their defaults as constants;</li>
 *   <li>{@link dev.ducklake.janitor.ops.MaintenanceRun}: the frame of one run (clock, session, figures, queries,
 *       batch loops), opened in a try-with-resources;</li>
 *   <li>{@link dev.ducklake.janitor.ops.MaintenanceSession}: the run's one connection (inspect, advisory lock,
 *       reconnect that ends this run's stale backend and re-takes the lock, close); helpers get the session and
 *       call {@code connection()} per transaction;</li>
 *   <li>{@link dev.ducklake.janitor.retry.RetryPolicy}: failure kind to retry / reconnect / halve / fail (package retry, below ops and storage),
 *       applied by the one {@link dev.ducklake.janitor.retry.RetryLoop} that {@link dev.ducklake.janitor.ops.BatchLoop},
 *       {@link dev.ducklake.janitor.ops.QueryRunner}, every store call and every DuckLake call run through (their
 *       differences are hooks; the session's are {@code SessionRetryHooks});</li>
 *   <li>{@link dev.ducklake.janitor.ops.BatchLoop} with {@link dev.ducklake.janitor.ops.BatchSizer}: adaptive
 *       batches, --max-batches, --run-budget, stop, progress; the operation supplies a
 *       {@link dev.ducklake.janitor.ops.BatchWork};</li>
 *   <li>{@link dev.ducklake.janitor.ops.RunFigures} (in every result, {@code @JsonUnwrapped}) filled through
 *       {@link dev.ducklake.janitor.ops.RunRecorder}; {@link dev.ducklake.janitor.ops.ProgressListener} with typed
 *       {@link dev.ducklake.janitor.ops.ProgressListener.Phase} events.</li>
 * </ul>
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
package dev.ducklake.janitor.ops;
