package dev.ducklake.janitor.ops.compact;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;

import java.util.List;

/**
 * One table of a {@link CompactResult}: its plan and what the run did with it.
 *
 * @param plan the plan (flattened into the JSON)
 * @param status {@code planned} (dry run), {@code done}, {@code deferred} (beyond --max-tables, or the run stopped first),
 *     {@code stopped} (a stop request or the run budget ended its calls: a call in flight cancelled, DuckDB rolled it
 *     back, or a call not started; the calls and passes before it committed; the next run does the rest)
 * @param attempts attempts of the calls, retries included (0 unless executed)
 * @param seconds wall time of the calls, seconds
 * @param output what DuckLake's calls returned (rows as {@code col|col}; e.g. the flush's {@code schema|table|rows_flushed})
 * @param passes how many times the table's calls all ran in this run: 1, or more when a merge capped or split by
 *     {@code --max-input-files} left work and the table was planned and called again (0 unless executed; a stopped
 *     pass is not counted)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TableOutcome(@JsonUnwrapped TablePlan plan, String status, int attempts, double seconds, List<String> output,
                           int passes) {

    /** An outcome of one pass ({@code done}) or none (planned, deferred). */
    public TableOutcome(TablePlan plan, String status, int attempts, double seconds, List<String> output) {
        this(plan, status, attempts, seconds, output, "done".equals(status) ? 1 : 0);
    }

    /**
     * This outcome followed by another pass on the same table.
     *
     * @param next the next pass's outcome
     * @return the first pass's plan (the figures as planned at the start), attempts, seconds and output summed, passes
     *     summed, the next pass's status when it was stopped
     */
    public TableOutcome then(TableOutcome next) {
        List<String> out = new java.util.ArrayList<>(output == null ? List.of() : output);
        if (next.output() != null) {
            out.addAll(next.output());
        }
        return new TableOutcome(plan, "stopped".equals(next.status()) ? next.status() : status, attempts + next.attempts(), seconds + next.seconds(), List.copyOf(out), passes + next.passes());
    }
}
