package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.AdvisoryLock;
import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.catalog.ConnectionSpec;
import dev.ducklake.janitor.catalog.FormatVersion;
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
import java.util.Optional;
import java.util.OptionalLong;
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
 * Non-empty orphans are skipped with a warning (table and row kept) unless
 * {@link DropOrphanInlineTablesOptions#includeNonempty()} is set; then they are dropped too and their exact row
 * counts reported.
 *
 * <p>Beyond the registry: tables of the schema named exactly {@code ducklake_inlined_data_<id>_<v>} (unregistered
 * leftovers: older DuckLake versions deleted registry rows but kept the tables) or
 * {@code ducklake_inlined_delete_<id>} (inlined deletions, never registered) are found in pg_class by a regex
 * (never LIKE) and the name guard of {@link InlinedTableName}. One without any registry row whose table_id is
 * unreachable is always reported and, with {@link DropOrphanInlineTablesOptions#includeUnregistered()}, dropped in
 * the same batches: ACCESS EXCLUSIVE lock, then a re-check under that lock that it is still the same relation, has
 * no registry row and an unreachable id, then the emptiness probe and the drop. An unregistered data table of a
 * reachable id, a table whose first columns are not DuckLake's, or a name that is not exactly DuckLake's is an
 * anomaly: reported, never dropped.
 *
 * <p>Retryable SQLSTATEs are retried up to
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
    private static final int PROBE_STATEMENT_TABLES = 250;
    private static final int DRY_RUN_SIZE_CHUNK = 10_000;
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
    // unregistered leftovers and inlined deletion tables (found by name in pg_class)
    private FormatVersion formatVersion;
    private boolean hasRegistry;
    private long unregisteredOrphans;
    private long inlinedDeleteOrphans;
    private long inlinedDeleteLive;
    private long unregisteredNonempty;
    private long droppedUnregistered;
    private long droppedInlinedDelete;
    private long droppedNonempty;
    private long inlinedRowsDropped;
    private long wouldDrop;
    private final List<DropOrphanInlineTablesResult.Anomaly> anomalies = new ArrayList<>();
    private long anomalyCount;
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
        rememberSession();
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
            formatVersion = info.version();
            hasRegistry = info.hasInlinedRegistry();
            List<Candidate> registered = info.hasInlinedRegistry() ? withRetries("survey", () -> survey(schema)) : List.of();
            if (!info.hasInlinedRegistry()) {
                warn("schema " + schema + " has no ducklake_inlined_data_tables table; only unregistered tables are looked at");
            }
            UnregisteredSurvey unregistered = withRetries("survey of unregistered tables",
                    () -> surveyUnregistered(schema, info.hasInlinedRegistry()));
            unregisteredOrphans = unregistered.count(Kind.UNREGISTERED_DATA);
            inlinedDeleteOrphans = unregistered.count(Kind.INLINED_DELETE);
            inlinedDeleteLive = unregistered.liveDeleteTables();
            unregistered.anomalies().forEach(this::anomaly);
            List<Candidate> candidates = new ArrayList<>(registered);
            if (options.includeUnregistered()) {
                candidates.addAll(unregistered.dead());
            }
            listener.info("registry_rows=" + registryRows + " orphan_rows=" + orphanRows + " orphan_tables_present="
                    + orphanTablesPresent + " kept_by_name_guard=" + keptByNameGuard + " unregistered_orphans="
                    + unregisteredOrphans + " inlined_delete_orphans=" + inlinedDeleteOrphans + " inlined_delete_live="
                    + inlinedDeleteLive + " anomalies=" + anomalyCount + " candidates=" + candidates.size());
            if (!options.includeUnregistered() && !unregistered.dead().isEmpty()) {
                warn(unregistered.dead().size() + " unregistered inlined table(s) of unreachable table_ids found ("
                        + unregisteredOrphans + " data, " + inlinedDeleteOrphans + " inlined delete); kept: pass "
                        + "--include-unregistered to drop them");
            }
            int finalSize = start;
            boolean budgetExhausted = false;
            boolean maxBatchesReached = false;
            long remaining;
            long remainingUnregistered;
            if (options.dryRun()) {
                List<Candidate> probed = new ArrayList<>(registered);
                probed.addAll(unregistered.dead());
                withRetries("dry-run probe", () -> {
                    dryRunProbe(schema, probed);
                    return null;
                });
                remaining = orphanRows;
                remainingUnregistered = unregistered.dead().size();
            } else {
                RunState state = new RunState(start, deadline, started);
                runBatches(schema, candidates, state);
                finalSize = state.size;
                budgetExhausted = state.budgetExhausted;
                maxBatchesReached = state.maxBatchesReached;
                remaining = info.hasInlinedRegistry() ? withRetries("recount", () -> countOrphans(schema)) : 0;
                remainingUnregistered = withRetries("recount of unregistered tables",
                        () -> surveyUnregistered(schema, info.hasInlinedRegistry())).dead().size();
            }
            double elapsed = (System.nanoTime() - started) / 1e9;
            return new DropOrphanInlineTablesResult(schema, info.version().text(), options.dryRun(), registryRows,
                    orphanRows, orphanTablesPresent, orphanNonempty, keptByNameGuard, keptNotATable, dropped, rowsDeleted,
                    missingTables, skippedNonempty, skippedLocked, remaining, batches, retries, reconnects, requested,
                    start, finalSize, budgetExhausted, maxBatchesReached, elapsed, unregisteredOrphans, inlinedDeleteOrphans,
                    inlinedDeleteLive, unregisteredNonempty, anomalyCount, wouldDrop, droppedUnregistered, droppedInlinedDelete,
                    droppedNonempty, inlinedRowsDropped, remainingUnregistered, List.copyOf(nonEmptyListed),
                    unregistered.dead().stream().limit(MAX_LISTED).map(Candidate::tableName).toList(),
                    List.copyOf(anomalies), List.copyOf(warnings));
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

    /** Where a candidate table was found. */
    private enum Kind {
        /** A registry row of ducklake_inlined_data_tables and its table. */
        REGISTERED(DropOrphanInlineTablesResult.KIND_REGISTERED),
        /** An inlined-data table found in pg_class without any registry row. */
        UNREGISTERED_DATA(DropOrphanInlineTablesResult.KIND_UNREGISTERED),
        /** An inlined deletion table (never registered), found in pg_class. */
        INLINED_DELETE(DropOrphanInlineTablesResult.KIND_INLINED_DELETE);

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /**
     * One unit of work: an orphan registry row that passed the name guard (ctid set), or an unregistered
     * table of an unreachable table_id (ctid null; schemaVersion -1 for an inlined deletion table).
     */
    private record Candidate(Kind kind, long tableId, long schemaVersion, String ctid) {
        String tableName() {
            return kind == Kind.INLINED_DELETE ? InlinedTableName.deleteTable(tableId)
                    : InlinedTableName.dataTable(tableId, schemaVersion);
        }

        Long schemaVersionOrNull() {
            return kind == Kind.INLINED_DELETE ? null : schemaVersion;
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
                    out.add(new Candidate(Kind.REGISTERED, tableId, version, ctid));
                }
            }
            conn.commit();
        } finally {
            restoreAutoCommit();
        }
        out.sort(CANDIDATE_ORDER);
        return out;
    }

    private long countOrphans(String schema) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(OrphanPredicate.countOrphanRegistryRows(schema));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    // ---------------------------------------------------------------- unregistered tables

    /** The first three columns DuckLake gives an inlined-data table up to format 1.0. */
    private static final List<String> DATA_COLUMNS = List.of("row_id:bigint", "begin_snapshot:bigint", "end_snapshot:bigint");
    /** The same in format 1.1-dev1 ({@code MigrateInlinedColumnNames}). */
    private static final List<String> DATA_COLUMNS_PREFIXED = List.of("_ducklake_row_id:bigint",
            "_ducklake_begin_snapshot:bigint", "_ducklake_end_snapshot:bigint");
    /** The columns of an inlined deletion table, in every format. */
    private static final List<String> DELETE_COLUMNS = List.of("file_id:bigint", "row_id:bigint", "begin_snapshot:bigint");

    /** What the pg_class survey found outside the registry. */
    private record UnregisteredSurvey(List<Candidate> dead, long liveDeleteTables,
                                      List<DropOrphanInlineTablesResult.Anomaly> anomalies) {
        long count(Kind kind) {
            return dead.stream().filter(c -> c.kind == kind).count();
        }
    }

    /** One relation of the schema named like an inlined table. */
    private record Relation(String name, String relkind, long oid, Long tableId, Long schemaVersion, boolean delete) {
    }

    /**
     * Finds the tables of the schema named like inlined tables that have no registry row, and sorts them into
     * candidates (unreachable table_id, DuckLake's name and columns), live inlined deletion tables (kept) and
     * anomalies (kept and reported). Registered tables are left to the registry path. Reads only.
     *
     * <p>"No registry row" means no row names the table and, for a data table, no row carries its
     * (table_id, schema_version): either would make DuckLake (or this tool's registry path) consider it.
     * Columns: a data table must start with {@code row_id, begin_snapshot, end_snapshot} (bigint), or in a
     * 1.1-dev1 catalog with either those or the {@code _ducklake_}-prefixed names (DuckLake's 1.0 to 1.1
     * migration renames only registered tables, so older leftovers keep the plain names); a deletion table
     * must start with {@code file_id, row_id, begin_snapshot}.
     */
    private UnregisteredSurvey surveyUnregistered(String schema, boolean hasRegistry) throws SQLException {
        List<Relation> relations = new ArrayList<>();
        List<Candidate> dead = new ArrayList<>();
        List<DropOrphanInlineTablesResult.Anomaly> found = new ArrayList<>();
        long liveDelete = 0;
        conn.setAutoCommit(false);
        conn.setReadOnly(true);
        try {
            try (PreparedStatement ps = conn.prepareStatement("SELECT c.relname::text, c.relkind::text, c.oid::bigint"
                    + " FROM pg_catalog.pg_class c"
                    + " WHERE c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?) AND c.relname ~ ?")) {
                ps.setFetchSize(10_000);
                ps.setString(1, schema);
                ps.setString(2, InlinedTableName.ANY_REGEX);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String name = rs.getString(1);
                        Optional<long[]> data = InlinedTableName.parseData(name);
                        OptionalLong delete = InlinedTableName.parseDelete(name);
                        Long id = data.isPresent() ? Long.valueOf(data.get()[0]) : delete.isPresent() ? Long.valueOf(delete.getAsLong()) : null;
                        Long version = data.isPresent() ? Long.valueOf(data.get()[1]) : null;
                        relations.add(new Relation(name, rs.getString(2), rs.getLong(3), id, version,
                                name.startsWith(InlinedTableName.DELETE_PREFIX)));
                    }
                }
            }
            if (relations.isEmpty()) {
                conn.commit();
                return new UnregisteredSurvey(dead, 0, found);
            }
            // which of them have no registry row, which of those have an unreachable table_id, and the first three
            // columns of those (one statement; the columns are read only for the rows returned)
            String registry = Sql.qualified(schema, "ducklake_inlined_data_tables");
            String unregistered = !hasRegistry ? "true"
                    : "NOT EXISTS (SELECT 1 FROM " + registry + " r WHERE r.table_name = u.name)"
                    // for a deletion table u.ver is NULL and this NOT EXISTS is true; no OR, so both become anti-joins
                    + " AND NOT EXISTS (SELECT 1 FROM " + registry + " r WHERE r.table_id = u.id AND r.schema_version = u.ver)";
            Map<String, Boolean> deadByName = new HashMap<>();
            Map<String, List<String>> columnsByName = new HashMap<>();
            try (PreparedStatement ps = conn.prepareStatement("WITH u AS (SELECT * FROM unnest(?::text[], ?::bigint[], ?::bigint[],"
                    + " ?::bigint[]) AS t(name, id, ver, reloid)),"
                    + " d AS (SELECT u.name FROM u WHERE u.id IS NOT NULL AND " + OrphanPredicate.unreachable(schema, "u.id") + ")"
                    + " SELECT u.name, u.name IN (SELECT name FROM d),"
                    + " ARRAY(SELECT a.attname::text || ':' || pg_catalog.format_type(a.atttypid, NULL)"
                    + " FROM pg_catalog.pg_attribute a WHERE a.attrelid = u.reloid::oid AND a.attnum > 0 AND NOT a.attisdropped"
                    + " ORDER BY a.attnum LIMIT 3)::text[]"
                    // a relation dropped since the listing (a concurrent expiry or run) is gone, not an anomaly
                    + " FROM u WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_class c WHERE c.oid = u.reloid::oid) AND " + unregistered)) {
                ps.setArray(1, conn.createArrayOf("text", relations.stream().map(Relation::name).toArray()));
                ps.setArray(2, conn.createArrayOf("bigint", relations.stream().map(Relation::tableId).toArray()));
                ps.setArray(3, conn.createArrayOf("bigint", relations.stream().map(Relation::schemaVersion).toArray()));
                ps.setArray(4, conn.createArrayOf("bigint", relations.stream().map(Relation::oid).toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        deadByName.put(rs.getString(1), rs.getBoolean(2));
                        columnsByName.put(rs.getString(1), Arrays.asList((String[]) rs.getArray(3).getArray()));
                    }
                }
            }
            conn.commit();
            for (Relation r : relations) {
                Boolean isDead = deadByName.get(r.name);
                if (isDead == null) {
                    continue; // registered: the registry path handles it
                }
                DropOrphanInlineTablesResult.Anomaly anomaly = null;
                if (!"r".equals(r.relkind)) {
                    anomaly = new DropOrphanInlineTablesResult.Anomaly(r.name, r.tableId, "not a plain table (relkind "
                            + r.relkind + "); never dropped");
                } else if (r.tableId == null) {
                    anomaly = new DropOrphanInlineTablesResult.Anomaly(r.name, null, "named like an inlined table but not "
                            + "exactly DuckLake's form (leading zeros or an id beyond bigint); never dropped");
                } else if (r.delete && !isDead) {
                    liveDelete++;
                } else if (!isDead) {
                    anomaly = new DropOrphanInlineTablesResult.Anomaly(r.name, r.tableId, "unregistered, but table_id "
                            + r.tableId + " is reachable from a retained snapshot; never dropped");
                } else if (!hasDuckLakeColumns(r, columnsByName.get(r.name))) {
                    anomaly = new DropOrphanInlineTablesResult.Anomaly(r.name, r.tableId, "its first columns " + columnsByName.get(r.name)
                            + " are not DuckLake's " + (r.delete ? DELETE_COLUMNS : DATA_COLUMNS) + "; never dropped");
                } else {
                    dead.add(r.delete ? new Candidate(Kind.INLINED_DELETE, r.tableId, -1, null)
                            : new Candidate(Kind.UNREGISTERED_DATA, r.tableId, r.schemaVersion, null));
                }
                if (anomaly != null) {
                    found.add(anomaly);
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
        dead.sort(CANDIDATE_ORDER);
        return new UnregisteredSurvey(dead, liveDelete, found);
    }

    private boolean hasDuckLakeColumns(Relation r, List<String> columns) {
        if (r.delete) {
            return columns.equals(DELETE_COLUMNS);
        }
        return columns.equals(DATA_COLUMNS)
                || (formatVersion.prefixedInlinedColumns() && columns.equals(DATA_COLUMNS_PREFIXED));
    }

    /** Batch order: by kind, then table_id, schema_version, ctid (keyset order of the registry). */
    private static final java.util.Comparator<Candidate> CANDIDATE_ORDER = java.util.Comparator
            .comparing((Candidate c) -> c.kind)
            .thenComparingLong(Candidate::tableId)
            .thenComparingLong(Candidate::schemaVersion)
            .thenComparing(c -> c.ctid == null ? "" : c.ctid);

    private void anomaly(DropOrphanInlineTablesResult.Anomaly a) {
        anomalyCount++;
        if (anomalies.size() < MAX_LISTED) {
            anomalies.add(a);
        }
        rowWarning("anomaly: " + a.tableName() + ": " + a.reason());
    }

    // ---------------------------------------------------------------- dry run

    private void dryRunProbe(String schema, List<Candidate> candidates) throws SQLException {
        orphanNonempty = 0;
        unregisteredNonempty = 0;
        wouldDrop = 0;
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
            // only tables with at least one heap block can hold a row: probe those, count the rest as empty
            Set<String> withBlocks = new HashSet<>(withHeapBlocks(oidOf));
            List<String> toProbe = present.stream().filter(withBlocks::contains).toList();
            Set<String> nonEmpty = new HashSet<>();
            Set<String> unknown = new HashSet<>();
            Map<String, Long> rows = new HashMap<>();
            for (int i = 0; i < toProbe.size(); i += DRY_RUN_PROBE_CHUNK) {
                List<String> chunk = toProbe.subList(i, Math.min(toProbe.size(), i + DRY_RUN_PROBE_CHUNK));
                setLocalTimeouts();
                Set<String> found = probeNonEmpty(schema, chunk, oidOf);
                if (found == null) {
                    conn.commit();
                    unknown.addAll(chunk);
                    warn("a probed table changed identity during the dry run; its count may be off");
                    continue;
                }
                rows.putAll(countRows(schema, chunk.stream().filter(found::contains).toList()));
                conn.commit();
                nonEmpty.addAll(found);
            }
            for (String name : present) {
                if (unknown.contains(name)) {
                    continue;
                }
                Candidate c = byName.get(name);
                boolean full = nonEmpty.contains(name);
                if (full) {
                    if (c.kind == Kind.REGISTERED) {
                        orphanNonempty++;
                    } else {
                        unregisteredNonempty++;
                    }
                    listNonEmpty(c, rows.get(name), false);
                }
                if ((c.kind == Kind.REGISTERED || options.includeUnregistered()) && (!full || options.includeNonempty())) {
                    wouldDrop++;
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

    /**
     * Which of the given tables have at least one block in their main fork ({@code pg_relation_size(oid) > 0}),
     * in transactions of {@value #DRY_RUN_SIZE_CHUNK} tables. Dry run only.
     *
     * <p>Why: a heap with zero blocks holds no row (rows live in heap pages; even a concurrent, uncommitted
     * INSERT has already extended the file), so probing it with {@code SELECT … LIMIT 1} cannot find one. The
     * probe parses, plans and opens every table, about 0.3 ms each on a cold backend; the size check reads
     * one file size (pg_relation_size opens the relation and releases its lock at once, so no lock
     * accumulates). Tables with blocks still get the real probe, so the dry run's count is the same.
     * Execute runs do not use this: they probe every table under its ACCESS EXCLUSIVE lock.
     */
    private List<String> withHeapBlocks(Map<String, Long> oidOf) throws SQLException {
        List<Map.Entry<String, Long>> entries = new ArrayList<>(oidOf.entrySet());
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = conn.prepareStatement("SELECT o FROM unnest(?::oid[]) o WHERE pg_catalog.pg_relation_size(o) > 0")) {
            for (int i = 0; i < entries.size(); i += DRY_RUN_SIZE_CHUNK) {
                Map<Long, String> nameOf = new HashMap<>();
                for (Map.Entry<String, Long> e : entries.subList(i, Math.min(entries.size(), i + DRY_RUN_SIZE_CHUNK))) {
                    nameOf.put(e.getValue(), e.getKey());
                }
                setLocalTimeouts();
                ps.setArray(1, conn.createArrayOf("bigint", nameOf.keySet().toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        String name = nameOf.get(rs.getLong(1));
                        if (name != null) {
                            out.add(name);
                        }
                    }
                }
                conn.commit();
            }
        }
        return out;
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
        /** Registry rows / tables this batch actually handled (fewer than {@code consumed} when truncated). */
        int handled;
        int dropped;
        int rowsDeleted;
        int missing;
        int skippedNonempty;
        int droppedUnregistered;
        int droppedInlinedDelete;
        int droppedNonempty;
        long rowsDropped;
        int registeredNonempty;
        int unregisteredNonempty;
        boolean truncated;
        final List<Candidate> lockBusy = new ArrayList<>();
        final List<DropOrphanInlineTablesResult.NonEmptyTable> nonEmpty = new ArrayList<>();
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
                droppedUnregistered += o.droppedUnregistered;
                droppedInlinedDelete += o.droppedInlinedDelete;
                droppedNonempty += o.droppedNonempty;
                inlinedRowsDropped += o.rowsDropped;
                orphanNonempty += o.registeredNonempty;
                unregisteredNonempty += o.unregisteredNonempty;
                for (DropOrphanInlineTablesResult.NonEmptyTable t : o.nonEmpty) {
                    if (nonEmptyListed.size() < MAX_LISTED) {
                        nonEmptyListed.add(t);
                    }
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
                // a batch truncated by the run budget or a stop handled only part of its slice: count what it did
                long left = lockRetryPass ? 0 : Math.max(0, (long) candidates.size() - pos - o.handled);
                double rate = (state.handled + o.handled) / Math.max(now, 1e-3);
                listener.batch(new ProgressListener.BatchProgress(batches, o.dropped + o.droppedUnregistered + o.droppedInlinedDelete, o.skippedNonempty, o.missing,
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
        List<Candidate> unregistered = new ArrayList<>();
        for (Candidate c : slice) {
            if (c.kind == Kind.REGISTERED) {
                byCtid.put(c.ctid, c);
            } else {
                unregistered.add(c);
            }
        }
        List<Locked> locked = byCtid.isEmpty() ? new ArrayList<>() : lockRows(schema, byCtid);
        // unregistered tables have no row to lock: note their current oid; they are re-checked once locked (step 3)
        if (!unregistered.isEmpty()) {
            Map<String, Long> oids = oidsOf(schema, unregistered.stream().map(Candidate::tableName).toList());
            for (Candidate c : unregistered) {
                Long oid = oids.get(c.tableName());
                if (oid != null) {
                    locked.add(new Locked(c, null, "r", oid));
                }
            }
        }
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
        // 3. lock, re-check, probe and drop the tables that exist, a chunk at a time
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
            Locked first = present.get(name).get(0);
            switch (first.candidate.kind) {
                case REGISTERED -> o.dropped++;
                case UNREGISTERED_DATA -> o.droppedUnregistered++;
                case INLINED_DELETE -> o.droppedInlinedDelete++;
                default -> throw new IllegalStateException();
            }
            for (Locked l : present.get(name)) {
                if (l.ctid != null) {
                    ctids.add(l.ctid);
                }
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
        // after a truncated batch the run ends; the rows of unprocessed tables stay for the next run
        o.consumed = slice.size();
        o.handled = o.truncated ? missing.size() + processed : slice.size();
        return o;
    }

    /** A registry row locked in the current batch (ctid null for an unregistered table), with what pg_class says of its table. */
    private record Locked(Candidate candidate, String ctid, String relkind, long oid) {
    }

    private List<Locked> lockRows(String schema, Map<String, Candidate> byCtid) throws SQLException {
        String registry = Sql.qualified(schema, "ducklake_inlined_data_tables");
        // never String.format: the quoted schema name is part of the text and may hold '%'
        java.util.function.UnaryOperator<String> select = where -> "SELECT r.ctid::text, r.table_id, r.schema_version,"
                + " r.table_name, c.relkind, c.oid"
                + " FROM " + registry + " r LEFT JOIN pg_catalog.pg_class c ON c.relname = r.table_name::name"
                + " AND c.relname::text = r.table_name"
                + " AND c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?)"
                + " WHERE " + where + " AND " + OrphanPredicate.unreachable(schema, "r.table_id")
                + " FOR UPDATE OF r SKIP LOCKED";
        List<Locked> out = new ArrayList<>();
        Set<Candidate> found = new HashSet<>();
        try (PreparedStatement ps = conn.prepareStatement(select.apply("r.ctid = ANY (?::text[]::tid[])"))) {
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
            try (PreparedStatement ps = conn.prepareStatement(select.apply(
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

    /** Locks, re-checks, probes and drops a chunk of existing tables with one statement per step. */
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
        List<String> eligible = recheckUnregistered(schema, chunk, present, oidOf, o);
        Set<String> nonEmpty = probeNonEmpty(schema, eligible, oidOf);
        if (nonEmpty == null) {
            // a name no longer points at the table we listed: keep the whole chunk for the next run
            rollbackTo("janitor_chunk");
            o.warnings.add("kept " + chunk.size() + " table(s): a table changed identity between listing and locking");
            return;
        }
        List<String> toDrop = new ArrayList<>();
        for (String name : eligible) {
            if (!nonEmpty.contains(name) || options.includeNonempty()) {
                toDrop.add(name);
            }
        }
        Map<String, Long> rows = options.includeNonempty()
                ? countRows(schema, eligible.stream().filter(nonEmpty::contains).toList()) : Map.of();
        StringBuilder dropSql = new StringBuilder();
        if (!toDrop.isEmpty()) {
            dropSql.append("DROP TABLE IF EXISTS ");
            appendNames(dropSql, schema, toDrop);
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
        droppedNames.addAll(toDrop);
        for (String name : eligible) {
            if (nonEmpty.contains(name)) {
                nonEmptyMet(name, present, rows.get(name), o);
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
            if (recheckUnregistered(schema, List.of(name), present, oidOf, o).isEmpty()) {
                releaseSavepoint("janitor_table");
                continue;
            }
            Set<String> nonEmpty = probeNonEmpty(schema, List.of(name), oidOf);
            if (nonEmpty == null) {
                o.warnings.add("kept " + name + ": it changed identity between listing and locking");
                releaseSavepoint("janitor_table");
                continue;
            }
            boolean full = !nonEmpty.isEmpty();
            if (full && !options.includeNonempty()) {
                nonEmptyMet(name, present, null, o);
                releaseSavepoint("janitor_table");
                continue;
            }
            Long rows = full ? countRows(schema, List.of(name)).get(name) : null;
            try (Statement st = conn.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + q + "; RELEASE SAVEPOINT janitor_table");
                droppedNames.add(name);
                if (full) {
                    nonEmptyMet(name, present, rows, o);
                }
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

    /**
     * Re-checks, under the ACCESS EXCLUSIVE lock just taken, the unregistered tables of a chunk: each must still
     * be the same relation (oid), have no registry row (by name, nor by ids for a data table) and an unreachable
     * table_id ({@link OrphanPredicate}). Registered tables pass through (their rows were re-checked and locked
     * in {@link #lockRows}).
     *
     * @return the names of the chunk that may still be dropped, in chunk order; the others are kept with a warning
     */
    private List<String> recheckUnregistered(String schema, List<String> chunk, Map<String, List<Locked>> present,
                                             Map<String, Long> oidOf, BatchOutcome o) throws SQLException {
        List<Candidate> unregistered = new ArrayList<>();
        for (String name : chunk) {
            Candidate c = present.get(name).get(0).candidate;
            if (c.kind != Kind.REGISTERED) {
                unregistered.add(c);
            }
        }
        if (unregistered.isEmpty()) {
            return chunk;
        }
        String registry = Sql.qualified(schema, "ducklake_inlined_data_tables");
        String notRegistered = !hasRegistry ? "" : " AND NOT EXISTS (SELECT 1 FROM " + registry + " r WHERE r.table_name = u.name)"
                + " AND NOT EXISTS (SELECT 1 FROM " + registry + " r WHERE r.table_id = u.id AND r.schema_version = u.ver)";
        Set<String> still = new HashSet<>();
        try (PreparedStatement ps = conn.prepareStatement("SELECT u.name FROM unnest(?::text[], ?::bigint[], ?::bigint[], ?::bigint[])"
                + " AS u(name, id, ver, reloid)"
                + " WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_class c WHERE c.oid = u.reloid::oid AND c.relname::text = u.name"
                + " AND c.relkind = 'r' AND c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?))"
                + notRegistered + " AND " + OrphanPredicate.unreachable(schema, "u.id"))) {
            ps.setArray(1, conn.createArrayOf("text", unregistered.stream().map(Candidate::tableName).toArray()));
            ps.setArray(2, conn.createArrayOf("bigint", unregistered.stream().map(Candidate::tableId).toArray()));
            ps.setArray(3, conn.createArrayOf("bigint", unregistered.stream().map(Candidate::schemaVersionOrNull).toArray()));
            ps.setArray(4, conn.createArrayOf("bigint", unregistered.stream().map(c -> oidOf.get(c.tableName())).toArray()));
            ps.setString(5, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    still.add(rs.getString(1));
                }
            }
        }
        List<String> out = new ArrayList<>();
        for (String name : chunk) {
            Candidate c = present.get(name).get(0).candidate;
            if (c.kind == Kind.REGISTERED || still.contains(name)) {
                out.add(name);
            } else {
                o.warnings.add("kept " + name + ": on re-check under the lock it has a registry row, a reachable table_id "
                        + "or is another relation now; not dropped");
            }
        }
        return out;
    }

    /** Records a non-empty table met in a batch: dropped (with its row count) or skipped. */
    private void nonEmptyMet(String name, Map<String, List<Locked>> present, Long rows, BatchOutcome o) {
        Candidate c = present.get(name).get(0).candidate;
        if (c.kind == Kind.REGISTERED) {
            o.registeredNonempty++;
        } else {
            o.unregisteredNonempty++;
        }
        boolean dropped = options.includeNonempty();
        o.nonEmpty.add(nonEmptyTable(c, rows, dropped));
        if (dropped) {
            o.droppedNonempty++;
            o.rowsDropped += rows == null ? 0 : rows;
            o.warnings.add("dropped non-empty orphan " + name + " (" + c.kind.label + ", table_id " + c.tableId + ") holding "
                    + rows + (Long.valueOf(1).equals(rows) ? " row" : " rows") + " (--include-nonempty)");
        } else {
            o.skippedNonempty++;
            o.warnings.add("skipping non-empty orphan " + name + " (" + c.kind.label + ", table_id " + c.tableId
                    + "): it still holds rows; kept (pass --include-nonempty to drop it)");
        }
    }

    /**
     * Which of the given existing tables hold at least one row: statements of
     * {@code (SELECT tableoid FROM t LIMIT 1) UNION ALL ...} of at most {@value #PROBE_STATEMENT_TABLES} tables
     * each, all sent in one round trip, mapped back through the tables' oids.
     *
     * <p>Why several statements: planning one UNION ALL grows faster than its number of branches (measured on
     * PostgreSQL 15, warm: 250 branches 23 ms, 1,000 114 ms, 2,000 320 ms); statements of 250 keep it linear.
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
        for (int i = 0; i < tables.size(); i++) {
            String t = tables.get(i);
            if (i % PROBE_STATEMENT_TABLES == 0) {
                sql.append(i > 0 ? "; " : "");
            } else {
                sql.append(" UNION ALL ");
            }
            sql.append("(SELECT tableoid FROM ").append(Sql.qualified(schema, t)).append(" LIMIT 1)");
            Long oid = oidOf.get(t);
            if (oid != null) {
                byOid.put(oid, t);
            }
        }
        try (Statement st = conn.createStatement()) {
            boolean isResult = st.execute(sql.toString());
            while (true) {
                if (isResult) {
                    try (ResultSet rs = st.getResultSet()) {
                        while (rs.next()) {
                            String name = byOid.get(rs.getLong(1));
                            if (name == null) {
                                return null;
                            }
                            nonEmpty.add(name);
                        }
                    }
                } else if (st.getUpdateCount() == -1) {
                    break;
                }
                isResult = st.getMoreResults();
            }
        }
        return nonEmpty;
    }

    /**
     * The exact row count ({@code count(*)}) of each given table, in one statement of
     * {@code SELECT 0, count(*) FROM t0 UNION ALL SELECT 1, count(*) FROM t1 ...}.
     *
     * @return name to row count
     */
    private Map<String, Long> countRows(String schema, List<String> tables) throws SQLException {
        Map<String, Long> out = new HashMap<>();
        if (tables.isEmpty()) {
            return out;
        }
        StringBuilder sql = new StringBuilder();
        for (int i = 0; i < tables.size(); i++) {
            if (i > 0) {
                sql.append(" UNION ALL ");
            }
            sql.append("SELECT ").append(i).append(", count(*) FROM ").append(Sql.qualified(schema, tables.get(i)));
        }
        try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery(sql.toString())) {
            while (rs.next()) {
                out.put(tables.get(rs.getInt(1)), rs.getLong(2));
            }
        }
        return out;
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

    /**
     * Reopens the connection with backoff (1 s doubling to 10 s) within the reconnect timeout; re-takes the lock.
     *
     * <p>A lost connection does not always end its server session: after a network cut the old backend can live on
     * (until TCP keepalive notices), holding the advisory lock and the batch's locks. So the reconnect first ends
     * that session of its own (identified by pid and backend_start, so a reused pid is never hit; best effort,
     * needs the same role), and a lock still held is retried within the timeout like a failed connect: it is
     * usually that old session on its way out. Only a lock held past the timeout is {@link Reason#LOCK_HELD}.
     */
    private void reconnect() throws JanitorException, SQLException {
        closeQuietly(conn);
        long deadline = System.nanoTime() + options.reconnectTimeout().toNanos();
        long backoff = 1000;
        SQLException last = null;
        JanitorException lockHeld = null;
        while (true) {
            try {
                conn = spec.openRaw();
                endPreviousSession();
                if (lock != null) {
                    lock.reacquire(conn);
                }
                reconnects++;
                rememberSession();
                listener.info("reconnected to " + spec.describe() + (lock != null ? " and re-took the advisory lock " + lock.describe() : ""));
                return;
            } catch (SQLException e) {
                last = e;
                closeQuietly(conn);
                conn = null;
            } catch (JanitorException e) {
                if (e.reason() != Reason.LOCK_HELD) {
                    throw e;
                }
                lockHeld = e;
                closeQuietly(conn);
                conn = null;
            }
            if (stopRequested.get()) {
                // SIGTERM/SIGINT while the server is away: no batch is in flight, so stop now instead of after the
                // reconnect timeout (the stop hook waits at most 30 s)
                throw new JanitorException(Reason.CONNECTION, "Lost the connection to " + spec.describe() + " and stopped "
                        + "(SIGTERM/SIGINT) while reconnecting. Work committed so far is kept; rerun to resume.", last);
            }
            if (System.nanoTime() + backoff * 1_000_000 - deadline >= 0) {
                if (lockHeld != null && last == null) {
                    throw new JanitorException(Reason.LOCK_HELD, "Lost the connection to " + spec.describe() + " mid-run; after"
                            + " reconnecting, the advisory lock " + lock.describe() + " stayed held by another session for "
                            + options.reconnectTimeout().toSeconds() + " s. Work committed so far is kept; rerun to resume.", lockHeld);
                }
                throw new JanitorException(Reason.CONNECTION, "Lost the connection to " + spec.describe()
                        + " and could not reconnect within " + options.reconnectTimeout().toSeconds() + " s (last SQLSTATE "
                        + (last == null ? "none" : SqlStates.stateOf(last)) + "). Work committed so far is kept; rerun to resume.", last);
            }
            for (long slept = 0; slept < backoff && !stopRequested.get(); slept += 100) {
                sleep(Math.min(100, backoff - slept));
            }
            backoff = Math.min(10_000, backoff * 2);
        }
    }

    /** pid and backend_start of the current session, to end it after a reconnect if it outlived the connection. */
    private String[] session;

    private void rememberSession() {
        try (PreparedStatement ps = conn.prepareStatement("SELECT pid::text, backend_start::text FROM pg_catalog.pg_stat_activity"
                + " WHERE pid = pg_backend_pid()"); ResultSet rs = ps.executeQuery()) {
            session = rs.next() ? new String[] {rs.getString(1), rs.getString(2)} : null;
        } catch (SQLException e) {
            session = null;
        }
    }

    private void endPreviousSession() {
        if (session == null) {
            return;
        }
        try (PreparedStatement ps = conn.prepareStatement("SELECT pg_catalog.pg_terminate_backend(pid) FROM pg_catalog.pg_stat_activity"
                + " WHERE pid::text = ? AND backend_start::text = ? AND pid <> pg_backend_pid()")) {
            ps.setString(1, session[0]);
            ps.setString(2, session[1]);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next() && rs.getBoolean(1)) {
                    listener.info("ended this run's previous server session (pid " + session[0] + "), which outlived its connection");
                }
            }
        } catch (SQLException e) {
            // not permitted or already gone: the lock retry below waits for it instead
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

    private void listNonEmpty(Candidate c, Long rows, boolean dropped) {
        if (nonEmptyListed.size() < MAX_LISTED) {
            nonEmptyListed.add(nonEmptyTable(c, rows, dropped));
        }
    }

    private static DropOrphanInlineTablesResult.NonEmptyTable nonEmptyTable(Candidate c, Long rows, boolean dropped) {
        return new DropOrphanInlineTablesResult.NonEmptyTable(c.tableName(), c.kind.label, c.tableId,
                c.schemaVersionOrNull(), rows, dropped);
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
