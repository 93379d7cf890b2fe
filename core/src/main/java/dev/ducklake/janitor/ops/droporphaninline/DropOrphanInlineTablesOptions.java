package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.runtime.RunOptionsBuilder;

/**
 * Options of {@link DropOrphanInlineTables}: the generic {@link RunOptions} (schema, dry run, batch size in
 * tables, limits, timeouts, lock name) plus two switches. Build with {@link #builder()}, change with
 * {@link #toBuilder()}.
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

    /** @return a builder from the {@link #defaults() defaults}: the way to set the options */
    public static Builder builder() {
        return defaults().toBuilder();
    }

    /** @return a builder from these options */
    public Builder toBuilder() {
        return new Builder(this);
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

    /** The builder of {@link DropOrphanInlineTablesOptions}: the run setters of {@link RunOptionsBuilder} and its two switches. */
    public static final class Builder extends RunOptionsBuilder<Builder, DropOrphanInlineTablesOptions> {

        private boolean includeUnregistered;
        private boolean includeNonempty;

        private Builder(DropOrphanInlineTablesOptions from) {
            super(from.run);
            includeUnregistered = from.includeUnregistered;
            includeNonempty = from.includeNonempty;
        }

        /**
         * @param v whether unregistered leftovers and inlined deletion tables of unreachable table_ids are dropped too
         * @return this builder
         */
        public Builder includeUnregistered(boolean v) {
            includeUnregistered = v;
            return this;
        }

        /**
         * @param v whether orphan tables that still hold rows are dropped too
         * @return this builder
         */
        public Builder includeNonempty(boolean v) {
            includeNonempty = v;
            return this;
        }

        @Override
        public DropOrphanInlineTablesOptions build() {
            return new DropOrphanInlineTablesOptions(runOptions(), includeUnregistered, includeNonempty);
        }
    }
}
