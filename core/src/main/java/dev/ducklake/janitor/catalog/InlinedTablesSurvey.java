package dev.ducklake.janitor.catalog;

import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.pg.Transactions;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * The survey of inlined tables: which registry rows of {@code ducklake_inlined_data_tables} are orphans
 * ({@link OrphanPredicate}), and which tables of the schema named like inlined tables have no registry row
 * ({@link RegistryPredicate}) with an unreachable table_id. Reads only, in read-only transactions.
 *
 * <p>{@link #survey(Connection, CatalogInfo)} gives the figures alone ({@code check} and the
 * {@code ducklake_check_findings} gauge report them); {@code drop-orphan-inline-tables} calls {@link #registry} and
 * {@link #unregistered}, which also return its work list.
 */
public final class InlinedTablesSurvey {

    /** The first three columns DuckLake gives an inlined-data table up to format 1.0. */
    private static final List<String> DATA_COLUMNS = typed(FormatVersion.InlinedColumns.PLAIN);
    /** The same from format 1.1-dev1 on ({@code MigrateInlinedColumnNames}). */
    private static final List<String> DATA_COLUMNS_PREFIXED = typed(FormatVersion.InlinedColumns.PREFIXED);
    /** The columns of an inlined deletion table, in every format. */
    private static final List<String> DELETE_COLUMNS = List.of("file_id:bigint", "row_id:bigint", "begin_snapshot:bigint");

    private InlinedTablesSurvey() {
    }

    private static List<String> typed(FormatVersion.InlinedColumns names) {
        return names.all().stream().map(n -> n + ":bigint").toList();
    }

    /**
     * What the survey found (all counts, nothing truncated except the lists documented on the result).
     *
     * @param registryRows rows of ducklake_inlined_data_tables (0 when the catalog has no registry)
     * @param orphanRows registry rows whose table_id is unreachable
     * @param orphanTablesPresent orphan rows whose table exists in pg_class
     * @param keptByNameGuard orphan rows whose table_name is not exactly DuckLake's name for its ids
     * @param keptNotATable orphan rows whose name belongs to a relation that is not a plain table
     * @param unregisteredData inlined-data tables without any registry row, of unreachable table_ids
     * @param inlinedDeleteOrphans inlined deletion tables of unreachable table_ids
     * @param inlinedDeleteLive inlined deletion tables of reachable table_ids (in use)
     * @param anomalies tables named like inlined tables that are never dropped, with the reason
     * @param unregisteredTables names of the unregistered data and deletion tables of unreachable ids, in batch order
     */
    public record Summary(long registryRows, long orphanRows, long orphanTablesPresent, long keptByNameGuard,
                           long keptNotATable, long unregisteredData, long inlinedDeleteOrphans, long inlinedDeleteLive,
                           List<AnomalousTable> anomalies, List<String> unregisteredTables) {

        /** @return orphan registry rows whose table is already gone from pg_class */
        public long registryRowsWithoutTable() {
            return orphanRows - orphanTablesPresent;
        }
    }

    /**
     * A relation named like an inlined table that drop-orphan-inline-tables never drops.
     *
     * @param tableName its name
     * @param tableId the table_id its name gives, or null when the name is not exactly DuckLake's form
     * @param reason why it is never dropped (one sentence, for reports)
     */
    public record AnomalousTable(String tableName, Long tableId, String reason) {
    }

    /**
     * Surveys one catalog schema. Runs read-only transactions on {@code c} (autocommit is restored).
     *
     * @param c a session on the catalog database
     * @param info the inspected catalog ({@link dev.ducklake.janitor.catalog.CatalogInspector})
     * @return the findings
     * @throws SQLException on a database error
     */
    public static Summary survey(Connection c, CatalogInfo info) throws SQLException {
        Registry r = info.hasInlinedRegistry() ? registry(c, info.schema(), w -> { }) : Registry.NONE;
        Unregistered u = unregistered(c, info.schema(), info.hasInlinedRegistry(), info.version());
        return new Summary(r.rows, r.orphanRows, r.tablesPresent, r.keptByNameGuard, r.keptNotATable,
                u.count(InlinedCandidate.Origin.UNREGISTERED_DATA), u.count(InlinedCandidate.Origin.INLINED_DELETE), u.liveDeleteTables,
                u.anomalies, u.dead.stream().map(InlinedCandidate::tableName).toList());
    }

    /**
     * What the registry survey found: counts and the orphan rows that may be acted on, in batch order (a
     * {@link InlinedCandidateList}: primitive arrays, not an object per row).
     *
     * @param rows rows of ducklake_inlined_data_tables
     * @param orphanRows registry rows whose table_id is unreachable
     * @param tablesPresent orphan rows whose table exists in pg_class
     * @param keptByNameGuard orphan rows kept by the name guard
     * @param keptNotATable orphan rows naming a relation that is not a plain table
     * @param candidates the orphan rows that may be acted on, in batch order
     */
    public record Registry(long rows, long orphanRows, long tablesPresent, long keptByNameGuard, long keptNotATable,
                    InlinedCandidateList candidates) {
        /** No registry: nothing found. */
        public static final Registry NONE = new Registry(0, 0, 0, 0, 0, new InlinedCandidateList().trim());
    }

    /**
     * What the pg_class survey found outside the registry.
     *
     * @param dead unregistered data and deletion tables of unreachable table_ids, in batch order ({@link InlinedCandidate#ORDER})
     * @param liveDeleteTables inlined deletion tables of reachable table_ids (in use; kept)
     * @param anomalies relations named like inlined tables that are never dropped
     */
    public record Unregistered(List<InlinedCandidate> dead, long liveDeleteTables, List<AnomalousTable> anomalies) {
        /** @return how many of {@code dead} are of this kind */
        public long count(InlinedCandidate.Origin kind) {
            return dead.stream().filter(c -> c.kind() == kind).count();
        }
    }

    /** One relation of the schema named like an inlined table. */
    private record Relation(String name, String relkind, long oid, Long tableId, Long schemaVersion, boolean delete) {
    }

    /**
     * Counts the registry rows and lists the orphan rows; rows kept by the name guard or naming a relation that is
     * not a plain table are counted and reported through {@code rowWarning}. One read-only transaction on {@code conn}
     * (autocommit restored).
     *
     * @param conn a session on the catalog database
     * @param schema the metadata schema (it has the registry)
     * @param rowWarning told one sentence per registry row kept
     * @return the counts and the orphan rows
     * @throws SQLException on a database error
     */
    public static Registry registry(Connection conn, String schema, Consumer<String> rowWarning) throws SQLException {
        String registry = Sql.qualified(schema, "ducklake_inlined_data_tables");
        long rows;
        try (PreparedStatement ps = conn.prepareStatement("SELECT count(*) FROM " + registry);
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            rows = rs.getLong(1);
        }
        long orphanRows = 0;
        long present = 0;
        long guard = 0;
        long notATable = 0;
        InlinedCandidateList out = new InlinedCandidateList();
        Transactions.beginReadOnly(conn);
        try {
            Transactions.setLocalJitOff(conn);
            try (PreparedStatement ps = conn.prepareStatement("SELECT r.ctid::text, r.table_id, r.schema_version, r.table_name, c.relkind"
                    + " FROM " + registry + " r LEFT JOIN pg_catalog.pg_class c ON c.relname::text = r.table_name"
                    + " AND c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?)"
                    + " WHERE " + OrphanPredicate.unreachable(schema, "r.table_id")
                    // batch order (keyset order of the registry), sorted by the server: no object per row here
                    + " ORDER BY r.table_id, r.schema_version, r.ctid")) {
                ps.setFetchSize(10_000);
                ps.setString(1, schema);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        orphanRows++;
                        String ctid = rs.getString(1);
                        Long tableId = rs.getObject(2, Long.class);
                        Long version = rs.getObject(3, Long.class);
                        String name = rs.getString(4);
                        String relkind = rs.getString(5);
                        if (relkind != null) {
                            present++;
                        }
                        if (!InlinedTableName.guardAllows(name, tableId, version)) {
                            guard++;
                            rowWarning.accept("kept by the name guard: registry row table_id=" + tableId + " schema_version=" + version
                                    + " table_name=" + Sql.printable(name)
                                    + " is not exactly ducklake_inlined_data_<table_id>_<schema_version>; table and row kept");
                            continue;
                        }
                        if (relkind != null && !"r".equals(relkind)) {
                            notATable++;
                            rowWarning.accept("kept: " + name + " is not a plain table (relkind " + relkind + "); row kept");
                            continue;
                        }
                        out.addRegistered(tableId, version, ctid, relkind != null);
                    }
                }
                conn.commit();
            }
        } finally {
            Transactions.restoreAutoCommit(conn);
        }
        return new Registry(rows, orphanRows, present, guard, notATable, out.trim());
    }

    /**
     * Finds the tables of the schema named like inlined tables that have no registry row, and sorts them into
     * candidates (unreachable table_id, DuckLake's name and columns), live inlined deletion tables (kept) and
     * anomalies (kept and reported). Registered tables are left to the registry path.
     *
     * <p>Columns: a data table must start with {@code row_id, begin_snapshot, end_snapshot} (bigint), or in a
     * 1.1-dev1 catalog with either those or the {@code _ducklake_}-prefixed names (DuckLake's 1.0 to 1.1
     * migration renames only registered tables, so older leftovers keep the plain names); a deletion table
     * must start with {@code file_id, row_id, begin_snapshot}. Read-only transactions on {@code conn}.
     *
     * @param conn a session on the catalog database
     * @param schema the metadata schema
     * @param hasRegistry whether the schema has ducklake_inlined_data_tables
     * @param version the catalog's format version
     * @return the candidates, the live deletion tables and the anomalies
     * @throws SQLException on a database error
     */
    public static Unregistered unregistered(Connection conn, String schema, boolean hasRegistry, FormatVersion version)
            throws SQLException {
        List<Relation> relations = new ArrayList<>();
        List<InlinedCandidate> dead = new ArrayList<>();
        List<AnomalousTable> found = new ArrayList<>();
        long liveDelete = 0;
        Transactions.beginReadOnly(conn);
        try {
            Transactions.setLocalJitOff(conn);
            relations.addAll(relationsNamedLikeInlinedTables(conn, schema, hasRegistry));
            if (relations.isEmpty()) {
                conn.commit();
                return new Unregistered(dead, 0, found);
            }
            // which of them have no registry row, which of those have an unreachable table_id, and the first three
            // columns of those (one statement; the columns are read only for the rows returned)
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
                    + " FROM u WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_class c WHERE c.oid = u.reloid::oid) AND "
                    + RegistryPredicate.noRegistryRow(schema, hasRegistry, "u.name", "u.id", "u.ver"))) {
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
                String anomaly = null;
                if (!"r".equals(r.relkind)) {
                    anomaly = "not a plain table (relkind " + r.relkind + "); never dropped";
                } else if (r.tableId == null) {
                    anomaly = "named like an inlined table but not exactly DuckLake's form (leading zeros or an id beyond "
                            + "bigint); never dropped";
                } else if (r.delete && !isDead) {
                    liveDelete++;
                } else if (!isDead) {
                    anomaly = "unregistered, but table_id " + r.tableId + " is reachable from a retained snapshot; never dropped";
                } else if (!hasDuckLakeColumns(r, columnsByName.get(r.name), version)) {
                    anomaly = "its first columns " + columnsByName.get(r.name) + " are not DuckLake's "
                            + (r.delete ? DELETE_COLUMNS : DATA_COLUMNS) + "; never dropped";
                } else {
                    dead.add(r.delete ? new InlinedCandidate(InlinedCandidate.Origin.INLINED_DELETE, r.tableId, -1, null)
                            : new InlinedCandidate(InlinedCandidate.Origin.UNREGISTERED_DATA, r.tableId, r.schemaVersion, null));
                }
                if (anomaly != null) {
                    found.add(new AnomalousTable(r.name, r.tableId, anomaly));
                }
            }
        } finally {
            Transactions.endQuietly(conn);
        }
        dead.sort(InlinedCandidate.ORDER);
        return new Unregistered(dead, liveDelete, found);
    }

    /**
     * The relations of the schema named like inlined tables that no registry row names. A relation a registry
     * row names belongs to the registry path whatever else is true of it, so it is left in the server: at
     * 230,000 registered tables this keeps the survey's memory to the unregistered few. (The name-only form of
     * {@link RegistryPredicate}: the ids are not parsed yet, so they are passed as NULL; the caller applies the
     * full predicate, ids included, to what this returns.)
     */
    private static List<Relation> relationsNamedLikeInlinedTables(Connection conn, String schema, boolean hasRegistry)
            throws SQLException {
        List<Relation> relations = new ArrayList<>();
        // the registry test first, the name pattern on what is left: at 230,000 registered tables the pattern then
        // runs on the few unregistered names, not on every relation of the schema (0.63 s → 0.1 s on PostgreSQL 15);
        // OFFSET 0 keeps the planner from moving the pattern back into the scan of pg_class
        try (PreparedStatement ps = conn.prepareStatement("SELECT s.relname::text, s.relkind::text, s.oid::bigint FROM ("
                + "SELECT c.relname, c.relkind, c.oid FROM pg_catalog.pg_class c"
                + " WHERE c.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?)"
                + " AND " + RegistryPredicate.noRegistryRow(schema, hasRegistry, "c.relname::text", "NULL::bigint", "NULL::bigint")
                + " OFFSET 0) s WHERE s.relname ~ ?")) {
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
        return relations;
    }

    private static boolean hasDuckLakeColumns(Relation r, List<String> columns, FormatVersion version) {
        if (r.delete) {
            return columns.equals(DELETE_COLUMNS);
        }
        return columns.equals(DATA_COLUMNS) || (version.prefixedInlinedColumns() && columns.equals(DATA_COLUMNS_PREFIXED));
    }
}
