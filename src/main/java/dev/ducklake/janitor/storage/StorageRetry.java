package dev.ducklake.janitor.storage;

/**
 * Retries a store call that failed with a retryable {@link StorageException} (throttled or transient), with
 * exponential backoff. Not found, access denied and "batch delete unsupported" are never retried: the caller
 * decides (already gone / stop / switch to single deletes).
 *
 * @param attempts how many calls at most (at least 1)
 * @param firstBackoffMillis the pause after the first failure, in milliseconds; doubled after each failure
 * @param maxBackoffMillis the longest pause, in milliseconds
 */
public record StorageRetry(int attempts, long firstBackoffMillis, long maxBackoffMillis) {

    /** 6 attempts, 200 ms doubling up to 10 s (on top of the AWS SDK's own retries). */
    public static final StorageRetry DEFAULT = new StorageRetry(6, 200, 10_000);

    /** A call to a store. */
    public interface StoreCall<T> {
        /** @return the call's result */
        T run() throws StorageException;
    }

    /**
     * Runs the call, retrying throttled and transient failures.
     *
     * @param what a description for the final error message
     * @param call the call
     * @return its result
     * @throws StorageException the last failure when attempts are used up, or at once when not retryable
     */
    public <T> T call(String what, StoreCall<T> call) throws StorageException {
        long pause = firstBackoffMillis;
        for (int i = 1; ; i++) {
            try {
                return call.run();
            } catch (StorageException e) {
                if (!e.retryable() || i >= attempts) {
                    throw e;
                }
                try {
                    Thread.sleep(pause);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
                pause = Math.min(maxBackoffMillis, pause * 2);
            }
        }
    }
}
