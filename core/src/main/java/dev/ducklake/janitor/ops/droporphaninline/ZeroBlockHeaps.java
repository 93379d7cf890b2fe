package dev.ducklake.janitor.ops.droporphaninline;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The heap-blocks emptiness proof: which of the given tables are heap tables whose main fork has zero blocks,
 * and so hold no row, committed or not.
 *
 * <h2>Why it is exact</h2>
 * <ul>
 *   <li>A heap table keeps every tuple, committed or not, in the pages of its main fork. PostgreSQL extends
 *       the main fork (the file grows by at least one block, via {@code RelationGetBufferForTuple} and the
 *       storage manager) before it places a tuple in a new page, so a tuple exists only in a relation of at
 *       least one block. {@code pg_relation_size(oid, 'main') = 0} therefore means no tuple at all.</li>
 *   <li>In an execute run the caller already holds {@code ACCESS EXCLUSIVE} on every table it asks about, in
 *       the transaction it asks in, and asks after taking that lock. Every writer takes at least
 *       {@code ROW EXCLUSIVE}, which conflicts, so no other transaction is writing into the table or holds
 *       uncommitted rows in it: each earlier writer has committed or aborted, and no later writer can start
 *       until the caller commits. The size read after the lock is the size the DROP will see.</li>
 *   <li>Only {@code heap}: another table access method may keep rows outside the main fork (or in a fork of
 *       its own), so tables of any other access method are never proven here and must be probed. Temporary
 *       relations ({@code relpersistence 't'}, whose pages live in another backend's local buffers) are never
 *       proven either; permanent and unlogged heaps are (an unlogged heap that a crash reset to its init fork
 *       is empty, and its main fork says so).</li>
 *   <li>The row of {@code pg_class} is matched by the oid the caller listed and by the name it locked in the
 *       metadata schema: a name that now belongs to another relation is reported, and the caller keeps the
 *       tables (as the {@code SELECT … LIMIT 1} probe does when it meets an unexpected {@code tableoid}).</li>
 * </ul>
 * A table with one block or more (for example one whose rows were deleted but not yet vacuumed away, or whose
 * access method is not heap) is not proven, and the caller probes it with {@code SELECT … LIMIT 1}.
 *
 * <p>Source: PostgreSQL's heap access method ({@code src/backend/access/heap/hio.c},
 * {@code RelationGetBufferForTuple}: a tuple is placed only in an existing or newly added block) and its
 * lock conflict table (ACCESS EXCLUSIVE conflicts with every lock mode, ROW EXCLUSIVE included).
 */
final class ZeroBlockHeaps {

    /**
     * The one SQL expression of the test, for a {@code pg_class} row under the alias {@code c}: a plain,
     * non-temporary table of access method {@code heap} whose main fork has zero blocks.
     *
     * @param c the alias of the pg_class row (engine-written, never user input)
     * @return a parenthesised boolean expression without bind parameters
     */
    static String zeroBlockHeap(String c) {
        return "(" + c + ".relkind = 'r' AND " + c + ".relpersistence IN ('p', 'u')"
                + " AND " + c + ".relam = (SELECT a.oid FROM pg_catalog.pg_am a WHERE a.amname = 'heap')"
                + " AND pg_catalog.pg_relation_size(" + c + ".oid, 'main') = 0)";
    }

    /**
     * The SQL of the proof: one row per (name, oid) pair asked about: {@code same} is true when the oid is a
     * relation of that name in the schema; {@code zero_block_heap} when it is moreover a zero-block heap
     * ({@link #zeroBlockHeap}). Parameters: names (text[]), oids (bigint[]), schema name.
     */
    static final String SQL = "SELECT u.name, c.oid IS NOT NULL AS same,"
            + " c.oid IS NOT NULL AND " + zeroBlockHeap("c") + " AS zero_block_heap"
            + " FROM unnest(?::text[], ?::bigint[]) AS u(name, reloid)"
            // a LATERAL lookup: one index probe of pg_class per table, never a scan of pg_class (see LockedRows)
            + " LEFT JOIN LATERAL (SELECT c.oid, c.relkind, c.relpersistence, c.relam FROM pg_catalog.pg_class c"
            + " WHERE c.oid = u.reloid::oid AND c.relname = u.name::name"
            + " AND c.relnamespace = (SELECT n.oid FROM pg_catalog.pg_namespace n WHERE n.nspname = ?) LIMIT 1) c ON true";

    private ZeroBlockHeaps() {
    }

    /**
     * Which of the given tables are proven empty by the heap-blocks argument above. Call it inside the
     * transaction that holds ACCESS EXCLUSIVE on every one of the tables, after the lock was taken; otherwise
     * the answer is only a hint.
     *
     * @param conn the connection of that transaction
     * @param schema the metadata schema holding the tables
     * @param tables table names (each must have an oid in {@code oidOf})
     * @param oidOf the oid each name was listed with
     * @return the names proven empty (a subset of {@code tables}), or null when a name is no longer the
     *     relation of its listed oid in the schema (the caller keeps the tables)
     * @throws SQLException on database errors
     */
    static Set<String> provenEmpty(Connection conn, String schema, List<String> tables, Map<String, Long> oidOf) throws SQLException {
        Set<String> out = new HashSet<>();
        if (tables.isEmpty()) {
            return out;
        }
        Long[] oids = new Long[tables.size()];
        for (int i = 0; i < oids.length; i++) {
            oids[i] = oidOf.get(tables.get(i));
        }
        try (PreparedStatement ps = conn.prepareStatement(SQL)) {
            ps.setArray(1, conn.createArrayOf("text", tables.toArray(new String[0])));
            ps.setArray(2, conn.createArrayOf("bigint", oids));
            ps.setString(3, schema);
            boolean changed = false;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (!rs.getBoolean(2)) {
                        changed = true;
                    } else if (rs.getBoolean(3)) {
                        out.add(rs.getString(1));
                    }
                }
            }
            return changed ? null : out;
        }
    }
}
