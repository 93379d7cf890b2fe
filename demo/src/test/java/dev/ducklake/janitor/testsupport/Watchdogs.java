package dev.ducklake.janitor.testsupport;

import dev.ducklake.janitor.ops.runtime.MaintenanceRun;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** The run's watchdog in tests of what follows a stop. */
public final class Watchdogs {

    private Watchdogs() {
    }

    /**
     * Asks the run to stop and waits (up to 10 s) until its watchdog has sent its one cancel and that cancel has been
     * handed to the server, where it reaches the idle session and is dropped: a test can then play a late cancel of its
     * own without the watchdog's landing on it.
     *
     * @param run the open run
     * @param stop the run's stop flag
     * @throws InterruptedException when interrupted while waiting
     */
    public static void stopAndAwaitCancel(MaintenanceRun run, AtomicBoolean stop) throws InterruptedException {
        stop.set(true);
        long until = System.nanoTime() + 10_000_000_000L;
        while (!run.watchdog().fired() && System.nanoTime() < until) {
            Thread.sleep(10);
        }
        assertThat(run.watchdog().fired()).as("the watchdog sent its cancel").isTrue();
        run.watchdog().awaitCancelsSent(Duration.ofSeconds(10));
    }
}
