package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.catalog.InlinedCandidate;
import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.ducklake.janitor.ops.runtime.DoneOrWould;
import dev.ducklake.janitor.ops.runtime.Figure;
import dev.ducklake.janitor.ops.runtime.MaintenanceResult;
import dev.ducklake.janitor.ops.runtime.RunFigures;

import java.util.List;
import java.util.Map;

/**
 * What a run of {@link DropOrphanInlineTables} found and did. Counts are registry rows or tables as named;
 * times are seconds. Composed of small parts whose JSON members are the result's own (flat, in component order);
 * the figures of each part are also offered as accessors of the result.
 *
 * @param schema the metadata schema
 * @param formatVersion the catalog format version found
 * @param dryRun whether this was a dry run (nothing changed)
 * @param registered what the registry held, flattened into the JSON
 * @param remaining orphan registry rows left when the run ended
 * @param run the generic figures (batches, retries, reconnects, batch sizes, stop reason, elapsed seconds,
 *     warnings), flattened into the JSON
 * @param unregistered the tables beyond the registry, flattened into the JSON
 * @param remainingUnregistered unregistered leftovers plus inlined deletion tables of unreachable ids left
 *     when the run ended
 * @param drops what the batches did (execute run) or would do (dry run); in the JSON as {@link #doneOrWould()}
 * @param listed the tables listed, flattened into the JSON
 * @param includeNonempty whether the run was asked to drop non-empty orphans too (--include-nonempty): a dry run's
 *     non-empty orphans are then counted in {@code wouldDrop}
 */
