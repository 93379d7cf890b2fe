package dev.ducklake.janitor.ops.check;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.catalog.ConnectionSpec;
import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.droporphaninline.ProgressListener;

import java.sql.SQLException;
import java.util.List;

/**
 * The survey of {@link InlineSurvey} taken from drop-orphan-inline-tables itself: its dry run (read-only, no lock) on
 * the same schema, whose figures {@code unregistered_orphans}, {@code inlined_delete_orphans} and
 * {@code unregistered_anomalies} are exactly what its survey reports. The dry run also probes the candidates for rows,
 * which the check does not need; when the drop engine exposes its survey on its own, this class is the one place to
 * switch to it.
 */
public final class DropEngineSurvey {

    private DropEngineSurvey() {
    }

    /**
     * A survey source running the drop engine's dry run.
     *
     * @param spec the catalog database
     * @param schema the metadata schema
     * @param maxExamples examples per figure
     * @return the source
     */
    public static InlineSurvey.Source of(ConnectionSpec spec, String schema, int maxExamples) {
        return () -> {
            DropOrphanInlineTablesResult r;
            try {
                r = new DropOrphanInlineTables(spec, DropOrphanInlineTablesOptions.defaults().withMetadataSchema(schema)
                        .withDryRun(true), ProgressListener.NONE).execute();
            } catch (JanitorException e) {
                throw new SQLException("the inlined-table survey of drop-orphan-inline-tables failed: " + e.getMessage(), e);
            }
            List<String> data = r.unregisteredTables().stream().filter(n -> n.startsWith(InlinedTableName.DATA_PREFIX))
                    .limit(maxExamples).toList();
            List<String> delete = r.unregisteredTables().stream().filter(n -> n.startsWith(InlinedTableName.DELETE_PREFIX))
                    .limit(maxExamples).toList();
            List<String> anomalies = r.anomalyTables().stream().limit(maxExamples)
                    .map(a -> dev.ducklake.janitor.catalog.CatalogInspector.printable(a.tableName()) + ": " + a.reason()).toList();
            return new InlineSurvey.Figures(r.unregisteredOrphans(), data, r.inlinedDeleteOrphans(), delete,
                    r.unregisteredAnomalies(), anomalies);
        };
    }
}
