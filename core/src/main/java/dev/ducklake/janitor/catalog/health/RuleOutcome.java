package dev.ducklake.janitor.catalog.health;

import java.sql.SQLException;

/**
 * The outcome of one rule ({@link RuleEvaluation#evaluate}): its finding, or the error that stopped it.
 *
 * @param rule the rule
 * @param finding its finding (null when it failed)
 * @param error why it failed (null when it ran)
 * @param seconds how long it took, seconds
 */
public record RuleOutcome(CheckRule rule, Finding finding, SQLException error, double seconds) {
}
