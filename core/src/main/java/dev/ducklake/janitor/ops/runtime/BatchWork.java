package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.retry.RetryPolicy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The work of one batch, supplied by an operation to the {@link BatchLoop}: the loop opens the transaction (with
 * the run's statement and lock timeouts), calls {@link #attempt}, commits, then calls {@link #committed}. On a
 * failure it rolls back and applies the {@link RetryPolicy}: the same slice (or half of it) is attempted again,
 * possibly on a new connection.
 *
 * @param <I> a unit of work (a candidate table, a snapshot, ...)
 * @param <O> what one attempt did
 */
public interface BatchWork<I, O extends BatchOutcome> {

    /**
     * One attempt of one batch, inside a transaction the loop opened and will commit; must not commit itself.
     * It may stop early between units when {@link RunBudget#shouldStop()} (then {@link BatchOutcome#truncated()}).
     *
     * @param c the session's current connection, in a transaction
     * @param slice the units of this batch, in order
     * @return what it did (not yet committed)
     * @throws SQLException classified by the retry policy; the transaction is rolled back
     */
    O attempt(Connection c, List<I> slice) throws SQLException;

    /**
     * The batch committed: take its counts over into the run's figures.
     *
     * @param outcome what the committed attempt did
     */
    void committed(O outcome);

    /**
     * @return what the operation needs privileges for, for the message of a permission failure, e.g.
     *     "to drop inlined tables or delete registry rows"
     */
    String privilegeNeeded();

    /** @return the plural noun of a unit for messages, e.g. "tables" */
    String units();
}
