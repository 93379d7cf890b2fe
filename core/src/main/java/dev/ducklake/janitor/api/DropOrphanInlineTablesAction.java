package dev.ducklake.janitor.api;

import dev.ducklake.janitor.ops.runtime.MaintenanceOperation;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.pg.ConnectionSpec;

/**
 * {@code drop-orphan-inline-tables}: drops the leaked inlined-data tables ({@code ducklake_inlined_data_<id>_<v>})
 * of DuckLake tables no retained snapshot can reach, with their registry rows, in batches of one transaction each.
 * By default only empty tables named by DuckLake's registry go; non-empty ones are skipped with a warning.
 *
 * <pre>{@code
 * DropOrphanInlineTablesResult r = Janitor.on(dataSource, "lake_meta").dropOrphanInlineTables()
 *         .batchSize(200).runBudget(Duration.ofMinutes(20)).execute();
 * long dropped = r.dropped();
 * }</pre>
 *
 * Batch unit: tables (default {@value DropOrphanInlineTablesOptions#DEFAULT_BATCH_SIZE}, lowered to the server's lock
 * budget because each DROP holds lock-table entries until commit).
 */
public final class DropOrphanInlineTablesAction
        extends MaintenanceAction<DropOrphanInlineTablesAction, DropOrphanInlineTablesResult> {

    private Boolean includeUnregistered;
    private Boolean includeNonempty;

    DropOrphanInlineTablesAction(Janitor janitor) {
        super(janitor);
    }

    /**
     * Also drop inlined tables of unreachable table_ids that have no registry row (left by older DuckLake versions),
     * and inlined deletion tables. Default false, because they are found by name rather than through DuckLake's
     * registry (they are always reported).
     *
     * @param include whether to drop them
     * @return this action
     */
    public DropOrphanInlineTablesAction includeUnregistered(boolean include) {
        this.includeUnregistered = include;
        return this;
    }

    /**
     * Also drop orphan tables that still hold rows. Default false (skipped with a warning), because the rows are
     * lost; no retained snapshot can read them.
     *
     * @param include whether to drop them
     * @return this action
     */
    public DropOrphanInlineTablesAction includeNonempty(boolean include) {
        this.includeNonempty = include;
        return this;
    }

    @Override
    MaintenanceOperation<DropOrphanInlineTablesResult> operation(ConnectionSpec spec, String schema, ProgressListener listener) {
        DropOrphanInlineTablesOptions d = DropOrphanInlineTablesOptions.defaults();
        DropOrphanInlineTablesOptions.Builder o = d.toBuilder().run(runOptions(d.run(), schema));
        if (includeUnregistered != null) {
            o.includeUnregistered(includeUnregistered);
        }
        if (includeNonempty != null) {
            o.includeNonempty(includeNonempty);
        }
        return new DropOrphanInlineTables(spec, o.build(), listener);
    }
}
