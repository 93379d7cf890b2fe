package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.retry.RetryPolicy;
import dev.ducklake.janitor.JanitorException;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A unit of database work run under the {@link RetryPolicy}: it may run more than once (after a rollback or a
 * reconnect), each time on the session's current connection.
 *
 * @param <T> what it returns
 */
@FunctionalInterface
public interface SqlWork<T> {

    /**
     * @param c the session's current connection
     * @return the work's value
     * @throws SQLException classified by the retry policy
     * @throws JanitorException passed through unchanged
     */
    T run(Connection c) throws SQLException, JanitorException;
}
