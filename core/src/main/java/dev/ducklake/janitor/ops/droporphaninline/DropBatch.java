package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.catalog.InlinedCandidate;
import dev.ducklake.janitor.catalog.OrphanPredicate;
import dev.ducklake.janitor.catalog.RegistryPredicate;
import dev.ducklake.janitor.ops.runtime.BatchOutcome;
import dev.ducklake.janitor.ops.runtime.BatchWork;
import dev.ducklake.janitor.ops.runtime.Counts;
import dev.ducklake.janitor.ops.runtime.RunBudget;
import dev.ducklake.janitor.ops.droporphaninline.LockedRows.Locked;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.pg.SqlState;
import dev.ducklake.janitor.pg.Transactions;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One batch transaction of {@link DropOrphanInlineTables} (the {@link dev.ducklake.janitor.ops.runtime.BatchLoop} opens
 * and commits it): lock the registry rows ({@link LockedRows}); take ACCESS EXCLUSIVE on the tables that exist,
 * re-check unregistered ones under that lock, probe emptiness and drop — one statement per step for a chunk,
 * falling back to one table at a time under savepoints when a table is locked by someone else or cannot be
 * dropped; then delete the registry rows of dropped and vanished tables by ctid.
 */
final class DropBatch implements BatchWork<InlinedCandidate, DropBatch.Outcome> {

    private static final String CHUNK_SAVEPOINT = "janitor_chunk";
    private static final String TABLE_SAVEPOINT = "janitor_table";

    /** What one batch transaction did (taken over into the run's figures only once committed). */
    static final class Outcome implements BatchOutcome {
        int consumed;
        /** Registry rows / tables this batch actually handled (fewer than {@code consumed} when truncated). */
        int handled;
        /** What the batch dropped, deleted, skipped and met. */
        final Counts<DropCount> counts = Counts.of(DropCount.class);
        /** Non-empty tables skipped, by kind. */
        final Counts<InlinedCandidate.Origin> skippedNonemptyByKind = Counts.of(InlinedCandidate.Origin.class);
        boolean truncated;
        final List<InlinedCandidate> lockBusy = new ArrayList<>();
        final List<DropOrphanInlineTablesResult.NonEmptyTable> nonEmpty = new ArrayList<>();
        final List<String> warnings = new ArrayList<>();
        /** Per-table warnings that a summary warning covers (shown with --verbose). */
        final List<String> detailWarnings = new ArrayList<>();

        @Override
        public int consumed() {
            return consumed;
        }

        @Override
        public int handled() {
            return handled;
        }

        @Override
        public boolean truncated() {
            return truncated;
        }

        @Override
        public int acted() {
            return Math.toIntExact(counts.get(DropCount.DROPPED) + counts.get(DropCount.DROPPED_UNREGISTERED)
                    + counts.get(DropCount.DROPPED_INLINED_DELETE));
        }

        @Override
        public int skipped() {
            return Math.toIntExact(counts.get(DropCount.SKIPPED_NONEMPTY));
        }

        @Override
        public int missing() {
            return Math.toIntExact(counts.get(DropCount.MISSING_TABLES));
        }
    }

    private final String schema;
    private final boolean hasRegistry;
    private final boolean includeNonempty;
    private final boolean perTableOnly;
    private final RunBudget budget;
    private final DropTally tally;
    private Connection conn;

    /**
     * @param perTableOnly whether every table goes the one-at-a-time path (the second pass over tables that were
     *     locked by another session)
     */
    DropBatch(String schema, boolean hasRegistry, boolean includeNonempty, boolean perTableOnly, RunBudget budget, DropTally tally) {
        this.schema = schema;
        this.hasRegistry = hasRegistry;
        this.includeNonempty = includeNonempty;
        this.perTableOnly = perTableOnly;
        this.budget = budget;
        this.tally = tally;
    }

    @Override
    public String privilegeNeeded() {
        return "to drop inlined tables or delete registry rows";
    }

    @Override
    public String units() {
        return "tables";
    }

    @Override
    public void committed(Outcome o) {
        tally.batchCommitted(o);
    }

