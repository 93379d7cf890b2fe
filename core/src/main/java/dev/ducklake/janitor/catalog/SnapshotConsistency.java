package dev.ducklake.janitor.catalog;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.Sql;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds catalog rows that refer to a snapshot the catalog does not have: a snapshot column
 * ({@code begin_snapshot}, {@code end_snapshot}, {@code partial_max}, {@code snapshot_id}) greater than
 * {@code max(snapshot_id)} of {@code ducklake_snapshot}.
 *
 * <p>Why: DuckLake writes a snapshot row and every metadata row that names it in one transaction, and never
 * deletes the newest snapshot (spec "Snapshots"; {@code ducklake_expire_snapshots} never expires the latest).
 * So on a sound catalog no row names a snapshot beyond the newest one. When such rows exist, the newest snapshot
 * rows were lost (a hand-written expiry with {@code >} instead of {@code <}, a partial restore), and every rule
 * that compares a row's range with the retained snapshots (the orphan predicate, expiry, file cleanup) can take
 * a live object for a dead one. Every command therefore refuses to work on such a catalog
 * ({@link CatalogInspector#inspect}), and {@code metrics} exports the counts
 * ({@code ducklake_catalog_rows_beyond_last_snapshot}).
 *
 * <p>Tables checked, when present in the catalog's format version (their columns are discovered in
 * {@code pg_attribute}, so 0.1 to 1.1-dev1 are all covered): the versioned tables {@code ducklake_schema},
 * {@code ducklake_table}, {@code ducklake_view}, {@code ducklake_tag}, {@code ducklake_column_tag},
 * {@code ducklake_view_column_tag} (1.1-dev1), {@code ducklake_data_file} and {@code ducklake_delete_file}
 * (including {@code partial_max}, 0.4 and later), {@code ducklake_column}, {@code ducklake_partition_info},
 * {@code ducklake_sort_info} and {@code ducklake_macro} (0.4 and later), plus {@code ducklake_schema_versions}
 * (0.3 and later) and {@code ducklake_snapshot_changes}. {@code ducklake_inlined_data_tables} has no snapshot
 * column in any format version (catalog notes, DDL of 1.0 and the deltas), so it is not listed; the rows inside
 * the inlined-data tables themselves are not checked (that would be one query per inlined table).
 *
 * <p>Cost: one catalog query to find the columns, then ONE statement (so that one MVCC snapshot sees the newest
 * snapshot id and every table: a DuckLake commit landing meanwhile cannot produce a false alarm) with one
 * sequential scan per table; the offending ids are read only for damaged tables.
 */
public final class SnapshotConsistency {

    /** How many offending ids a refusal names per table. */
    public static final int SAMPLE_IDS = 5;

    /** A checked table: its id column (named in messages) and the snapshot columns that may exist. */
    private record Ranged(String table, String idColumn, List<String> snapshotColumns) {
    }

    private static final List<String> RANGE = List.of("begin_snapshot", "end_snapshot");

    private static final List<Ranged> KNOWN = List.of(
            new Ranged("ducklake_schema", "schema_id", RANGE),
            new Ranged("ducklake_table", "table_id", RANGE),
            new Ranged("ducklake_view", "view_id", RANGE),
            new Ranged("ducklake_tag", "object_id", RANGE),
            new Ranged("ducklake_column_tag", "table_id", RANGE),
            new Ranged("ducklake_view_column_tag", "view_id", RANGE),
            new Ranged("ducklake_data_file", "data_file_id", List.of("begin_snapshot", "end_snapshot", "partial_max")),
            new Ranged("ducklake_delete_file", "delete_file_id", List.of("begin_snapshot", "end_snapshot", "partial_max")),
            new Ranged("ducklake_column", "column_id", RANGE),
            new Ranged("ducklake_partition_info", "partition_id", RANGE),
            new Ranged("ducklake_sort_info", "sort_id", RANGE),
            new Ranged("ducklake_macro", "macro_id", RANGE),
            new Ranged("ducklake_schema_versions", "schema_version", List.of("begin_snapshot")),
            new Ranged("ducklake_snapshot_changes", "snapshot_id", List.of("snapshot_id")));

    /**
     * The rows of one table that refer to a missing snapshot.
     *
     * @param table the catalog table, e.g. {@code ducklake_table}
     * @param idColumn the column the ids are taken from, e.g. {@code table_id}
     * @param rows how many rows name a snapshot beyond the newest one
     * @param firstIds the smallest distinct ids of those rows (at most {@link #SAMPLE_IDS}; empty when not read)
     */
    public record Damage(String table, String idColumn, long rows, List<Long> firstIds) {
    }

    /**
     * The outcome of a check.
     *
     * @param newestSnapshotId {@code max(snapshot_id)} seen by the check (null when ducklake_snapshot is empty)
     * @param rowsPerTable every checked table with its count of offending rows (0 included), in a fixed order
     * @param damaged the tables with at least one offending row
     */
    public record Report(Long newestSnapshotId, Map<String, Long> rowsPerTable, List<Damage> damaged) {

        /** Whether no row refers to a missing snapshot. */
        public boolean consistent() {
            return damaged.isEmpty();
        }

        /** The offending rows of all tables together. */
        public long totalRows() {
            return rowsPerTable.values().stream().mapToLong(Long::longValue).sum();
        }

        /**
         * One sentence for an operator naming every damaged table, its count and first ids, e.g.
         * {@code ducklake_table: 2 rows (table_id 7, 9)}.
         */
        public String describe() {
            List<String> parts = new ArrayList<>();
            for (Damage d : damaged) {
                StringBuilder b = new StringBuilder(d.table()).append(": ").append(d.rows()).append(d.rows() == 1 ? " row" : " rows");
                if (!d.firstIds().isEmpty()) {
                    b.append(" (").append(d.idColumn()).append(' ');
                    for (int i = 0; i < d.firstIds().size(); i++) {
                        b.append(i == 0 ? "" : ", ").append(d.firstIds().get(i));
                    }
                    b.append(d.rows() > d.firstIds().size() ? ", ...)" : ")");
                }
                parts.add(b.toString());
            }
            return String.join("; ", parts);
        }
    }

    private SnapshotConsistency() {
    }

    /**
     * Counts, per table, the rows that name a snapshot beyond the newest one, and reads the first offending ids of
     * the damaged tables. Reads only.
     *
     * @param c an open connection (any transaction mode; the counts come from one statement)
     * @param schema the metadata schema
     * @param sampleIds how many ids to read per damaged table (0 = none, only the counts)
     * @return the report; tables absent from this format version are not in it
     * @throws SQLException on database errors (for example no SELECT privilege)
     */
    public static Report check(Connection c, String schema, int sampleIds) throws SQLException {
        Map<String, List<String>> columns = presentColumns(c, schema);
        List<Ranged> checked = new ArrayList<>();
        StringBuilder sql = new StringBuilder("WITH m AS (SELECT max(snapshot_id) AS mx FROM ")
                .append(Sql.qualified(schema, "ducklake_snapshot")).append(") SELECT -1, (SELECT mx FROM m)");
        for (Ranged r : KNOWN) {
            List<String> cols = columns.getOrDefault(r.table(), List.of());
            if (cols.isEmpty()) {
                continue;
            }
            sql.append(" UNION ALL SELECT ").append(checked.size()).append(", count(*) FROM ")
               .append(Sql.qualified(schema, r.table())).append(" t, m WHERE ").append(beyond(cols));
            checked.add(new Ranged(r.table(), columns.containsKey(r.table() + "." + r.idColumn()) ? r.idColumn() : null, cols));
        }
        Long newest = null;
        long[] counts = new long[checked.size()];
        try (PreparedStatement ps = c.prepareStatement(sql.toString()); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                int i = rs.getInt(1);
                long v = rs.getLong(2);
                boolean isNull = rs.wasNull();
                if (i < 0) {
                    newest = isNull ? null : v;
                } else {
                    counts[i] = v;
                }
            }
        }
        Map<String, Long> perTable = new LinkedHashMap<>();
        List<Damage> damaged = new ArrayList<>();
        for (int i = 0; i < checked.size(); i++) {
            Ranged r = checked.get(i);
            perTable.put(r.table(), counts[i]);
            if (counts[i] > 0) {
                List<Long> ids = sampleIds > 0 && r.idColumn() != null ? firstIds(c, schema, r, sampleIds) : List.of();
                damaged.add(new Damage(r.table(), r.idColumn() == null ? "" : r.idColumn(), counts[i], ids));
            }
        }
        return new Report(newest, perTable, damaged);
    }

    /**
     * Refuses a catalog with rows that name a missing snapshot.
     *
     * @param c an open connection
     * @param schema the metadata schema
     * @throws JanitorException {@link Reason#UNSAFE_CATALOG_STATE} naming every damaged table, its row count and
     *     its first offending ids, and the newest snapshot id
     * @throws SQLException on database errors
     */
    public static void requireConsistent(Connection c, String schema) throws JanitorException, SQLException {
        Report r = check(c, schema, SAMPLE_IDS);
        if (!r.consistent()) {
            throw new JanitorException(Reason.UNSAFE_CATALOG_STATE, "The DuckLake catalog in schema "
                    + CatalogInspector.printable(schema) + " has rows that refer to snapshots it does not have (the newest "
                    + "snapshot in ducklake_snapshot is " + r.newestSnapshotId() + "): " + r.describe() + ". The newest "
                    + "ducklake_snapshot rows were probably deleted (a hand-written expiry, a partial restore); live tables "
                    + "could look unreachable, so nothing is done. Restore the missing ducklake_snapshot rows.");
        }
    }

    /** The snapshot columns (type bigint) of each known table present in the schema; also "table.column" for ids. */
    private static Map<String, List<String>> presentColumns(Connection c, String schema) throws SQLException {
        List<String> tables = new ArrayList<>();
        Set<String> wanted = new java.util.HashSet<>();
        for (Ranged r : KNOWN) {
            tables.add(r.table());
            wanted.addAll(r.snapshotColumns());
            wanted.add(r.idColumn());
        }
        Map<String, List<String>> out = new LinkedHashMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT c.relname::text, a.attname::text FROM pg_catalog.pg_class c"
                + " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace"
                + " JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid"
                + " WHERE n.nspname = ? AND c.relkind IN ('r', 'p') AND c.relname = ANY (?) AND a.attname = ANY (?)"
                + " AND a.attnum > 0 AND NOT a.attisdropped AND pg_catalog.format_type(a.atttypid, a.atttypmod) = ?")) {
            ps.setString(1, schema);
            Array t = c.createArrayOf("text", tables.toArray(new String[0]));
            Array w = c.createArrayOf("text", wanted.toArray(new String[0]));
            ps.setArray(2, t);
            ps.setArray(3, w);
            ps.setString(4, "bigint");
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String table = rs.getString(1);
                    String column = rs.getString(2);
                    out.put(table + "." + column, List.of());
                    for (Ranged r : KNOWN) {
                        if (r.table().equals(table) && r.snapshotColumns().contains(column)) {
                            out.computeIfAbsent(table, k -> new ArrayList<>()).add(column);
                        }
                    }
                }
            }
        }
        // keep the columns in the declared order so that the SQL text is stable
        for (Ranged r : KNOWN) {
            List<String> found = out.get(r.table());
            if (found != null) {
                List<String> ordered = new ArrayList<>(r.snapshotColumns());
                ordered.retainAll(found);
                out.put(r.table(), ordered);
            }
        }
        return out;
    }

    /** {@code (t.a > m.mx OR t.b > m.mx)} over engine constants (column names of the known list only). */
    private static String beyond(List<String> cols) {
        StringBuilder b = new StringBuilder("(");
        for (int i = 0; i < cols.size(); i++) {
            b.append(i == 0 ? "" : " OR ").append("t.").append(cols.get(i)).append(" > m.mx");
        }
        return b.append(')').toString();
    }

    private static List<Long> firstIds(Connection c, String schema, Ranged r, int limit) throws SQLException {
        List<Long> ids = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("WITH m AS (SELECT max(snapshot_id) AS mx FROM "
                + Sql.qualified(schema, "ducklake_snapshot") + ") SELECT DISTINCT t." + r.idColumn() + " FROM "
                + Sql.qualified(schema, r.table()) + " t, m WHERE " + beyond(r.snapshotColumns()) + " AND t." + r.idColumn()
                + " IS NOT NULL ORDER BY 1 LIMIT ?")) {
            ps.setInt(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
        }
        return ids;
    }
}
