package dev.ducklake.janitor.pg;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * What the janitor sets on each session it opens directly or through a session-mode pooler ({@link Pooling}):
 * {@code jit = off} and bounds on idle sessions. Behind a transaction-mode pooler nothing is set here.
 */
public final class SessionSettings {

    private SessionSettings() {
    }

    /**
     * The janitor's session settings, sent once after login (utility statements: not planned, so not compiled
     * themselves). {@code jit = off}: on a server with {@code jit = on} every statement whose plan costs more than
     * {@code jit_above_cost} is first compiled by LLVM, which costs tens to hundreds of milliseconds per statement and
     * bought nothing for the janitor's catalog queries ({@code check} took 21 s instead of 1 s, issue 23). Behind a
     * transaction-mode pooler a session setting may land on another server connection, so the transactions that plan
     * catalog-wide statements also set it locally ({@link Transactions#JIT_OFF}).
     */
    static final String SQL = "SET jit = off";

    /**
     * The most a janitor session may stay idle inside a transaction ({@code idle_in_transaction_session_timeout}):
     * its transactions never wait on anything but the server and the store's bounded calls.
     */
    public static final java.time.Duration IDLE_IN_TRANSACTION_TIMEOUT = java.time.Duration.ofHours(1);
    /**
     * The most a janitor session may stay idle between statements ({@code idle_session_timeout}, PostgreSQL 14+):
     * above any collection interval of {@code serve} and any listing between two catalog statements of a storage run.
     */
    public static final java.time.Duration IDLE_SESSION_TIMEOUT = java.time.Duration.ofHours(6);

    /**
     * Sends the settings on a new session-bound connection: {@link #SQL}, then the idle timeouts.
     *
     * @param c a connection just opened
     * @throws SQLException as thrown by the driver
     */
    static void apply(Connection c) throws SQLException {
        try (java.sql.Statement st = c.createStatement()) {
            st.execute(SQL);
        }
        idleTimeouts(c);
    }

    /**
     * Bounds how long the server keeps a janitor session whose client is gone without a word (a SIGKILLed run behind
     * a proxy that keeps the server connection open would otherwise keep its advisory lock for hours; TCP keepalives
     * cover a vanished peer on a direct connection): {@link #IDLE_IN_TRANSACTION_TIMEOUT} and, from PostgreSQL 14 on,
     * {@link #IDLE_SESSION_TIMEOUT}. A shorter value set by the DBA (role, database, server) is kept: the janitor
     * only lowers these, never raises them. Session-level: behind a transaction-mode pooler they may land on a shared
     * server connection, like {@code jit = off}.
     */
    private static void idleTimeouts(Connection c) throws SQLException {
        List<String[]> settings = new java.util.ArrayList<>();
        settings.add(new String[] {"idle_in_transaction_session_timeout", IDLE_IN_TRANSACTION_TIMEOUT.toMillis() + "ms"});
        if (c.getMetaData().getDatabaseMajorVersion() >= 14) {
            settings.add(new String[] {"idle_session_timeout", IDLE_SESSION_TIMEOUT.toMillis() + "ms"});
        }
        // each setting (name, bound) is lowered to the bound unless it is already below it and not 0 (none)
        StringBuilder sql = new StringBuilder("SELECT set_config(s.n, CASE WHEN s.cur = interval '0' OR s.cur > s.v::interval"
                + " THEN s.v ELSE current_setting(s.n) END, false) FROM (SELECT n, v, current_setting(n)::interval AS cur FROM (VALUES ");
        for (int i = 0; i < settings.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("(?, ?)");
        }
        sql.append(") x(n, v)) s");
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            int p = 1;
            for (String[] setting : settings) {
                ps.setString(p++, setting[0]);
                ps.setString(p++, setting[1]);
            }
            ps.execute();
        }
    }
}
