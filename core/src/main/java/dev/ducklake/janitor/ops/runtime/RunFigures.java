package dev.ducklake.janitor.ops.runtime;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.util.List;

/**
 * The generic figures of one run, carried by every result (as a {@code @JsonUnwrapped} component, so they are
 * top-level members of the result's JSON). Built by {@link RunRecorder#figures}.
 *
 * @param batches batches committed
 * @param retries attempts retried after a retryable error (backoff or a halved batch)
 * @param reconnects reconnects after a lost connection
 * @param batchSizeRequested the batch size asked for (0, and absent from the JSON, for an operation without a batch
 *     size, such as delete-orphan-files: it lists once and deletes in the store's own batches)
 * @param batchSizeStart the batch size used at the start (after the lock budget)
 * @param batchSizeFinal the batch size at the end (after halvings and growth)
 * @param stopReason why the run ended before its work was done, or {@link StopReason#COMPLETED}
 * @param elapsedSeconds wall-clock duration of the run, seconds
 * @param warnings warnings raised during the run (at most {@value RunRecorder#MAX_WARNINGS} listed)
 * @param warningsTruncated whether more warnings were raised than listed
 * @param warningsTotal how many warnings were raised
 */
public record RunFigures(int batches, int retries, int reconnects,
                         @JsonInclude(JsonInclude.Include.NON_DEFAULT) @Figure.NotSummed int batchSizeRequested,
                         @JsonInclude(JsonInclude.Include.NON_DEFAULT) @Figure.NotSummed int batchSizeStart,
                         @JsonInclude(JsonInclude.Include.NON_DEFAULT) @Figure.NotSummed int batchSizeFinal, @JsonIgnore StopReason stopReason, double elapsedSeconds,
                         List<String> warnings, boolean warningsTruncated, long warningsTotal) {

    /** Why a run ended. */
    public enum StopReason {
        /** The work was done (or nothing was left). */
        COMPLETED,
        /** --run-budget was spent (also: a retry backoff would have passed it). */
        RUN_BUDGET,
        /** requestStop() was called (SIGTERM/SIGINT). */
        STOP_REQUESTED,
        /** --max-batches was reached. */
        MAX_BATCHES
    }

    /**
     * @return whether the run stopped early because the run budget was spent (also: a retry backoff would have passed
     *     it). A stop request (SIGTERM/SIGINT, {@code requestStop()}) is not a spent budget: {@link #stopRequested()}
     *     (until stop 39 both said true here, and a document after SIGTERM claimed the budget was exhausted)
     */
    @JsonProperty("budget_exhausted")
    public boolean budgetExhausted() {
        return stopReason == StopReason.RUN_BUDGET;
    }

    /** @return whether the run stopped early because a stop was requested (SIGTERM/SIGINT, {@code requestStop()}) */
    @JsonIgnore
    public boolean stopRequested() {
        return stopReason == StopReason.STOP_REQUESTED;
    }

    /** @return whether the run stopped because --max-batches was reached */
    @JsonProperty("max_batches_reached")
    public boolean maxBatchesReached() {
        return stopReason == StopReason.MAX_BATCHES;
    }
}
