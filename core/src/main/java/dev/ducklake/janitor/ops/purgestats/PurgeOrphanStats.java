package dev.ducklake.janitor.ops.purgestats;

import dev.ducklake.janitor.catalog.CatalogLayout;
import dev.ducklake.janitor.catalog.OrphanedStatsPredicate;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.ops.runtime.BatchSizer;
import dev.ducklake.janitor.ops.runtime.BatchSource;
import dev.ducklake.janitor.ops.runtime.MaintenanceRun;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.StoppableOperation;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.pg.Transactions;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code purge-orphan-stats}: deletes exactly the rows of the {@code orphaned_stats_rows} finding
 * ({@link OrphanedStatsPredicate}): table-level stats of table_ids without any {@code ducklake_table} row, and per-file
 * stats of data files that no longer exist. Never touches the stats of a table_id that has a {@code ducklake_table} row
 * (DuckLake removes those itself when it expires the table).
 *
 * <p>Runs on the shared maintenance runtime ({@link MaintenanceRun}): session with reconnect, advisory lock for execute
 * runs, the batch loop (adaptive size, --max-batches, --run-budget, stop signal, retry policy) over
 * {@link StatsPurgeWork}: one loop over one {@link BatchSource}, first the table-level stats by table_id, then each
 * per-file stats table by data_file_id ({@link StatsPurgeBatch}), a batch never mixing two of them. Each group's ids are
 * read in key order {@value #ID_CHUNK} at a time by a keyset query ({@link StatsPurgeBatch#source}, read-only), so memory
 * does not grow with the catalog.
 * Committed batches are consistent: a stopped or failed run is simply run again. A dry run counts and takes no lock.
 */
public final class PurgeOrphanStats extends StoppableOperation<PurgeOrphanStatsResult> {

    /** Ids read per page of a group's keyset query (and held in memory at most, with one batch); the loop works through them in batches. */
    static final int ID_CHUNK = 50_000;

    private final ConnectionSpec spec;
    private final PurgeOrphanStatsOptions options;
    private final ProgressListener listener;

    /**
     * @param spec where the catalog database is
     * @param options what to do
     * @param listener where progress goes ({@link ProgressListener#NONE} for none)
     */
    public PurgeOrphanStats(ConnectionSpec spec, PurgeOrphanStatsOptions options, ProgressListener listener) {
        this.spec = spec;
        this.options = options;
        this.listener = listener;
    }

    /**
     * {@inheritDoc}
     *
     * @throws JanitorException USAGE for invalid options; CONNECTION when the catalog cannot be reached (or did not come
     *     back); NOT_A_CATALOG, UNSUPPORTED_VERSION, UNSAFE_CATALOG_STATE, PERMISSION_DENIED from the catalog checks or a
     *     missing DELETE privilege; LOCK_HELD when another maintenance run holds the advisory lock; DATABASE_ERROR when an
     *     error persisted after the retries. Committed batches are kept.
     */
    @Override
    protected PurgeOrphanStatsResult run() throws JanitorException {
        options.validate();
        try (MaintenanceRun run = MaintenanceRun.open(spec, options.run(), listener, stopFlag())) {
            CatalogInfo info = run.inspectAndLock();
            String schema = info.schema();
            CatalogLayout layout = run.queries().readOnly("reading the catalog layout", options.run().statementTimeout(),
                    c -> CatalogLayout.read(c, schema));
            List<StatsPurgeBatch> groups = new ArrayList<>();
            List<String> tableLevel = OrphanedStatsPredicate.tableLevelTables(layout);
            if (!tableLevel.isEmpty()) {
                groups.add(StatsPurgeBatch.tableLevel(schema, tableLevel));
            }
            for (String t : OrphanedStatsPredicate.fileLevelTables(layout)) {
                groups.add(StatsPurgeBatch.fileLevel(schema, t));
            }
            Map<String, Long> before = run.queries().readOnly("counting orphaned stats rows", options.run().statementTimeout(),
                    c -> count(c, schema, layout));
            listener.info("orphaned stats rows: " + before);
            Map<String, Long> deleted = new LinkedHashMap<>();
            before.keySet().forEach(t -> deleted.put(t, 0L));
            if (!options.run().dryRun()) {
                List<String> denied = run.queries().readOnly("checking the DELETE privilege", options.run().statementTimeout(),
                        c -> dev.ducklake.janitor.pg.TablePrivileges.missing(c, schema, before.keySet(), "DELETE"));
                if (!denied.isEmpty()) {
                    throw new JanitorException(JanitorException.Reason.PERMISSION_DENIED, "The catalog user lacks the DELETE privilege"
                            + " on " + String.join(", ", denied) + " in schema '" + schema + "'; nothing was deleted. Grant DELETE on"
                            + " the stats tables (docs/privileges.md).");
                }
                BatchSizer sizer = new BatchSizer(options.run().batchSize());
                run.recorder().batchSizes(options.run().batchSize(), options.run().batchSize());
                if (!groups.isEmpty()) {
                    run.batchLoop(sizer, new StatsPurgeWork(groups.get(0)))
                            .run(BatchSource.concat(groups.stream().map(g -> g.source(run)).toList()));
                }
                groups.forEach(g -> g.deleted.forEach((t, v) -> deleted.merge(t, v, Long::sum)));
            }
            long remaining = options.run().dryRun() ? sum(before) : sum(run.queries().readOnly("recounting",
                    options.run().statementTimeout(), c -> count(c, schema, layout)));
            List<Double> times = new ArrayList<>();
            groups.forEach(g -> times.addAll(g.batchSeconds));
            times.sort(null);
            long tableIds = groups.stream().filter(g -> g.units().equals("table_ids")).mapToLong(g -> g.ids).sum();
            long fileIds = groups.stream().filter(g -> g.units().equals("data_file_ids")).mapToLong(g -> g.ids).sum();
            return new PurgeOrphanStatsResult(schema, info.version().text(), options.run().dryRun(), before, deleted, sum(before),
                    sum(deleted), tableIds, fileIds, remaining, times.isEmpty() ? 0 : times.get(times.size() / 2),
                    times.isEmpty() ? 0 : times.get(times.size() - 1), run.figures());
        } catch (SQLException e) {
            throw new JanitorException(JanitorException.Reason.DATABASE_ERROR, "Database error: " + spec.redact(e.getMessage()), e);
        }
    }

    /** Orphaned rows per stats table, with the rule's predicates. */
    private static Map<String, Long> count(Connection c, String schema, CatalogLayout layout) throws SQLException {
        Map<String, Long> out = new LinkedHashMap<>();
        Transactions.setLocalHashJoins(c);
        for (String t : OrphanedStatsPredicate.tableLevelTables(layout)) {
            out.put(t, scalar(c, "SELECT count(*) FROM " + Sql.qualified(schema, t) + " s WHERE "
                    + OrphanedStatsPredicate.tableLevelOrphan(schema, "s")));
        }
        for (String t : OrphanedStatsPredicate.fileLevelTables(layout)) {
            out.put(t, scalar(c, "SELECT count(*) FROM " + Sql.qualified(schema, t) + " s WHERE "
                    + OrphanedStatsPredicate.fileLevelOrphan(schema, "s")));
        }
        return out;
    }

    private static long scalar(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static long sum(Map<String, Long> m) {
        return m.values().stream().mapToLong(Long::longValue).sum();
    }
}
