package dev.ducklake.janitor.interop;

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
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a DuckLake catalog leaked, counted by the test itself and independently of the janitor's SQL: the
 * reachable table ids are computed in Java from the {@code ducklake_table} rows and the retained snapshot
 * range (a table is reachable when some row has {@code begin_snapshot <= max(snapshot_id)} and
 * {@code end_snapshot} NULL or {@code > min(snapshot_id)}), the inlined relations come from {@code pg_class}
 * by exact name, and every leaked table's rows are counted with {@code count(*)}.
 *
 * @param registered registered inlined-data tables ({@code ducklake_inlined_data_tables} row present) of
 *     unreachable table ids, with their table present
 * @param unregistered inlined-data tables without a registry row, of unreachable table ids
 * @param inlinedDelete {@code ducklake_inlined_delete_<id>} tables of unreachable table ids
 * @param liveInlinedDelete inlined deletion tables of reachable ids (in use)
 * @param reachableIds the reachable table ids
 */
record LeakCensus(List<Leak> registered, List<Leak> unregistered, List<Leak> inlinedDelete,
                  List<String> liveInlinedDelete, Set<Long> reachableIds) {

    static final String REGISTRY = "ducklake_inlined_data_tables";
    private static final Pattern DATA = Pattern.compile("ducklake_inlined_data_([0-9]+)_([0-9]+)");
    private static final Pattern DELETE = Pattern.compile("ducklake_inlined_delete_([0-9]+)");

    /** A leaked table: its name, DuckLake table id and exact row count. */
    record Leak(String name, long tableId, long rows) {
    }

    static LeakCensus take(InteropCatalog lake) throws SQLException {
        long[] bounds = lake.snapshotBounds();
        Set<Long> reachable = new HashSet<>();
        for (InteropCatalog.TableRow t : lake.tables()) {
            if (t.beginSnapshot() <= bounds[1] && (t.endSnapshot() == null || t.endSnapshot() > bounds[0])) {
                reachable.add(t.tableId());
            }
        }
        Set<String> registeredNames = new HashSet<>();
        Set<String> registeredIds = new HashSet<>();
        for (InteropCatalog.RegistryRow r : lake.registry()) {
            registeredNames.add(r.tableName());
            registeredIds.add(r.tableId() + "_" + r.schemaVersion());
        }
        List<Leak> registered = new ArrayList<>();
        List<Leak> unregistered = new ArrayList<>();
        List<Leak> delete = new ArrayList<>();
        List<String> liveDelete = new ArrayList<>();
        for (String name : lake.inlinedRelations()) {
            Matcher d = DATA.matcher(name);
            Matcher x = DELETE.matcher(name);
            if (d.matches()) {
                long id = Long.parseLong(d.group(1));
                if (reachable.contains(id)) {
                    continue;
                }
                boolean isRegistered = registeredNames.contains(name) || registeredIds.contains(d.group(1) + "_" + d.group(2));
                (isRegistered ? registered : unregistered).add(new Leak(name, id, lake.rowCount(name)));
            } else if (x.matches()) {
                long id = Long.parseLong(x.group(1));
                if (reachable.contains(id)) {
                    liveDelete.add(name);
                } else {
                    delete.add(new Leak(name, id, lake.rowCount(name)));
                }
            }
        }
        return new LeakCensus(registered, unregistered, delete, liveDelete, reachable);
    }

    List<Leak> all() {
        List<Leak> out = new ArrayList<>(registered);
        out.addAll(unregistered);
        out.addAll(inlinedDelete);
        return out;
    }

    static long nonEmpty(List<Leak> leaks) {
        return leaks.stream().filter(l -> l.rows() > 0).count();
    }

    static long rows(List<Leak> leaks) {
        return leaks.stream().mapToLong(Leak::rows).sum();
    }

    /** One line for the log and the docs: leaked tables per kind, how many hold rows, and their rows. */
    String summary() {
        return String.format("leaked %d tables (%d registered inlined-data, %d unregistered, %d inlined-delete); "
                        + "%d hold rows (%d / %d / %d), %d rows in all",
                all().size(), registered.size(), unregistered.size(), inlinedDelete.size(), nonEmpty(all()),
                nonEmpty(registered), nonEmpty(unregistered), nonEmpty(inlinedDelete), rows(all()));
    }

    /**
     * Every plain table of the metadata schema (DuckLake's catalog tables and every inlined table) with its row
     * count and an md5 of its rows in a fixed order: two equal maps mean the same tables with the same rows.
     */
    static Map<String, String> contents(InteropCatalog lake) throws SQLException {
        Map<String, String> out = new TreeMap<>();
        List<String> names = new ArrayList<>();
        try (Connection c = lake.connect()) {
            try (PreparedStatement ps = c.prepareStatement("SELECT c.relname FROM pg_class c JOIN pg_namespace n"
                    + " ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relkind = 'r'")) {
                ps.setString(1, lake.schema());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        names.add(rs.getString(1));
                    }
                }
            }
            try (Statement st = c.createStatement()) {
                for (String name : names) {
                    try (ResultSet rs = st.executeQuery("SELECT count(*), md5(coalesce(string_agg(t::text, E'\\n'"
                            + " ORDER BY t::text), '')) FROM " + lake.q("\"" + name.replace("\"", "\"\"") + "\"") + " t")) {
                        rs.next();
                        out.put(name, rs.getLong(1) + ":" + rs.getString(2));
                    }
                }
            }
        }
        return out;
    }

    /** {@link #contents} without the given tables, and without the registry (compared row by row instead). */
    static Map<String, String> without(Map<String, String> contents, List<Leak> leaks) {
        Map<String, String> out = new TreeMap<>(contents);
        out.remove(REGISTRY);
        leaks.forEach(l -> out.remove(l.name()));
        return out;
    }

    /** Leaked table name -> rows. */
    static Map<String, Long> rowsByName(List<Leak> leaks) {
        Map<String, Long> out = new HashMap<>();
        leaks.forEach(l -> out.put(l.name(), l.rows()));
        return out;
    }
}
