package dev.ducklake.janitor.catalog.health;

import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.catalog.CatalogLayout;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.pg.SqlState;
import dev.ducklake.janitor.pg.Transactions;
import dev.ducklake.janitor.retry.FailureKind;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs {@link CheckRule}s on one metadata schema, each in its own read-only transaction with its own
 * {@code statement_timeout} (no lock beyond what SELECT takes; safe on a live catalog). A rule that fails is an outcome,
 * and the others still run. Joins against the unindexed catalog tables are forced to hash joins
 * ({@code SET LOCAL enable_nestloop = off}), so the cost grows linearly with the catalog, and JIT is off for them
 * ({@link Transactions#JIT_OFF}): their inflated plan cost would otherwise make a JIT-enabled server compile each one.
 * The one evaluation of {@code check} and of the {@code ducklake_check_findings} gauge.
 */
public final class RuleEvaluation {

    private RuleEvaluation() {
    }

    /**
     * Runs rules on an inspected catalog, each in its own read-only transaction with {@code statement_timeout},
     * {@code search_path = pg_catalog, <schema>}, {@code enable_nestloop = off} and {@code jit = off} set locally. The connection's
     * autocommit and read-only flags are restored afterwards. Shared by {@code check} and the metrics collector.
     *
     * @param conn an open connection
     * @param info the inspected catalog
     * @param settings statement timeout, examples and thresholds of the rules
     * @param survey the inlined-tables survey on {@code conn} ({@link InlineSurvey#on}), computed first when a rule needs it
     * @param rules the rules to run
     * @return one outcome per rule, in order
     * @throws SQLException only when the connection is lost (a rule's own failure is its outcome)
     */
    public static List<RuleOutcome> evaluate(Connection conn, CatalogInfo info, RuleSettings settings, InlineSurvey survey,
                                             List<CheckRule> rules) throws SQLException {
        boolean auto = conn.getAutoCommit();
        boolean readOnly = conn.isReadOnly();
        List<RuleOutcome> out = new ArrayList<>();
        if (rules.stream().anyMatch(r -> CheckRules.SURVEY_KINDS.contains(r.kind()))) {
            // the survey runs its own read-only transactions: before ours; a failure is reported by the rules that need it
            survey.prefetch();
        }
        try {
            conn.setAutoCommit(false);
            conn.setReadOnly(true);
            CatalogLayout layout;
            try {
                local(conn, info.schema(), settings.statementTimeout());
                layout = CatalogLayout.read(conn, info.schema());
                conn.commit();
            } catch (SQLException e) {
                conn.rollback();
                throw e;
            }
            CheckContext ctx = new CheckContext(conn, info, layout, settings, survey);
            for (CheckRule rule : rules) {
                long t0 = System.nanoTime();
                try {
                    local(conn, info.schema(), settings.statementTimeout());
                    Finding f = rule.evaluate(ctx);
                    conn.commit();
                    out.add(new RuleOutcome(rule, f, null, (System.nanoTime() - t0) / 1e9));
                } catch (SQLException e) {
                    try {
                        conn.rollback();
                    } catch (SQLException ignored) {
                        // the session is gone; classified below
                    }
                    if (SqlState.classify(e) == FailureKind.CONNECTION_LOST) {
                        throw e;
                    }
                    out.add(new RuleOutcome(rule, null, e, (System.nanoTime() - t0) / 1e9));
                }
            }
            return out;
        } finally {
            try {
                conn.setAutoCommit(auto);
                conn.setReadOnly(readOnly);
            } catch (SQLException ignored) {
                // the session is gone; the caller finds out
            }
        }
    }

    private static void local(Connection conn, String schema, Duration timeout) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT set_config('statement_timeout', ?, true),"
                + " set_config('search_path', ?, true), set_config('enable_nestloop', 'off', true), " + Transactions.JIT_OFF)) {
            ps.setString(1, Long.toString(timeout.toMillis()));
            // pg_catalog first: objects in the metadata schema must never shadow built-in functions or operators
            ps.setString(2, "pg_catalog, " + Sql.ident(schema));
            ps.execute();
        }
    }
}
