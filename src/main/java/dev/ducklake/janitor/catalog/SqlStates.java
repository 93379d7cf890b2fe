package dev.ducklake.janitor.catalog;

import java.sql.SQLException;
import java.util.Set;

/**
 * The PostgreSQL SQLSTATEs the engine reacts to, and how it classifies a failure.
 * Source: PostgreSQL documentation, Appendix A "PostgreSQL Error Codes".
 */
public final class SqlStates {

    /** serialization_failure: a concurrent transaction conflicted; retry. */
    public static final String SERIALIZATION_FAILURE = "40001";
    /** deadlock_detected: retry. */
    public static final String DEADLOCK_DETECTED = "40P01";
    /** lock_not_available: lock_timeout fired or NOWAIT failed; retry or skip the object. */
    public static final String LOCK_NOT_AVAILABLE = "55P03";
    /** query_canceled: statement_timeout fired (or a cancel request); retry. */
    public static final String QUERY_CANCELED = "57014";
    /** undefined_table: a table vanished between listing and use; retry (it is then seen as missing). */
    public static final String UNDEFINED_TABLE = "42P01";
    /** out_of_shared_memory: the lock table is full (max_locks_per_transaction); retry with a smaller batch. */
    public static final String OUT_OF_SHARED_MEMORY = "53200";
    /** insufficient_privilege. */
    public static final String INSUFFICIENT_PRIVILEGE = "42501";
    /** admin_shutdown: the backend was terminated (pg_terminate_backend, server shutdown). */
    public static final String ADMIN_SHUTDOWN = "57P01";
    /** crash_shutdown. */
    public static final String CRASH_SHUTDOWN = "57P02";
    /** cannot_connect_now: the server is starting up or shutting down. */
    public static final String CANNOT_CONNECT_NOW = "57P03";
    /** idle_in_transaction_session_timeout (the server closes the session). */
    public static final String IDLE_IN_TRANSACTION_TIMEOUT = "25P03";

    private static final Set<String> RETRYABLE = Set.of(SERIALIZATION_FAILURE, DEADLOCK_DETECTED, LOCK_NOT_AVAILABLE,
            QUERY_CANCELED, UNDEFINED_TABLE);

    /** What to do about a failed statement. */
    public enum Kind {
        /** Roll back and retry the same work after a backoff. */
        RETRYABLE,
        /** Roll back, halve the batch and retry. */
        LOCK_TABLE_FULL,
        /** The session is gone: reconnect, re-take the advisory lock, resume. */
        CONNECTION_LOST,
        /** A missing privilege: stop with a clear message. */
        PERMISSION_DENIED,
        /** Anything else: stop. */
        FATAL
    }

    private SqlStates() {
    }

    /**
     * Classifies a failure by its SQLSTATE (walking the chain of next exceptions and causes).
     *
     * @param e the failure
     * @return what to do about it
     */
    public static Kind classify(SQLException e) {
        String state = stateOf(e);
        if (state == null) {
            return Kind.FATAL;
        }
        if (state.startsWith("08") || ADMIN_SHUTDOWN.equals(state) || CRASH_SHUTDOWN.equals(state)
                || CANNOT_CONNECT_NOW.equals(state) || IDLE_IN_TRANSACTION_TIMEOUT.equals(state)) {
            return Kind.CONNECTION_LOST;
        }
        if (OUT_OF_SHARED_MEMORY.equals(state)) {
            return Kind.LOCK_TABLE_FULL;
        }
        if (RETRYABLE.contains(state)) {
            return Kind.RETRYABLE;
        }
        if (INSUFFICIENT_PRIVILEGE.equals(state)) {
            return Kind.PERMISSION_DENIED;
        }
        return Kind.FATAL;
    }

    /**
     * The first SQLSTATE found on the exception, its next-exception chain or its causes.
     *
     * @param e the failure
     * @return the five-character SQLSTATE, or null when none is known
     */
    public static String stateOf(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException) {
                SQLException s = (SQLException) t;
                for (SQLException n = s; n != null; n = n.getNextException()) {
                    if (n.getSQLState() != null) {
                        return n.getSQLState();
                    }
                }
            }
        }
        return null;
    }
}
