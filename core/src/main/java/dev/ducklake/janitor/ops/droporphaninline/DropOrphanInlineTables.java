package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.catalog.InlinedTablesSurvey;
import dev.ducklake.janitor.catalog.InlinedCandidateList;
import dev.ducklake.janitor.catalog.InlinedCandidate;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.catalog.OrphanPredicate;
import dev.ducklake.janitor.catalog.RegistryPredicate;
import dev.ducklake.janitor.ops.runtime.BatchLoop;
import dev.ducklake.janitor.ops.runtime.BatchSizer;
import dev.ducklake.janitor.ops.runtime.Counts;
import dev.ducklake.janitor.ops.runtime.MaintenanceRun;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunRecorder;
import dev.ducklake.janitor.ops.runtime.StoppableOperation;
import dev.ducklake.janitor.pg.AdvisoryLock;
import dev.ducklake.janitor.pg.ConnectionSpec;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static dev.ducklake.janitor.ops.droporphaninline.DropCount.*;

/**
 * Drops the inlined-data tables that DuckLake leaks for dropped tables, and deletes their registry rows.
 *
 * <p>Why: DuckLake on PostgreSQL creates one real table {@code ducklake_inlined_data_<table_id>_<schema_version>}
 * per table and schema version and registers it in {@code ducklake_inlined_data_tables}. Its own cleanup
 * ({@code DropEmptySupersededInlinedTables}) drops only superseded and empty ones and never those of a dropped
 * table; {@code ducklake_expire_snapshots} (up to DuckLake 1.5.2) drops them only for tables that have a
 * {@code ducklake_table} row. DROP + CREATE workloads therefore leak them without bound.
 *
 * <p>What: a registry row is an orphan when {@link OrphanPredicate} calls its table_id unreachable. The orphan
 * keys are collected once ({@link InlinedTablesSurvey}), sorted by (table_id, schema_version) and worked through
 * by the runtime's {@link BatchLoop}; each batch is one transaction ({@link DropBatch}) that
 * <ol>
 *   <li>sets {@code statement_timeout} and {@code lock_timeout} locally;</li>
 *   <li>locks the batch's registry rows {@code FOR UPDATE SKIP LOCKED}, re-checking the orphan predicate and
 *       the name guard ({@link InlinedTableName#guardAllows});</li>
 *   <li>takes {@code ACCESS EXCLUSIVE} on every table that exists, then checks emptiness (never reltuples):
 *       a heap table whose main fork has zero blocks, read after that lock, holds no row ({@link ZeroBlockHeaps}
 *       states why); every other table is probed with {@code SELECT tableoid FROM t LIMIT 1}; and drops the
 *       empty ones with
 *       {@code DROP TABLE IF EXISTS} — each step one statement for the whole batch, falling back to one table
 *       at a time under savepoints when a table is locked by someone else or cannot be dropped;</li>
 *   <li>deletes the registry rows of dropped tables and of tables already gone, by the ctids read when
 *       they were locked, and commits.</li>
 * </ol>
 * Non-empty orphans are skipped with a warning (table and row kept) unless
 * {@link DropOrphanInlineTablesOptions#includeNonempty()} is set; then they are dropped too and their exact row
 * counts reported. A table locked by another session past lock_timeout is retried once at the end of the run.
 *
 * <p>Beyond the registry: tables of the schema named exactly {@code ducklake_inlined_data_<id>_<v>} (unregistered
 * leftovers: older DuckLake versions deleted registry rows but kept the tables) or
 * {@code ducklake_inlined_delete_<id>} (inlined deletions, never registered) are found in pg_class by a regex
 * (never LIKE) and the name guard of {@link InlinedTableName}. One without any registry row
 * ({@link RegistryPredicate}) whose table_id is unreachable is always reported and, with
 * {@link DropOrphanInlineTablesOptions#includeUnregistered()}, dropped in the same batches: ACCESS EXCLUSIVE lock,
 * then a re-check under that lock that it is still the same relation, has no registry row and an unreachable id,
 * then the emptiness probe and the drop. An unregistered data table of a reachable id, a table whose first
 * columns are not DuckLake's, or a name that is not exactly DuckLake's is an anomaly: reported, never dropped.
 *
 * <p>Retries, reconnects, halving on 53200, run budget and stop: the shared runtime ({@link MaintenanceRun}). An
 * execute run holds {@link AdvisoryLock}; a dry run takes none and runs in read-only transactions.
 *
 * <p>Not thread-safe; one instance per run. {@link #requestStop()} may be called from another thread.
 */
