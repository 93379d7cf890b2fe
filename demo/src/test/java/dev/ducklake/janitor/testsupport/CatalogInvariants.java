package dev.ducklake.janitor.testsupport;

import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.pg.Sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The data-safety invariants every fault scenario checks after a run, against a snapshot taken before it.
 *
 * <p>Reachability is computed here in Java, independently of the engine's {@code OrphanPredicate}, from the
 * DuckLake visibility rule (a {@code ducklake_table} row is visible at snapshot S when
 * {@code begin_snapshot <= S < end_snapshot}; a table_id is reachable when some retained snapshot in
 * [min, max] sees one of its rows), so that a bug in the engine's SQL cannot hide from the oracle.
 *
 * <p>Invariants checked by {@link #check}:
 * <ol>
 *   <li>pairing: a registry row that is gone took its table with it (the table no longer exists), and a
 *       registry row that stayed kept its table (if it had one) — a drop and its delete are one transaction;</li>
 *   <li>only orphans were touched: every deleted registry row belonged to an unreachable table_id and passed
 *       the name guard;</li>
 *   <li>no table of a reachable DuckLake table was dropped and no row of it changed (full contents compared);</li>
 *   <li>no non-empty table was dropped, and its rows are unchanged;</li>
 *   <li>every other table of the schema (the ducklake_* catalog tables other than the registry, unregistered
 *       tables) is unchanged.</li>
 * </ol>
 */
public final class CatalogInvariants {

    /** One registry row, by value (ctids change on update, values do not). */
    public record RegistryRow(Long tableId, String tableName, Long schemaVersion) {
    }

    /** What the catalog looked like before a run. */
    public static final class Snapshot {
        final String schema;
        final List<RegistryRow> registry;
        /** Every table of the schema: name to its full, sorted contents (rows as text). */
        final Map<String, List<String>> tables;
        final Set<Long> reachable;

        Snapshot(String schema, List<RegistryRow> registry, Map<String, List<String>> tables, Set<Long> reachable) {
            this.schema = schema;
            this.registry = registry;
            this.tables = tables;
            this.reachable = reachable;
        }

        /**
         * Records a change the test itself made to a table during the run (e.g. a concurrent writer), so that the
         * check expects these rows instead of the ones seen before.
         */
        public void expectRows(String table, List<String> rows) {
            tables.put(table, List.copyOf(rows));
        }

        /** Registry rows of the snapshot. */
        public List<RegistryRow> registry() {
            return registry;
        }

        /** Table names that existed. */
        public Set<String> tableNames() {
            return tables.keySet();
        }

        /** The table_ids reachable from a retained snapshot. */
        public Set<Long> reachable() {
            return reachable;
        }

        private boolean allowUnregistered;

        /**
         * Allows the run to drop unregistered leftovers ({@code --include-unregistered}): empty tables named exactly
         * {@code ducklake_inlined_data_<id>_<v>} or {@code ducklake_inlined_delete_<id>} with no registry row and an
         * unreachable id.
         *
         * @return this snapshot
         */
        public Snapshot allowUnregistered() {
            this.allowUnregistered = true;
            return this;
        }

        /** Whether a table is an empty unregistered leftover of an unreachable id (droppable with --include-unregistered). */
        public boolean droppableLeftover(String name) {
            if (!tables.containsKey(name) || !tables.get(name).isEmpty()
                    || registry.stream().anyMatch(r -> name.equals(r.tableName))) {
                return false;
            }
            Long id = InlinedTableName.parseData(name).map(a -> a[0]).orElse(null);
            if (id == null && InlinedTableName.parseDelete(name).isPresent()) {
                id = InlinedTableName.parseDelete(name).getAsLong();
            }
            if (id == null || reachable.contains(id)) {
                return false;
            }
            final long tid = id;
            // a registry row of the same ids under another name makes it registered, not a leftover
            return registry.stream().noneMatch(r -> r.tableId != null && r.tableId == tid && InlinedTableName.parseData(name)
                    .map(a -> r.schemaVersion != null && a[1] == r.schemaVersion).orElse(false));
        }

        /** Whether a registry row is one the janitor may act on: orphan and passing the name guard. */
        public boolean droppable(RegistryRow r) {
            return InlinedTableName.guardAllows(r.tableName, r.tableId, r.schemaVersion) && !reachable.contains(r.tableId);
        }

        /** Registry rows of orphans whose table is present and empty: what a complete run must remove. */
        public long droppableEmptyPresent() {
            return registry.stream().filter(this::droppable)
                    .filter(r -> tables.containsKey(r.tableName) && tables.get(r.tableName).isEmpty()).count();
        }
    }

    private CatalogInvariants() {
    }

    /**
     * Takes the snapshot.
     *
     * @param c a connection
     * @param schema the metadata schema
     * @return the snapshot
     * @throws SQLException on database errors
     */
    public static Snapshot snapshot(Connection c, String schema) throws SQLException {
        return new Snapshot(schema, registry(c, schema), tables(c, schema), reachable(c, schema));
    }

    /**
     * Checks the invariants against a snapshot taken before the run(s).
     *
     * @param c a connection
     * @param before the snapshot
     * @return what changed: the registry rows deleted
     * @throws SQLException on database errors
     */
    public static List<RegistryRow> check(Connection c, Snapshot before) throws SQLException {
        String schema = before.schema;
        List<RegistryRow> after = registry(c, schema);
        Map<String, List<String>> tablesAfter = tables(c, schema);
        // multiset difference: rows deleted
        Map<RegistryRow, Integer> left = new HashMap<>();
        after.forEach(r -> left.merge(r, 1, Integer::sum));
        List<RegistryRow> deleted = new ArrayList<>();
        for (RegistryRow r : before.registry) {
            Integer n = left.get(r);
            if (n == null || n == 0) {
                deleted.add(r);
            } else {
                left.put(r, n - 1);
            }
        }
        assertThat(left.values().stream().mapToInt(Integer::intValue).sum())
                .as("no registry row appeared during the run").isZero();
        for (RegistryRow r : deleted) {
            assertThat(before.droppable(r)).as("deleted registry row %s must be an orphan passing the name guard", r).isTrue();
            assertThat(tablesAfter).as("registry row %s was deleted, so its table must be gone with it", r)
                    .doesNotContainKey(r.tableName);
        }
        for (RegistryRow r : after) {
            if (r.tableName != null && before.tables.containsKey(r.tableName)) {
                assertThat(tablesAfter).as("registry row %s stayed, so its table must stay", r).containsKey(r.tableName);
            }
        }
        Set<String> deletedNames = new HashSet<>();
        deleted.forEach(r -> deletedNames.add(r.tableName));
        for (Map.Entry<String, List<String>> t : before.tables.entrySet()) {
            String name = t.getKey();
            boolean mayGo = (deletedNames.contains(name) && t.getValue().isEmpty())
                    || (before.allowUnregistered && before.droppableLeftover(name));
            if (!mayGo) {
                assertThat(tablesAfter).as("table %s may not be dropped (not an empty orphan whose row was deleted)", name)
                        .containsKey(name);
                assertThat(tablesAfter.get(name)).as("rows of table %s must be unchanged", name).isEqualTo(t.getValue());
            }
            Long id = idOf(name, before.registry);
            if (id != null && before.reachable.contains(id)) {
                assertThat(tablesAfter).as("inlined table %s of reachable table_id %d must stay", name, id).containsKey(name);
            }
        }
        for (String name : tablesAfter.keySet()) {
            assertThat(before.tables).as("no table %s appeared during the run", name).containsKey(name);
        }
        return deleted;
    }

    /**
     * Asserts the catalog is exactly as in the snapshot (for runs that must change nothing).
     *
     * @param c a connection
     * @param before the snapshot
     * @throws SQLException on database errors
     */
    public static void assertUnchanged(Connection c, Snapshot before) throws SQLException {
        assertThat(registry(c, before.schema)).as("registry unchanged").containsExactlyInAnyOrderElementsOf(before.registry);
        assertThat(tables(c, before.schema)).as("every table and its rows unchanged").isEqualTo(before.tables);
    }

    /**
     * After a run that should have finished: no orphan that the janitor may drop is left (only non-empty ones, ones
     * the name guard keeps, and ones whose registry row names no plain table).
     *
     * @param c a connection
     * @param schema the metadata schema
     * @return the number of orphan registry rows left (all of them must-keep)
     * @throws SQLException on database errors
     */
    public static long assertNoDroppableOrphans(Connection c, String schema) throws SQLException {
        Snapshot now = snapshot(c, schema);
        long orphans = 0;
        for (RegistryRow r : now.registry) {
            if (now.reachable.contains(r.tableId)) {
                continue;
            }
            orphans++;
            if (now.droppable(r)) {
                assertThat(now.tables).as("orphan %s left behind must be non-empty", r).containsKey(r.tableName);
                assertThat(now.tables.get(r.tableName)).as("orphan %s left behind must be non-empty", r).isNotEmpty();
            }
        }
        return orphans;
    }

    // ------------------------------------------------------------------ readers

    private static Long idOf(String name, List<RegistryRow> registry) {
        for (RegistryRow r : registry) {
            if (Objects.equals(r.tableName, name)) {
                return r.tableId;
            }
        }
        return InlinedTableName.parseData(name).map(a -> a[0]).orElse(null);
    }

    static List<RegistryRow> registry(Connection c, String schema) throws SQLException {
        List<RegistryRow> out = new ArrayList<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT table_id, table_name, schema_version FROM "
                     + Sql.qualified(schema, "ducklake_inlined_data_tables"))) {
            while (rs.next()) {
                out.add(new RegistryRow(rs.getObject(1, Long.class), rs.getString(2), rs.getObject(3, Long.class)));
            }
        }
        return out;
    }

    static Map<String, List<String>> tables(Connection c, String schema) throws SQLException {
        Map<String, String> kinds = new TreeMap<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT c.relname::text, c.relkind::text FROM pg_catalog.pg_class c"
                + " JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relkind IN ('r', 'p', 'v', 'm', 'S')")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    kinds.put(rs.getString(1), rs.getString(2));
                }
            }
        }
        Map<String, List<String>> out = new TreeMap<>();
        try (Statement st = c.createStatement()) {
            for (Map.Entry<String, String> k : kinds.entrySet()) {
                String name = k.getKey();
                if (name.equals("ducklake_inlined_data_tables")) {
                    continue;
                }
                if (k.getValue().equals("S")) {
                    // a sequence has no row type to compare; its existence is what counts
                    out.put(name, List.of("<sequence>"));
                    continue;
                }
                List<String> rows = new ArrayList<>();
                try (ResultSet rs = st.executeQuery("SELECT t::text FROM " + Sql.qualified(schema, name) + " t ORDER BY 1")) {
                    while (rs.next()) {
                        rows.add(rs.getString(1));
                    }
                }
                out.put(name, rows);
            }
        }
        return out;
    }

    /** Reachable table_ids, from the DuckLake visibility rule evaluated in Java. */
    static Set<Long> reachable(Connection c, String schema) throws SQLException {
        long min;
        long max;
        boolean any;
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*), min(snapshot_id), max(snapshot_id) FROM "
                     + Sql.qualified(schema, "ducklake_snapshot"))) {
            rs.next();
            any = rs.getLong(1) > 0;
            min = rs.getLong(2);
            max = rs.getLong(3);
        }
        Set<Long> out = new HashSet<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT table_id, begin_snapshot, end_snapshot FROM "
                     + Sql.qualified(schema, "ducklake_table"))) {
            while (rs.next()) {
                Long id = rs.getObject(1, Long.class);
                Long begin = rs.getObject(2, Long.class);
                Long end = rs.getObject(3, Long.class);
                // the spec's rule, conservatively: begin <= max and (end is null or end > min); a NULL begin counts
                // as reachable, and an empty ducklake_snapshot makes everything reachable (nothing may be dropped)
                if (!any || begin == null || (begin <= max && (end == null || end > min))) {
                    out.add(id);
                }
            }
        }
        return out;
    }
}
