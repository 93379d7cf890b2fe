package dev.ducklake.janitor.storage;

import dev.ducklake.janitor.ops.RetryPolicy;
import dev.ducklake.janitor.pg.SqlState;

/**
 * Retries a store call through the shared {@link RetryPolicy}: a throttled or transient
 * {@link StorageException} counts as {@link SqlState.Kind#RETRYABLE} (same attempt limit, same backoff formula as
 * database work); access denied counts as {@link SqlState.Kind#PERMISSION_DENIED}; not found and "batch delete
 * unsupported" are never retried (the caller decides: already gone / switch to single deletes).
 */
public final class StorageRetry {

    /** The one instance. */
    public static final StorageRetry DEFAULT = new StorageRetry();

    private StorageRetry() {
    }

    /** A call to a store. */
    public interface StoreCall<T> {
        /** @return the call's result */
        T run() throws StorageException;
    }

    /**
     * How the shared retry policy sees a storage failure.
     *
     * @param e the failure
     * @return its classification in the policy's terms
     */
    public static SqlState.Kind kindOf(StorageException e) {
        return switch (e.kind()) {
            case THROTTLED, TRANSIENT -> SqlState.Kind.RETRYABLE;
            case ACCESS_DENIED -> SqlState.Kind.PERMISSION_DENIED;
            default -> SqlState.Kind.FATAL;
        };
    }

    /**
     * Runs the call, retrying what the policy says to retry, after the policy's backoff.
     *
     * @param what a description (unused in messages for now; the exception names the location)
     * @param call the call
     * @return its result
     * @throws StorageException the last failure when the policy gives up, or at once when not retryable
     */
    public <T> T call(String what, StoreCall<T> call) throws StorageException {
        for (int attempt = 1; ; attempt++) {
            try {
                return call.run();
            } catch (StorageException e) {
                RetryPolicy.Decision d = RetryPolicy.DEFAULT.decide(kindOf(e), attempt, 0, false);
                if (d.action() != RetryPolicy.Action.RETRY) {
                    throw e;
                }
                try {
                    Thread.sleep(d.backoffMillis());
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }
}
