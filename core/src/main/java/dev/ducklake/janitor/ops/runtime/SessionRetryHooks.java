package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.pg.SqlState;
import dev.ducklake.janitor.pg.Transactions;
import dev.ducklake.janitor.retry.FailureKind;
import dev.ducklake.janitor.retry.RetryLoop;

import java.sql.SQLException;

/**
 * The {@link RetryLoop} hooks every unit of work on the run's {@link MaintenanceSession} shares: a failed attempt's
 * transaction is rolled back on the session's current connection, and the failure is judged by its SQLSTATE
 * ({@link SqlState#classify}). The batch loop and the read-only path add their messages, reconnects and failures.
 */
abstract class SessionRetryHooks implements RetryLoop.Hooks<SQLException, JanitorException> {

    private final MaintenanceSession session;

    SessionRetryHooks(MaintenanceSession session) {
        this.session = session;
    }

    @Override
    public void failed(SQLException e) {
        Transactions.rollbackQuietly(session.connection());
    }

    @Override
    public FailureKind classify(SQLException e) {
        return SqlState.classify(e);
    }
}
