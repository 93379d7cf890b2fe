package dev.ducklake.janitor.retry;

/**
 * The one retry loop of every unit of work (a batch's transaction, a read-only query, a store call, a DuckLake call):
 * it runs an attempt, and on a failure of its failure type asks the {@link RetryPolicy} what to do and does it
 * through the caller's {@link Hooks}: reconnect, halve the batch, wait the backoff (through {@link Pause}, so never
 * through a stop request or past the run budget) and try again, or fail. What differs between callers (how a failure
 * is classified, what is rolled back, what is said, which exception ends the run) is a hook; the order of the steps,
 * the attempt and reconnect counting and the wait are here once.
 *
 * <pre>{@code
 * T value = RetryLoop.of(SQLException.class, RetryPolicy.DEFAULT, budget, hooks).run(() -> query(connection()));
 * }</pre>
 *
 * @param <F> the failure the policy judges (e.g. {@link java.sql.SQLException}); anything else an attempt throws
 *     passes through unchanged
 * @param <X> the exception that ends the loop (the hooks' {@link Hooks#fail}); an attempt may throw it too
 */
public final class RetryLoop<F extends Exception, X extends Exception> {

    /** One attempt of the unit of work. */
    @FunctionalInterface
    public interface Attempt<T, F extends Exception, X extends Exception> {
        /**
         * @return the unit's value
         * @throws F a failure the policy judges
         * @throws X passed through unchanged
         */
        T run() throws F, X;
    }

    /**
     * What a caller does at each step of the loop. Only {@link #classify} and {@link #fail} are required.
     *
     * @param <F> the failure type
     * @param <X> the exception that ends the loop
     */
    public interface Hooks<F extends Exception, X extends Exception> {

        /** @return how the policy sees the failure */
        FailureKind classify(F failure);

        /**
         * The exception that ends the loop: the policy said {@link RetryPolicy.Action#FAIL} (attempts or reconnects
         * used up, or a failure never retried).
         *
         * @param failure the last failure
         * @param decision the policy's decision
         * @return the exception to throw
         */
        X fail(F failure, RetryPolicy.Decision decision);

        /**
         * Called before each attempt; may end the loop (e.g. no attempt starts once the bounds are spent).
         *
         * @param attempt the attempt about to start, from 1
         */
        default void beforeAttempt(int attempt) throws X {
        }

        /** Called on every failure before the policy decides (roll back, count a throttle). */
        default void failed(F failure) {
        }

        /** @return whether the unit of work is a batch that can be halved ({@link RetryPolicy.Action#HALVE}) */
        default boolean canHalve() {
            return false;
        }

        /**
         * The policy said {@link RetryPolicy.Action#RECONNECT}: reopen the session.
         *
         * @param failure the failure
         * @param reconnects reconnects within this unit so far, this one included
         */
        default void reconnect(F failure, int reconnects) throws X {
            throw fail(failure, new RetryPolicy.Decision(RetryPolicy.Action.FAIL, classify(failure), 0));
        }

        /**
         * The policy said {@link RetryPolicy.Action#HALVE}: halve the batch (the next attempt takes the smaller size).
         *
         * @param failure the failure
         * @param attempt the attempt that failed
         */
        default void halve(F failure, int attempt) {
        }

        /**
         * The policy said {@link RetryPolicy.Action#RETRY} and the bounds allow its backoff; called before the backoff
         * (a backoff the bounds refuse up front goes to {@link #waitRefused} without this call).
         *
         * @param failure the failure
         * @param decision the decision (its backoff)
         * @param attempt the attempt that failed
         */
        default void retrying(F failure, RetryPolicy.Decision decision, int attempt) {
        }

        /**
         * The backoff was not waited (a stop was requested, or the run budget would be spent by its end): end the loop
         * with an exception, or return the unit's value (e.g. null for "abandoned").
         *
         * @param failure the failure that was not retried
         * @param decision the decision
         * @param <T> the unit's value type
         * @return the unit's value
         */
        default <T> T waitRefused(F failure, RetryPolicy.Decision decision) throws X {
            throw fail(failure, decision);
        }

        /**
         * The backoff passed; the next attempt follows.
         *
         * @param failure the failure
         * @param decision the decision
         * @param attempt the attempt that failed
         */
        default void retried(F failure, RetryPolicy.Decision decision, int attempt) {
        }
    }

    private final Class<F> failureType;
    private final RetryPolicy policy;
    private final Bounds bounds;
    private final Hooks<F, X> hooks;

    private RetryLoop(Class<F> failureType, RetryPolicy policy, Bounds bounds, Hooks<F, X> hooks) {
        this.failureType = failureType;
        this.policy = policy;
        this.bounds = bounds;
        this.hooks = hooks;
    }

    /**
     * @param failureType the failures the policy judges
     * @param policy attempts, reconnects, backoff
     * @param bounds the run's budget and stop request, which a backoff never waits past
     * @param hooks the caller's steps
     * @param <F> the failure type
     * @param <X> the exception that ends the loop
     * @return the loop
     */
    public static <F extends Exception, X extends Exception> RetryLoop<F, X> of(Class<F> failureType, RetryPolicy policy,
                                                                                 Bounds bounds, Hooks<F, X> hooks) {
        return new RetryLoop<>(failureType, policy, bounds, hooks);
    }

    /**
     * Runs the unit of work until it succeeds, the policy gives up or the bounds refuse a backoff.
     *
     * @param attempt the unit of work
     * @param <T> its value
     * @return its value, or what {@link Hooks#waitRefused} returned
     * @throws X from {@link Hooks#fail}, {@link Hooks#waitRefused}, {@link Hooks#reconnect} or the attempt itself
     */
    public <T> T run(Attempt<T, F, X> attempt) throws X {
        int n = 1;
        int reconnects = 0;
        while (true) {
            hooks.beforeAttempt(n);
            F failure;
            try {
                return attempt.run();
            } catch (Exception e) {
                if (!failureType.isInstance(e)) {
                    throw RetryLoop.<RuntimeException>passThrough(e);
                }
                failure = failureType.cast(e);
            }
            hooks.failed(failure);
            RetryPolicy.Decision d = policy.decide(hooks.classify(failure), n, reconnects, hooks.canHalve());
            switch (d.action()) {
                case RECONNECT -> hooks.reconnect(failure, ++reconnects);
                case HALVE -> {
                    hooks.halve(failure, n);
                    n++;
                }
                case RETRY -> {
                    // a backoff the bounds refuse up front is not announced: the caller says "not retried" only
                    // (before stop 39 it said "retrying in 200 ms" and then "not retried" for the same failure)
                    if (!Pause.wouldStart(d.backoffMillis(), bounds)) {
                        return hooks.waitRefused(failure, d);
                    }
                    hooks.retrying(failure, d, n);
                    if (!Pause.pause(d.backoffMillis(), bounds)) {
                        return hooks.waitRefused(failure, d); // a stop request during the wait
                    }
                    hooks.retried(failure, d, n);
                    n++;
                }
                default -> throw hooks.fail(failure, d);
            }
        }
    }

    /** Rethrows what the attempt threw that is not the failure type: its own X, or an unchecked exception. */
    @SuppressWarnings("unchecked")
    private static <E extends Exception> E passThrough(Exception e) throws E {
        throw (E) e;
    }
}
