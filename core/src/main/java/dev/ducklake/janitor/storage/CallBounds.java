package dev.ducklake.janitor.storage;

import java.time.Duration;

/**
 * What bounds every call to a store beyond the store's own timeouts: the time left of the run's budget and the
 * run's stop request (SIGTERM/SIGINT). A bound store caps each call's timeout at the time left, gives up retrying
 * once it is spent or a stop is requested (a retry backoff wakes on the stop), and abandons a call in flight when a
 * stop is requested; such a call fails with {@link StorageException.Kind#STOPPED}. The retry loop's own
 * {@link dev.ducklake.janitor.retry.Bounds}, with the storage failure it ends with.
 */
public interface CallBounds extends dev.ducklake.janitor.retry.Bounds {

    /** No budget, never stopped. */
    CallBounds NONE = new CallBounds() {
        @Override
        public Duration remaining() {
            return null;
        }

        @Override
        public boolean stopRequested() {
            return false;
        }
    };

    /**
     * The failure of a call that the bounds ended (or did not let start).
     *
     * @param where what the call was doing ({@code list s3://bucket/prefix})
     * @param cause the failure the call ended with, may be null
     * @return a {@link StorageException.Kind#STOPPED} exception naming the bound
     */
    default StorageException ended(String where, Throwable cause) {
        return new StorageException(StorageException.Kind.STOPPED, where + ": " + (stopRequested()
                ? "abandoned, the run was asked to stop (SIGTERM/SIGINT)" : "abandoned, the run budget ran out"), cause);
    }
}
