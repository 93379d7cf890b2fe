package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.AdvisoryLock;
import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.catalog.ConnectionSpec;
import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.catalog.LockBudget;
import dev.ducklake.janitor.catalog.OrphanPredicate;
import dev.ducklake.janitor.catalog.Sql;
import dev.ducklake.janitor.catalog.SqlStates;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Drops the inlined-data tables that DuckLake leaks for dropped tables, and deletes their registry rows.
 *
 * <p>Why: DuckLake on PostgreSQL creates one real table {@code ducklake_inlined_data_<table_id>_<schema_version>}
 * per table and schema version and registers it in {@code ducklake_inlined_data_tables}. Its own cleanup
 * ({@code DropEmptySupersededInlinedTables}) drops only superseded and empty ones and never those of a dropped
 * table; {@code ducklake_expire_snapshots} drops them only for tables that have a {@code ducklake_table} row.
 * DROP + CREATE workloads therefore leak them without bound.
 *
 * <p>What: a registry row is an orphan when {@link OrphanPredicate} calls its table_id unreachable. The orphan
 * keys are collected once, sorted by (table_id, schema_version) and worked through in batches; each batch is
 * one transaction that
 * <ol>
 *   <li>sets {@code statement_timeout} and {@code lock_timeout} locally;</li>
 *   <li>locks the batch's registry rows {@code FOR UPDATE SKIP LOCKED}, re-checking the orphan predicate and
 *       the name guard ({@link InlinedTableName#guardAllows});</li>
 *   <li>takes {@code ACCESS EXCLUSIVE} on every table that exists, checks emptiness with
 *       {@code SELECT tableoid FROM t LIMIT 1} (never reltuples), and drops the empty ones with
 *       {@code DROP TABLE IF EXISTS} — each step one statement for the whole batch, falling back to one table
 *       at a time under savepoints when a table is locked by someone else or cannot be dropped;</li>
 *   <li>deletes the registry rows of dropped tables and of tables already gone, by the ctids read when
 *       they were locked, and commits.</li>
 * </ol>
 * Non-empty orphans are skipped with a warning (table and row kept). Retryable SQLSTATEs are retried up to
 * 5 times per batch with backoff; 53200 (lock table full) halves the batch; a lost connection is reopened,
 * the advisory lock re-taken and the batch redone. An execute run holds {@link AdvisoryLock}; a dry run
 * takes none and runs in read-only transactions.
 *
 * <p>Not thread-safe; one instance per run. {@link #requestStop()} may be called from another thread.
 */
public final class DropOrphanInlineTables {

    private static final int MAX_ATTEMPTS = 5;
    private static final int MAX_RECONNECTS_PER_BATCH = 10;
    private static final int CLEAN_BATCHES_TO_GROW = 10;
    private static final int DRY_RUN_PROBE_CHUNK = 500;
    private static final int MAX_LISTED = 1000;
    private static final int MAX_WARNINGS = 100;
    private static final int MAX_ROW_WARNINGS = 20;

    private final ConnectionSpec spec;
    private final DropOrphanInlineTablesOptions options;
    private final ProgressListener listener;
    private final AtomicBoolean stopRequested = new AtomicBoolean();
    private final CountDownLatch finished = new CountDownLatch(1);

    private Connection conn;
    private AdvisoryLock lock;
    private final List<String> warnings = new ArrayList<>();
    private final List<DropOrphanInlineTablesResult.NonEmptyTable> nonEmptyListed = new ArrayList<>();
    private int rowWarnings;

    // figures of the run
    private long registryRows;
    private long orphanRows;
    private long orphanTablesPresent;
    private long orphanNonempty;
    private long keptByNameGuard;
    private long keptNotATable;
    private long dropped;
    private long rowsDeleted;
    private long missingTables;
    private long skippedNonempty;
    private long skippedLocked;
    private int batches;
    private int retries;
    private int reconnects;

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
     * Asks a running {@link #execute()} to stop at the next safe point (after the table in flight commits).
     * Safe to call from another thread, e.g. a shutdown hook.
     */
    public void requestStop() {
        stopRequested.set(true);
    }

    /**
     * Waits until a running {@link #execute()} has returned or thrown (for a shutdown hook that lets the batch
     * in flight commit before the JVM exits).
     *
     * @param timeout the longest wait
     * @return true when the run finished within the timeout
     */
    public boolean awaitFinished(Duration timeout) {
        try {
            return finished.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
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
    public DropOrphanInlineTablesResult execute() throws JanitorException {
        try {
            return run();
        } finally {
            finished.countDown();
        }
    }

    private DropOrphanInlineTablesResult run() throws JanitorException {
        options.validate();
        long started = System.nanoTime();
        Long deadline = options.runBudget() == null ? null : started + options.runBudget().toNanos();
        String schema = options.metadataSchema();
        conn = spec.open();
        try {
            CatalogInfo info = CatalogInspector.inspect(conn, schema);
            listener.info("catalog " + spec.describe() + " schema " + schema + ": DuckLake format " + info.version().text()
                    + ", snapshots " + info.minSnapshotId() + ".." + info.maxSnapshotId() + " (" + info.snapshotCount() + ")");
            if (!options.dryRun()) {
                lock = AdvisoryLock.acquire(conn, options.lockName(), schema);
            }
            LockBudget budget = LockBudget.read(conn);
            int requested = options.batchSize();
            int start = budget.effective(requested);
            listener.info("max_locks_per_transaction=" + budget.maxLocksPerTransaction() + " max_connections="
                    + budget.maxConnections() + " max_prepared_transactions=" + budget.maxPreparedTransactions()
                    + " capacity=" + budget.capacity() + " batch_cap=" + budget.cap());
            if (start < requested) {
                listener.info("--batch-size " + requested + " lowered to " + start + " to fit the server's lock table");
            }
            List<Candidate> candidates = info.hasInlinedRegistry() ? withRetries("survey", () -> survey(schema)) : List.of();
            if (!info.hasInlinedRegistry()) {
                warn("schema " + schema + " has no ducklake_inlined_data_tables table; nothing to do");
            }
            listener.info("registry_rows=" + registryRows + " orphan_rows=" + orphanRows + " orphan_tables_present="
                    + orphanTablesPresent + " kept_by_name_guard=" + keptByNameGuard + " candidates=" + candidates.size());
            int finalSize = start;
            boolean budgetExhausted = false;
            boolean maxBatchesReached = false;
            long remaining;
            if (options.dryRun()) {
                withRetries("dry-run probe", () -> {
                    dryRunProbe(schema, candidates);
                    return null;
                });
                remaining = orphanRows;
            } else {
                RunState state = new RunState(start, deadline, started);
                runBatches(schema, candidates, state);
                finalSize = state.size;
                budgetExhausted = state.budgetExhausted;
                maxBatchesReached = state.maxBatchesReached;
                orphanNonempty = skippedNonempty;
                remaining = info.hasInlinedRegistry() ? withRetries("recount", () -> countOrphans(schema)) : 0;
            }
            double elapsed = (System.nanoTime() - started) / 1e9;
            return new DropOrphanInlineTablesResult(schema, info.version().text(), options.dryRun(), registryRows,
                    orphanRows, orphanTablesPresent, orphanNonempty, keptByNameGuard, keptNotATable, dropped, rowsDeleted,
                    missingTables, skippedNonempty, skippedLocked, remaining, batches, retries, reconnects, requested,
                    start, finalSize, budgetExhausted, maxBatchesReached, elapsed, List.copyOf(nonEmptyListed),
                    List.copyOf(warnings));
        } catch (SQLException e) {
            throw databaseError("the run", e);
        } finally {
            if (lock != null && conn != null) {
                lock.release(conn);
            }
            closeQuietly(conn);
        }
    }

    // ---------------------------------------------------------------- survey

    /** One orphan registry row that passed the name guard: the unit of work. */
    private record Candidate(long tableId, long schemaVersion, String ctid) {
        String tableName() {
            return InlinedTableName.dataTable(tableId, schemaVersion);
        }
    }

    private List<Candidate> survey(String schema) throws SQLException {
        registryRows = 0;
        orphanRows = 0;
        orphanTablesPresent = 0;
        keptByNameGuard = 0;
        keptNotATable = 0;
        String registry = Sql.qualified(schema, "ducklake_inlined_data_tables");
        try (PreparedStatement ps = conn.prepareStatement("SELECT count(*) FROM " + registry);
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            registryRows = rs.getLong(1);
        }
        List<Candidate> out = new ArrayList<>();
        conn.setAutoCommit(false);
        conn.setReadOnly(true);
        try (PreparedStatement ps = conn.prepareStatement("SELECT r.ctid::text, r.table_id, r.schema_version, r.table_name, c.relkind"
                + " FROM " + registry + " r LEFT JOIN pg_catalog.pg_class c ON c.relname::text = r.table_name"
                + " AND c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?)"
                + " WHERE " + OrphanPredicate.unreachable(schema, "r.table_id"))) {
            ps.setFetchSize(10_000);
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    orphanRows++;
                    String ctid = rs.getString(1);
                    Long tableId = (Long) rs.getObject(2, Long.class);
                    Long version = (Long) rs.getObject(3, Long.class);
                    String name = rs.getString(4);
                    String relkind = rs.getString(5);
                    if (relkind != null) {
                        orphanTablesPresent++;
                    }
                    if (!InlinedTableName.guardAllows(name, tableId, version)) {
                        keptByNameGuard++;
                        rowWarning("kept by the name guard: registry row table_id=" + tableId + " schema_version=" + version
                                + " table_name=" + CatalogInspector.printable(name)
                                + " is not exactly ducklake_inlined_data_<table_id>_<schema_version>; table and row kept");
                        continue;
                    }
                    if (relkind != null && !"r".equals(relkind)) {
                        keptNotATable++;
                        rowWarning("kept: " + name + " is not a plain table (relkind " + relkind + "); row kept");
                        continue;
                    }
                    out.add(new Candidate(tableId, version, ctid));
                }
            }
            conn.commit();
        } finally {
            restoreAutoCommit();
        }
        out.sort((a, b) -> a.tableId != b.tableId ? Long.compare(a.tableId, b.tableId)
                : a.schemaVersion != b.schemaVersion ? Long.compare(a.schemaVersion, b.schemaVersion) : a.ctid.compareTo(b.ctid));
        return out;
    }

    private long countOrphans(String schema) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(OrphanPredicate.countOrphanRegistryRows(schema));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    // ---------------------------------------------------------------- dry run

    private void dryRunProbe(String schema, List<Candidate> candidates) throws SQLException {
        orphanNonempty = 0;
        nonEmptyListed.clear();
        Map<String, Candidate> byName = new LinkedHashMap<>();
        for (Candidate c : candidates) {
            byName.putIfAbsent(c.tableName(), c);
        }
        conn.setAutoCommit(false);
        conn.setReadOnly(true);
        try {
            setLocalTimeouts();
            Map<String, Long> oidOf = oidsOf(schema, new ArrayList<>(byName.keySet()));
            conn.commit();
            List<String> present = new ArrayList<>(oidOf.keySet());
            present.sort(null);
            for (int i = 0; i < present.size(); i += DRY_RUN_PROBE_CHUNK) {
                List<String> chunk = present.subList(i, Math.min(present.size(), i + DRY_RUN_PROBE_CHUNK));
                setLocalTimeouts();
                Set<String> nonEmpty = probeNonEmpty(schema, chunk, oidOf);
                conn.commit();
                if (nonEmpty == null) {
                    warn("a probed table changed identity during the dry run; its count may be off");
                    continue;
                }
                for (String name : chunk) {
                    if (nonEmpty.contains(name)) {
                        orphanNonempty++;
                        Candidate c = byName.get(name);
                        listNonEmpty(name, c.tableId, c.schemaVersion);
                    }
                }
            }
        } finally {
            try {
                conn.rollback();
            } catch (SQLException ignored) {
                // nothing to keep
            }
            restoreAutoCommit();
        }
    }

    /** Name to oid of those of the given names that are plain tables in the schema. */
    private Map<String, Long> oidsOf(String schema, List<String> tables) throws SQLException {
        Map<String, Long> oidOf = new HashMap<>();
        try (PreparedStatement ps = conn.prepareStatement("SELECT c.oid, c.relname::text FROM pg_catalog.pg_class c"
                + " WHERE c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?)"
                + " AND c.relkind = 'r' AND c.relname::text = ANY (?)")) {
            ps.setString(1, schema);
            ps.setArray(2, conn.createArrayOf("text", tables.toArray(new String[0])));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    oidOf.put(rs.getString(2), rs.getLong(1));
                }
            }
        }
        return oidOf;
    }

    // ---------------------------------------------------------------- execute

    private static final class RunState {
        int size;
        final int start;
        final Long deadline;
        final long started;
        boolean budgetExhausted;
        boolean maxBatchesReached;
        int cleanStreak;
        long handled;

        RunState(int start, Long deadline, long started) {
            this.size = start;
            this.start = start;
            this.deadline = deadline;
            this.started = started;
        }

        boolean pastDeadline() {
            return deadline != null && System.nanoTime() - deadline >= 0;
        }
    }

    /** What one batch transaction did (only taken over into the run's figures once committed). */
    private static final class BatchOutcome {
        int consumed;
        int dropped;
        int rowsDeleted;
        int missing;
        int skippedNonempty;
        boolean truncated;
        final List<Candidate> lockBusy = new ArrayList<>();
        final List<Candidate> nonEmpty = new ArrayList<>();
        final List<String> warnings = new ArrayList<>();
    }

    private void runBatches(String schema, List<Candidate> candidates, RunState state) throws JanitorException, SQLException {
        int pos = 0;
        List<Candidate> lockBusy = new ArrayList<>();
        while (pos < candidates.size()) {
            if (options.maxBatches() > 0 && batches >= options.maxBatches()) {
                state.maxBatchesReached = true;
                listener.info("--max-batches " + options.maxBatches() + " reached; " + (candidates.size() - pos) + " candidates left for the next run");
                break;
            }
            // at least one batch always goes through, so a run with a tiny budget still makes progress
            if ((batches > 0 && state.pastDeadline()) || stopRequested.get()) {
                state.budgetExhausted = true;
                listener.info((stopRequested.get() ? "stop requested" : "run budget spent") + "; " + (candidates.size() - pos)
                        + " candidates left for the next run");
                break;
            }
            BatchOutcome o = runOneBatch(schema, candidates, pos, state, false);
            if (o == null) {
                state.budgetExhausted = true;
                break;
            }
            pos += o.consumed;
            lockBusy.addAll(o.lockBusy);
            state.handled += o.consumed;
            if (o.truncated) {
                state.budgetExhausted = true;
                listener.info((stopRequested.get() ? "stop requested" : "run budget spent")
                        + " inside batch " + batches + "; the tables handled so far are committed");
                break;
            }
        }
        if (!lockBusy.isEmpty()) {
            boolean canRetry = !state.pastDeadline() && !stopRequested.get();
            List<Candidate> stillBusy = lockBusy;
            if (canRetry) {
                listener.info("retrying " + lockBusy.size() + " table(s) that were locked by another session");
                stillBusy = new ArrayList<>();
                int at = 0;
                while (at < lockBusy.size()) {
                    BatchOutcome o = runOneBatch(schema, lockBusy, at, state, true);
                    if (o == null) {
                        stillBusy.addAll(lockBusy.subList(at, lockBusy.size()));
                        break;
                    }
                    stillBusy.addAll(o.lockBusy);
                    at += o.consumed;
                    if (o.truncated) {
                        stillBusy.addAll(lockBusy.subList(at, lockBusy.size()));
                        break;
                    }
                }
            }
            for (Candidate c : stillBusy) {
                skippedLocked++;
                warn("skipped " + c.tableName() + ": another session kept it locked past lock_timeout ("
                        + options.lockTimeout().toMillis() + " ms); table and row kept for the next run");
            }
        }
    }

    /**
     * Runs the batch starting at {@code pos} with retries; commits it and takes its figures over.
     *
     * @return the committed outcome, or null when the run budget ran out during a retry backoff
     */
    private BatchOutcome runOneBatch(String schema, List<Candidate> candidates, int pos, RunState state, boolean lockRetryPass)
            throws JanitorException, SQLException {
        int attempt = 1;
        int reconnectsHere = 0;
        boolean hadRetry = false;
        long batchStart = System.nanoTime();
        while (true) {
            int n = Math.min(state.size, candidates.size() - pos);
            List<Candidate> slice = candidates.subList(pos, pos + n);
            try {
                BatchOutcome o = attemptBatch(schema, slice, state, lockRetryPass);
                conn.commit();
                restoreAutoCommit();
                batches++;
                dropped += o.dropped;
                rowsDeleted += o.rowsDeleted;
                missingTables += o.missing;
                skippedNonempty += o.skippedNonempty;
                for (Candidate c : o.nonEmpty) {
                    listNonEmpty(c.tableName(), c.tableId, c.schemaVersion);
                }
                o.warnings.forEach(this::warn);
                if (!hadRetry) {
                    state.cleanStreak++;
                    if (state.cleanStreak >= CLEAN_BATCHES_TO_GROW && state.size < state.start) {
                        int grown = Math.min(state.start, state.size * 2);
                        listener.info(CLEAN_BATCHES_TO_GROW + " clean batches: batch size " + state.size + " -> " + grown
                                + " (ceiling " + state.start + ")");
                        state.size = grown;
                        state.cleanStreak = 0;
                    }
                } else {
                    state.cleanStreak = 0;
                }
                double now = (System.nanoTime() - state.started) / 1e9;
                long left = lockRetryPass ? 0 : Math.max(0, (long) candidates.size() - pos - o.consumed);
                double rate = (state.handled + o.consumed) / Math.max(now, 1e-3);
                listener.batch(new ProgressListener.BatchProgress(batches, o.dropped, o.skippedNonempty, o.missing,
                        (System.nanoTime() - batchStart) / 1e9, now, left, rate > 0 ? left / rate : -1, n));
                return o;
            } catch (SQLException e) {
                rollbackQuietly();
                SqlStates.Kind kind = SqlStates.classify(e);
                String state0 = SqlStates.stateOf(e);
                switch (kind) {
                    case CONNECTION_LOST:
                        if (++reconnectsHere > MAX_RECONNECTS_PER_BATCH) {
                            throw new JanitorException(Reason.CONNECTION, "The connection to " + spec.describe()
                                    + " was lost " + reconnectsHere + " times in one batch; stopping. Work committed so far is kept.", e);
                        }
                        warn("connection lost during batch " + (batches + 1) + " (SQLSTATE " + state0 + "); reconnecting");
                        reconnect();
                        hadRetry = true;
                        continue;
                    case LOCK_TABLE_FULL:
                        if (attempt >= MAX_ATTEMPTS) {
                            throw new JanitorException(Reason.DATABASE_ERROR, "The server's lock table stayed full (SQLSTATE 53200, "
                                    + "out of shared memory) after " + MAX_ATTEMPTS + " attempts down to " + n + " tables per batch. "
                                    + "Rerun with a smaller --batch-size (e.g. " + Math.max(1, n / 2) + ") or raise max_locks_per_transaction.", e);
                        }
                        int halved = n > LockBudget.MIN_BATCH ? Math.max(LockBudget.MIN_BATCH, n / 2) : n;
                        warn("out of shared memory (53200): batch size " + n + " -> " + halved);
                        state.size = halved;
                        retries++;
                        attempt++;
                        hadRetry = true;
                        continue;
                    case RETRYABLE:
                        if (attempt >= MAX_ATTEMPTS) {
                            throw new JanitorException(Reason.DATABASE_ERROR, "Batch " + (batches + 1) + " failed " + MAX_ATTEMPTS
                                    + " times (last SQLSTATE " + state0 + ": " + spec.redact(e.getMessage()) + "); stopping. "
                                    + "Work committed so far is kept.", e);
                        }
                        long backoffMs = Math.min(5_000, 200L << (attempt - 1));
                        if (state.deadline != null && System.nanoTime() + backoffMs * 1_000_000 - state.deadline >= 0) {
                            warn("run budget would run out during the retry backoff (SQLSTATE " + state0
                                    + "); abandoning this batch instead of retrying");
                            return null;
                        }
                        warn("batch " + (batches + 1) + " attempt " + attempt + " failed with SQLSTATE " + state0
                                + "; retrying in " + backoffMs + " ms");
                        sleep(backoffMs);
                        retries++;
                        attempt++;
                        hadRetry = true;
                        continue;
                    case PERMISSION_DENIED:
                        throw new JanitorException(Reason.PERMISSION_DENIED, "The catalog user lacks a privilege needed to drop "
                                + "inlined tables or delete registry rows in schema " + schema + " (" + spec.redact(e.getMessage())
                                + "). Nothing of the failed batch was changed.", e);
                    default:
                        throw databaseError("batch " + (batches + 1), e);
                }
            }
        }
    }

    /** One attempt of one batch, inside a transaction left open for the caller to commit. */
    private BatchOutcome attemptBatch(String schema, List<Candidate> slice, RunState state, boolean perTableOnly) throws SQLException {
        BatchOutcome o = new BatchOutcome();
        conn.setAutoCommit(false);
        setLocalTimeouts();
        // 1. lock the batch's registry rows, re-checking the orphan predicate and the name guard
        Map<String, Candidate> byCtid = new HashMap<>();
        for (Candidate c : slice) {
            byCtid.put(c.ctid, c);
        }
        List<Locked> locked = lockRows(schema, byCtid);
        // 2. classify
        List<Locked> missing = new ArrayList<>();
        Map<String, List<Locked>> present = new LinkedHashMap<>();
        Map<String, Long> oidOf = new HashMap<>();
        for (Locked l : locked) {
            if (l.relkind == null) {
                missing.add(l);
            } else if ("r".equals(l.relkind)) {
                present.computeIfAbsent(l.candidate.tableName(), k -> new ArrayList<>()).add(l);
                oidOf.put(l.candidate.tableName(), l.oid);
            } else {
                o.warnings.add("kept: " + l.candidate.tableName() + " is not a plain table (relkind " + l.relkind + ")");
            }
        }
        // 3. lock, probe and drop the tables that exist, a chunk at a time
        List<String> names = new ArrayList<>(present.keySet());
        int chunkSize = state.deadline != null ? 1 : Math.max(1, names.size());
        Set<String> droppedNames = new HashSet<>();
        int processed = 0;
        for (int i = 0; i < names.size(); i += chunkSize) {
            List<String> chunk = names.subList(i, Math.min(names.size(), i + chunkSize));
            if (perTableOnly) {
                dropChunkPerTable(schema, chunk, present, oidOf, droppedNames, o);
            } else {
                dropChunk(schema, chunk, present, oidOf, droppedNames, o);
            }
            processed = i + chunk.size();
            if (processed < names.size() && (state.pastDeadline() || stopRequested.get())) {
                o.truncated = true;
                break;
            }
        }
        // 4. delete the registry rows of dropped tables and of tables already gone
        List<String> ctids = new ArrayList<>();
        for (Locked l : missing) {
            ctids.add(l.ctid);
        }
        for (String name : droppedNames) {
            for (Locked l : present.get(name)) {
                ctids.add(l.ctid);
            }
        }
        if (!ctids.isEmpty()) {
            try (PreparedStatement ps = conn.prepareStatement("DELETE FROM " + Sql.qualified(schema, "ducklake_inlined_data_tables")
                    + " WHERE ctid = ANY (?::text[]::tid[])")) {
                ps.setArray(1, conn.createArrayOf("text", ctids.toArray(new String[0])));
                o.rowsDeleted = ps.executeUpdate();
            }
        }
        o.missing = missing.size();
        o.dropped = droppedNames.size();
        // after a truncated batch the run ends; the rows of unprocessed tables stay for the next run
        o.consumed = slice.size();
        return o;
    }

    /** A registry row locked in the current batch, with what pg_class says of its table. */
    private record Locked(Candidate candidate, String ctid, String relkind, long oid) {
    }

    private List<Locked> lockRows(String schema, Map<String, Candidate> byCtid) throws SQLException {
        String registry = Sql.qualified(schema, "ducklake_inlined_data_tables");
        String select = "SELECT r.ctid::text, r.table_id, r.schema_version, r.table_name, c.relkind, c.oid"
                + " FROM " + registry + " r LEFT JOIN pg_catalog.pg_class c ON c.relname = r.table_name::name"
                + " AND c.relname::text = r.table_name"
                + " AND c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?)"
                + " WHERE %s AND " + OrphanPredicate.unreachable(schema, "r.table_id")
                + " FOR UPDATE OF r SKIP LOCKED";
        List<Locked> out = new ArrayList<>();
        Set<Candidate> found = new HashSet<>();
        try (PreparedStatement ps = conn.prepareStatement(String.format(select, "r.ctid = ANY (?::text[]::tid[])"))) {
            ps.setString(1, schema);
            ps.setArray(2, conn.createArrayOf("text", byCtid.keySet().toArray(new String[0])));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Candidate c = byCtid.get(rs.getString(1));
                    if (c != null && matches(c, rs)) {
                        out.add(new Locked(c, rs.getString(1), rs.getString(5), rs.getLong(6)));
                        found.add(c);
                    }
                }
            }
        }
        if (found.size() < byCtid.size()) {
            // rows that moved (their ctid changed) are found again by key; a seq scan, only when needed
            List<Candidate> lost = new ArrayList<>();
            for (Candidate c : byCtid.values()) {
                if (!found.contains(c)) {
                    lost.add(c);
                }
            }
            Set<String> seenCtids = new HashSet<>();
            out.forEach(l -> seenCtids.add(l.ctid));
            Map<String, Candidate> byKey = new HashMap<>();
            long[] ids = new long[lost.size()];
            long[] versions = new long[lost.size()];
            for (int i = 0; i < lost.size(); i++) {
                ids[i] = lost.get(i).tableId;
                versions[i] = lost.get(i).schemaVersion;
                byKey.put(lost.get(i).tableId + "/" + lost.get(i).schemaVersion, lost.get(i));
            }
            try (PreparedStatement ps = conn.prepareStatement(String.format(select,
                    "(r.table_id, r.schema_version) IN (SELECT * FROM unnest(?::bigint[], ?::bigint[]))"))) {
                ps.setString(1, schema);
                ps.setArray(2, conn.createArrayOf("bigint", Arrays.stream(ids).boxed().toArray()));
                ps.setArray(3, conn.createArrayOf("bigint", Arrays.stream(versions).boxed().toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Candidate c = byKey.get(rs.getLong(2) + "/" + rs.getLong(3));
                        if (c != null && !seenCtids.contains(rs.getString(1)) && matches(c, rs)) {
                            out.add(new Locked(c, rs.getString(1), rs.getString(5), rs.getLong(6)));
                            seenCtids.add(rs.getString(1));
                        }
                    }
                }
            }
        }
        return out;
    }

    private static boolean matches(Candidate c, ResultSet rs) throws SQLException {
        Long id = (Long) rs.getObject(2, Long.class);
        Long version = (Long) rs.getObject(3, Long.class);
        String name = rs.getString(4);
        return id != null && version != null && id == c.tableId && version == c.schemaVersion
                && InlinedTableName.guardAllows(name, id, version);
    }

    /** Locks, probes and drops a chunk of existing tables with one statement per step. */
    private void dropChunk(String schema, List<String> chunk, Map<String, List<Locked>> present, Map<String, Long> oidOf,
                           Set<String> droppedNames, BatchOutcome o) throws SQLException {
        StringBuilder lockSql = new StringBuilder("SAVEPOINT janitor_chunk; LOCK TABLE ");
        appendNames(lockSql, schema, chunk);
        lockSql.append(" IN ACCESS EXCLUSIVE MODE");
        try (Statement st = conn.createStatement()) {
            st.execute(lockSql.toString());
        } catch (SQLException e) {
            if (SqlStates.LOCK_NOT_AVAILABLE.equals(SqlStates.stateOf(e))) {
                rollbackTo("janitor_chunk");
                dropChunkPerTable(schema, chunk, present, oidOf, droppedNames, o);
                return;
            }
            throw e;
        }
        Set<String> nonEmpty = probeNonEmpty(schema, chunk, oidOf);
        if (nonEmpty == null) {
            // a name no longer points at the table we listed: keep the whole chunk for the next run
            rollbackTo("janitor_chunk");
            o.warnings.add("kept " + chunk.size() + " table(s): a table changed identity between listing and locking");
            return;
        }
        List<String> empty = new ArrayList<>();
        for (String name : chunk) {
            if (!nonEmpty.contains(name)) {
                empty.add(name);
            }
        }
        StringBuilder dropSql = new StringBuilder();
        if (!empty.isEmpty()) {
            dropSql.append("DROP TABLE IF EXISTS ");
            appendNames(dropSql, schema, empty);
            dropSql.append("; ");
        }
        dropSql.append("RELEASE SAVEPOINT janitor_chunk");
        try (Statement st = conn.createStatement()) {
            st.execute(dropSql.toString());
        } catch (SQLException e) {
            if (isPerTableFailure(e)) {
                rollbackTo("janitor_chunk");
                dropChunkPerTable(schema, chunk, present, oidOf, droppedNames, o);
                return;
            }
            throw e;
        }
        droppedNames.addAll(empty);
        for (String name : chunk) {
            if (nonEmpty.contains(name)) {
                skipNonEmpty(name, present, o);
            }
        }
    }

    /** Errors that concern one table and should not fail the batch: retry that chunk one table at a time. */
    private static boolean isPerTableFailure(SQLException e) {
        String s = SqlStates.stateOf(e);
        return s != null && (s.startsWith("2B") || s.equals("42809") || s.equals(SqlStates.LOCK_NOT_AVAILABLE));
    }

    /** The slow path: one table at a time under its own savepoint, so one locked or undroppable table is skipped alone. */
    private void dropChunkPerTable(String schema, List<String> chunk, Map<String, List<Locked>> present, Map<String, Long> oidOf,
                                   Set<String> droppedNames, BatchOutcome o) throws SQLException {
        for (String name : chunk) {
            String q = Sql.qualified(schema, name);
            try (Statement st = conn.createStatement()) {
                st.execute("SAVEPOINT janitor_table; LOCK TABLE " + q + " IN ACCESS EXCLUSIVE MODE");
            } catch (SQLException e) {
                if (SqlStates.LOCK_NOT_AVAILABLE.equals(SqlStates.stateOf(e))) {
                    rollbackTo("janitor_table");
                    o.lockBusy.add(present.get(name).get(0).candidate);
                    continue;
                }
                throw e;
            }
            Set<String> nonEmpty = probeNonEmpty(schema, List.of(name), oidOf);
            if (nonEmpty == null || !nonEmpty.isEmpty()) {
                if (nonEmpty == null) {
                    o.warnings.add("kept " + name + ": it changed identity between listing and locking");
                } else {
                    skipNonEmpty(name, present, o);
                }
                releaseSavepoint("janitor_table");
                continue;
            }
            try (Statement st = conn.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + q + "; RELEASE SAVEPOINT janitor_table");
                droppedNames.add(name);
            } catch (SQLException e) {
                if (isPerTableFailure(e)) {
                    rollbackTo("janitor_table");
                    o.warnings.add("kept " + name + ": DROP TABLE failed with SQLSTATE " + SqlStates.stateOf(e) + " ("
                            + e.getMessage() + "); table and row kept");
                    continue;
                }
                throw e;
            }
        }
    }

    private void skipNonEmpty(String name, Map<String, List<Locked>> present, BatchOutcome o) {
        Candidate c = present.get(name).get(0).candidate;
        o.skippedNonempty++;
        o.nonEmpty.add(c);
        o.warnings.add("skipping non-empty orphan " + name + " (table_id " + c.tableId + ", schema_version "
                + c.schemaVersion + "): it still holds rows; table and registry row kept");
    }

    /**
     * Which of the given existing tables hold at least one row: one statement of
     * {@code (SELECT tableoid FROM t LIMIT 1) UNION ALL ...}, mapped back through the tables' oids.
     *
     * @return the non-empty names, or null when a returned oid is not one of the expected (a name now points
     *     at another table; the caller keeps everything)
     */
    private Set<String> probeNonEmpty(String schema, List<String> tables, Map<String, Long> oidOf) throws SQLException {
        Set<String> nonEmpty = new HashSet<>();
        if (tables.isEmpty()) {
            return nonEmpty;
        }
        StringBuilder sql = new StringBuilder();
        Map<Long, String> byOid = new HashMap<>();
        for (String t : tables) {
            if (sql.length() > 0) {
                sql.append(" UNION ALL ");
            }
            sql.append("(SELECT tableoid FROM ").append(Sql.qualified(schema, t)).append(" LIMIT 1)");
            Long oid = oidOf.get(t);
            if (oid != null) {
                byOid.put(oid, t);
            }
        }
        try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery(sql.toString())) {
            while (rs.next()) {
                String name = byOid.get(rs.getLong(1));
                if (name == null) {
                    return null;
                }
                nonEmpty.add(name);
            }
        }
        return nonEmpty;
    }

    private static void appendNames(StringBuilder sql, String schema, List<String> names) {
        for (int i = 0; i < names.size(); i++) {
            if (i > 0) {
                sql.append(", ");
            }
            sql.append(Sql.qualified(schema, names.get(i)));
        }
    }

    // ---------------------------------------------------------------- plumbing

    private void setLocalTimeouts() throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT set_config('statement_timeout', ?, true), set_config('lock_timeout', ?, true)")) {
            ps.setString(1, Long.toString(options.statementTimeout().toMillis()));
            ps.setString(2, Long.toString(options.lockTimeout().toMillis()));
            ps.execute();
        }
    }

    private void rollbackTo(String savepoint) throws SQLException {
        try (Statement st = conn.createStatement()) {
            st.execute("ROLLBACK TO SAVEPOINT " + savepoint + "; RELEASE SAVEPOINT " + savepoint);
        }
    }

    private void releaseSavepoint(String savepoint) throws SQLException {
        try (Statement st = conn.createStatement()) {
            st.execute("RELEASE SAVEPOINT " + savepoint);
        }
    }

    private void restoreAutoCommit() {
        try {
            if (!conn.isClosed()) {
                conn.setAutoCommit(true);
                conn.setReadOnly(false);
            }
        } catch (SQLException ignored) {
            // a broken connection is replaced by the next reconnect
        }
    }

    private void rollbackQuietly() {
        try {
            if (conn != null && !conn.isClosed() && !conn.getAutoCommit()) {
                conn.rollback();
            }
        } catch (SQLException ignored) {
            // the connection may be gone; the server rolls back on its own
        }
        restoreAutoCommit();
    }

    private interface SqlWork<T> {
        T run() throws SQLException, JanitorException;
    }

    /** Runs read-only work, reconnecting after a lost connection and retrying retryable errors (5 attempts). */
    private <T> T withRetries(String what, SqlWork<T> work) throws JanitorException, SQLException {
        int attempt = 1;
        while (true) {
            try {
                return work.run();
            } catch (SQLException e) {
                rollbackQuietly();
                SqlStates.Kind kind = SqlStates.classify(e);
                if (attempt >= MAX_ATTEMPTS || (kind != SqlStates.Kind.CONNECTION_LOST && kind != SqlStates.Kind.RETRYABLE)) {
                    if (kind == SqlStates.Kind.PERMISSION_DENIED) {
                        throw new JanitorException(Reason.PERMISSION_DENIED, "The catalog user lacks a privilege for the " + what
                                + " (" + spec.redact(e.getMessage()) + ").", e);
                    }
                    throw databaseError(what, e);
                }
                warn(what + " failed with SQLSTATE " + SqlStates.stateOf(e) + "; retrying");
                if (kind == SqlStates.Kind.CONNECTION_LOST) {
                    reconnect();
                } else {
                    sleep(Math.min(5_000, 200L << (attempt - 1)));
                }
                retries++;
                attempt++;
            }
        }
    }

    /** Reopens the connection with backoff (1 s doubling to 10 s) within the reconnect timeout; re-takes the lock. */
    private void reconnect() throws JanitorException, SQLException {
        closeQuietly(conn);
        long deadline = System.nanoTime() + options.reconnectTimeout().toNanos();
        long backoff = 1000;
        SQLException last = null;
        while (true) {
            try {
                conn = spec.openRaw();
                reconnects++;
                if (lock != null) {
                    lock.reacquire(conn);
                }
                listener.info("reconnected to " + spec.describe() + (lock != null ? " and re-took the advisory lock " + lock.describe() : ""));
                return;
            } catch (SQLException e) {
                last = e;
                closeQuietly(conn);
                conn = null;
            }
            if (System.nanoTime() + backoff * 1_000_000 - deadline >= 0) {
                throw new JanitorException(Reason.CONNECTION, "Lost the connection to " + spec.describe()
                        + " and could not reconnect within " + options.reconnectTimeout().toSeconds() + " s (last SQLSTATE "
                        + (last == null ? "none" : SqlStates.stateOf(last)) + "). Work committed so far is kept; rerun to resume.", last);
            }
            sleep(backoff);
            backoff = Math.min(10_000, backoff * 2);
        }
    }

    private JanitorException databaseError(String what, SQLException e) {
        if (SqlStates.classify(e) == SqlStates.Kind.CONNECTION_LOST) {
            return new JanitorException(Reason.CONNECTION, "Lost the connection to " + spec.describe() + " during " + what
                    + " (SQLSTATE " + SqlStates.stateOf(e) + "). Work committed so far is kept; rerun to resume.", e);
        }
        return new JanitorException(Reason.DATABASE_ERROR, "Database error during " + what + " (SQLSTATE "
                + SqlStates.stateOf(e) + "): " + spec.redact(e.getMessage()), e);
    }

    private void listNonEmpty(String name, long tableId, long schemaVersion) {
        if (nonEmptyListed.size() < MAX_LISTED) {
            nonEmptyListed.add(new DropOrphanInlineTablesResult.NonEmptyTable(name, tableId, schemaVersion));
        }
    }

    private void rowWarning(String message) {
        rowWarnings++;
        if (rowWarnings <= MAX_ROW_WARNINGS) {
            warn(message);
        } else if (rowWarnings == MAX_ROW_WARNINGS + 1) {
            warn("more rows kept; further warnings of this kind are not shown (see the counts)");
        }
    }

    private void warn(String message) {
        if (warnings.size() < MAX_WARNINGS) {
            warnings.add(message);
        }
        listener.warn(message);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing
            }
        }
    }
}
