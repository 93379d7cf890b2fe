package dev.ducklake.janitor.storage;

import dev.ducklake.janitor.retry.RetryPolicy;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 28 item 15: the store's retry loop ends with the run budget and on the stop request; its backoff wakes on
 * the stop instead of sleeping it out.
 */
class StorageRetryBoundsTest {

    private static CallBounds bounds(AtomicBoolean stop, long deadlineNanos) {
        return new CallBounds() {
            @Override
            public Duration remaining() {
                return deadlineNanos == Long.MAX_VALUE ? null : Duration.ofNanos(deadlineNanos - System.nanoTime());
            }

            @Override
            public boolean stopRequested() {
                return stop.get();
            }
        };
    }

    private static final StorageRetry.StoreCall<String> ALWAYS_TRANSIENT = () -> {
        throw new StorageException(StorageException.Kind.TRANSIENT, "s3://b/k: HTTP 500", null);
    };

    @Test
    void theBackoffWakesOnTheStopRequest() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger attempts = new AtomicInteger();
        StorageRetry retry = StorageRetry.within(bounds(stop, Long.MAX_VALUE));
        Thread stopper = new Thread(() -> {
            try {
                Thread.sleep(700);
            } catch (InterruptedException ignored) {
                return;
            }
            stop.set(true);
        });
        long t0 = System.nanoTime();
        stopper.start();
        assertThatThrownBy(() -> retry.call("list s3://b/", () -> {
            attempts.incrementAndGet();
            return ALWAYS_TRANSIENT.run();
        })).isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.STOPPED))
                .hasMessageContaining("asked to stop");
        double took = (System.nanoTime() - t0) / 1e9;
        long unbounded = 0;
        for (int a = 1; a < RetryPolicy.MAX_ATTEMPTS; a++) {
            unbounded += RetryPolicy.backoffMillis(a);
        }
        assertThat(unbounded).as("what the backoffs alone would take, ms").isGreaterThan(2500);
        assertThat(took).as("seconds: the stop at 0.7 s ends the backoff in progress (unbounded: 3 s)").isLessThan(2.0);
        assertThat(attempts.get()).as("attempts 1 and 2 (backoffs 200 + 400 ms) before the stop, 3 just after")
                .isBetween(2, 3);
    }

    @Test
    void noBackoffPastTheBudgetAndNoAttemptAfterIt() {
        AtomicInteger attempts = new AtomicInteger();
        StorageRetry retry = StorageRetry.within(bounds(new AtomicBoolean(), System.nanoTime() + 500_000_000L));
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> retry.call("list s3://b/", () -> {
            attempts.incrementAndGet();
            return ALWAYS_TRANSIENT.run();
        })).isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.STOPPED))
                .hasMessageContaining("run budget ran out")
                .hasCauseInstanceOf(StorageException.class);
        double took = (System.nanoTime() - t0) / 1e9;
        assertThat(took).as("seconds: 200 ms backoff, then the 400 ms one would pass the 0.5 s budget (unbounded: 3 s)")
                .isLessThan(2.0);
        assertThat(attempts.get()).isEqualTo(2);
        AtomicInteger late = new AtomicInteger();
        assertThatThrownBy(() -> StorageRetry.within(bounds(new AtomicBoolean(), System.nanoTime() - 1)).call("stat s3://b/k", () -> {
            late.incrementAndGet();
            return "x";
        })).isInstanceOfSatisfying(StorageException.class, e -> assertThat(e.kind()).isEqualTo(StorageException.Kind.STOPPED));
        assertThat(late.get()).as("no call starts once the budget is spent").isZero();
    }

    @Test
    void unboundedRetriesAreUnchanged() throws Exception {
        AtomicInteger attempts = new AtomicInteger();
        assertThat(StorageRetry.DEFAULT.call("x", () -> attempts.incrementAndGet() < 3 ? ALWAYS_TRANSIENT.run() : "ok")).isEqualTo("ok");
        assertThat(attempts.get()).isEqualTo(3);
    }
}
