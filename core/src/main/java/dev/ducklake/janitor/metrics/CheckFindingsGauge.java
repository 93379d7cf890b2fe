package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.retry.FailureKind;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.pg.SqlState;
import dev.ducklake.janitor.catalog.health.CheckRules;
import dev.ducklake.janitor.catalog.health.RuleEvaluation;
import dev.ducklake.janitor.catalog.health.RuleOutcome;
import dev.ducklake.janitor.catalog.health.RuleSettings;
import dev.ducklake.janitor.catalog.health.InlineSurvey;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The gauge {@code ducklake_check_findings{catalog, kind, severity}}: the count of each finding kind of {@code check}, computed by
 * the same rules ({@link RuleEvaluation#evaluate}, with {@link RuleSettings#defaults} and the collector's statement timeout), each in its own read-only transaction with the collector's statement
 * timeout. A rule that fails contributes no sample and is reported as the query {@code check_<kind>}.
 */
final class CheckFindingsGauge {

    /** The metric name. */
    static final String NAME = "ducklake_check_findings";

    /** The metric's help text. */
    static final String HELP = "Findings of ducklake-janitor check per kind (rows, tables or files; see the README for "
            + "each kind's unit and fix; severity damage or debris). 0 = clean.";

    private CheckFindingsGauge() {
    }

    /**
     * Evaluates the rules and adds the family.
     *
     * @param conn the collector's connection (autocommit)
     * @param schema the metadata schema
     * @param catalog the catalog label
     * @param timeout statement timeout of each rule
     * @param families where the family goes
     * @param errors where failures go, by query name
     * @param durations where each rule's duration goes, seconds
     * @return false when the connection was lost
     */
    static boolean collect(Connection conn, String schema, String catalog, Duration timeout, List<MetricFamily> families,
                           Map<String, String> errors, Map<String, Double> durations) {
        List<MetricFamily.Sample> samples = new ArrayList<>();
        try {
            CatalogInfo info = CatalogInspector.inspect(conn, schema, false);
            RuleSettings settings = RuleSettings.defaults(timeout);
            for (RuleOutcome o : RuleEvaluation.evaluate(conn, info, settings, InlineSurvey.on(conn, info, 0), CheckRules.all())) {
                String query = "check_" + o.rule().kind();
                durations.put(query, o.seconds());
                if (o.error() != null) {
                    String state = SqlState.codeOf(o.error());
                    errors.put(query, (state == null ? "" : "SQLSTATE " + state + ": ") + o.error().getMessage());
                } else {
                    samples.add(new MetricFamily.Sample(List.of(catalog, o.rule().kind(), CheckRules.severityOf(o.rule().kind())),
                            o.finding().count()));
                }
            }
        } catch (JanitorException e) {
            errors.put("check_findings", e.getMessage());
        } catch (SQLException e) {
            errors.put("check_findings", "SQLSTATE " + SqlState.codeOf(e) + ": " + e.getMessage());
            if (SqlState.classify(e) == FailureKind.CONNECTION_LOST) {
                return false;
            }
        }
        families.add(new MetricFamily(NAME, HELP, MetricFamily.Type.GAUGE,
                List.of(CatalogHealthCollector.CATALOG_LABEL, "kind", "severity"),
                samples));
        return true;
    }
}
