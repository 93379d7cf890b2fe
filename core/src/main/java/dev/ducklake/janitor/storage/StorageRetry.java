package dev.ducklake.janitor.storage;

import dev.ducklake.janitor.retry.FailureKind;
import dev.ducklake.janitor.retry.Pause;
import dev.ducklake.janitor.retry.RetryLoop;
import dev.ducklake.janitor.retry.RetryPolicy;

/**
 * Retries a store call through the shared {@link RetryPolicy}: a throttled {@link StorageException} counts as
 * {@link FailureKind#THROTTLED}, a transient one as {@link FailureKind#RETRYABLE} (same attempt limit, same backoff
 * formula as database work); access denied counts as {@link FailureKind#PERMISSION_DENIED}; not found and "batch delete
 * unsupported" are never retried (the caller decides: already gone / switch to single deletes). Within
 * {@link CallBounds}: no attempt starts once a stop is requested or the run budget is spent, a backoff that would
 * pass the budget is not waited, and a backoff wakes on the stop (checked every {@value #STOP_POLL_MILLIS} ms); the
 * call then fails with {@link StorageException.Kind#STOPPED}.
 */
public final class StorageRetry {

    /** How often a backoff (and a call in flight, {@link S3FileStore}) looks at the stop request, milliseconds. */
    public static final long STOP_POLL_MILLIS = Pause.STOP_POLL_MILLIS;

    /** Unbounded: the policy's attempts and backoffs only. */
    public static final StorageRetry DEFAULT = new StorageRetry(CallBounds.NONE);

    private final CallBounds bounds;
    /** Told of each throttled attempt (before its backoff), or null. */
    private final Runnable onThrottle;

    private StorageRetry(CallBounds bounds) {
        this(bounds, null);
    }

    private StorageRetry(CallBounds bounds, Runnable onThrottle) {
        this.bounds = bounds;
        this.onThrottle = onThrottle;
    }

    /**
     * @param bounds the run's budget and stop request
     * @param onThrottle told of each attempt that failed with {@link StorageException.Kind#THROTTLED} (so that a
     *     caller with several calls in flight can lower its concurrency); called on the calling thread
     * @return a retry loop within the bounds that reports throttling
     */
    public static StorageRetry within(CallBounds bounds, Runnable onThrottle) {
        return new StorageRetry(bounds, onThrottle);
    }

    /**
     * @param bounds the run's budget and stop request
     * @return a retry loop within them
     */
    public static StorageRetry within(CallBounds bounds) {
        return bounds == CallBounds.NONE ? DEFAULT : new StorageRetry(bounds);
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
    public static FailureKind kindOf(StorageException e) {
        return switch (e.kind()) {
            case THROTTLED -> FailureKind.THROTTLED;
            case TRANSIENT -> FailureKind.RETRYABLE;
            case ACCESS_DENIED -> FailureKind.PERMISSION_DENIED;
            default -> FailureKind.FATAL;
        };
    }

    /**
     * Runs the call, retrying what the policy says to retry, after the policy's backoff.
     *
     * @param what a description (unused in messages for now; the exception names the location)
     * @param call the call
     * @return its result
     * @throws StorageException the last failure when the policy gives up, or at once when not retryable; kind
     *     {@link StorageException.Kind#STOPPED} when the bounds end the loop (before an attempt or instead of a backoff)
     */
    public <T> T call(String what, StoreCall<T> call) throws StorageException {
        return RetryLoop.of(StorageException.class, RetryPolicy.DEFAULT, bounds, new RetryLoop.Hooks<StorageException, StorageException>() {
            @Override
            public void beforeAttempt(int attempt) throws StorageException {
                if (bounds.exhausted()) {
                    throw bounds.ended(what, null);
                }
            }

            @Override
            public void failed(StorageException e) {
                if (e.kind() == StorageException.Kind.THROTTLED && onThrottle != null) {
                    onThrottle.run();
                }
            }

            @Override
            public FailureKind classify(StorageException e) {
                return kindOf(e);
            }

            @Override
            public StorageException fail(StorageException e, RetryPolicy.Decision d) {
                // the failure is the bound's doing (a call cut at the budget's end): say so
                return e.kind() != StorageException.Kind.STOPPED && bounds.exhausted() ? bounds.ended(what, e) : e;
            }

            @Override
            public <V> V waitRefused(StorageException e, RetryPolicy.Decision d) throws StorageException {
                throw Thread.currentThread().isInterrupted() ? e : bounds.ended(what, e);
            }
        }).run(call::run);
    }
}
