/**
 * The maintenance operations, one sub-package each, named for the operation ({@code expiresnapshots},
 * {@code droporphaninline}, {@code purgestats}, {@code check}, {@code cleanupoldfiles}, {@code deleteorphanfiles},
 * {@code compact}), and what they share:
 * <ul>
 *   <li>{@link dev.ducklake.janitor.ops.runtime}: the frame every operation runs on (run, session, query runner, batch
 *       loop and its sources, sizer, recorder, budget, options, figures), with one example per shape of a run;</li>
 *   <li>{@link dev.ducklake.janitor.ops.files}: what the two storage operations share (the store for a catalog's data
 *       path, the files known to every consulted catalog, the run control over the run's budget).</li>
 * </ul>
 * An operation package imports the runtime, {@code catalog}, {@code storage}, {@code pg} and {@code retry}, never
 * another operation (PackageArrowsTest). docs/adding-an-operation.md lists the files a new operation touches.
 */
package dev.ducklake.janitor.ops;
