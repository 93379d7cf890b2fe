package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.catalog.InlinedCandidateList;
import dev.ducklake.janitor.catalog.InlinedCandidate;
import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.catalog.OrphanPredicate;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.pg.Transactions;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The dry run's probe: which candidate tables hold rows (with exact counts) and how many an execute run with the
 * same options would drop. Read-only transactions, no table lock beyond the probe's own ACCESS SHARE.
 *
 * <p>A heap table with zero blocks in its main fork holds no row ({@link ZeroBlockHeaps} states why; in a dry
 * run, without the execute run's ACCESS EXCLUSIVE lock, this is the same fact read at one instant). So only the
 * candidates that have blocks, or another access method, are probed with {@code SELECT … LIMIT 1} and counted;
 * a leak of empty tables costs one file-size call per table and no probe.
 */
final class DryRunProbe {

    private static final int PROBE_CHUNK = 500;
    private static final int SIZE_CHUNK = 10_000;

    /**
     * What the probe found.
     *
     * @param orphanNonempty registered candidates holding rows
     * @param unregisteredNonempty unregistered candidates holding rows
     * @param wouldDrop tables an execute run with the same options would drop
     * @param nonEmpty the non-empty tables with their exact row counts, in name order
     */
    record Findings(long orphanNonempty, long unregisteredNonempty, long wouldDrop,
                    List<DropOrphanInlineTablesResult.NonEmptyTable> nonEmpty) {
    }

    /** The running figures of one probe. */
    private static final class ProbeCounts {
        long orphanNonempty;
        long unregisteredNonempty;
        long wouldDrop;
        /** Registered candidate tables present at the survey that an execute run would keep. */
        long registeredKept;
        boolean warned;
        final TreeMap<String, DropOrphanInlineTablesResult.NonEmptyTable> listed = new TreeMap<>();
    }

    private DryRunProbe() {
    }

    /**
     * Probes the candidates.
     *
     * <p>Registered candidates: one statement returns the plain tables of the schema that an orphan registry row
     * names and that may hold a row (every table but a zero-block heap, {@link ZeroBlockHeaps#zeroBlockHeap});
     * at 230,000 empty leaked tables it returns none. It runs without a cursor, so PostgreSQL may spread the
     * file-size calls over parallel workers (1.7 s at 230,000 tables on PostgreSQL 15 with the default two
     * workers per gather, against 3.2 s in one process). Each returned name is matched to the candidate list
     * by its (table_id, schema_version) ({@link InlinedCandidateList#presentAtSurvey}), so the figures stay those of the
     * survey's candidates; the survey also says which candidates' tables existed, so the empty ones need no
     * row here. Unregistered candidates (few) are looked up by name, {@value #SIZE_CHUNK} at a time. The tables
     * that may hold rows are then probed with {@code SELECT … LIMIT 1} ({@value #PROBE_CHUNK} per read-only
     * transaction) and the non-empty ones counted.
     *
     * <p>Memory: the names of the tables that may hold rows and the non-empty tables listed, never a structure
     * per candidate. Server: every relation a file-size call opens stays in that backend's relation cache until
     * the session ends (about 180 MiB at 230,000 tables, PostgreSQL 15); the run's session ends with the run.
     *
     * @param registered the registered candidates, in the survey's (table_id, schema_version) order
     * @param unregistered the unregistered candidates
     * @return the findings
     * @throws SQLException on database errors (the caller retries)
     */
    static Findings probe(Connection conn, String schema, InlinedCandidateList registered, List<InlinedCandidate> unregistered,
                          DropOrphanInlineTablesOptions options, Consumer<String> warn) throws SQLException {
        ProbeCounts counts = new ProbeCounts();
        try {
            if (!registered.isEmpty()) {
                Map<String, Long> oidOf = new HashMap<>();
                Map<String, InlinedCandidate> candidateOf = new HashMap<>();
                beginReadOnly(conn, options.run());
                registeredMayHoldRows(conn, schema, registered, oidOf, candidateOf);
                conn.commit();
                probeAndCount(conn, schema, new ArrayList<>(candidateOf.keySet()), oidOf, candidateOf, options, counts, warn);
                // every registered candidate table present at the survey is dropped, but those found holding rows
                // (without --include-nonempty) and those whose probe was inconclusive
                counts.wouldDrop += registered.tablesPresentAtSurvey() - counts.registeredKept;
            }
            for (int from = 0; from < unregistered.size(); from += SIZE_CHUNK) {
                Map<String, InlinedCandidate> candidateOf = new HashMap<>();
                for (InlinedCandidate c : unregistered.subList(from, Math.min(unregistered.size(), from + SIZE_CHUNK))) {
                    candidateOf.put(c.tableName(), c);
                }
                Map<String, Long> oidOf = new HashMap<>();
                List<String> mayHoldRows = new ArrayList<>();
                beginReadOnly(conn, options.run());
                present(conn, schema, new ArrayList<>(candidateOf.keySet()), oidOf, mayHoldRows);
                conn.commit();
                if (options.includeUnregistered()) {
                    counts.wouldDrop += oidOf.size() - mayHoldRows.size();
                }
                candidateOf.keySet().retainAll(new HashSet<>(mayHoldRows));
                probeAndCount(conn, schema, mayHoldRows, oidOf, candidateOf, options, counts, warn);
            }
        } finally {
            Transactions.endQuietly(conn);
        }
        return new Findings(counts.orphanNonempty, counts.unregisteredNonempty, counts.wouldDrop,
                new ArrayList<>(counts.listed.values()));
    }

    /**
     * The statement over the registered candidates: puts those whose table exists now, existed at the survey and
     * may hold rows into {@code oidOf} and {@code candidateOf}.
     */
    private static void registeredMayHoldRows(Connection conn, String schema, InlinedCandidateList registered,
                                              Map<String, Long> oidOf, Map<String, InlinedCandidate> candidateOf) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT c.relname::text, c.oid FROM pg_catalog.pg_class c"
                + " WHERE c.relnamespace = (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = ?) AND c.relkind = 'r'"
                + " AND NOT " + ZeroBlockHeaps.zeroBlockHeap("c")
                + " AND EXISTS (SELECT 1 FROM " + Sql.qualified(schema, "ducklake_inlined_data_tables") + " r"
                + " WHERE r.table_name = c.relname::text AND " + OrphanPredicate.unreachable(schema, "r.table_id") + ")")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String name = rs.getString(1);
                    Optional<long[]> key = InlinedTableName.parseData(name);
                    if (key.isPresent() && registered.presentAtSurvey(key.get()[0], key.get()[1])) {
                        oidOf.put(name, rs.getLong(2));
                        candidateOf.put(name, new InlinedCandidate(InlinedCandidate.Origin.REGISTERED, key.get()[0], key.get()[1], null));
                    }
                    // else: not a candidate (kept by the name guard, or not there at the survey)
                }
            }
        }
    }

    /**
     * Probes the given tables (each may hold rows), {@value #PROBE_CHUNK} per read-only transaction, and counts
     * the rows of the non-empty ones. Unregistered tables count as dropped here when the options would drop them;
     * registered tables that would be kept are counted in {@link ProbeCounts#registeredKept}.
     */
    private static void probeAndCount(Connection conn, String schema, List<String> tables, Map<String, Long> oidOf,
                                      Map<String, InlinedCandidate> candidateOf, DropOrphanInlineTablesOptions options, ProbeCounts counts,
                                      Consumer<String> warn) throws SQLException {
        tables.sort(null);
        for (int i = 0; i < tables.size(); i += PROBE_CHUNK) {
            List<String> chunk = tables.subList(i, Math.min(tables.size(), i + PROBE_CHUNK));
            beginReadOnly(conn, options.run());
            Set<String> found = TableProbes.nonEmpty(conn, schema, chunk, oidOf);
            if (found == null) {
                conn.commit();
                counts.registeredKept += chunk.stream().filter(t -> candidateOf.get(t).kind() == InlinedCandidate.Origin.REGISTERED).count();
                if (!counts.warned) {
                    warn.accept("a probed table changed identity during the dry run; its count may be off");
                    counts.warned = true;
                }
                continue;
            }
            Map<String, Long> rows = TableProbes.countRows(conn, schema, chunk.stream().filter(found::contains).toList());
            conn.commit();
            for (String name : chunk) {
                InlinedCandidate c = candidateOf.get(name);
                boolean registeredKind = c.kind() == InlinedCandidate.Origin.REGISTERED;
                boolean full = found.contains(name);
                if (full) {
                    if (registeredKind) {
                        counts.orphanNonempty++;
                    } else {
                        counts.unregisteredNonempty++;
                    }
                    counts.listed.put(name, DropOrphanInlineTablesResult.nonEmpty(c, rows.get(name), false));
                }
                boolean dropped = !full || options.includeNonempty();
                if (registeredKind && !dropped) {
                    counts.registeredKept++;
                } else if (!registeredKind && dropped && options.includeUnregistered()) {
                    counts.wouldDrop++;
                }
            }
        }
    }

    /** Starts a read-only transaction with the run's statement and lock timeouts set for it. */
    private static void beginReadOnly(Connection conn, RunOptions run) throws SQLException {
        Transactions.beginReadOnly(conn);
        Transactions.setLocalTimeouts(conn, run.statementTimeout(), run.lockTimeout());
    }

    /**
     * Of the given names, the plain tables of the schema (their oids into {@code oidOf}) and, among those, the
     * ones that may hold a row: every table except the zero-block heaps (into {@code mayHoldRows}).
     */
    private static void present(Connection conn, String schema, List<String> names, Map<String, Long> oidOf,
                                List<String> mayHoldRows) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT c.relname::text, c.oid, NOT " + ZeroBlockHeaps.zeroBlockHeap("c")
                + " FROM pg_catalog.pg_class c"
                + " WHERE c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?)"
                + " AND c.relkind = 'r' AND c.relname = ANY (?::name[])")) {
            ps.setString(1, schema);
            ps.setArray(2, conn.createArrayOf("text", names.toArray(new String[0])));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    oidOf.put(rs.getString(1), rs.getLong(2));
                    if (rs.getBoolean(3)) {
                        mayHoldRows.add(rs.getString(1));
                    }
                }
            }
        }
    }
}
