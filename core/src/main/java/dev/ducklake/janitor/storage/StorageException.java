package dev.ducklake.janitor.storage;

import java.io.IOException;

/**
 * A failure of a file store, classified so that callers (and the shared retry policy) know what to do.
 * Messages name the location and the store's error code, never credentials.
 */
public final class StorageException extends IOException {

    private static final long serialVersionUID = 1L;

    /** What kind of failure it is. */
    public enum Kind {
        /** The object does not exist: for a delete it is already gone. */
        NOT_FOUND,
        /** The store asked us to slow down (HTTP 429/503, SlowDown, Throttling): back off and retry. */
        THROTTLED,
        /** The store does not implement multi-object delete: delete one object at a time from now on. */
        BATCH_DELETE_UNSUPPORTED,
        /** Access denied or missing credentials: stop. */
        ACCESS_DENIED,
        /** A transient network or server failure (5xx, connection reset): retry. */
        TRANSIENT,
        /** Anything else: report it for this object and go on. */
        OTHER,
        /**
         * The run was asked to stop, or its run budget ran out, before or during the call ({@link CallBounds}); a call
         * that was in flight may or may not have taken effect. Never retried: the run ends with what it did so far.
         */
        STOPPED
    }

    private final Kind kind;

    /**
     * @param kind the classification
     * @param message what failed, naming the location
     * @param cause the underlying error, may be null
     */
    public StorageException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    /** The classification. */
    public Kind kind() {
        return kind;
    }

    /** Whether retrying the same call after a backoff may succeed. */
    public boolean retryable() {
        return kind == Kind.THROTTLED || kind == Kind.TRANSIENT;
    }
}