public final class DropOrphanInlineTables extends StoppableOperation<DropOrphanInlineTablesResult> {

    private final ConnectionSpec spec;
    private final DropOrphanInlineTablesOptions options;
    private final ProgressListener listener;

    /**
     * @param spec where the catalog database is
     * @param options what to do
     * @param listener where progress goes (use {@link ProgressListener#NONE} for none)
     */
    public DropOrphanInlineTables(ConnectionSpec spec, DropOrphanInlineTablesOptions options, ProgressListener listener) {
        this.spec = spec;
        this.options = options;
        this.listener = listener;
    }

    /**
     * Runs the operation.
     *
     * @return the figures of the run
     * @throws JanitorException {@link Reason#USAGE} for invalid options; {@link Reason#CONNECTION} when the
     *     catalog cannot be reached (or did not come back within the reconnect timeout);
     *     {@link Reason#NOT_A_CATALOG}, {@link Reason#UNSUPPORTED_VERSION}, {@link Reason#UNSAFE_CATALOG_STATE}
     *     from the catalog checks; {@link Reason#LOCK_HELD} when another run holds the advisory lock;
     *     {@link Reason#PERMISSION_DENIED} when a privilege is missing; {@link Reason#DATABASE_ERROR} when an
     *     error persisted after the retries. Whatever committed before a failure is consistent.
     */
    @Override
    protected DropOrphanInlineTablesResult run() throws JanitorException {
        options.validate();
        String schema = options.run().metadataSchema();
        try (MaintenanceRun run = MaintenanceRun.open(spec, options.run(), listener, stopFlag())) {
            try {
                return run(run, schema);
            } catch (SQLException e) {
                throw run.session().databaseError("the run", e);
            }
        }
    }

