package dev.ducklake.janitor.ops.compact;

import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.pg.Sql;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Plans flush and compaction per live table from the catalog alone, over JDBC (no ATTACH): read-only queries on the
 * metadata schema, mirroring what DuckLake {@code d8a1881e} itself selects.
 *
 * <ul>
 *   <li>Tables: live tables ({@code end_snapshot IS NULL}) of live schemas; a table whose {@code auto_compact} option
 *   (table, schema, global scope) is not {@code true} is skipped, as DuckLake's three functions skip it.</li>
 *   <li>Flush ({@code ducklake_flush_inlined_data}): every registered inlined-data table of the table that exists, and
 *   {@code ducklake_inlined_delete_<table_id>}; the table is planned when any holds a row.</li>
 *   <li>Merge ({@code GetFilesForCompaction} with {@code MERGE_ADJACENT_TABLES}, {@code GenerateCompactions}): live files
 *   below the target size, in DuckLake's order ({@code begin_snapshot, row_id_start, data_file_id}), without any
 *   {@code ducklake_delete_file} row and without inlined deletions, grouped by schema version (the
 *   {@code ducklake_schema_versions} range holding the file's begin_snapshot), partition_id and partition values; in each
 *   group of two or more, the greedy pass that adds neighbours while the sum stays below the target
 *   ({@link MergeSimulation#simulateMerge}).</li>
 *   <li>Rewrite ({@code REWRITE_DELETES}): live files whose deleted rows (the newest delete file's {@code delete_count} when
 *   it has no end snapshot, plus the file's inlined deletions) over {@code record_count} reach the threshold.</li>
 * </ul>
 * Options: {@code target_file_size}, {@code rewrite_delete_threshold}, {@code auto_compact} from {@code ducklake_metadata}
 * in DuckLake's order (scope {@code table} with scope_id = table_id, then {@code schema} with the schema_id, then global).
 */
public final class CompactionPlanner {

    private final Connection c;
    private final String schema;
    private final FormatVersion version;
    private final boolean hasRegistry;
    private final CompactOptions options;
    private final List<Option> catalogOptions;

    private record Option(String key, String value, String scope, Long scopeId) {
    }

    /** One live data file as the merge and rewrite plans see it. */
    record DataFile(long id, long records, long sizeBytes, Long schemaVersion, Long partitionId, List<String> partitionValues,
                    boolean anyDeleteFile, long activeDeletes, long inlinedDeletes) {
    }

    /**
     * @param c a connection (read-only use)
     * @param info the inspected catalog
     * @param options the run's options
     * @throws SQLException on a database error
     */
    public CompactionPlanner(Connection c, CatalogInfo info, CompactOptions options) throws SQLException {
        this.c = c;
        this.schema = info.schema();
        this.version = info.version();
        this.hasRegistry = info.hasInlinedRegistry();
        this.options = options;
        this.catalogOptions = readOptions();
    }

    /** Files from this {@code data_file_id} on were written by this run's earlier passes ({@link #planTable(long, long)}). */
    private long newFilesFrom = Long.MAX_VALUE;

    /**
     * @return the largest {@code data_file_id} of the catalog plus one: the first id a call from now on can write
     * @throws SQLException on a database error
     */
    public long nextFileId() throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT COALESCE(max(data_file_id), -1) + 1 FROM "
                + Sql.qualified(schema, "ducklake_data_file")); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private List<Option> readOptions() throws SQLException {
        List<Option> out = new ArrayList<>();
        boolean scoped = version != FormatVersion.V0_1;
        try (PreparedStatement ps = c.prepareStatement("SELECT key, value" + (scoped ? ", scope, scope_id" : "") + " FROM "
                + Sql.qualified(schema, "ducklake_metadata")); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new Option(rs.getString(1), rs.getString(2), scoped ? rs.getString(3) : null,
                        scoped ? rs.getObject(4, Long.class) : null));
            }
        }
        return out;
    }

    /**
     * An option's value in DuckLake's order: table scope, schema scope, global ({@code TryGetConfigOption}).
     *
     * @return the value, or null when not set
     */
    String option(String key, long schemaId, long tableId) {
        String global = null;
        String schemaScoped = null;
        for (Option o : catalogOptions) {
            if (!o.key().equals(key)) {
                continue;
            }
            if ("table".equals(o.scope()) && Objects.equals(o.scopeId(), tableId)) {
                return o.value();
            }
            if ("schema".equals(o.scope()) && Objects.equals(o.scopeId(), schemaId)) {
                schemaScoped = o.value();
            } else if (o.scope() == null || o.scope().isEmpty() || "global".equals(o.scope())) {
                global = o.value();
            }
        }
        return schemaScoped != null ? schemaScoped : global;
    }

    /**
     * Plans every live table, in schema and table name order.
     *
     * @return one plan per live table whose {@code auto_compact} is on, with or without work
     * @throws SQLException on a database error
     */
    public List<TablePlan> plan() throws SQLException {
        return plan(null);
    }

    /**
     * Plans one live table again (after a capped call took part of its work).
     *
     * @param tableId the table
     * @return its plan, or null when it is no longer live or its {@code auto_compact} is off
     * @throws SQLException on a database error
     */
    public TablePlan planTable(long tableId) throws SQLException {
        return planTable(tableId, Long.MAX_VALUE);
    }

    /**
     * Plans one live table again after passes of this run, whose outputs a split pass leaves out ({@link MergeSimulation#splitPass}).
     *
     * @param tableId the table
     * @param newFilesFrom the first {@code data_file_id} the run's passes on it can have written (the catalog's largest
     *     before its first pass, plus one)
     * @return its plan, or null when it is no longer live or its {@code auto_compact} is off
     * @throws SQLException on a database error
     */
    public TablePlan planTable(long tableId, long newFilesFrom) throws SQLException {
        this.newFilesFrom = newFilesFrom;
        List<TablePlan> p = plan(tableId);
        return p.isEmpty() ? null : p.get(0);
    }

    private List<TablePlan> plan(Long only) throws SQLException {
        List<long[]> ids = new ArrayList<>();
        List<String[]> names = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT t.table_id, s.schema_id, s.schema_name, t.table_name FROM "
                + Sql.qualified(schema, "ducklake_table") + " t JOIN " + Sql.qualified(schema, "ducklake_schema")
                + " s ON s.schema_id = t.schema_id AND s.end_snapshot IS NULL WHERE t.end_snapshot IS NULL"
                + (only == null ? "" : " AND t.table_id = ?") + " ORDER BY s.schema_name, t.table_name, t.table_id")) {
            if (only != null) {
                ps.setLong(1, only);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(new long[] {rs.getLong(1), rs.getLong(2)});
                    names.add(new String[] {rs.getString(3), rs.getString(4)});
                }
            }
        }
        Map<Long, List<String>> inlined = options.mode() == CompactMode.FLUSH_INLINED_DATA ? inlinedTables() : Map.of();
        List<TablePlan> out = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            long tableId = ids.get(i)[0];
            long schemaId = ids.get(i)[1];
            if (!"true".equals(Objects.requireNonNullElse(option("auto_compact", schemaId, tableId), "true"))) {
                continue;
            }
            out.add(options.mode() == CompactMode.FLUSH_INLINED_DATA
                    ? planFlush(names.get(i)[0], names.get(i)[1], tableId, inlined.getOrDefault(tableId, List.of()))
                    : planCompaction(names.get(i)[0], names.get(i)[1], tableId, schemaId));
        }
        return out;
    }

    /** Registered inlined-data tables that exist, by table_id. */
    private Map<Long, List<String>> inlinedTables() throws SQLException {
        Map<Long, List<String>> out = new HashMap<>();
        if (!hasRegistry) {
            return out;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT r.table_id, r.table_name FROM "
                + Sql.qualified(schema, "ducklake_inlined_data_tables") + " r JOIN pg_catalog.pg_class k ON k.relname = r.table_name"
                + " AND k.relkind = 'r' AND k.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?)"
                + " ORDER BY r.table_id, r.schema_version")) {
            ps.setString(1, schema);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>()).add(rs.getString(2));
                }
            }
        }
        return out;
    }

    private boolean relationExists(String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_catalog.pg_class k WHERE k.relname = ? AND k.relkind = 'r'"
                + " AND k.relnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = ?)")) {
            ps.setString(1, name);
            ps.setString(2, schema);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private TablePlan planFlush(String schemaName, String tableName, long tableId, List<String> inlined) throws SQLException {
        long rows = 0;
        long live = 0;
        String end = Sql.ident(version.inlinedSystemColumn("end_snapshot"));
        for (String t : inlined) {
            try (PreparedStatement ps = c.prepareStatement("SELECT count(*), count(*) FILTER (WHERE " + end + " IS NULL) FROM "
                    + Sql.qualified(schema, t)); ResultSet rs = ps.executeQuery()) {
                rs.next();
                rows += rs.getLong(1);
                live += rs.getLong(2);
            }
        }
        long deletions = 0;
        String del = InlinedTableName.deleteTable(tableId);
        if (relationExists(del)) {
            try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + Sql.qualified(schema, del));
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                deletions = rs.getLong(1);
            }
        }
        List<String> reasons = new ArrayList<>();
        if (rows > 0) {
            reasons.add("inlined_rows");
        }
        if (deletions > 0) {
            reasons.add("inlined_deletions");
        }
        List<String> calls = reasons.isEmpty() ? List.of() : List.of(DuckLakeCalls.flush(schemaName, tableName));
        return new TablePlan(schemaName, tableName, tableId, reasons, inlined.size(), rows, live, deletions, 0, 0, null, 0, 0, 0, 0,
                null, null, 0, 0, 0, 0, 0, calls);
    }

    private TablePlan planCompaction(String schemaName, String tableName, long tableId, long schemaId) throws SQLException {
        long target = options.targetFileSize() != null ? options.targetFileSize()
                : parseSize(option("target_file_size", schemaId, tableId), CompactOptions.DUCKLAKE_TARGET_FILE_SIZE);
        double threshold = options.deleteThreshold() != null ? options.deleteThreshold()
                : parseDouble(option("rewrite_delete_threshold", schemaId, tableId), CompactOptions.DUCKLAKE_DELETE_THRESHOLD);
        List<DataFile> files = liveFiles(tableId);
        List<DataFile> small = new ArrayList<>();
        long rewriteFiles = 0;
        long rewriteRows = 0;
        long rewriteBytes = 0;
        for (DataFile f : files) {
            if (f.sizeBytes() < target && !f.anyDeleteFile() && f.inlinedDeletes() == 0) {
                small.add(f);
            }
            long deleted = f.activeDeletes() + f.inlinedDeletes();
            double ratio = f.records() > 0 ? (double) deleted / (double) f.records() : 0;
            if (deleted > 0 && ratio >= threshold) {
                rewriteFiles++;
                rewriteRows += deleted;
                rewriteBytes += Math.max(0, f.sizeBytes());
            }
        }
        MergeSimulation.MergePlan merge = MergeSimulation.simulateMerge(small, target);
        // the call's own merge: DuckLake's at the target, or, when one step alone is larger than --max-input-files, the
        // merge at a lower target (the ducklake_target_file_size setting) whose steps each fit: the table is then compacted
        // in tiers, each pass's outputs merged by the next
        Long session = options.targetFileSize();
        MergeSimulation.MergePlan call = merge;
        Long maxFileSize = null;
        if (options.maxInputFiles() > 0 && MergeSimulation.maxStep(merge) > options.maxInputFiles()) {
            MergeSimulation.Pass pass = MergeSimulation.splitPass(small, target, options.maxInputFiles(), newFilesFrom);
            if (pass != null) {
                session = pass.target() < target ? Long.valueOf(pass.target()) : session;
                call = pass.merge();
                maxFileSize = pass.maxFileSize();
            }
        }
        Long maxCompacted = null;
        long bound = call.inputFiles();
        long mergeBytes = call.inputBytes();
        if (options.maxInputFiles() > 0 && call.inputFiles() > options.maxInputFiles()) {
            List<Integer> sizes = new ArrayList<>(call.iterations());
            sizes.sort(Collections.reverseOrder());
            long sum = 0;
            long k = 0;
            for (int s : sizes) {
                if (k > 0 && sum + s > options.maxInputFiles()) {
                    break;
                }
                sum += s;
                k++;
            }
            maxCompacted = k;
            bound = sum;
            // which k steps DuckLake takes depends on its group order: the k largest by bytes bound them all
            List<Long> stepBytes = new ArrayList<>(call.iterationBytes());
            stepBytes.sort(Collections.reverseOrder());
            long bytes = 0;
            for (int n = 0; n < k && n < stepBytes.size(); n++) {
                bytes += stepBytes.get(n);
            }
            mergeBytes = Math.min(mergeBytes, bytes);
        }
        List<String> reasons = new ArrayList<>();
        List<String> calls = new ArrayList<>();
        if (merge.outputFiles() > 0) {
            reasons.add("small_files");
            calls.add(DuckLakeCalls.merge(schemaName, tableName, maxCompacted, maxFileSize));
        }
        if (rewriteFiles > 0) {
            reasons.add("deleted_rows");
            calls.add(DuckLakeCalls.rewrite(schemaName, tableName, threshold));
        }
        return new TablePlan(schemaName, tableName, tableId, reasons, 0, 0, 0, 0, files.size(), target,
                merge.outputFiles() > 0 || rewriteFiles > 0 ? session : null, small.size(),
                merge.groups(), merge.inputFiles(), merge.outputFiles(), maxCompacted, merge.outputFiles() > 0 ? maxFileSize : null,
                bound, threshold, rewriteFiles, rewriteRows,
                (merge.outputFiles() > 0 ? mergeBytes : 0) + rewriteBytes, List.copyOf(calls));
    }

    /** Live data files of one table in DuckLake's compaction order, with their delete figures. */
    private List<DataFile> liveFiles(long tableId) throws SQLException {
        Map<Long, Long> inlinedDeletes = new HashMap<>();
        String del = InlinedTableName.deleteTable(tableId);
        if (relationExists(del)) {
            try (PreparedStatement ps = c.prepareStatement("SELECT file_id, count(DISTINCT row_id) FROM " + Sql.qualified(schema, del)
                    + " GROUP BY file_id"); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    inlinedDeletes.put(rs.getLong(1), rs.getLong(2));
                }
            }
        }
        String q = Sql.qualified(schema, "ducklake_delete_file");
        String sql = "WITH sv AS (SELECT begin_snapshot, COALESCE(lead(begin_snapshot) OVER (ORDER BY begin_snapshot),"
                + " 9223372036854775807) AS end_snapshot, schema_version FROM " + Sql.qualified(schema, "ducklake_schema_versions")
                + " WHERE table_id = ?)"
                + " SELECT d.data_file_id, d.record_count, d.file_size_bytes, sv.schema_version, d.partition_id,"
                + " (SELECT array_agg(pv.partition_value::text ORDER BY pv.partition_key_index) FROM "
                + Sql.qualified(schema, "ducklake_file_partition_value") + " pv WHERE pv.data_file_id = d.data_file_id),"
                + " EXISTS (SELECT 1 FROM " + q + " x WHERE x.table_id = d.table_id AND x.data_file_id = d.data_file_id),"
                + " COALESCE((SELECT CASE WHEN x.end_snapshot IS NULL THEN x.delete_count ELSE 0 END FROM " + q
                + " x WHERE x.table_id = d.table_id AND x.data_file_id = d.data_file_id ORDER BY x.begin_snapshot DESC, x.delete_file_id DESC"
                + " LIMIT 1), 0)"
                + " FROM " + Sql.qualified(schema, "ducklake_data_file") + " d LEFT JOIN sv ON d.begin_snapshot >= sv.begin_snapshot"
                + " AND d.begin_snapshot < sv.end_snapshot WHERE d.table_id = ? AND d.end_snapshot IS NULL"
                + " ORDER BY d.begin_snapshot, d.row_id_start, d.data_file_id";
        List<DataFile> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, tableId);
            ps.setLong(2, tableId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Array a = rs.getArray(6);
                    List<String> values = a == null ? List.of() : Arrays.asList((String[]) a.getArray());
                    long id = rs.getLong(1);
                    out.add(new DataFile(id, rs.getLong(2), rs.getLong(3), rs.getObject(4, Long.class),
                            rs.getObject(5, Long.class), values, rs.getBoolean(7), rs.getLong(8), inlinedDeletes.getOrDefault(id, 0L)));
                }
            }
        }
        return out;
    }

    /**
     * A size option as DuckLake reads it: a number of bytes, or DuckDB's size grammar ({@code 10MB}, {@code 1GiB}).
     *
     * @param value the option's text, or null
     * @param fallback used when null or unreadable
     * @return bytes
     */
    static long parseSize(String value, long fallback) {
        if (value == null || value.isBlank()) {
            return fallback;
        }
        String v = value.trim().toUpperCase(Locale.ROOT).replace(" ", "");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("([0-9]+(?:\\.[0-9]+)?)([KMGT]?I?B?|BYTES)").matcher(v);
        if (!m.matches()) {
            return fallback;
        }
        double n = Double.parseDouble(m.group(1));
        String unit = m.group(2);
        double mult = switch (unit) {
            case "", "B", "BYTES" -> 1;
            case "K", "KB" -> 1e3;
            case "M", "MB" -> 1e6;
            case "G", "GB" -> 1e9;
            case "T", "TB" -> 1e12;
            case "KIB" -> 1024.0;
            case "MIB" -> 1024.0 * 1024;
            case "GIB" -> 1024.0 * 1024 * 1024;
            case "TIB" -> 1024.0 * 1024 * 1024 * 1024;
            default -> -1;
        };
        return mult < 0 ? fallback : (long) (n * mult);
    }

    private static double parseDouble(String value, double fallback) {
        if (value == null) {
            return fallback;
        }
        try {
            return Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }
}