public record DropOrphanInlineTablesResult(String schema, String formatVersion, boolean dryRun,
                                           @JsonUnwrapped Registered registered, @Figure.Remaining long remaining,
                                           @JsonUnwrapped RunFigures run, @JsonUnwrapped Unregistered unregistered,
                                           @Figure.Remaining long remainingUnregistered, @JsonIgnore Drops drops,
                                           @JsonUnwrapped Listed listed, boolean includeNonempty) implements MaintenanceResult {

    /**
     * What the registry held when the run started, and its non-empty orphans.
     *
     * @param registryRows rows in ducklake_inlined_data_tables when the run started
     * @param orphanRows registry rows whose table_id is unreachable ({@link dev.ducklake.janitor.catalog.OrphanPredicate})
     * @param orphanTablesPresent orphan rows whose table exists in pg_class
     * @param orphanNonempty registered orphan tables holding rows (dry run: all of them, probed; execute: those met
     *     during the run)
     * @param keptByNameGuard orphan rows whose table_name is not exactly the DuckLake name for its ids; never acted on
     * @param keptNotATable orphan rows whose name belongs to a relation that is not a plain table; never acted on
     */
    public record Registered(long registryRows, long orphanRows, long orphanTablesPresent, long orphanNonempty,
                             long keptByNameGuard, long keptNotATable) {
    }

    /**
     * The tables beyond the registry.
     *
     * @param unregisteredOrphans unregistered leftovers found: tables named exactly
     *     {@code ducklake_inlined_data_<id>_<v>} in the schema with no registry row (by name or by ids) and an
     *     unreachable table_id; reported always, dropped only with {@code includeUnregistered}
     * @param inlinedDeleteOrphans inlined deletion tables {@code ducklake_inlined_delete_<id>} of unreachable
     *     table_ids found; reported always, dropped only with {@code includeUnregistered}
     * @param inlinedDeleteLive inlined deletion tables of reachable table_ids (in use by DuckLake; never touched)
     * @param unregisteredNonempty unregistered leftovers and inlined deletion tables of unreachable ids that hold
     *     rows (dry run: all probed; execute: those met during the run)
     * @param unregisteredAnomalies tables that look like inlined tables but are never dropped: an unregistered
     *     data table whose table_id is reachable, a name that is not exactly DuckLake's form, a relation that is
     *     not a plain table, or columns that are not DuckLake's system columns (listed in {@code anomalyTables})
     */
    public record Unregistered(long unregisteredOrphans, long inlinedDeleteOrphans, long inlinedDeleteLive,
                               long unregisteredNonempty, long unregisteredAnomalies) {
    }

    /**
     * What the batches did, or in a dry run would do. The JSON keys say which run it was
     * ({@link DropOrphanInlineTablesResult#doneOrWould()}):
     * {@code would_drop} in a dry run only; {@code dropped}, {@code rows_deleted}, {@code missing_tables},
     * {@code dropped_*}, {@code inlined_rows_dropped}, {@code skipped_*} in an execute run only.
     *
     * @param dropped registered inlined-data tables dropped (unregistered and deletion tables are counted apart)
     * @param wouldDrop dry run: tables an execute run with the same options would drop (0 in execute runs)
     * @param rowsDeleted registry rows deleted (of dropped tables and of tables already gone)
     * @param missingTables registry rows deleted because their table was already gone
     * @param droppedUnregistered unregistered leftover data tables dropped
     * @param droppedInlinedDelete inlined deletion tables dropped
     * @param droppedNonempty tables dropped although they held rows ({@code includeNonempty}), of any kind
     * @param inlinedRowsDropped rows those non-empty tables held when dropped (exact count(*) under the lock)
     * @param skippedNonempty orphan tables of every kind (registered data tables, unregistered leftovers, inlined
     *     deletion tables) skipped because they hold rows (table and row kept); split by kind below
     * @param skippedNonemptyRegistered of {@code skippedNonempty}: registered inlined-data tables
     * @param skippedNonemptyUnregistered of {@code skippedNonempty}: unregistered leftover inlined-data tables
     * @param skippedNonemptyInlinedDelete of {@code skippedNonempty}: inlined deletion tables
     * @param skippedLocked orphan tables skipped because another session kept them locked past lock_timeout, twice
     */
    public record Drops(long dropped, long wouldDrop, long rowsDeleted, long missingTables, long droppedUnregistered,
                        long droppedInlinedDelete, long droppedNonempty, long inlinedRowsDropped, long skippedNonempty,
                        long skippedNonemptyRegistered, long skippedNonemptyUnregistered, long skippedNonemptyInlinedDelete,
                        long skippedLocked) {
    }

    /**
     * The tables listed.
     *
     * @param unregisteredTablesTruncated whether {@code unregisteredTables} lists fewer than were found
     * @param unregisteredTablesTotal how many unregistered leftovers and deletion tables of unreachable ids were found
     * @param anomalyTablesTruncated whether {@code anomalyTables} lists fewer than were found
     * @param anomalyTablesTotal how many anomalies were found (same as {@code unregisteredAnomalies})
     * @param nonEmptyTables every non-empty orphan table met (never truncated); with {@code includeNonempty}
     *     and in dry runs each with its exact row count
     * @param unregisteredTables names of the unregistered leftovers and inlined deletion tables of unreachable ids
     *     found when the run started (at most 1,000 listed)
     * @param anomalyTables the anomalies (at most 1,000 listed)
     */
    public record Listed(boolean unregisteredTablesTruncated, long unregisteredTablesTotal, boolean anomalyTablesTruncated,
                         long anomalyTablesTotal, List<NonEmptyTable> nonEmptyTables, List<String> unregisteredTables,
                         List<Anomaly> anomalyTables) {
    }

    /**
     * The figures whose key says whether they happened or would ({@link DoneOrWould}): a dry run has {@code would_drop}
     * (the tables an execute run with the same options would drop); an execute run has {@code dropped},
     * {@code rows_deleted}, {@code missing_tables}, {@code dropped_unregistered}, {@code dropped_inlined_delete},
     * {@code dropped_nonempty}, {@code inlined_rows_dropped}, {@code skipped_nonempty} (and its split by kind) and
     * {@code skipped_locked}, which a dry run, changing nothing and locking nothing, cannot have.
     *
     * @return the figures, by JSON key
     */
    @JsonAnyGetter
    public Map<String, Long> doneOrWould() {
        Drops d = drops;
        return DoneOrWould.<Long>of(dryRun).figure("dropped", "would_drop", dryRun ? d.wouldDrop() : d.dropped())
                .done("rows_deleted", d.rowsDeleted()).done("missing_tables", d.missingTables())
                .done("dropped_unregistered", d.droppedUnregistered()).done("dropped_inlined_delete", d.droppedInlinedDelete())
                .done("dropped_nonempty", d.droppedNonempty()).done("inlined_rows_dropped", d.inlinedRowsDropped())
                .done("skipped_nonempty", d.skippedNonempty()).done("skipped_nonempty_registered", d.skippedNonemptyRegistered())
                .done("skipped_nonempty_unregistered", d.skippedNonemptyUnregistered())
                .done("skipped_nonempty_inlined_delete", d.skippedNonemptyInlinedDelete())
                .done("skipped_locked", d.skippedLocked()).map();
    }

    // The parts' figures, as the result's own accessors (documented on the parts).

    /** @return {@link Registered#registryRows()} */
    public long registryRows() {
        return registered.registryRows();
    }

    /** @return {@link Registered#orphanRows()} */
    public long orphanRows() {
        return registered.orphanRows();
    }

    /** @return {@link Registered#orphanTablesPresent()} */
    public long orphanTablesPresent() {
        return registered.orphanTablesPresent();
    }

    /** @return {@link Registered#orphanNonempty()} */
    public long orphanNonempty() {
        return registered.orphanNonempty();
    }

    /** @return {@link Registered#keptByNameGuard()} */
    public long keptByNameGuard() {
        return registered.keptByNameGuard();
    }

    /** @return {@link Registered#keptNotATable()} */
    public long keptNotATable() {
        return registered.keptNotATable();
    }

    /** @return {@link Unregistered#unregisteredOrphans()} */
    public long unregisteredOrphans() {
        return unregistered.unregisteredOrphans();
    }

    /** @return {@link Unregistered#inlinedDeleteOrphans()} */
    public long inlinedDeleteOrphans() {
        return unregistered.inlinedDeleteOrphans();
    }

    /** @return {@link Unregistered#inlinedDeleteLive()} */
    public long inlinedDeleteLive() {
        return unregistered.inlinedDeleteLive();
    }

    /** @return {@link Unregistered#unregisteredNonempty()} */
    public long unregisteredNonempty() {
        return unregistered.unregisteredNonempty();
    }

    /** @return {@link Unregistered#unregisteredAnomalies()} */
    public long unregisteredAnomalies() {
        return unregistered.unregisteredAnomalies();
    }

    /** @return {@link Drops#dropped()} */
    public long dropped() {
        return drops.dropped();
    }

    /** @return {@link Drops#wouldDrop()} */
    public long wouldDrop() {
        return drops.wouldDrop();
    }

    /** @return {@link Drops#rowsDeleted()} */
    public long rowsDeleted() {
        return drops.rowsDeleted();
    }

    /** @return {@link Drops#missingTables()} */
    public long missingTables() {
        return drops.missingTables();
    }

    /** @return {@link Drops#droppedUnregistered()} */
    public long droppedUnregistered() {
        return drops.droppedUnregistered();
    }

    /** @return {@link Drops#droppedInlinedDelete()} */
    public long droppedInlinedDelete() {
        return drops.droppedInlinedDelete();
    }

    /** @return {@link Drops#droppedNonempty()} */
    public long droppedNonempty() {
        return drops.droppedNonempty();
    }

    /** @return {@link Drops#inlinedRowsDropped()} */
    public long inlinedRowsDropped() {
        return drops.inlinedRowsDropped();
    }

    /** @return {@link Drops#skippedNonempty()} */
    public long skippedNonempty() {
        return drops.skippedNonempty();
    }

    /** @return {@link Drops#skippedNonemptyRegistered()} */
    public long skippedNonemptyRegistered() {
        return drops.skippedNonemptyRegistered();
    }

    /** @return {@link Drops#skippedNonemptyUnregistered()} */
    public long skippedNonemptyUnregistered() {
        return drops.skippedNonemptyUnregistered();
    }

    /** @return {@link Drops#skippedNonemptyInlinedDelete()} */
    public long skippedNonemptyInlinedDelete() {
        return drops.skippedNonemptyInlinedDelete();
    }

    /** @return {@link Drops#skippedLocked()} */
    public long skippedLocked() {
        return drops.skippedLocked();
    }

    /** @return {@link Listed#unregisteredTablesTruncated()} */
    public boolean unregisteredTablesTruncated() {
        return listed.unregisteredTablesTruncated();
    }

    /** @return {@link Listed#unregisteredTablesTotal()} */
    public long unregisteredTablesTotal() {
        return listed.unregisteredTablesTotal();
    }

    /** @return {@link Listed#anomalyTablesTruncated()} */
    public boolean anomalyTablesTruncated() {
        return listed.anomalyTablesTruncated();
    }

    /** @return {@link Listed#anomalyTablesTotal()} */
    public long anomalyTablesTotal() {
        return listed.anomalyTablesTotal();
    }

    /** @return {@link Listed#nonEmptyTables()} */
    public List<NonEmptyTable> nonEmptyTables() {
        return listed.nonEmptyTables();
    }

    /** @return {@link Listed#unregisteredTables()} */
    public List<String> unregisteredTables() {
        return listed.unregisteredTables();
    }

    /** @return {@link Listed#anomalyTables()} */
    public List<Anomaly> anomalyTables() {
        return listed.anomalyTables();
    }

    /** @return batches committed ({@link RunFigures#batches()}) */
    public int batches() {
        return run.batches();
    }

    /** @return batch attempts retried after a retryable error */
    public int retries() {
        return run.retries();
    }

    /** @return reconnects after a lost connection */
    public int reconnects() {
        return run.reconnects();
    }

    /** @return the batch size asked for, tables */
    public int batchSizeRequested() {
        return run.batchSizeRequested();
    }

    /** @return the batch size used at the start (after the lock budget), tables */
    public int batchSizeStart() {
        return run.batchSizeStart();
    }

    /** @return the batch size at the end (after halvings and growth), tables */
    public int batchSizeFinal() {
        return run.batchSizeFinal();
    }

    /** {@link NonEmptyTable#kind()} of a table registered in ducklake_inlined_data_tables. */
    public static final String KIND_REGISTERED = "registered";
    /** {@link NonEmptyTable#kind()} of an inlined-data table without a registry row. */
    public static final String KIND_UNREGISTERED = "unregistered";
    /** {@link NonEmptyTable#kind()} of an inlined deletion table. */
    public static final String KIND_INLINED_DELETE = "inlined_delete";

    /**
     * @param kind where a candidate was found
     * @return its {@link NonEmptyTable#kind()} label
     */
    static String kindLabel(InlinedCandidate.Origin kind) {
        return switch (kind) {
            case REGISTERED -> KIND_REGISTERED;
            case UNREGISTERED_DATA -> KIND_UNREGISTERED;
            case INLINED_DELETE -> KIND_INLINED_DELETE;
        };
    }

    /**
     * @param c a candidate found non-empty
     * @param rows its exact row count, or null when not counted
     * @param dropped whether this run dropped it
     * @return its report entry
     */
    static NonEmptyTable nonEmpty(InlinedCandidate c, Long rows, boolean dropped) {
        return new NonEmptyTable(c.tableName(), kindLabel(c.kind()), c.tableId(), c.schemaVersionOrNull(), rows, dropped);
    }

    /**
     * A non-empty orphan table.
     *
     * @param tableName the table's name
     * @param kind {@value #KIND_REGISTERED}, {@value #KIND_UNREGISTERED} or {@value #KIND_INLINED_DELETE}
     * @param tableId its DuckLake table_id
     * @param schemaVersion its schema version (null for an inlined deletion table)
     * @param rows its exact row count (count(*)), or null when not counted (skipped in an execute run)
     * @param dropped whether this run dropped it ({@code includeNonempty})
     */
    public record NonEmptyTable(String tableName, String kind, long tableId, Long schemaVersion, Long rows,
                                boolean dropped) {
    }

    /**
     * A table that looks like an inlined table but is never dropped.
     *
     * @param tableName the relation's name
     * @param tableId the table_id parsed from the name, or null when the name does not parse
     * @param reason why it is kept, in words
     */
    public record Anomaly(String tableName, Long tableId, String reason) {
    }
}
