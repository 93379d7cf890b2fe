package dev.ducklake.janitor.catalog.health;

import java.sql.SQLException;

/**
 * One kind of DuckLake catalog damage: the predicate that finds it (written in exactly one place, the implementing
 * class) and the fix. Implementations are stateless; {@link RuleEvaluation} runs each in its own read-only transaction
 * with its own statement timeout, and the {@code ducklake_check_findings} metric runs the same code.
 */
public interface CheckRule {

    /** The snake_case finding kind (the contract name). */
    String kind();

    /** The fix shown with a finding: a command, or why nothing should be done automatically. */
    String fix();

    /**
     * Evaluates the rule. Reads only; the caller has opened a read-only transaction with a statement timeout.
     *
     * @param ctx the catalog and the open connection
     * @return the count and a few examples (count 0 when the catalog is clean of this kind, or the rule does not apply to
     *     the catalog's format version)
     * @throws SQLException on database errors (the caller reports the rule as failed; other rules still run)
     */
    Finding evaluate(CheckContext ctx) throws SQLException;

    /** A finding of this rule. */
    default Finding finding(long count, java.util.List<String> examples) {
        return new Finding(kind(), count, examples, fix());
    }
}
