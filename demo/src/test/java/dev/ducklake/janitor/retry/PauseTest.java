package dev.ducklake.janitor.retry;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** The one wait of every retry loop: never past the budget, never through a stop request. */
class PauseTest {

    private static Bounds bounds(Duration left, AtomicBoolean stop) {
        return new Bounds() {
            @Override
            public Duration remaining() {
                return left;
            }

            @Override
            public boolean stopRequested() {
                return stop.get();
            }
        };
    }

    @Test
    void anUnboundedWaitPassesWhole() {
        long t0 = System.nanoTime();
        assertThat(Pause.pause(120, Bounds.NONE)).isTrue();
        assertThat((System.nanoTime() - t0) / 1_000_000).isGreaterThanOrEqualTo(120);
    }

    @Test
    void aWaitThatWouldOutlastTheBudgetIsNotStarted() {
        long t0 = System.nanoTime();
        assertThat(Pause.pause(10_000, bounds(Duration.ofMillis(500), new AtomicBoolean()))).isFalse();
        assertThat(Pause.pause(10, bounds(Duration.ZERO, new AtomicBoolean()))).as("a spent budget").isFalse();
        assertThat((System.nanoTime() - t0) / 1_000_000).as("ms: neither waited").isLessThan(400);
    }

    @Test
    void aStopRequestEndsTheWait() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        Thread stopper = new Thread(() -> {
            try {
                Thread.sleep(150);
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
            stop.set(true);
        });
        long t0 = System.nanoTime();
        stopper.start();
        assertThat(Pause.pause(30_000, bounds(null, stop))).isFalse();
        long waited = (System.nanoTime() - t0) / 1_000_000;
        stopper.join();
        assertThat(waited).as("ms: woke within a poll of the stop").isBetween(100L, 150L + 20 * Pause.STOP_POLL_MILLIS);
        assertThat(Pause.pause(10, bounds(null, stop))).as("already stopped: not started").isFalse();
    }
}
