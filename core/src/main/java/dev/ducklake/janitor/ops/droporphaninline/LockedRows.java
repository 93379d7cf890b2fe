package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.catalog.InlinedCandidate;
import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.catalog.OrphanPredicate;
import dev.ducklake.janitor.pg.Sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Step 1 of a batch: locks the batch's registry rows {@code FOR UPDATE SKIP LOCKED} by ctid, re-checking in the
 * same statement the orphan predicate ({@link OrphanPredicate}) and the name guard; rows that moved (a new ctid)
 * are found again by key.
 */
final class LockedRows {

    /**
     * A registry row locked in the current batch (ctid null for an unregistered table), with what pg_class says of
     * its table (relkind null: the table is gone).
     */
    record Locked(InlinedCandidate candidate, String ctid, String relkind, long oid) {
    }

    private LockedRows() {
    }

    static List<Locked> lock(Connection conn, String schema, Map<String, InlinedCandidate> byCtid) throws SQLException {
        List<Locked> out = new ArrayList<>();
        Set<InlinedCandidate> found = new HashSet<>();
        try (PreparedStatement ps = conn.prepareStatement(sql(schema, "r.ctid = ANY (?::text[]::tid[])"))) {
            ps.setString(1, schema);
            ps.setArray(2, conn.createArrayOf("text", byCtid.keySet().toArray(new String[0])));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    InlinedCandidate c = byCtid.get(rs.getString(1));
                    if (c != null && matches(c, rs)) {
                        out.add(new Locked(c, rs.getString(1), rs.getString(5), rs.getLong(6)));
                        found.add(c);
                    }
                }
            }
        }
        if (found.size() < byCtid.size()) {
            // rows that moved (their ctid changed) are found again by key; a seq scan, only when needed
            List<InlinedCandidate> lost = new ArrayList<>();
            for (InlinedCandidate c : byCtid.values()) {
                if (!found.contains(c)) {
                    lost.add(c);
                }
            }
            Set<String> seenCtids = new HashSet<>();
            out.forEach(l -> seenCtids.add(l.ctid()));
            Map<String, InlinedCandidate> byKey = new HashMap<>();
            long[] ids = new long[lost.size()];
            long[] versions = new long[lost.size()];
            for (int i = 0; i < lost.size(); i++) {
                ids[i] = lost.get(i).tableId();
                versions[i] = lost.get(i).schemaVersion();
                byKey.put(lost.get(i).tableId() + "/" + lost.get(i).schemaVersion(), lost.get(i));
            }
            try (PreparedStatement ps = conn.prepareStatement(sql(schema,
                    "(r.table_id, r.schema_version) IN (SELECT * FROM unnest(?::bigint[], ?::bigint[]))"))) {
                ps.setString(1, schema);
                ps.setArray(2, conn.createArrayOf("bigint", Arrays.stream(ids).boxed().toArray()));
                ps.setArray(3, conn.createArrayOf("bigint", Arrays.stream(versions).boxed().toArray()));
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        InlinedCandidate c = byKey.get(rs.getLong(2) + "/" + rs.getLong(3));
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

    /**
     * The statement that locks registry rows: the rows matching {@code where} whose table_id is unreachable
     * ({@link OrphanPredicate}), each with its table's relkind and oid, locked {@code FOR UPDATE SKIP LOCKED}.
     * Parameter 1 is the metadata schema's name; {@code where}'s parameters follow.
     *
     * <p>pg_class is read through a LATERAL lookup, one index probe ({@code pg_class_relname_nsp_index}) per row.
     * As a plain join the planner switched to a sequential scan and hash of every relation of the database once a
     * batch held about 2,000 rows (its cost model prices 2,000 index probes above one scan): 35-40 ms a batch at
     * 230,000 tables against 1 ms for the probes (PostgreSQL 15). {@code LIMIT 1} keeps the planner from
     * flattening the subquery back into a join; name and namespace identify at most one relation anyway.
     *
     * @param schema the metadata schema (quoted here)
     * @param where engine-written condition on the registry row {@code r}
     * @return the SQL text
     */
    static String sql(String schema, String where) {
        // never String.format: the quoted schema name is part of the text and may hold '%'
        return "SELECT r.ctid::text, r.table_id, r.schema_version, r.table_name, c.relkind, c.oid"
                + " FROM " + Sql.qualified(schema, "ducklake_inlined_data_tables")
                + " r LEFT JOIN LATERAL (SELECT c.relkind, c.oid FROM pg_catalog.pg_class c"
                + " WHERE c.relname = r.table_name::name AND c.relname::text = r.table_name"
                + " AND c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?) LIMIT 1) c ON true"
                + " WHERE " + where + " AND " + OrphanPredicate.unreachable(schema, "r.table_id")
                + " FOR UPDATE OF r SKIP LOCKED";
    }

    private static boolean matches(InlinedCandidate c, ResultSet rs) throws SQLException {
        Long id = rs.getObject(2, Long.class);
        Long version = rs.getObject(3, Long.class);
        String name = rs.getString(4);
        return id != null && version != null && id == c.tableId() && version == c.schemaVersion()
                && InlinedTableName.guardAllows(name, id, version);
    }
}
