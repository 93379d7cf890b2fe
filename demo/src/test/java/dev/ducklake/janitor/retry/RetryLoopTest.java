package dev.ducklake.janitor.retry;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryLoopTest {

    /** A failure of a given kind. */
    static final class Failure extends Exception {
        final FailureKind kind;

        Failure(FailureKind kind) {
            super(kind.name());
            this.kind = kind;
        }
    }

    static final class Ended extends Exception {
        Ended(String m) {
            super(m);
        }
    }

    static final RetryPolicy FAST = new RetryPolicy(4, 2, new Backoff(1, 2));

    /** Hooks that write down every step. */
    static class Log implements RetryLoop.Hooks<Failure, Ended> {
        final List<String> steps = new ArrayList<>();

        @Override
        public FailureKind classify(Failure f) {
            return f.kind;
        }

        @Override
        public Ended fail(Failure f, RetryPolicy.Decision d) {
            steps.add("fail " + d.kind());
            return new Ended(d.kind().name());
        }

        @Override
        public void beforeAttempt(int attempt) {
            steps.add("attempt " + attempt);
        }

        @Override
        public void failed(Failure f) {
            steps.add("failed " + f.kind);
        }

        @Override
        public boolean canHalve() {
            return true;
        }

        @Override
        public void reconnect(Failure f, int reconnects) {
            steps.add("reconnect " + reconnects);
        }

        @Override
        public void halve(Failure f, int attempt) {
            steps.add("halve after " + attempt);
        }

        @Override
        public void retrying(Failure f, RetryPolicy.Decision d, int attempt) {
            steps.add("retrying after " + attempt + " in " + d.backoffMillis());
        }

        @Override
        public void retried(Failure f, RetryPolicy.Decision d, int attempt) {
            steps.add("retried " + attempt);
        }
    }

    @Test
    void reconnectsDoNotCountAsAttemptsAndEachActionCallsItsHook() throws Exception {
        Log log = new Log();
        FailureKind[] script = {FailureKind.CONNECTION_LOST, FailureKind.LOCK_TABLE_FULL, FailureKind.RETRYABLE};
        AtomicInteger calls = new AtomicInteger();
        String v = RetryLoop.of(Failure.class, FAST, Bounds.NONE, log).run(() -> {
            int i = calls.getAndIncrement();
            if (i < script.length) {
                throw new Failure(script[i]);
            }
            return "done";
        });
        assertThat(v).isEqualTo("done");
        assertThat(log.steps).containsExactly("attempt 1", "failed CONNECTION_LOST", "reconnect 1",
                "attempt 1", "failed LOCK_TABLE_FULL", "halve after 1",
                "attempt 2", "failed RETRYABLE", "retrying after 2 in 2", "retried 2",
                "attempt 3");
    }

    @Test
    void thePolicyEndsTheLoopThroughFail() {
        Log log = new Log();
        assertThatThrownBy(() -> RetryLoop.of(Failure.class, FAST, Bounds.NONE, log).run(() -> {
            throw new Failure(FailureKind.RETRYABLE);
        })).isInstanceOf(Ended.class).hasMessage("RETRYABLE");
        assertThat(log.steps).filteredOn(s -> s.startsWith("attempt")).hasSize(FAST.maxAttempts());
        Log reconnecting = new Log();
        assertThatThrownBy(() -> RetryLoop.of(Failure.class, FAST, Bounds.NONE, reconnecting).run(() -> {
            throw new Failure(FailureKind.CONNECTION_LOST);
        })).isInstanceOf(Ended.class);
        assertThat(reconnecting.steps).filteredOn(s -> s.startsWith("reconnect")).containsExactly("reconnect 1", "reconnect 2");
        Log fatal = new Log();
        assertThatThrownBy(() -> RetryLoop.of(Failure.class, FAST, Bounds.NONE, fatal).run(() -> {
            throw new Failure(FailureKind.PERMISSION_DENIED);
        })).isInstanceOf(Ended.class);
        assertThat(fatal.steps).containsExactly("attempt 1", "failed PERMISSION_DENIED", "fail PERMISSION_DENIED");
    }

    @Test
    void otherExceptionsOfTheAttemptPassThroughUntouched() {
        Log log = new Log();
        RetryLoop<Failure, Ended> loop = RetryLoop.of(Failure.class, FAST, Bounds.NONE, log);
        assertThatThrownBy(() -> loop.run(() -> {
            throw new Ended("its own");
        })).isInstanceOf(Ended.class).hasMessage("its own");
        assertThatThrownBy(() -> loop.run(() -> {
            throw new IllegalStateException("unchecked");
        })).isInstanceOf(IllegalStateException.class);
        assertThat(log.steps).containsExactly("attempt 1", "attempt 1");
    }

    @Test
    void aBackoffTheBoundsRefuseEndsTheLoopThroughWaitRefused() throws Exception {
        Bounds stopped = new Bounds() {
            @Override
            public Duration remaining() {
                return null;
            }

            @Override
            public boolean stopRequested() {
                return true;
            }
        };
        Log log = new Log() {
            @Override
            @SuppressWarnings("unchecked")
            public <T> T waitRefused(Failure f, RetryPolicy.Decision d) {
                steps.add("refused");
                return (T) "abandoned";
            }
        };
        String v = RetryLoop.of(Failure.class, FAST, stopped, log).run(() -> {
            throw new Failure(FailureKind.THROTTLED);
        });
        assertThat(v).isEqualTo("abandoned");
        // stop 39: not announced as retrying first (the log said "retrying in 200 ms", then "not retried")
        assertThat(log.steps).containsExactly("attempt 1", "failed THROTTLED", "refused");
        // a budget that a backoff would outlast refuses it too
        Bounds almostSpent = new Bounds() {
            @Override
            public Duration remaining() {
                return Duration.ofMillis(1);
            }

            @Override
            public boolean stopRequested() {
                return false;
            }
        };
        Log spent = new Log();
        assertThatThrownBy(() -> RetryLoop.of(Failure.class, new RetryPolicy(3, 0, new Backoff(50, 50)), almostSpent, spent)
                .run(() -> {
                    throw new Failure(FailureKind.RETRYABLE);
                })).as("by default a refused backoff fails").isInstanceOf(Ended.class).hasMessage("RETRYABLE");
        assertThat(spent.steps).containsExactly("attempt 1", "failed RETRYABLE", "fail RETRYABLE");
    }
}
