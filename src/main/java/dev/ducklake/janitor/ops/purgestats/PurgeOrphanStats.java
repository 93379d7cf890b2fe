package dev.ducklake.janitor.ops.purgestats;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.AdvisoryLock;
import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.pg.SqlState;
import dev.ducklake.janitor.ops.check.CatalogLayout;
import dev.ducklake.janitor.ops.check.OrphanedStatsRowsRule;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code purge-orphan-stats}: deletes exactly the rows of the {@code orphaned_stats_rows} finding
 * ({@link OrphanedStatsRowsRule}): table-level stats of table_ids without any {@code ducklake_table} row, and per-file
 * stats of data files that no longer exist. Never touches the stats of a table_id that has a {@code ducklake_table} row
 * (DuckLake removes those itself when it expires the table).
 *
 * <p>Execute runs hold the {@link AdvisoryLock} and work in batches ({@link StatsPurgeBatch}, one transaction each, with
 * {@code statement_timeout} and {@code lock_timeout} set locally): first the table-level stats by table_id (table stats,
 * then column stats, in one transaction per batch), then each per-file stats table by data_file_id. Memory does not grow
 * with the catalog: ids are taken in keyset order, {@code batchSize} at a time. Retryable SQLSTATEs (40001, 40P01, 55P03,
 * 57014) are retried up to {@value #MAX_ATTEMPTS} times per batch with backoff; committed batches are consistent, so a
 * failed or stopped run is simply run again. A dry run counts and takes no lock.
 *
 * <p>Source: why these rows matter and why the order, see {@link OrphanedStatsRowsRule} and {@link StatsPurgeBatch}.
 */
public final class PurgeOrphanStats {

    private static final int MAX_ATTEMPTS = 5;

    /**
     * Progress of one committed batch.
     *
     * @param number batch number, from 1
     * @param table the stats table (the first one for table-level batches)
     * @param ids ids in the batch
     * @param rows rows deleted
     * @param seconds wall time of the batch, seconds
     */
    public record BatchProgress(int number, String table, int ids, long rows, double seconds) {
    }

    private final ConnectionSpec spec;
    private final PurgeOrphanStatsOptions options;
    private final Consumer<BatchProgress> progress;
    private final List<String> warnings = new ArrayList<>();

    /**
     * @param spec where the catalog database is
     * @param options what to do
     * @param progress receives each committed batch (may be a no-op)
     */
    public PurgeOrphanStats(ConnectionSpec spec, PurgeOrphanStatsOptions options, Consumer<BatchProgress> progress) {
        this.spec = spec;
        this.options = options;
        this.progress = progress;
    }

    /**
     * Runs the purge.
     *
     * @return the counts
     * @throws JanitorException USAGE for invalid options; CONNECTION when the catalog cannot be reached or the connection
     *     is lost (committed batches are kept); NOT_A_CATALOG, UNSUPPORTED_VERSION, UNSAFE_CATALOG_STATE,
     *     PERMISSION_DENIED from the catalog checks or a missing DELETE privilege; LOCK_HELD when another maintenance run
     *     holds the advisory lock; DATABASE_ERROR when an error persisted after the retries
     */
    public PurgeOrphanStatsResult execute() throws JanitorException {
        options.validate();
        long t0 = System.nanoTime();
        String schema = options.metadataSchema();
        AdvisoryLock lock = null;
        try (Connection conn = spec.open()) {
            try {
                CatalogInfo info = CatalogInspector.inspect(conn, schema);
                CatalogLayout layout = CatalogLayout.read(conn, schema);
                List<String> tableLevel = OrphanedStatsRowsRule.tableLevelTables(layout);
                List<String> fileLevel = OrphanedStatsRowsRule.fileLevelTables(layout);
                Map<String, Long> before = count(conn, schema, tableLevel, fileLevel);
                Map<String, Long> deleted = new LinkedHashMap<>();
                before.keySet().forEach(t -> deleted.put(t, 0L));
                Run run = new Run();
                if (!options.dryRun()) {
                    lock = AdvisoryLock.acquire(conn, options.lockName(), schema);
                    if (!tableLevel.isEmpty()) {
                        run.ids(conn, tableLevel.get(0), deleted, after -> StatsPurgeBatch.tableLevel(conn, schema, tableLevel, after,
                                options.batchSize()));
                        run.tableIds = run.lastIds;
                    }
                    for (String table : fileLevel) {
                        run.ids(conn, table, deleted, after -> StatsPurgeBatch.fileLevel(conn, schema, table, after, options.batchSize()));
                        run.fileIds += run.lastIds;
                    }
                }
                long remaining = options.dryRun() ? sum(before) : sum(count(conn, schema, tableLevel, fileLevel));
                List<Double> times = new ArrayList<>(run.seconds);
                times.sort(null);
                double median = times.isEmpty() ? 0 : times.get(times.size() / 2);
                double max = times.isEmpty() ? 0 : times.get(times.size() - 1);
                return new PurgeOrphanStatsResult(schema, info.version().text(), options.dryRun(), before, deleted, sum(before),
                        sum(deleted), run.tableIds, run.fileIds, remaining, run.batches, run.retries, median, max,
                        run.maxBatchesReached, (System.nanoTime() - t0) / 1e9, List.copyOf(warnings));
            } catch (SQLException e) {
                throw databaseError(e);
            } finally {
                if (lock != null) {
                    lock.release(conn);
                }
            }
        } catch (SQLException e) {
            throw databaseError(e);
        }
    }

    /** One batch of work, inside an open transaction. */
    @FunctionalInterface
    private interface BatchWork {
        StatsPurgeBatch.Outcome run(long after) throws SQLException;
    }

    /** The batch loop's figures. */
    private final class Run {
        int batches;
        int retries;
        long tableIds;
        long fileIds;
        long lastIds;
        boolean maxBatchesReached;
        final List<Double> seconds = new ArrayList<>();

        /** Runs batches until no id is left (or --max-batches); adds the deleted rows into {@code deleted}. */
        void ids(Connection conn, String label, Map<String, Long> deleted, BatchWork work) throws SQLException, JanitorException {
            lastIds = 0;
            long after = Long.MIN_VALUE;
            while (!maxBatchesReached) {
                if (options.maxBatches() != null && batches >= options.maxBatches()) {
                    maxBatchesReached = true;
                    break;
                }
                long b0 = System.nanoTime();
                StatsPurgeBatch.Outcome o = attempt(conn, work, after);
                if (o.ids() == 0) {
                    return;
                }
                batches++;
                lastIds += o.ids();
                after = o.lastId();
                long rows = 0;
                for (Map.Entry<String, Long> e : o.deleted().entrySet()) {
                    deleted.merge(e.getKey(), e.getValue(), Long::sum);
                    rows += e.getValue();
                }
                double s = (System.nanoTime() - b0) / 1e9;
                seconds.add(s);
                progress.accept(new BatchProgress(batches, label, o.ids(), rows, s));
            }
        }

        private StatsPurgeBatch.Outcome attempt(Connection conn, BatchWork work, long after) throws SQLException {
            for (int attempt = 1; ; attempt++) {
                conn.setAutoCommit(false);
                try {
                    try (PreparedStatement ps = conn.prepareStatement("SELECT set_config('statement_timeout', ?, true),"
                            + " set_config('lock_timeout', ?, true), set_config('enable_nestloop', 'off', true)")) {
                        ps.setString(1, Long.toString(options.statementTimeout().toMillis()));
                        ps.setString(2, Long.toString(options.lockTimeout().toMillis()));
                        ps.execute();
                    }
                    StatsPurgeBatch.Outcome o = work.run(after);
                    conn.commit();
                    return o;
                } catch (SQLException e) {
                    try {
                        conn.rollback();
                    } catch (SQLException ignored) {
                        // the session may be gone; classified below
                    }
                    if (SqlState.classify(e) != SqlState.Kind.RETRYABLE || attempt >= MAX_ATTEMPTS) {
                        throw e;
                    }
                    retries++;
                    warnings.add("batch retried after SQLSTATE " + SqlState.codeOf(e));
                    try {
                        Thread.sleep(Math.min(5000L, 200L << attempt));
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        throw e;
                    }
                } finally {
                    conn.setAutoCommit(true);
                }
            }
        }
    }

    /** Orphaned rows per stats table, with the rule's predicates (read-only transaction). */
    private Map<String, Long> count(Connection conn, String schema, List<String> tableLevel, List<String> fileLevel) throws SQLException {
        Map<String, Long> out = new LinkedHashMap<>();
        conn.setAutoCommit(false);
        conn.setReadOnly(true);
        try {
            try (PreparedStatement ps = conn.prepareStatement("SELECT set_config('statement_timeout', ?, true),"
                    + " set_config('enable_nestloop', 'off', true)")) {
                ps.setString(1, Long.toString(options.statementTimeout().toMillis()));
                ps.execute();
            }
            for (String t : tableLevel) {
                out.put(t, scalar(conn, "SELECT count(*) FROM " + Sql.qualified(schema, t) + " s WHERE "
                        + OrphanedStatsRowsRule.tableLevelOrphan(schema, "s")));
            }
            for (String t : fileLevel) {
                out.put(t, scalar(conn, "SELECT count(*) FROM " + Sql.qualified(schema, t) + " s WHERE "
                        + OrphanedStatsRowsRule.fileLevelOrphan(schema, "s")));
            }
            conn.commit();
        } finally {
            try {
                conn.rollback();
            } catch (SQLException ignored) {
                // nothing to keep
            }
            conn.setAutoCommit(true);
            conn.setReadOnly(false);
        }
        return out;
    }

    private static long scalar(Connection conn, String sql) throws SQLException {
        try (PreparedStatement ps = conn.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static long sum(Map<String, Long> m) {
        return m.values().stream().mapToLong(Long::longValue).sum();
    }

    private JanitorException databaseError(SQLException e) {
        SqlState.Kind kind = SqlState.classify(e);
        if (kind == SqlState.Kind.CONNECTION_LOST) {
            return new JanitorException(Reason.CONNECTION, "Lost the connection to " + spec.describe() + " (SQLSTATE "
                    + SqlState.codeOf(e) + "). Batches committed so far are kept and consistent; rerun to continue.", e);
        }
        if (kind == SqlState.Kind.PERMISSION_DENIED) {
            return new JanitorException(Reason.PERMISSION_DENIED, "Permission denied: " + spec.redact(e.getMessage())
                    + " (purge-orphan-stats needs SELECT and DELETE on the ducklake_*stats tables and ducklake_file_partition_value).", e);
        }
        return new JanitorException(Reason.DATABASE_ERROR, "Database error (SQLSTATE " + SqlState.codeOf(e) + "): "
                + spec.redact(e.getMessage()), e);
    }
}