    @Override
    public Outcome attempt(Connection c, List<InlinedCandidate> slice) throws SQLException {
        this.conn = c;
        Outcome o = new Outcome();
        // 1. lock the batch's registry rows, re-checking the orphan predicate and the name guard
        Map<String, InlinedCandidate> byCtid = new HashMap<>();
        List<InlinedCandidate> unregistered = new ArrayList<>();
        for (InlinedCandidate cand : slice) {
            if (cand.kind() == InlinedCandidate.Origin.REGISTERED) {
                byCtid.put(cand.ctid(), cand);
            } else {
                unregistered.add(cand);
            }
        }
        List<Locked> locked = byCtid.isEmpty() ? new ArrayList<>() : LockedRows.lock(conn, schema, byCtid);
        // unregistered tables have no row to lock: note their current oid; they are re-checked once locked (step 3)
        if (!unregistered.isEmpty()) {
            Map<String, Long> oids = TableProbes.oidsOf(conn, schema, unregistered.stream().map(InlinedCandidate::tableName).toList());
            for (InlinedCandidate cand : unregistered) {
                Long oid = oids.get(cand.tableName());
                if (oid != null) {
                    locked.add(new Locked(cand, null, "r", oid));
                }
            }
        }
        // 2. classify
        List<Locked> missing = new ArrayList<>();
        Map<String, List<Locked>> present = new LinkedHashMap<>();
        Map<String, Long> oidOf = new HashMap<>();
        for (Locked l : locked) {
            if (l.relkind() == null) {
                missing.add(l);
            } else if ("r".equals(l.relkind())) {
                present.computeIfAbsent(l.candidate().tableName(), k -> new ArrayList<>()).add(l);
                oidOf.put(l.candidate().tableName(), l.oid());
            } else {
                o.warnings.add("kept: " + l.candidate().tableName() + " is not a plain table (relkind " + l.relkind() + ")");
            }
        }
        // 3. lock, re-check, probe and drop the tables that exist, a chunk at a time
        List<String> names = new ArrayList<>(present.keySet());
        int chunkSize = budget.bounded() ? 1 : Math.max(1, names.size());
        Set<String> droppedNames = new HashSet<>();
        int processed = 0;
        for (int i = 0; i < names.size(); i += chunkSize) {
            List<String> chunk = names.subList(i, Math.min(names.size(), i + chunkSize));
            if (perTableOnly) {
                dropChunkPerTable(chunk, present, oidOf, droppedNames, o);
            } else {
                dropChunk(chunk, present, oidOf, droppedNames, o);
            }
            processed = i + chunk.size();
            if (processed < names.size() && budget.shouldStop()) {
                o.truncated = true;
                break;
            }
        }
        // 4. delete the registry rows of dropped tables and of tables already gone
        List<String> ctids = new ArrayList<>();
        for (Locked l : missing) {
            ctids.add(l.ctid());
        }
        for (String name : droppedNames) {
            Locked first = present.get(name).get(0);
            switch (first.candidate().kind()) {
                case REGISTERED -> o.counts.increment(DropCount.DROPPED);
                case UNREGISTERED_DATA -> o.counts.increment(DropCount.DROPPED_UNREGISTERED);
                case INLINED_DELETE -> o.counts.increment(DropCount.DROPPED_INLINED_DELETE);
                default -> throw new IllegalStateException();
            }
            for (Locked l : present.get(name)) {
                if (l.ctid() != null) {
                    ctids.add(l.ctid());
                }
            }
        }
        if (!ctids.isEmpty()) {
            try (PreparedStatement ps = conn.prepareStatement("DELETE FROM " + Sql.qualified(schema, "ducklake_inlined_data_tables")
                    + " WHERE ctid = ANY (?::text[]::tid[])")) {
                ps.setArray(1, conn.createArrayOf("text", ctids.toArray(new String[0])));
                o.counts.add(DropCount.ROWS_DELETED, ps.executeUpdate());
            }
        }
        o.counts.add(DropCount.MISSING_TABLES, missing.size());
        // after a truncated batch the run ends; the rows of unprocessed tables stay for the next run
        o.consumed = slice.size();
        o.handled = o.truncated ? missing.size() + processed : slice.size();
        return o;
    }

