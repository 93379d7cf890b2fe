/**
 * Retries, below {@code ops} and {@code storage} (beside {@code pg}): the failure kinds ({@link
 * dev.ducklake.janitor.retry.FailureKind}: SQLSTATEs, store failures and DuckLake conflicts map onto them), one backoff
 * type ({@link dev.ducklake.janitor.retry.Backoff}), one configurable policy ({@link
 * dev.ducklake.janitor.retry.RetryPolicy}, {@code DEFAULT} for every operation) and one wait ({@link
 * dev.ducklake.janitor.retry.Pause}) that no loop sleeps through a stop request or past the run budget with ({@link
 * dev.ducklake.janitor.retry.Bounds}: the run's clock, a store's call bounds), and the one loop that applies them
 * ({@link dev.ducklake.janitor.retry.RetryLoop}: the batch loop, the read-only path and every store call run their
 * attempts through it; what differs between them is a hook).
 */
package dev.ducklake.janitor.retry;
