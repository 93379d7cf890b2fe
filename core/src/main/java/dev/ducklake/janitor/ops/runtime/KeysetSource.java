package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.JanitorException;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link BatchSource} that reads its units page by page with a keyset query: each page is the next units in key
 * order after the last one read, in a read-only transaction of its own through the run's {@link QueryRunner} (retried,
 * reconnected, bounded by the run's statement timeout). At most one page plus one batch is held in memory, so memory
 * does not grow with the catalog. The source ends at the first empty page.
 *
 * @param <I> a unit of work, which is also its key
 */
public final class KeysetSource<I> implements BatchSource<I> {

    /**
     * One page of the keyset query.
     *
     * @param <I> a unit of work
     */
    @FunctionalInterface
    public interface PageQuery<I> {

        /**
         * @param c a connection inside a read-only transaction
         * @param last the last unit already read (null for the first page)
         * @param limit how many units at most
         * @return the next units after {@code last} in key order; empty when there are none
         * @throws SQLException classified by the retry policy
         */
        List<I> after(Connection c, I last, int limit) throws SQLException;
    }

    private final QueryRunner queries;
    private final String what;
    private final Duration statementTimeout;
    private final int pageSize;
    private final PageQuery<I> query;
    private final List<I> ahead = new ArrayList<>();
    private int pos;
    private I last;
    private boolean exhausted;

    /**
     * @param queries the run's read-only path ({@link MaintenanceRun#queries()})
     * @param what what a page is, for messages ("listing orphaned ids")
     * @param statementTimeout statement_timeout of each page's transaction (0 = none)
     * @param pageSize units read per page (a batch larger than this reads a page of its own size)
     * @param query the page query
     */
    public KeysetSource(QueryRunner queries, String what, Duration statementTimeout, int pageSize, PageQuery<I> query) {
        if (pageSize < 1) {
            throw new IllegalArgumentException("pageSize must be at least 1, not " + pageSize);
        }
        this.queries = queries;
        this.what = what;
        this.statementTimeout = statementTimeout;
        this.pageSize = pageSize;
        this.query = query;
    }

    /**
     * {@inheritDoc} Reads the next page when fewer than {@code max} units are read ahead and the query may have more.
     * The units are a copy (at most one batch), so the next page may be read while a batch holds them.
     */
    @Override
    public List<I> peek(int max) throws JanitorException {
        if (ahead.size() - pos < max && !exhausted) {
            ahead.subList(0, pos).clear();
            pos = 0;
            I from = last;
            List<I> page = queries.readOnly(what, statementTimeout, c -> query.after(c, from, Math.max(pageSize, max)));
            if (page.isEmpty()) {
                exhausted = true;
            } else {
                ahead.addAll(page);
                last = page.get(page.size() - 1);
            }
        }
        return List.copyOf(ahead.subList(pos, Math.min(ahead.size(), pos + max)));
    }

    @Override
    public void advance(int n) {
        pos += n;
    }

    @Override
    public long known() {
        return ahead.size() - pos;
    }

    @Override
    public boolean counted() {
        return exhausted;
    }
}
