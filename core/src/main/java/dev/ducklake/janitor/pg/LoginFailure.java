package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;

import java.sql.SQLException;

/** What an operator is told when a login to the catalog fails: the cause in words, never the password. */
final class LoginFailure {

    private LoginFailure() {
    }

    /**
     * Turns a failure to connect into a {@link Reason#CONNECTION} error with a clear, password-free message.
     *
     * @param spec the connection that failed
     * @param e the driver's exception
     * @return the exception to throw
     */
    static JanitorException of(ConnectionSpec spec, SQLException e) {
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        String message = e.getMessage() == null ? "" : e.getMessage();
        String what;
        if (message.contains("statement pooling mode")) {
            // PgBouncer pool_mode = statement refused a transaction block (and closed the connection): every command
            // of the janitor runs transactions
            return new JanitorException(Reason.POOLER_MODE, "The catalog connection " + spec.describe() + " goes through a connection"
                    + " pooler in statement pooling mode (PgBouncer pool_mode = statement), which refuses transactions; every"
                    + " command of ducklake-janitor needs them. Nothing was changed. Point --catalog at the PostgreSQL server itself"
                    + " or at a session-mode pool (pool_mode = session).", e);
        }
        if (spec.passwordSource().kind() == PasswordSource.Kind.PASSWORD_FILE && message.contains("password file")) {
            // the password file could not be read at this connect (PasswordSource.resolve)
            return new JanitorException(Reason.CONNECTION, "Cannot connect to the catalog " + spec.describe() + ": " + message, e);
        } else if ("28P01".equals(state) || "28000".equals(state)) {
            what = "the server refused the login (wrong password or no pg_hba.conf entry; " + spec.passwordSource().describe() + ")";
        } else if (message.contains("timed out") && spec.connectTimeoutSeconds() > 0) {
            what = "no answer within " + spec.connectTimeoutSeconds() + " s (the login timeout; set connect_timeout in the connection "
                    + "string or PGCONNECT_TIMEOUT to change it)";
        } else if (message.startsWith("Interrupted while attempting to connect")) {
            what = "the login was interrupted by a stop request";
        } else if (interruptedLogin(e)) {
            // pgJDBC reports an interrupted wait for its login thread as 99999 "Something unusual has occurred"
            return new JanitorException(Reason.CONNECTION, "Cannot connect to the catalog " + spec.describe()
                    + ": the login was interrupted before the server answered it.", e);
        } else if ("08004".equals(state) && spec.passwordSource().kind() == PasswordSource.Kind.NONE
                && message.contains("no password was provided")) {
            String ignored = spec.passwordSource().passFileWarning();
            what = "the server asks for a password and no password was given (use --password-file, PGPASSWORD, "
                    + "~/.pgpass or PGPASSFILE, or the connection string)" + (ignored == null ? "" : "; " + ignored);
        } else if ("08004".equals(state)) {
            what = "the server rejected the connection";
        } else if ("3D000".equals(state)) {
            what = "the database does not exist";
        } else if (state.startsWith("08") || state.isEmpty()) {
            what = "the server cannot be reached";
        } else {
            what = "connecting failed";
        }
        return new JanitorException(Reason.CONNECTION, "Cannot connect to the catalog " + spec.describe() + ": " + what
                + " (SQLSTATE " + (state.isEmpty() ? "none" : state) + ": " + spec.redact(e.getMessage()) + ").", e);
    }

    /**
     * Whether pgJDBC failed a login because the thread waiting for it was interrupted: it then throws SQLSTATE 99999
     * ("Something unusual has occurred") caused by a RuntimeException "Interrupted while attempting to connect."
     *
     * @param e the driver's exception
     * @return true for an interrupted login
     */
    static boolean interruptedLogin(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t.getMessage() != null && t.getMessage().startsWith("Interrupted while attempting to connect")) {
                return true;
            }
        }
        return false;
    }
}
