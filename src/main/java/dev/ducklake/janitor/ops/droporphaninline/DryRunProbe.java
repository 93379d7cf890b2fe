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

    static Findings probe(Connection conn, String schema, List<Candidate> candidates, DropOrphanInlineTablesOptions options,
                          Consumer<String> warn) throws SQLException {
        RunOptions run = options.run();
        long orphanNonempty = 0;
        long unregisteredNonempty = 0;
        long wouldDrop = 0;
        List<DropOrphanInlineTablesResult.NonEmptyTable> listed = new ArrayList<>();
        Map<String, Candidate> byName = new LinkedHashMap<>();
        for (Candidate c : candidates) {
            byName.putIfAbsent(c.tableName(), c);
        }
        Transactions.beginReadOnly(conn);
        try {
            Transactions.setLocalTimeouts(conn, run.statementTimeout(), run.lockTimeout());
            Map<String, Long> oidOf = TableProbes.oidsOf(conn, schema, new ArrayList<>(byName.keySet()));
            conn.commit();
            List<String> present = new ArrayList<>(oidOf.keySet());
            present.sort(null);
            // only tables with at least one heap block can hold a row: probe those, count the rest as empty
            Set<String> withBlocks = new HashSet<>(withHeapBlocks(conn, oidOf, run));
            List<String> toProbe = present.stream().filter(withBlocks::contains).toList();
            Set<String> nonEmpty = new HashSet<>();
            Set<String> unknown = new HashSet<>();
            Map<String, Long> rows = new HashMap<>();
            for (int i = 0; i < toProbe.size(); i += PROBE_CHUNK) {
                List<String> chunk = toProbe.subList(i, Math.min(toProbe.size(), i + PROBE_CHUNK));
                Transactions.setLocalTimeouts(conn, run.statementTimeout(), run.lockTimeout());
                Set<String> found = TableProbes.nonEmpty(conn, schema, chunk, oidOf);
                if (found == null) {
                    conn.commit();
                    unknown.addAll(chunk);
                    warn.accept("a probed table changed identity during the dry run; its count may be off");
                    continue;
                }
                rows.putAll(TableProbes.countRows(conn, schema, chunk.stream().filter(found::contains).toList()));
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
                    if (c.kind() == Candidate.Kind.REGISTERED) {
                        orphanNonempty++;
                    } else {
                        unregisteredNonempty++;
                    }
                    listed.add(c.nonEmpty(rows.get(name), false));
                }
                if ((c.kind() == Candidate.Kind.REGISTERED || options.includeUnregistered()) && (!full || options.includeNonempty())) {
                    wouldDrop++;
                }
            }
        } finally {
            Transactions.endQuietly(conn);
        }
        return new Findings(orphanNonempty, unregisteredNonempty, wouldDrop, listed);
    }

    /**
     * Which of the given tables have at least one block in their main fork ({@code pg_relation_size(oid) > 0}),
     * in transactions of {@value #SIZE_CHUNK} tables.
     *
     * <p>Why: a heap with zero blocks holds no row (rows live in heap pages; even a concurrent, uncommitted
     * INSERT has already extended the file), so probing it with {@code SELECT … LIMIT 1} cannot find one. The
     * probe parses, plans and opens every table, about 0.3 ms each on a cold backend; the size check reads
     * one file size (pg_relation_size opens the relation and releases its lock at once, so no lock
     * accumulates). Tables with blocks still get the real probe, so the dry run's count is the same.
     * Execute runs do not use this: they probe every table under its ACCESS EXCLUSIVE lock.
     */
    private static List<String> withHeapBlocks(Connection conn, Map<String, Long> oidOf, RunOptions run) throws SQLException {
        List<Map.Entry<String, Long>> entries = new ArrayList<>(oidOf.entrySet());
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = conn.prepareStatement("SELECT o FROM unnest(?::oid[]) o WHERE pg_catalog.pg_relation_size(o) > 0")) {
            for (int i = 0; i < entries.size(); i += SIZE_CHUNK) {
                Map<Long, String> nameOf = new HashMap<>();
                for (Map.Entry<String, Long> e : entries.subList(i, Math.min(entries.size(), i + SIZE_CHUNK))) {
                    nameOf.put(e.getValue(), e.getKey());
                }
                Transactions.setLocalTimeouts(conn, run.statementTimeout(), run.lockTimeout());
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
}