    private DropOrphanInlineTablesResult run(MaintenanceRun run, String schema) throws JanitorException, SQLException {
        RunRecorder rec = run.recorder();
        CatalogInfo info = run.inspectAndLock();
        BatchSizer sizer = run.batchSizer();
        DropTally tally = new DropTally(rec);
        InlinedTablesSurvey.Registry registered = info.hasInlinedRegistry()
                ? run.queries().withRetries("survey", c -> InlinedTablesSurvey.registry(c, schema, rec::rowWarning))
                : InlinedTablesSurvey.Registry.NONE;
        if (!info.hasInlinedRegistry()) {
            rec.warn("schema " + schema + " has no ducklake_inlined_data_tables table; only unregistered tables are looked at");
        }
        InlinedTablesSurvey.Unregistered unregistered = run.queries().withRetries("survey of unregistered tables",
                c -> InlinedTablesSurvey.unregistered(c, schema, info.hasInlinedRegistry(), info.version()));
        tally.survey(registered, unregistered);
        List<InlinedCandidate> candidates = options.includeUnregistered()
                ? InlinedCandidateList.concat(registered.candidates(), unregistered.dead()) : registered.candidates();
        Counts<DropCount> found = tally.counts;
        rec.info("registry_rows=" + found.get(REGISTRY_ROWS) + " orphan_rows=" + found.get(ORPHAN_ROWS) + " orphan_tables_present="
                + found.get(ORPHAN_TABLES_PRESENT) + " kept_by_name_guard=" + found.get(KEPT_BY_NAME_GUARD) + " unregistered_orphans="
                + found.get(UNREGISTERED_ORPHANS) + " inlined_delete_orphans=" + found.get(INLINED_DELETE_ORPHANS) + " inlined_delete_live="
                + found.get(INLINED_DELETE_LIVE) + " anomalies=" + found.get(ANOMALIES) + " candidates=" + candidates.size());
        rec.phase(ProgressListener.Phase.SURVEYED, candidates.size() + " candidates");
        if (!options.includeUnregistered() && !unregistered.dead().isEmpty()) {
            rec.warn(unregistered.dead().size() + " unregistered inlined table(s) of unreachable table_ids found ("
                    + found.get(UNREGISTERED_ORPHANS) + " data, " + found.get(INLINED_DELETE_ORPHANS) + " inlined delete); kept: pass "
                    + "--include-unregistered to drop them");
        }
        if (options.run().dryRun()) {
            tally.dryRun(run.queries().withRetries("dry-run probe",
                    c -> DryRunProbe.probe(c, schema, registered.candidates(), unregistered.dead(), options, rec::warn)));
            found.add(REMAINING, found.get(ORPHAN_ROWS)).add(REMAINING_UNREGISTERED, unregistered.dead().size());
        } else {
            dropInBatches(run, sizer, info, candidates, tally);
            found.add(REMAINING, info.hasInlinedRegistry() ? run.queries().withRetries("recount", c -> countOrphans(c, schema)) : 0);
            found.add(REMAINING_UNREGISTERED, run.queries().withRetries("recount of unregistered tables",
                    c -> InlinedTablesSurvey.unregistered(c, schema, info.hasInlinedRegistry(), info.version())).dead().size());
        }
        tally.summarizeNonEmpty(options.run().dryRun(), options.includeNonempty());
        return tally.toResult(schema, info.version().text(), options.run().dryRun(), options.includeNonempty(), run.figures());
    }

    /** The batches, then one more pass, one table at a time, over the tables another session kept locked. */
    private void dropInBatches(MaintenanceRun run, BatchSizer sizer, CatalogInfo info, List<InlinedCandidate> candidates, DropTally tally)
            throws JanitorException {
        String schema = info.schema();
        run.batchLoop(sizer, new DropBatch(schema, info.hasInlinedRegistry(), options.includeNonempty(), false, run.budget(), tally))
                .run(candidates);
        List<InlinedCandidate> lockBusy = tally.takeLockBusy();
        if (lockBusy.isEmpty()) {
            return;
        }
        List<InlinedCandidate> stillBusy = lockBusy;
        if (!run.budget().shouldStop()) {
            run.recorder().info("retrying " + lockBusy.size() + " table(s) that were locked by another session");
            BatchLoop<InlinedCandidate, DropBatch.Outcome> retry = run.batchLoop(sizer,
                    new DropBatch(schema, info.hasInlinedRegistry(), options.includeNonempty(), true, run.budget(), tally));
            stillBusy = new ArrayList<>();
            int at = 0;
            while (at < lockBusy.size()) {
                DropBatch.Outcome o = retry.runOne(lockBusy, at, true);
                stillBusy.addAll(tally.takeLockBusy());
                if (o == null) {
                    stillBusy.addAll(lockBusy.subList(at, lockBusy.size()));
                    break;
                }
                at += o.consumed();
                if (o.truncated()) {
                    stillBusy.addAll(lockBusy.subList(at, lockBusy.size()));
                    break;
                }
            }
        }
        run.recorder().finalBatchSize(sizer.size());
        for (InlinedCandidate c : stillBusy) {
            tally.counts.increment(SKIPPED_LOCKED);
            run.recorder().warn("skipped " + c.tableName() + ": another session kept it locked past lock_timeout ("
                    + options.run().lockTimeout().toMillis() + " ms); table and row kept for the next run");
        }
    }

    private static long countOrphans(Connection c, String schema) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(OrphanPredicate.countOrphanRegistryRows(schema));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
