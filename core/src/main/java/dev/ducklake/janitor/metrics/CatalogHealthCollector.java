package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.retry.FailureKind;
import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.catalog.OrphanPredicate;
import dev.ducklake.janitor.catalog.SnapshotConsistency;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.pg.Transactions;
import dev.ducklake.janitor.pg.SqlState;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Computes the catalog-health gauges of one DuckLake catalog on PostgreSQL with a handful of aggregate queries,
 * each in its own read-only transaction with {@code SET LOCAL statement_timeout}. A query that fails is reported
 * in {@link CollectResult#errors()} under its name and contributes no gauge; the others still run (unless the
 * session itself is lost). Reads only; never locks more than a SELECT does.
 *
 * <p>Cost: nothing here touches the inlined-data tables themselves or scans {@code pg_attribute} per table. The
 * inlined-table figures come from one pass over the schema's {@code pg_class} rows and the registry (hash joins);
 * {@code pg_attribute} is counted with one join on {@code pg_class.relnamespace}. Inlined-data tables are
 * recognised in {@code pg_class} by the regex {@code ^ducklake_inlined_data_[0-9]+_[0-9]+$} (a {@code LIKE}
 * pattern would also match the registry {@code ducklake_inlined_data_tables}, since {@code _} is a wildcard).
 *
 * <p>Metric names are listed in {@link #BUILT_IN_NAMES}; every family carries the {@code catalog} label first.
 * Not thread-safe: one collector per connection.
 */
public final class CatalogHealthCollector {

    /** Label carried by every catalog metric: the catalog's configured name. */
    public static final String CATALOG_LABEL = "catalog";

    static final String REGISTRY_ROWS = "ducklake_inlined_data_registry_rows";
    static final String TABLES_PRESENT = "ducklake_inlined_data_tables_present";
    static final String REGISTRY_MISSING = "ducklake_inlined_data_registry_rows_missing_table";
    static final String UNREGISTERED = "ducklake_inlined_data_tables_unregistered";
    static final String DELETE_TABLES = "ducklake_inlined_delete_tables_present";
    /** The shared-predicate metric: orphan registry rows as drop-orphan-inline-tables counts them. */
    public static final String UNREACHABLE = "ducklake_unreachable_inline_tables";
    /** Unreachable inlined tables that hold rows (upper bound; see OrphanPredicate#countOrphanRegistryRowsWithHeapBlocks). */
    public static final String UNREACHABLE_NONEMPTY = "ducklake_unreachable_inline_tables_nonempty";
    static final String PG_ATTRIBUTE = "ducklake_metadata_schema_pg_attribute_rows";
    static final String RELATIONS = "ducklake_metadata_schema_relations";
    static final String SNAPSHOTS = "ducklake_snapshots";
    static final String SNAPSHOT_OLDEST = "ducklake_snapshot_oldest_time_seconds";
    static final String SNAPSHOT_NEWEST = "ducklake_snapshot_newest_time_seconds";
    static final String SNAPSHOT_CURRENT = "ducklake_snapshot_current_id";
    static final String DATA_FILES = "ducklake_data_files_live";
    static final String DATA_FILES_BYTES = "ducklake_data_files_live_bytes";
    static final String DELETE_FILES = "ducklake_delete_files_live";
    static final String DELETE_FILES_BYTES = "ducklake_delete_files_live_bytes";
    static final String SCHEDULED = "ducklake_files_scheduled_for_deletion";
    static final String SCHEDULED_AGE = "ducklake_files_scheduled_for_deletion_oldest_age_seconds";
    static final String BAND_FILES = "ducklake_data_files_by_size";
    static final String BAND_BYTES = "ducklake_data_files_by_size_bytes";
    static final String PARTITION_FILES = "ducklake_partition_data_files";
    static final String CATALOG_INFO = "ducklake_catalog";
    /** Rows naming a snapshot beyond the newest one, per catalog table (see {@link SnapshotConsistency}). */
    public static final String BEYOND_LAST_SNAPSHOT = "ducklake_catalog_rows_beyond_last_snapshot";

    /** Every metric name this collector can produce (base names; the info metric is exposed with {@code _info}). */
    public static final List<String> BUILT_IN_NAMES = List.of(REGISTRY_ROWS, TABLES_PRESENT, REGISTRY_MISSING, UNREGISTERED,
            DELETE_TABLES, UNREACHABLE, PG_ATTRIBUTE, RELATIONS, SNAPSHOTS, SNAPSHOT_OLDEST, SNAPSHOT_NEWEST, SNAPSHOT_CURRENT,
            DATA_FILES, DATA_FILES_BYTES, DELETE_FILES, DELETE_FILES_BYTES, SCHEDULED, SCHEDULED_AGE, BAND_FILES, BAND_BYTES,
            PARTITION_FILES, CATALOG_INFO + "_info", BEYOND_LAST_SNAPSHOT, UNREACHABLE_NONEMPTY,
            CheckFindingsGauge.NAME, StorageGauges.LISTED, StorageGauges.COMPARED, StorageGauges.UNCHECKED);

    /** Size bands of live data files: label value and upper bound in bytes (exclusive; last band unbounded). */
    private static final String[] BANDS = {"lt_1mib", "1_to_10mib", "10_to_64mib", "ge_64mib"};
    private static final long MIB = 1024L * 1024L;

    /** How many partitions the top-N gauge lists. */
    static final int TOP_PARTITIONS = 20;
    /** Partition label values are cut to this many characters. */
    private static final int MAX_PARTITION_LABEL = 200;

    private final Connection conn;
    private final String schema;
    private final String catalog;
    private final Duration statementTimeout;
    private final List<CustomQuery> customQueries;

    private final List<MetricFamily> families = new ArrayList<>();
    private final Map<String, String> errors = new LinkedHashMap<>();
    private final List<String> succeeded = new ArrayList<>();
    private final Map<String, Double> durations = new LinkedHashMap<>();
    private boolean connectionLost;

    /**
     * @param conn an open connection; its autocommit and read-only flags are restored after each query
     * @param schema the metadata schema holding the ducklake_* tables
     * @param catalog the value of the {@code catalog} label
     * @param statementTimeout statement_timeout of each built-in query (zero = none)
     * @param customQueries extra gauges from the configuration (may be empty)
     */
    public CatalogHealthCollector(Connection conn, String schema, String catalog, Duration statementTimeout,
                                  List<CustomQuery> customQueries) {
        this.conn = conn;
        this.schema = schema;
        this.catalog = catalog;
        this.statementTimeout = statementTimeout;
        this.customQueries = List.copyOf(customQueries);
    }

    /** A query step: runs inside a read-only transaction and returns its families. */
    @FunctionalInterface
    private interface Step {
        List<MetricFamily> run() throws SQLException;
    }

    /**
     * Runs every built-in query, then every custom query, and returns what they produced. Never throws for a
     * failing query: failures are in {@link CollectResult#errors()} (query {@code catalog} when the metadata
     * schema does not exist or lacks a table every catalog has, in which case nothing else runs).
     *
     * @return the families and errors of this collection
     */
    public CollectResult collect() {
        long t0 = System.nanoTime();
        families.clear();
        errors.clear();
        succeeded.clear();
        durations.clear();
        connectionLost = false;
        long[] ns = new long[1];
        boolean[] hasRegistry = new boolean[1];
        boolean schemaFound = step("catalog", statementTimeout, () -> {
            try (PreparedStatement ps = conn.prepareStatement("SELECT n.oid, EXISTS (SELECT 1 FROM pg_catalog.pg_class c"
                    + " WHERE c.relnamespace = n.oid AND c.relname = 'ducklake_inlined_data_tables')"
                    + " FROM pg_catalog.pg_namespace n WHERE n.nspname = ?")) {
                ps.setString(1, schema);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new SQLException("the metadata schema " + dev.ducklake.janitor.catalog.CatalogInspector.printable(schema)
                                + " does not exist in " + dev.ducklake.janitor.catalog.CatalogInspector.describeServer(conn), SqlState.INVALID_SCHEMA_NAME.code());
                    }
                    ns[0] = rs.getLong(1);
                    hasRegistry[0] = rs.getBoolean(2);
                }
            }
            // a schema with only a ducklake_metadata (discovered by --all-metadata-schemas) is no catalog: one error,
            // NOT_A_CATALOG as every other command reports it, not a failed query per missing table
            String missing = dev.ducklake.janitor.catalog.CatalogInspector.missingTable(conn, schema);
            if (missing != null) {
                throw new SQLException(dev.ducklake.janitor.catalog.CatalogInspector.missingTableMessage(schema, missing),
                        SqlState.UNDEFINED_TABLE.code());
            }
            return List.of();
        });
        if (schemaFound) {
            step("format_version", statementTimeout, this::formatVersion);
            step("inlined_tables", statementTimeout, () -> inlinedTables(ns[0], hasRegistry[0]));
            step("unreachable_inline_tables", statementTimeout, () -> unreachable(hasRegistry[0]));
            step("snapshot_consistency", statementTimeout, this::snapshotConsistency);
            step("pg_attribute", statementTimeout, () -> pgAttribute(ns[0]));
            step("snapshots", statementTimeout, this::snapshots);
            step("data_files", statementTimeout, this::dataFiles);
            step("delete_files", statementTimeout, this::deleteFiles);
            step("scheduled_deletions", statementTimeout, this::scheduled);
            step("partitions", statementTimeout, this::partitions);
            if (!connectionLost && !CheckFindingsGauge.collect(conn, schema, catalog, statementTimeout, families, errors, durations)) {
                connectionLost = true;
            }
            for (CustomQuery q : customQueries) {
                step(q.name(), q.timeout(), () -> CustomQueryRunner.run(conn, catalog, q));
            }
        }
        return new CollectResult(families, succeeded, durations, errors, connectionLost, (System.nanoTime() - t0) / 1e9);
    }

    private boolean step(String name, Duration timeout, Step step) {
        if (connectionLost) {
            errors.put(name, "skipped: the connection was lost");
            return false;
        }
        long t0 = System.nanoTime();
        try {
            boolean auto = conn.getAutoCommit();
            boolean ro = conn.isReadOnly();
            try {
                conn.setAutoCommit(false);
                conn.setReadOnly(true);
                try (PreparedStatement ps = conn.prepareStatement("SELECT set_config('statement_timeout', ?, true),"
                        + " set_config('search_path', ?, true), " + Transactions.JIT_OFF)) {
                    ps.setString(1, Long.toString(timeout.toMillis()));
                    // pg_catalog first: objects in the metadata schema must never shadow built-in functions or operators
                    ps.setString(2, "pg_catalog, " + Sql.ident(schema));
                    ps.execute();
                }
                List<MetricFamily> produced = step.run();
                conn.commit();
                families.addAll(produced);
                succeeded.add(name);
                return true;
            } catch (SQLException e) {
                try {
                    conn.rollback();
                } catch (SQLException ignored) {
                    // the session may be gone; reported below
                }
                throw e;
            } finally {
                try {
                    conn.setAutoCommit(auto);
                    conn.setReadOnly(ro);
                } catch (SQLException ignored) {
                    // the session is gone; the next query finds out
                }
                durations.put(name, (System.nanoTime() - t0) / 1e9);
            }
        } catch (SQLException e) {
            if (SqlState.classify(e) == FailureKind.CONNECTION_LOST) {
                connectionLost = true;
            }
            String state = SqlState.codeOf(e);
            errors.put(name, (state == null ? "" : "SQLSTATE " + state + ": ") + e.getMessage());
            return false;
        } catch (RuntimeException e) {
            errors.put(name, e.getClass().getSimpleName() + ": " + e.getMessage());
            return false;
        }
    }

    // ------------------------------------------------------------------ built-in queries

    private List<MetricFamily> formatVersion() throws SQLException {
        List<MetricFamily.Sample> samples = new ArrayList<>();
        try (PreparedStatement ps = conn.prepareStatement("SELECT DISTINCT value FROM " + t("ducklake_metadata")
                + " WHERE key = 'version' ORDER BY 1");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                samples.add(new MetricFamily.Sample(List.of(catalog, nz(rs.getString(1))), 1));
            }
        }
        return List.of(new MetricFamily(CATALOG_INFO, "DuckLake catalog facts; format_version is ducklake_metadata's 'version' value.",
                MetricFamily.Type.INFO, List.of(CATALOG_LABEL, "format_version"), samples));
    }

    private List<MetricFamily> inlinedTables(long ns, boolean hasRegistry) throws SQLException {
        String registry = hasRegistry ? "SELECT table_name FROM " + t("ducklake_inlined_data_tables")
                : "SELECT NULL::text AS table_name WHERE false";
        // keep this shape: a variant joining the registry to a CTE of the schema's pg_class rows was planned as a
        // nested loop and took minutes on 50,000 tables (MetricsScrapeBenchmark); this one takes about 0.5 s
        String sql = "WITH rel AS (SELECT c.relname::text AS relname FROM pg_catalog.pg_class c"
                + " WHERE c.relnamespace = ? AND c.relkind IN ('r', 'p') AND c.relname ~ ?),"
                + " reg AS (" + registry + ")"
                + " SELECT (SELECT count(*) FROM reg),"
                + " (SELECT count(*) FROM rel),"
                + " (SELECT count(*) FROM reg WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class c"
                + "   WHERE c.relnamespace = ? AND c.relname::text = reg.table_name)),"
                + " (SELECT count(*) FROM rel WHERE NOT EXISTS (SELECT 1 FROM reg WHERE reg.table_name = rel.relname)),"
                + " (SELECT count(*) FROM pg_catalog.pg_class c WHERE c.relnamespace = ? AND c.relkind IN ('r', 'p')"
                + "   AND c.relname ~ ?)";
        // the anti-joins between the registry and pg_class must be hash joins whatever the statistics say: a nested
        // loop over two sets of 200,000 names would run for minutes (transaction-local, like the timeouts)
        Transactions.setLocalHashJoins(conn);
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            ps.setLong(1, ns);
            ps.setString(2, InlinedTableName.DATA_REGEX);
            ps.setLong(3, ns);
            ps.setLong(4, ns);
            ps.setString(5, InlinedTableName.DELETE_REGEX);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return List.of(
                        gauge(REGISTRY_ROWS, "Rows in ducklake_inlined_data_tables (registered inlined-data tables).", rs.getLong(1)),
                        gauge(TABLES_PRESENT, "Tables in the metadata schema named ducklake_inlined_data_<table_id>_<schema_version>.",
                                rs.getLong(2)),
                        gauge(REGISTRY_MISSING, "Registry rows whose table does not exist (DuckLake scans of that table fail).",
                                rs.getLong(3)),
                        gauge(UNREGISTERED, "Inlined-data tables with no registry row (invisible to DuckLake; drop-orphan-inline-tables --include-unregistered drops those of unreachable table_ids).",
                                rs.getLong(4)),
                        gauge(DELETE_TABLES, "Tables named ducklake_inlined_delete_<table_id> in the metadata schema.", rs.getLong(5)));
            }
        }
    }

    private List<MetricFamily> unreachable(boolean hasRegistry) throws SQLException {
        long count = 0;
        long nonEmpty = 0;
        if (hasRegistry) {
            try (PreparedStatement ps = conn.prepareStatement(OrphanPredicate.countOrphanRegistryRows(schema));
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                count = rs.getLong(1);
            }
            if (count > 0) {
                try (PreparedStatement ps = conn.prepareStatement(OrphanPredicate.countOrphanRegistryRowsWithHeapBlocks(schema))) {
                    ps.setString(1, schema);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        nonEmpty = rs.getLong(1);
                    }
                }
            }
        }
        return List.of(gauge(UNREACHABLE, "Registry rows of inlined-data tables whose DuckLake table no retained snapshot can reach "
                + "(leaked; they slow down ATTACH). Fix: ducklake-janitor drop-orphan-inline-tables.", count),
                gauge(UNREACHABLE_NONEMPTY, "Of those, the ones whose table may still hold rows (upper bound: tables with heap "
                        + "blocks). A plain run keeps them; they need drop-orphan-inline-tables --include-nonempty.", nonEmpty));
    }

    private List<MetricFamily> snapshotConsistency() throws SQLException {
        SnapshotConsistency.Report report = SnapshotConsistency.check(conn, schema, 0);
        List<MetricFamily.Sample> samples = new ArrayList<>();
        report.rowsPerTable().forEach((table, rows) -> samples.add(new MetricFamily.Sample(List.of(catalog, table), rows)));
        return List.of(new MetricFamily(BEYOND_LAST_SNAPSHOT, "Catalog rows that refer to a snapshot beyond the newest one in "
                + "ducklake_snapshot, per table (0 on a sound catalog). Above 0 the newest snapshot rows were lost: every "
                + "maintenance command refuses (exit 6) until they are restored.", MetricFamily.Type.GAUGE,
                List.of(CATALOG_LABEL, "table"), samples));
    }

    private List<MetricFamily> pgAttribute(long ns) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT (SELECT count(*) FROM pg_catalog.pg_attribute a"
                + " JOIN pg_catalog.pg_class c ON c.oid = a.attrelid WHERE c.relnamespace = ?),"
                + " (SELECT count(*) FROM pg_catalog.pg_class c WHERE c.relnamespace = ?)")) {
            ps.setLong(1, ns);
            ps.setLong(2, ns);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return List.of(
                        gauge(PG_ATTRIBUTE, "pg_attribute rows of relations in the metadata schema (what DuckDB's ATTACH reads, "
                                + "one row per column of every table).", rs.getLong(1)),
                        gauge(RELATIONS, "pg_class rows (tables, indexes, views, ...) in the metadata schema.", rs.getLong(2)));
            }
        }
    }

    private List<MetricFamily> snapshots() throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT count(*), extract(epoch FROM min(snapshot_time))::float8,"
                + " extract(epoch FROM max(snapshot_time))::float8, max(snapshot_id) FROM " + t("ducklake_snapshot"));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            List<MetricFamily> out = new ArrayList<>();
            out.add(gauge(SNAPSHOTS, "Retained snapshots (rows in ducklake_snapshot).", rs.getLong(1)));
            double oldest = rs.getDouble(2);
            if (!rs.wasNull()) {
                out.add(gauge(SNAPSHOT_OLDEST, "snapshot_time of the oldest retained snapshot, unix seconds.", oldest));
            }
            double newest = rs.getDouble(3);
            if (!rs.wasNull()) {
                out.add(gauge(SNAPSHOT_NEWEST, "snapshot_time of the newest snapshot, unix seconds.", newest));
            }
            long current = rs.getLong(4);
            if (!rs.wasNull()) {
                out.add(gauge(SNAPSHOT_CURRENT, "The current (highest) snapshot_id.", current));
            }
            return out;
        }
    }

    private List<MetricFamily> dataFiles() throws SQLException {
        StringBuilder sql = new StringBuilder("SELECT count(*), coalesce(sum(file_size_bytes), 0)");
        long[] upper = {MIB, 10 * MIB, 64 * MIB};
        for (int i = 0; i < BANDS.length; i++) {
            String cond = (i == 0 ? "file_size_bytes >= 0" : "file_size_bytes >= " + upper[i - 1])
                    + (i < upper.length ? " AND file_size_bytes < " + upper[i] : "");
            sql.append(", count(*) FILTER (WHERE ").append(cond).append("), coalesce(sum(file_size_bytes) FILTER (WHERE ")
               .append(cond).append("), 0)");
        }
        sql.append(" FROM ").append(t("ducklake_data_file")).append(" WHERE end_snapshot IS NULL");
        try (PreparedStatement ps = conn.prepareStatement(sql.toString()); ResultSet rs = ps.executeQuery()) {
            rs.next();
            List<MetricFamily.Sample> counts = new ArrayList<>();
            List<MetricFamily.Sample> bytes = new ArrayList<>();
            for (int i = 0; i < BANDS.length; i++) {
                counts.add(new MetricFamily.Sample(List.of(catalog, BANDS[i]), rs.getLong(3 + 2 * i)));
                bytes.add(new MetricFamily.Sample(List.of(catalog, BANDS[i]), rs.getDouble(4 + 2 * i)));
            }
            List<String> labels = List.of(CATALOG_LABEL, "band");
            return List.of(
                    gauge(DATA_FILES, "Live data files (end_snapshot IS NULL).", rs.getLong(1)),
                    gauge(DATA_FILES_BYTES, "Total size of live data files, bytes.", rs.getDouble(2)),
                    new MetricFamily(BAND_FILES, "Live data files per size band (lt_1mib, 1_to_10mib, 10_to_64mib, ge_64mib); many "
                            + "small files call for compaction (ducklake_merge_adjacent_files).", MetricFamily.Type.GAUGE, labels, counts),
                    new MetricFamily(BAND_BYTES, "Total size of live data files per size band, bytes.", MetricFamily.Type.GAUGE, labels, bytes));
        }
    }

    private List<MetricFamily> deleteFiles() throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT count(*), coalesce(sum(file_size_bytes), 0) FROM "
                + t("ducklake_delete_file") + " WHERE end_snapshot IS NULL");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return List.of(gauge(DELETE_FILES, "Live delete files (end_snapshot IS NULL).", rs.getLong(1)),
                    gauge(DELETE_FILES_BYTES, "Total size of live delete files, bytes.", rs.getDouble(2)));
        }
    }

    private List<MetricFamily> scheduled() throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement("SELECT count(*),"
                + " coalesce(extract(epoch FROM now() - min(schedule_start))::float8, 0) FROM "
                + t("ducklake_files_scheduled_for_deletion"));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return List.of(
                    gauge(SCHEDULED, "Files waiting in ducklake_files_scheduled_for_deletion for ducklake_cleanup_old_files.",
                            rs.getLong(1)),
                    gauge(SCHEDULED_AGE, "Age of the oldest file scheduled for deletion, seconds (0 when none).",
                            Math.max(0, rs.getDouble(2))));
        }
    }

    private List<MetricFamily> partitions() throws SQLException {
        String sql = "SELECT f.table_id, coalesce(p.pv, '<none>'), count(*) FROM " + t("ducklake_data_file") + " f"
                + " LEFT JOIN (SELECT data_file_id, string_agg(coalesce(partition_value, 'NULL'), '/' ORDER BY partition_key_index) pv"
                + "   FROM " + t("ducklake_file_partition_value") + " GROUP BY data_file_id) p ON p.data_file_id = f.data_file_id"
                + " WHERE f.end_snapshot IS NULL GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT " + TOP_PARTITIONS;
        List<MetricFamily.Sample> samples = new ArrayList<>();
        try (PreparedStatement ps = conn.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                String pv = nz(rs.getString(2));
                if (pv.length() > MAX_PARTITION_LABEL) {
                    pv = pv.substring(0, MAX_PARTITION_LABEL) + "...";
                }
                samples.add(new MetricFamily.Sample(List.of(catalog, Long.toString(rs.getLong(1)), pv), rs.getLong(3)));
            }
        }
        return List.of(new MetricFamily(PARTITION_FILES, "Live data files of the " + TOP_PARTITIONS + " partitions with the most "
                + "files (partition values joined with '/', <none> for unpartitioned tables).", MetricFamily.Type.GAUGE,
                List.of(CATALOG_LABEL, "table_id", "partition"), samples));
    }

    // ------------------------------------------------------------------ helpers

    private MetricFamily gauge(String name, String help, double value) {
        return MetricFamily.gauge(name, help, List.of(CATALOG_LABEL), List.of(catalog), value);
    }

    private String t(String table) {
        return Sql.qualified(schema, table);
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }
}
