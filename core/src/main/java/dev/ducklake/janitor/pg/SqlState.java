package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.retry.FailureKind;

import java.sql.SQLException;

/**
 * Every PostgreSQL SQLSTATE this project names, and how a failure is classified. Source: PostgreSQL
 * documentation, Appendix A "PostgreSQL Error Codes". Write {@code SqlState.X.is(e)} rather than comparing code
 * strings; what a run does about each {@link FailureKind} is decided in one place, {@link dev.ducklake.janitor.retry.RetryPolicy}.
 */
public enum SqlState {
    /** serialization_failure: a concurrent transaction conflicted; retry. */
    SERIALIZATION_FAILURE("40001"),
    /** deadlock_detected: retry. */
    DEADLOCK_DETECTED("40P01"),
    /** lock_not_available: lock_timeout fired or NOWAIT failed; retry or skip the object. */
    LOCK_NOT_AVAILABLE("55P03"),
    /** query_canceled: statement_timeout fired (or a cancel request); retry. */
    QUERY_CANCELED("57014"),
    /** undefined_table: a table vanished between listing and use; retry (it is then seen as missing). */
    UNDEFINED_TABLE("42P01"),
    /** out_of_shared_memory: the lock table is full (max_locks_per_transaction); retry with a smaller batch. */
    OUT_OF_SHARED_MEMORY("53200"),
    /** insufficient_privilege: stop with a clear message. */
    INSUFFICIENT_PRIVILEGE("42501"),
    /** admin_shutdown: the backend was terminated (pg_terminate_backend, server shutdown). */
    ADMIN_SHUTDOWN("57P01"),
    /** crash_shutdown. */
    CRASH_SHUTDOWN("57P02"),
    /** cannot_connect_now: the server is starting up or shutting down. */
    CANNOT_CONNECT_NOW("57P03"),
    /** idle_in_transaction_session_timeout (the server closes the session). */
    IDLE_IN_TRANSACTION_TIMEOUT("25P03"),
    /** invalid_password: the login was refused. */
    INVALID_PASSWORD("28P01"),
    /** invalid_authorization_specification: no pg_hba.conf entry, or a role that may not log in. */
    INVALID_AUTHORIZATION("28000"),
    /** sqlserver_rejected_establishment_of_sqlconnection: refused connection (pgJDBC also uses it when a password is required but none was given). */
    CONNECTION_REJECTED("08004"),
    /** invalid_catalog_name: the database does not exist. */
    INVALID_CATALOG_NAME("3D000"),
    /** invalid_schema_name: the schema does not exist. */
    INVALID_SCHEMA_NAME("3F000"),
    /** undefined_column. */
    UNDEFINED_COLUMN("42703"),
    /** invalid_text_representation: a value is not of the expected type. */
    INVALID_TEXT_REPRESENTATION("22P02"),
    /** wrong_object_type: e.g. DROP TABLE on a view; concerns one object, which is skipped. */
    WRONG_OBJECT_TYPE("42809"),
    /** dependent_objects_still_exist (class 2B): e.g. a view depends on the table; concerns one object, which is skipped. */
    DEPENDENT_OBJECTS_STILL_EXIST("2BP01"),
    /** A statement the server (or the custom-SQL check) cannot accept as written. */
    SYNTAX_ERROR("42601"),
    /**
     * invalid_sql_statement_name: a prepared statement the driver made on the server session is gone; on a live
     * connection, a pooler in transaction mode moved the client to another server session.
     */
    INVALID_SQL_STATEMENT_NAME("26000");

    /** The class prefix of connection exceptions (08xxx): the session is gone. */
    public static final String CONNECTION_EXCEPTION_CLASS = "08";
    /** The class prefix of dependent-privilege-descriptors-still-exist errors (2Bxxx). */
    public static final String DEPENDENT_OBJECTS_CLASS = "2B";

    private final String code;

    SqlState(String code) {
        this.code = code;
    }

    /** The five-character SQLSTATE. */
    public String code() {
        return code;
    }

    /**
     * @param e a failure
     * @return whether the first SQLSTATE of {@code e} (see {@link #codeOf}) is this one
     */
    public boolean is(SQLException e) {
        return code.equals(codeOf(e));
    }

    /**
     * @param state a five-character SQLSTATE, may be null
     * @return whether it is this one
     */
    public boolean is(String state) {
        return code.equals(state);
    }


    /**
     * Classifies a failure by its SQLSTATE (walking the chain of next exceptions and causes).
     *
     * @param e the failure
     * @return its kind; {@link FailureKind#FATAL} when no SQLSTATE is known
     */
    public static FailureKind classify(SQLException e) {
        String state = codeOf(e);
        if (state == null) {
            return FailureKind.FATAL;
        }
        if (state.startsWith(CONNECTION_EXCEPTION_CLASS) || ADMIN_SHUTDOWN.is(state) || CRASH_SHUTDOWN.is(state)
                || CANNOT_CONNECT_NOW.is(state) || IDLE_IN_TRANSACTION_TIMEOUT.is(state)) {
            return FailureKind.CONNECTION_LOST;
        }
        if (OUT_OF_SHARED_MEMORY.is(state)) {
            return FailureKind.LOCK_TABLE_FULL;
        }
        if (SERIALIZATION_FAILURE.is(state) || DEADLOCK_DETECTED.is(state) || LOCK_NOT_AVAILABLE.is(state)
                || QUERY_CANCELED.is(state) || UNDEFINED_TABLE.is(state)) {
            return FailureKind.RETRYABLE;
        }
        if (INSUFFICIENT_PRIVILEGE.is(state)) {
            return FailureKind.PERMISSION_DENIED;
        }
        return FailureKind.FATAL;
    }

    /**
     * The first SQLSTATE found on the exception, its next-exception chain or its causes.
     *
     * @param e the failure
     * @return the five-character SQLSTATE, or null when none is known
     */
    public static String codeOf(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s) {
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
