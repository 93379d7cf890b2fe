package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.ops.RunOptions;
import dev.ducklake.janitor.pg.Transactions;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The dry run's probe: which candidate tables hold rows (with exact counts) and how many an execute run with the
 * same options would drop. Read-only transactions, no table lock beyond the probe's own ACCESS SHARE.
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

    private DryRunProbe() {
    }

    /**
     * Probes the candidates, {@value #SIZE_CHUNK} at a time, each chunk in its own read-only transactions: one
     * statement finds which of the chunk's names are plain tables of the schema and which of those may hold a
     * row (all but the zero-block heaps, {@link ZeroBlockHeaps#zeroBlockHeap}); only those are probed with
     * {@code SELECT … LIMIT 1} ({@value #PROBE_CHUNK} per transaction) and counted. Memory is one chunk's names
     * plus the non-empty tables (all listed, in name order), whatever the number of candidates.
     *
     * @param candidates in batch order (registry rows sorted by table_id and schema_version, so rows naming the
     *     same table are next to each other), then the unregistered candidates
     */
    static Findings probe(Connection conn, String schema, List<Candidate> candidates, DropOrphanInlineTablesOptions options,
                          Consumer<String> warn) throws SQLException {
        RunOptions run = options.run();
        long orphanNonempty = 0;
        long unregisteredNonempty = 0;
        long wouldDrop = 0;
        TreeMap<String, DropOrphanInlineTablesResult.NonEmptyTable> listed = new TreeMap<>();
        String previousLast = null;
        boolean warned = false;
        for (int from = 0; from < candidates.size(); from += SIZE_CHUNK) {
            // one entry per name (rows naming the same table are adjacent, also across chunk boundaries)
            Map<String, Candidate> byName = new LinkedHashMap<>();
            for (Candidate c : candidates.subList(from, Math.min(candidates.size(), from + SIZE_CHUNK))) {
                String name = c.tableName();
                if (!name.equals(previousLast)) {
                    byName.putIfAbsent(name, c);
                }
                previousLast = name;
            }
            Map<String, Long> oidOf = new HashMap<>();
            List<String> mayHoldRows = new ArrayList<>();
            Transactions.beginReadOnly(conn);
            try {
                Transactions.setLocalTimeouts(conn, run.statementTimeout(), run.lockTimeout());
                present(conn, schema, new ArrayList<>(byName.keySet()), oidOf, mayHoldRows);
                conn.commit();
                Set<String> nonEmpty = new HashSet<>();
                Set<String> unknown = new HashSet<>();
                Map<String, Long> rows = new HashMap<>();
                for (int i = 0; i < mayHoldRows.size(); i += PROBE_CHUNK) {
                    List<String> chunk = mayHoldRows.subList(i, Math.min(mayHoldRows.size(), i + PROBE_CHUNK));
                    Transactions.setLocalTimeouts(conn, run.statementTimeout(), run.lockTimeout());
                    Set<String> found = TableProbes.nonEmpty(conn, schema, chunk, oidOf);
                    if (found == null) {
                        conn.commit();
                        unknown.addAll(chunk);
                        if (!warned) {
                            warn.accept("a probed table changed identity during the dry run; its count may be off");
                            warned = true;
                        }
                        continue;
                    }
                    rows.putAll(TableProbes.countRows(conn, schema, chunk.stream().filter(found::contains).toList()));
                    conn.commit();
                    nonEmpty.addAll(found);
                }
                for (Map.Entry<String, Candidate> e : byName.entrySet()) {
                    String name = e.getKey();
                    if (!oidOf.containsKey(name) || unknown.contains(name)) {
                        continue;
                    }
                    Candidate c = e.getValue();
                    boolean full = nonEmpty.contains(name);
                    if (full) {
                        if (c.kind() == Candidate.Kind.REGISTERED) {
                            orphanNonempty++;
                        } else {
                            unregisteredNonempty++;
                        }
                        listed.put(name, c.nonEmpty(rows.get(name), false));
                    }
                    if ((c.kind() == Candidate.Kind.REGISTERED || options.includeUnregistered()) && (!full || options.includeNonempty())) {
                        wouldDrop++;
                    }
                }
            } finally {
                Transactions.endQuietly(conn);
            }
        }
        return new Findings(orphanNonempty, unregisteredNonempty, wouldDrop, new ArrayList<>(listed.values()));
    }

    /**
     * Of the given names, the plain tables of the schema (their oids into {@code oidOf}) and, among those, the
     * ones that may hold a row: every table except the zero-block heaps (into {@code mayHoldRows}, in name order).
     *
     * <p>Why: a heap with zero blocks holds no row (rows live in heap pages; even a concurrent, uncommitted
     * INSERT has already extended the file), so probing it with {@code SELECT … LIMIT 1} cannot find one. The
     * probe parses, plans and opens every table, about 0.3 ms each on a cold backend; the size check reads
     * one file size (pg_relation_size opens the relation and releases its lock at once, so no lock
     * accumulates). Tables with blocks, and tables of another access method, still get the real probe, so the
     * dry run's count is the same. Execute runs use the same test, under their ACCESS EXCLUSIVE lock.
     */
    private static void present(Connection conn, String schema, List<String> names, Map<String, Long> oidOf,
                                List<String> mayHoldRows) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT c.relname::text, c.oid, NOT " + ZeroBlockHeaps.zeroBlockHeap("c")
                + " FROM pg_catalog.pg_class c"
                + " WHERE c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?)"
                + " AND c.relkind = 'r' AND c.relname = ANY (?::name[]) ORDER BY 1")) {
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
