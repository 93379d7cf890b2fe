package dev.ducklake.janitor.ops.compact;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;

import java.util.List;

/**
 * One table of a {@link CompactResult}: its plan and what the run did with it.
 *
 * @param plan the plan (flattened into the JSON)
 * @param status {@code planned} (dry run), {@code done}, {@code deferred} (beyond --max-tables, or the run stopped first),
 *     {@code failed}
 * @param attempts attempts of the calls, retries included (0 unless executed)
 * @param seconds wall time of the calls, seconds
 * @param output what DuckLake's calls returned (rows as {@code col|col}; e.g. the flush's {@code schema|table|rows_flushed})
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TableOutcome(@JsonUnwrapped TablePlan plan, String status, int attempts, double seconds, List<String> output) {
}
