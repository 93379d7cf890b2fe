package dev.ducklake.janitor.ops.check;

import java.sql.SQLException;
import java.util.List;

/**
 * The figures of drop-orphan-inline-tables' survey that {@code check} reports as its own kinds (unregistered inlined-data
 * tables, inlined deletion tables of unreachable ids, anomalies). The survey itself is not rewritten here: a
 * {@link Source} calls the drop engine (see {@link DropEngineSurvey}), and the result is computed at most once per
 * check, however many rules read it.
 */
public final class InlineSurvey {

    /**
     * What the survey found.
     *
     * @param unregisteredData unregistered inlined-data tables of unreachable table_ids (tables)
     * @param unregisteredDataExamples a few of their names
     * @param unreachableDelete inlined deletion tables of unreachable table_ids (tables)
     * @param unreachableDeleteExamples a few of their names
     * @param anomalies relations named like inlined tables that drop-orphan-inline-tables never drops (relations)
     * @param anomalyExamples a few, with the reason
     */
    public record Figures(long unregisteredData, List<String> unregisteredDataExamples, long unreachableDelete,
                          List<String> unreachableDeleteExamples, long anomalies, List<String> anomalyExamples) {
    }

    /** Computes the figures (may open its own connection). */
    @FunctionalInterface
    public interface Source {
        /**
         * @return the survey's figures
         * @throws SQLException when the survey failed
         */
        Figures survey() throws SQLException;
    }

    /** A survey that is never available (the survey-based kinds then report as failed). */
    public static final InlineSurvey NONE = new InlineSurvey(() -> {
        throw new SQLException("the inlined-table survey is not available here");
    });

    private final Source source;
    private Figures figures;
    private SQLException failure;

    /** @param source how to compute the figures */
    public InlineSurvey(Source source) {
        this.source = source;
    }

    /**
     * The figures, computed on first call.
     *
     * @return the figures
     * @throws SQLException when the survey failed (the same failure on every call)
     */
    public synchronized Figures get() throws SQLException {
        if (figures == null && failure == null) {
            try {
                figures = source.survey();
            } catch (SQLException e) {
                failure = e;
            }
        }
        if (failure != null) {
            throw failure;
        }
        return figures;
    }
}
