package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.runtime.RunOptions;

import java.time.Duration;

/**
 * Options of {@link DropOrphanInlineTables}: the generic {@link RunOptions} (schema, dry run, batch size in
 * tables, limits, timeouts, lock name) plus two switches. Build with {@link #defaults()} and the {@code with…}
 * methods.
 *
 * @param run the generic run options; a batch is that many tables, lowered to the server's lock budget because
 *     each DROP holds lock-table entries until commit
 * @param includeUnregistered also drop inlined tables that have no registry row: unregistered leftovers
 *     {@code ducklake_inlined_data_<id>_<v>} (older DuckLake versions deleted the row but kept the table) and
 *     inlined deletion tables {@code ducklake_inlined_delete_<id>}, both only for unreachable table_ids; default
 *     false, because such tables are found by name in pg_class rather than through DuckLake's own registry (they
 *     are always reported)
 * @param includeNonempty also drop orphan tables that still hold rows; default false (skipped with a warning),
 *     because the rows are lost. Safe in the catalog's terms: the table_id is unreachable, so no retained
 *     snapshot can read them, and DuckLake's own snapshot expiry drops such tables whatever their content
 */
public record DropOrphanInlineTablesOptions(RunOptions run, boolean includeUnregistered, boolean includeNonempty) {

    /** Default batch size, in tables. */
    public static final int DEFAULT_BATCH_SIZE = RunOptions.DEFAULT_BATCH_SIZE;
    /** Default advisory lock name. */
    public static final String DEFAULT_LOCK_NAME = RunOptions.DEFAULT_LOCK_NAME;

    /** The defaults: {@link RunOptions#defaults()}, registry orphans only, empty tables only. */
    public static DropOrphanInlineTablesOptions defaults() {
        return new DropOrphanInlineTablesOptions(RunOptions.defaults(), false, false);
    }

    /** @return a copy with other generic run options */
    public DropOrphanInlineTablesOptions withRun(RunOptions v) {
        return new DropOrphanInlineTablesOptions(v, includeUnregistered, includeNonempty);
    }

    /** @return a copy with another metadata schema */
    public DropOrphanInlineTablesOptions withMetadataSchema(String v) {
        return withRun(run.toBuilder().metadataSchema(v).build());
    }

    /** @return a copy with dry run on or off */
    public DropOrphanInlineTablesOptions withDryRun(boolean v) {
        return withRun(run.toBuilder().dryRun(v).build());
    }

    /** @return a copy with another batch size (tables) */
    public DropOrphanInlineTablesOptions withBatchSize(int v) {
        return withRun(run.toBuilder().batchSize(v).build());
    }

    /** @return a copy with another batch limit (0 = none) */
    public DropOrphanInlineTablesOptions withMaxBatches(int v) {
        return withRun(run.toBuilder().maxBatches(v).build());
    }

    /** @return a copy with another run budget (null = unbounded) */
    public DropOrphanInlineTablesOptions withRunBudget(Duration v) {
        return withRun(run.toBuilder().runBudget(v).build());
    }

    /** @return a copy with another statement timeout */
    public DropOrphanInlineTablesOptions withStatementTimeout(Duration v) {
        return withRun(run.toBuilder().statementTimeout(v).build());
    }

    /** @return a copy with another lock timeout */
    public DropOrphanInlineTablesOptions withLockTimeout(Duration v) {
        return withRun(run.toBuilder().lockTimeout(v).build());
    }

    /** @return a copy with another advisory lock name */
    public DropOrphanInlineTablesOptions withLockName(String v) {
        return withRun(run.toBuilder().lockName(v).build());
    }

    /** @return a copy with another reconnect timeout */
    public DropOrphanInlineTablesOptions withReconnectTimeout(Duration v) {
        return withRun(run.toBuilder().reconnectTimeout(v).build());
    }

    /** @return a copy with unregistered leftovers and inlined deletion tables included or not */
    public DropOrphanInlineTablesOptions withIncludeUnregistered(boolean v) {
        return new DropOrphanInlineTablesOptions(run, v, includeNonempty);
    }

    /** @return a copy with non-empty orphans included or not */
    public DropOrphanInlineTablesOptions withIncludeNonempty(boolean v) {
        return new DropOrphanInlineTablesOptions(run, includeUnregistered, v);
    }

    /**
     * Checks the values on their own (not against the catalog).
     *
     * @throws JanitorException {@link Reason#USAGE} naming the first bad value
     */
    public void validate() throws JanitorException {
        if (run == null) {
            throw new JanitorException(Reason.USAGE, "run options are missing.");
        }
        run.validate();
    }
}
