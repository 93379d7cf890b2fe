/**
 * {@code check}'s rules: one {@link dev.ducklake.janitor.catalog.health.CheckRule} per finding kind (Javadoc: predicate,
 * unit, DuckLake source, fix), listed in report order by {@link dev.ducklake.janitor.catalog.health.CheckRules}, and run
 * on one metadata schema by {@link dev.ducklake.janitor.catalog.health.RuleEvaluation} (read-only transactions, one per
 * rule). Catalog knowledge, not an operation: the {@code check} operation ({@code ops.check}) and the
 * {@code ducklake_check_findings} gauge ({@code metrics}) both run them from here.
 */
package dev.ducklake.janitor.catalog.health;
