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
 * @param storageNotChecked why the storage comparison that was asked for was not possible and not made (e.g. no AWS
 *     credentials for the data path's bucket: {@code maintain}'s check step with {@code storage: true}, not
 *     {@code required}, as its storage steps are skipped for the same reason), or null (left out of JSON); the status and
 *     counts are then the catalog rules' only
 */
public record CheckResult(String schema, String formatVersion, String status, List<Finding> findings, Map<String, Long> counts,
                          List<RuleError> errors, double elapsedSeconds, Map<String, Double> ruleSeconds,
                          @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
                          dev.ducklake.janitor.ops.files.MissingObjects.Result storage,
                          @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
                          String storageNotChecked) {

    /** A result without the storage comparison. */
    public CheckResult(String schema, String formatVersion, String status, List<Finding> findings, Map<String, Long> counts,
                       List<RuleError> errors, double elapsedSeconds, Map<String, Double> ruleSeconds) {
        this(schema, formatVersion, status, findings, counts, errors, elapsedSeconds, ruleSeconds, null, null);
    }

    /** A result with or without the storage comparison, and no reason for a comparison not made. */
    public CheckResult(String schema, String formatVersion, String status, List<Finding> findings, Map<String, Long> counts,
                       List<RuleError> errors, double elapsedSeconds, Map<String, Double> ruleSeconds,
                       dev.ducklake.janitor.ops.files.MissingObjects.Result storage) {
        this(schema, formatVersion, status, findings, counts, errors, elapsedSeconds, ruleSeconds, storage, null);
    }

    /**
     * This result (of a check run without the storage comparison) marked with why the comparison asked for was not made.
     *
     * @param reason why it was not possible (named what is missing)
     * @return the marked result
     */
    public CheckResult withStorageNotChecked(String reason) {
        return new CheckResult(schema, formatVersion, status, findings, counts, errors, elapsedSeconds, ruleSeconds, storage, reason);
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
