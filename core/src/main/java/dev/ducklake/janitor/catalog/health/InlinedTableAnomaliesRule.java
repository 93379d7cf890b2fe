package dev.ducklake.janitor.catalog.health;

/**
 * {@code inlined_table_anomalies}: relations named like inlined tables that drop-orphan-inline-tables reports and never
 * drops (its survey's {@code unregistered_anomalies}): an unregistered inlined-data table of a reachable table_id, a name
 * that is not exactly DuckLake's (leading zeros), a relation that is not a plain table, or first columns that are not
 * DuckLake's. Unit: relations.
 *
 * <p>Source: drop-orphan-inline-tables' name guard and column check (DuckLake's {@code InlinedTableNameFor} and inlined
 * column layout, shared catalog notes, section 2). None of them is DuckLake's own state. Fix: none automatic; inspect
 * each by hand.
 */
final class InlinedTableAnomaliesRule extends SurveyRule {

    InlinedTableAnomaliesRule() {
        super("inlined_table_anomalies",
                "none automatic: each was made by hand or by another tool; inspect it (drop-orphan-inline-tables never touches it)",
                InlineSurvey.SurveyFigures::anomalies, InlineSurvey.SurveyFigures::anomalyExamples);
    }
}
