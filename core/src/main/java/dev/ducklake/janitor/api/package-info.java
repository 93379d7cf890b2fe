/**
 * The library's fluent Java API, for a JVM scheduler: {@link dev.ducklake.janitor.api.Janitor#on(javax.sql.DataSource,
 * String)} names a catalog, each of its methods returns a single-use action whose options default to the engine's, and
 * {@code execute()} returns the operation's result record.
 *
 * <pre>{@code
 * ExpireSnapshotsResult r = Janitor.on(dataSource, "lake_meta").expireSnapshots()
 *         .olderThan(Duration.ofDays(7)).dryRun(false).execute();
 * }</pre>
 *
 * This package knows nothing of the command line (neither its package nor picocli: PackageArrowsTest keeps it so); it
 * maps settings onto the engine's options records, which validate them. See docs/library.md.
 */
package dev.ducklake.janitor.api;