    /** Locks, re-checks, probes and drops a chunk of existing tables with one statement per step. */
    private void dropChunk(List<String> chunk, Map<String, List<Locked>> present, Map<String, Long> oidOf,
                           Set<String> droppedNames, Outcome o) throws SQLException {
        StringBuilder lockSql = new StringBuilder("SAVEPOINT " + CHUNK_SAVEPOINT + "; LOCK TABLE ");
        TableProbes.appendNames(lockSql, schema, chunk);
        lockSql.append(" IN ACCESS EXCLUSIVE MODE");
        try (Statement st = conn.createStatement()) {
            st.execute(lockSql.toString());
        } catch (SQLException e) {
            if (SqlState.LOCK_NOT_AVAILABLE.is(e)) {
                Transactions.rollbackTo(conn, CHUNK_SAVEPOINT);
                dropChunkPerTable(chunk, present, oidOf, droppedNames, o);
                return;
            }
            throw e;
        }
        List<String> eligible = recheckUnregistered(chunk, present, oidOf, o);
        Set<String> nonEmpty = TableProbes.nonEmptyUnderLock(conn, schema, eligible, oidOf);
        if (nonEmpty == null) {
            // a name no longer points at the table we listed: keep the whole chunk for the next run
            Transactions.rollbackTo(conn, CHUNK_SAVEPOINT);
            o.warnings.add("kept " + chunk.size() + " table(s): a table changed identity between listing and locking");
            return;
        }
        List<String> toDrop = new ArrayList<>();
        for (String name : eligible) {
            if (!nonEmpty.contains(name) || includeNonempty) {
                toDrop.add(name);
            }
        }
        Map<String, Long> rows = includeNonempty
                ? TableProbes.countRows(conn, schema, eligible.stream().filter(nonEmpty::contains).toList()) : Map.of();
        StringBuilder dropSql = new StringBuilder();
        if (!toDrop.isEmpty()) {
            dropSql.append("DROP TABLE IF EXISTS ");
            TableProbes.appendNames(dropSql, schema, toDrop);
            dropSql.append("; ");
        }
        dropSql.append("RELEASE SAVEPOINT " + CHUNK_SAVEPOINT);
        try (Statement st = conn.createStatement()) {
            st.execute(dropSql.toString());
        } catch (SQLException e) {
            if (isPerTableFailure(e)) {
                Transactions.rollbackTo(conn, CHUNK_SAVEPOINT);
                dropChunkPerTable(chunk, present, oidOf, droppedNames, o);
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
        String s = SqlState.codeOf(e);
        return s != null && (s.startsWith(SqlState.DEPENDENT_OBJECTS_CLASS) || SqlState.WRONG_OBJECT_TYPE.is(s)
                || SqlState.LOCK_NOT_AVAILABLE.is(s));
    }

    /** The slow path: one table at a time under its own savepoint, so one locked or undroppable table is skipped alone. */
    private void dropChunkPerTable(List<String> chunk, Map<String, List<Locked>> present, Map<String, Long> oidOf,
                                   Set<String> droppedNames, Outcome o) throws SQLException {
        for (String name : chunk) {
            String q = Sql.qualified(schema, name);
            try (Statement st = conn.createStatement()) {
                st.execute("SAVEPOINT " + TABLE_SAVEPOINT + "; LOCK TABLE " + q + " IN ACCESS EXCLUSIVE MODE");
            } catch (SQLException e) {
                if (SqlState.LOCK_NOT_AVAILABLE.is(e)) {
                    Transactions.rollbackTo(conn, TABLE_SAVEPOINT);
                    o.lockBusy.add(present.get(name).get(0).candidate());
                    continue;
                }
                throw e;
            }
            if (recheckUnregistered(List.of(name), present, oidOf, o).isEmpty()) {
                Transactions.release(conn, TABLE_SAVEPOINT);
                continue;
            }
            Set<String> nonEmpty = TableProbes.nonEmptyUnderLock(conn, schema, List.of(name), oidOf);
            if (nonEmpty == null) {
                o.warnings.add("kept " + name + ": it changed identity between listing and locking");
                Transactions.release(conn, TABLE_SAVEPOINT);
                continue;
            }
            boolean full = !nonEmpty.isEmpty();
            if (full && !includeNonempty) {
                nonEmptyMet(name, present, null, o);
                Transactions.release(conn, TABLE_SAVEPOINT);
                continue;
            }
            Long rows = full ? TableProbes.countRows(conn, schema, List.of(name)).get(name) : null;
            try (Statement st = conn.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + q + "; RELEASE SAVEPOINT " + TABLE_SAVEPOINT);
                droppedNames.add(name);
                if (full) {
                    nonEmptyMet(name, present, rows, o);
                }
            } catch (SQLException e) {
                if (isPerTableFailure(e)) {
                    Transactions.rollbackTo(conn, TABLE_SAVEPOINT);
                    o.warnings.add("kept " + name + ": DROP TABLE failed with SQLSTATE " + SqlState.codeOf(e) + " ("
                            + e.getMessage() + "); table and row kept");
                    continue;
                }
                throw e;
            }
        }
    }

    /**
     * Re-checks, under the ACCESS EXCLUSIVE lock just taken, the unregistered tables of a chunk: each must still
     * be the same relation (oid), have no registry row ({@link RegistryPredicate}) and an unreachable table_id
     * ({@link OrphanPredicate}). Registered tables pass through (their rows were re-checked and locked by
     * {@link LockedRows}).
     *
     * @return the names of the chunk that may still be dropped, in chunk order; the others are kept with a warning
     */
    private List<String> recheckUnregistered(List<String> chunk, Map<String, List<Locked>> present, Map<String, Long> oidOf,
                                             Outcome o) throws SQLException {
        List<InlinedCandidate> unregistered = new ArrayList<>();
        for (String name : chunk) {
            InlinedCandidate c = present.get(name).get(0).candidate();
            if (c.kind() != InlinedCandidate.Origin.REGISTERED) {
                unregistered.add(c);
            }
        }
        if (unregistered.isEmpty()) {
            return chunk;
        }
        Set<String> still = new HashSet<>();
        try (PreparedStatement ps = conn.prepareStatement("SELECT u.name FROM unnest(?::text[], ?::bigint[], ?::bigint[], ?::bigint[])"
                + " AS u(name, id, ver, reloid)"
                + " WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_class c WHERE c.oid = u.reloid::oid AND c.relname::text = u.name"
                + " AND c.relkind = 'r' AND c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?))"
                + " AND " + RegistryPredicate.noRegistryRow(schema, hasRegistry, "u.name", "u.id", "u.ver")
                + " AND " + OrphanPredicate.unreachable(schema, "u.id"))) {
            ps.setArray(1, conn.createArrayOf("text", unregistered.stream().map(InlinedCandidate::tableName).toArray()));
            ps.setArray(2, conn.createArrayOf("bigint", unregistered.stream().map(InlinedCandidate::tableId).toArray()));
            ps.setArray(3, conn.createArrayOf("bigint", unregistered.stream().map(InlinedCandidate::schemaVersionOrNull).toArray()));
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
            InlinedCandidate c = present.get(name).get(0).candidate();
            if (c.kind() == InlinedCandidate.Origin.REGISTERED || still.contains(name)) {
                out.add(name);
            } else {
                o.warnings.add("kept " + name + ": on re-check under the lock it has a registry row, a reachable table_id "
                        + "or is another relation now; not dropped");
            }
        }
        return out;
    }

    /** Records a non-empty table met in a batch: dropped (with its row count) or skipped. */
    private void nonEmptyMet(String name, Map<String, List<Locked>> present, Long rows, Outcome o) {
        InlinedCandidate c = present.get(name).get(0).candidate();
        if (c.kind() == InlinedCandidate.Origin.REGISTERED) {
            o.counts.increment(DropCount.ORPHAN_NONEMPTY);
        } else {
            o.counts.increment(DropCount.UNREGISTERED_NONEMPTY);
        }
        o.nonEmpty.add(DropOrphanInlineTablesResult.nonEmpty(c, rows, includeNonempty));
        if (includeNonempty) {
            o.counts.increment(DropCount.DROPPED_NONEMPTY).add(DropCount.INLINED_ROWS_DROPPED, rows == null ? 0 : rows);
            o.warnings.add("dropped non-empty orphan " + name + " (" + DropOrphanInlineTablesResult.kindLabel(c.kind()) + ", table_id " + c.tableId() + ") holding "
                    + rows + (Long.valueOf(1).equals(rows) ? " row" : " rows") + " (--include-nonempty)");
        } else {
            o.counts.increment(DropCount.SKIPPED_NONEMPTY);
            o.skippedNonemptyByKind.increment(c.kind());
            o.detailWarnings.add("skipping non-empty orphan " + name + " (" + DropOrphanInlineTablesResult.kindLabel(c.kind()) + ", table_id " + c.tableId()
                    + "): it still holds rows; kept (pass --include-nonempty to drop it)");
        }
    }
}
