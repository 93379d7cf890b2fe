package dev.ducklake.janitor.catalog.health;

import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.catalog.InlinedTablesSurvey;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The figures of drop-orphan-inline-tables' survey ({@link InlinedTablesSurvey#survey}) that {@code check} reports as its
 * own kinds. The survey is not rewritten here; it is called once per check, before the rules' transactions (it runs its
 * own read-only transactions on the connection), and every rule that needs it reads the cached figures.
 */
public final class InlineSurvey {

    /**
     * What the survey found, as check reports it.
     *
     * @param registryRowsWithoutTable orphan registry rows whose table is already gone (rows)
     * @param unregisteredData unregistered inlined-data tables of unreachable table_ids (tables)
     * @param unregisteredDataExamples a few of their names
     * @param unreachableDelete inlined deletion tables of unreachable table_ids (tables)
     * @param unreachableDeleteExamples a few of their names
     * @param anomalies relations named like inlined tables that drop-orphan-inline-tables never drops (relations)
     * @param anomalyExamples a few, with the reason
     */
    public record SurveyFigures(long registryRowsWithoutTable, long unregisteredData, List<String> unregisteredDataExamples,
                          long unreachableDelete, List<String> unreachableDeleteExamples, long anomalies, List<String> anomalyExamples) {
    }

    /** Computes the figures. */
    @FunctionalInterface
    public interface SurveySource {
        /**
         * @return the survey's figures
         * @throws SQLException when the survey failed
         */
        SurveyFigures survey() throws SQLException;
    }

    private final SurveySource source;
    private SurveyFigures figures;
    private SQLException failure;

    /** @param source how to compute the figures */
    public InlineSurvey(SurveySource source) {
        this.source = source;
    }

    /**
     * The survey of drop-orphan-inline-tables on a connection ({@link RuleEvaluation#evaluate} prefetches it while no
     * transaction is open on the connection).
     *
     * @param conn the session
     * @param info the inspected catalog
     * @param maxExamples examples per figure
     * @return the survey
     */
    public static InlineSurvey on(Connection conn, CatalogInfo info, int maxExamples) {
        return new InlineSurvey(() -> {
            InlinedTablesSurvey.Summary f = InlinedTablesSurvey.survey(conn, info);
            List<String> data = f.unregisteredTables().stream().filter(n -> n.startsWith(InlinedTableName.DATA_PREFIX))
                    .limit(maxExamples).toList();
            List<String> delete = f.unregisteredTables().stream().filter(n -> n.startsWith(InlinedTableName.DELETE_PREFIX))
                    .limit(maxExamples).toList();
            List<String> anomalies = f.anomalies().stream().limit(maxExamples)
                    .map(a -> CatalogInspector.printable(a.tableName()) + ": " + a.reason()).toList();
            return new SurveyFigures(f.registryRowsWithoutTable(), f.unregisteredData(), data, f.inlinedDeleteOrphans(), delete,
                    f.anomalies().size(), anomalies);
        });
    }

    /** Computes the figures now if not yet done; a failure is kept for {@link #get()}. */
    public synchronized void prefetch() {
        if (figures == null && failure == null) {
            try {
                figures = source.survey();
            } catch (SQLException e) {
                failure = e;
            }
        }
    }

    /**
     * The figures, computed on first call.
     *
     * @return the figures
     * @throws SQLException when the survey failed (the same failure on every call)
     */
    public synchronized SurveyFigures get() throws SQLException {
        prefetch();
        if (failure != null) {
            throw failure;
        }
        return figures;
    }
}
