package dev.ducklake.janitor.retry;

/**
 * What a failed unit of work means for a retry, whatever failed: a PostgreSQL statement (classified from its SQLSTATE
 * by {@code pg.SqlState#classify}), a store call (by {@code storage.StorageRetry#kindOf}) or a DuckLake call. What is
 * done about each kind is decided in one place, {@link RetryPolicy}.
 */
public enum FailureKind {
    /** Transient: roll back and retry the same work after a backoff. */
    RETRYABLE,
    /** The service asked to slow down (S3 503 SlowDown): retried as {@link #RETRYABLE}; a caller may lower its concurrency. */
    THROTTLED,
    /** The lock table is full: roll back, halve the batch and retry. */
    LOCK_TABLE_FULL,
    /** The session is gone: reconnect, re-take the advisory lock, resume. */
    CONNECTION_LOST,
    /** A missing privilege: stop with a clear message. */
    PERMISSION_DENIED,
    /** Anything else: stop. */
    FATAL
}
