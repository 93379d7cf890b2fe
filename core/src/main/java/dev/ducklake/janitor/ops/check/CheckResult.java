package dev.ducklake.janitor.ops.check;

import dev.ducklake.janitor.catalog.health.Finding;
import java.util.List;
import java.util.Map;

/**
 * What {@code check} found in one metadata schema.
 *
 * @param schema the metadata schema
 * @param formatVersion the catalog format version
 * @param status {@value #CLEAN} (no finding, every rule ran), {@value #FINDINGS} (at least one finding) or
 *     {@value #INCOMPLETE} (no finding, but a rule failed: the catalog is not known to be clean)
 * @param findings the kinds with a count above 0, in report order
 * @param counts every kind checked and its count (0 included), in report order
 * @param errors kinds whose rule failed, with the error (SQLSTATE and message); empty when all ran
 * @param elapsedSeconds wall time of the check, seconds
 * @param ruleSeconds wall time of each rule, seconds, in report order
 * @param storage the comparison with the store ({@code check --storage}), or null (left out of JSON) without it
 */
public record CheckResult(String schema, String formatVersion, String status, List<Finding> findings, Map<String, Long> counts,
                          List<RuleError> errors, double elapsedSeconds, Map<String, Double> ruleSeconds,
                          @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
                          dev.ducklake.janitor.ops.files.MissingObjects.Result storage) {

    /** A result without the storage comparison. */
    public CheckResult(String schema, String formatVersion, String status, List<Finding> findings, Map<String, Long> counts,
                       List<RuleError> errors, double elapsedSeconds, Map<String, Double> ruleSeconds) {
        this(schema, formatVersion, status, findings, counts, errors, elapsedSeconds, ruleSeconds, null);
    }

    /** Status: nothing found, every rule ran. */
    public static final String CLEAN = "clean";
    /** Status: at least one finding. */
    public static final String FINDINGS = "findings";
    /** Status: no finding, but at least one rule failed. */
    public static final String INCOMPLETE = "incomplete";

    /**
     * A rule that could not run.
     *
     * @param kind the finding kind
     * @param message what failed (SQLSTATE and message)
     * @param permissionDenied whether it failed for a missing privilege (SQLSTATE 42501), which makes the check's exit
     *     code 8 instead of 9; not in the JSON document (the message carries the SQLSTATE)
     */
    public record RuleError(String kind, String message, @com.fasterxml.jackson.annotation.JsonIgnore boolean permissionDenied) {
    }

    /** The finding of a kind, if it was found. */
    public java.util.Optional<Finding> finding(String kind) {
        return findings.stream().filter(f -> f.kind().equals(kind)).findFirst();
    }
}
