package dev.ducklake.janitor.storage;

import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How {@link S3FileStore} and its listings send one request: through the one retry loop ({@link StorageRetry}, which
 * counts throttling), within the run's {@link CallBounds} (each call's timeout capped at the budget left; a stop
 * abandons a call in flight), with every SDK failure classified into a {@link StorageException.Kind}.
 */
final class S3Requests {

    private final S3Client client;
    private final S3FileStore.Timeouts timeouts;
    private final Runnable onThrottle;
    private volatile CallBounds bounds = CallBounds.NONE;
    /** Runs the calls of a bound store, so that the caller can stop waiting for one (daemon threads). */
    private final ExecutorService calls = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "ducklake-janitor-s3-call");
        t.setDaemon(true);
        return t;
    });

    /**
     * @param client the SDK client (closed by {@link #close()})
     * @param timeouts its time bounds
     * @param onThrottle told of each throttled attempt
     */
    S3Requests(S3Client client, S3FileStore.Timeouts timeouts, Runnable onThrottle) {
        this.client = client;
        this.timeouts = timeouts;
        this.onThrottle = onThrottle;
    }

    S3Client client() {
        return client;
    }

    void bound(CallBounds b) {
        bounds = b == null ? CallBounds.NONE : b;
    }

    CallBounds bounds() {
        return bounds;
    }

    /** @return the retry loop within the current bounds, counting throttled attempts */
    StorageRetry retry() {
        return StorageRetry.within(bounds, onThrottle);
    }

    /**
     * One ListObjectsV2 page of up to 1,000 keys, through the retry loop and the run's bounds.
     *
     * @param delimiter "/" for one folder level, or null for every key under the prefix
     * @param token the continuation token of the page before, or null for the first page
     * @param startAfter keys after this one only (first page), or null
     */
    ListObjectsV2Response listPage(String bucket, String prefix, String delimiter, String token, String startAfter)
            throws StorageException {
        ListObjectsV2Request.Builder r = ListObjectsV2Request.builder().bucket(bucket).maxKeys(1000);
        if (!prefix.isEmpty()) {
            r.prefix(prefix);
        }
        if (delimiter != null) {
            r.delimiter(delimiter);
        }
        if (token != null) {
            r.continuationToken(token);
        } else if (startAfter != null) {
            r.startAfter(startAfter);
        }
        ListObjectsV2Request req = r.build();
        String where = "list s3://" + bucket + "/" + prefix + (delimiter == null ? "" : " (one level)");
        return retry().call(where,
                () -> call(ov -> client.listObjectsV2(ov == null ? req : req.toBuilder().overrideConfiguration(ov).build()), where));
    }

    /** One SDK request; {@code override} (null for none) caps its call timeout at the budget left. */
    interface SdkCall<T> {
        T run(AwsRequestOverrideConfiguration override);
    }

    /** The least call timeout given to a request near the end of the budget. */
    private static final Duration MIN_CALL_TIMEOUT = Duration.ofMillis(10);
    /** How long past the budget's end a call may still run before it is abandoned (the SDK's timer ends it first). */
    private static final Duration BUDGET_GRACE = Duration.ofSeconds(2);

    /**
     * Runs one SDK request: unbound, on the calling thread; bound ({@link S3FileStore#bound}), with its call timeout capped at the
     * budget left, on a daemon thread while the caller watches the stop request.
     */
    <T> T call(SdkCall<T> c, String where) throws StorageException {
        CallBounds b = bounds;
        if (b == CallBounds.NONE) {
            try {
                return c.run(null);
            } catch (SdkException e) {
                throw classify(e, where);
            }
        }
        Duration left = b.remaining();
        AwsRequestOverrideConfiguration ov = left == null || left.compareTo(timeouts.call()) >= 0 ? null
                : AwsRequestOverrideConfiguration.builder().apiCallTimeout(left.compareTo(MIN_CALL_TIMEOUT) < 0
                        ? MIN_CALL_TIMEOUT : left).build();
        Future<T> f;
        try {
            f = calls.submit(() -> c.run(ov));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            throw new StorageException(StorageException.Kind.OTHER, where + ": the store is closed", e);
        }
        try {
            while (true) {
                try {
                    return f.get(StorageRetry.STOP_POLL_MILLIS, TimeUnit.MILLISECONDS);
                } catch (TimeoutException t) {
                    Duration r = b.remaining();
                    if (b.stopRequested() || r != null && r.plus(BUDGET_GRACE).isNegative()) {
                        f.cancel(true);
                        throw b.ended(where, null);
                    }
                }
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SdkException se) {
                throw classify(se, where);
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error er) {
                throw er;
            }
            throw new StorageException(StorageException.Kind.OTHER, where + ": " + cause.getClass().getSimpleName(), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            f.cancel(true);
            throw b.ended(where, e);
        }
    }

    /**
     * Classifies an SDK failure: 404 / NoSuchKey = not found; 429, 503, SlowDown, Throttling = throttled;
     * 501 / NotImplemented / MissingContentMD5 / 405 = batch delete unsupported; 401 / 403 = access denied;
     * other 5xx, client-side I/O and a call or attempt that ran out of time ({@link Timeouts}) = transient.
     *
     * @param e the SDK's exception
     * @param where the address or bucket concerned
     * @return the classified exception, its message without credentials
     */
    static StorageException classify(SdkException e, String where) {
        if (e instanceof NoSuchKeyException) {
            return new StorageException(StorageException.Kind.NOT_FOUND, "Not found: " + where, e);
        }
        if (e instanceof S3Exception s3) {
            int status = s3.statusCode();
            String code = s3.awsErrorDetails() == null ? null : s3.awsErrorDetails().errorCode();
            String msg = where + ": HTTP " + status + (code == null ? "" : " " + code)
                    + (s3.requestId() == null ? "" : " (request id " + s3.requestId() + ")");
            if (status == 404 && !"NoSuchBucket".equals(code)) {
                return new StorageException(StorageException.Kind.NOT_FOUND, msg, e);
            }
            if (status == 429 || status == 503 || "SlowDown".equals(code) || "Throttling".equals(code)
                    || "ThrottlingException".equals(code) || "RequestLimitExceeded".equals(code)) {
                return new StorageException(StorageException.Kind.THROTTLED, msg, e);
            }
            if (status == 501 || status == 405 || "NotImplemented".equals(code) || "MissingContentMD5".equals(code)) {
                return new StorageException(StorageException.Kind.BATCH_DELETE_UNSUPPORTED, msg, e);
            }
            if (status == 401 || status == 403) {
                return new StorageException(StorageException.Kind.ACCESS_DENIED, msg, e);
            }
            if (status >= 500) {
                return new StorageException(StorageException.Kind.TRANSIENT, msg, e);
            }
            return new StorageException(StorageException.Kind.OTHER, msg, e);
        }
        if (e instanceof ApiCallTimeoutException || e instanceof ApiCallAttemptTimeoutException) {
            // the SDK's message names the bound in milliseconds and nothing secret
            return new StorageException(StorageException.Kind.TRANSIENT, where + ": no answer from the store in time ("
                    + e.getMessage() + ")", e);
        }
        if (e instanceof SdkClientException) {
            String m = String.valueOf(e.getMessage());
            if (m.contains("credentials") || m.contains("Credentials")) {
                return new StorageException(StorageException.Kind.ACCESS_DENIED, where
                        + ": no AWS credentials found in the default provider chain", null);
            }
            return new StorageException(StorageException.Kind.TRANSIENT, where + ": " + e.getClass().getSimpleName(), e);
        }
        return new StorageException(StorageException.Kind.OTHER, where + ": " + e.getClass().getSimpleName(), e);
    }

    void close() {
        calls.shutdownNow();
        client.close();
    }
}
