package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.pg.ConnectionSpec;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The server's other databases as the consulted-catalog survey ({@link DatabaseSurvey}) reaches them: which exist and
 * may be connected to, a read-only connection to one, and closing that connection when a survey step over it fails.
 */
final class ServerDatabases {

    private ServerDatabases() {
    }

    /** A survey step over another database's connection. */
    @FunctionalInterface
    interface Step {
        void run() throws JanitorException, SQLException;
    }

    /**
     * Runs a step over a connection of this survey's own, closing the connection when the step fails (a refusal, a
     * catalog named but absent): it is not yet in the {@link ConsultedCatalogs}, so nothing else would close it.
     */
    static void consultOrClose(Connection rc, Step step) throws JanitorException, SQLException {
        consultOrClose(rc, false, step);
    }

    /** As {@link #consultOrClose(Connection, Step)}, a connection to a template closed as {@link #close} closes it. */
    static void consultOrClose(Connection rc, boolean template, Step step) throws JanitorException, SQLException {
        try {
            step.run();
        } catch (JanitorException | SQLException | RuntimeException e) {
            try {
                close(rc, template);
            } catch (SQLException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    /**
     * Closes a connection of the survey or the census to another database. One to a template database
     * ({@code datistemplate}, e.g. {@code template1}) is closed inside an open transaction (read-only, holding
     * nothing): a pooler in front of the server cannot hand a server session in a transaction to another client,
     * so it closes it (PgBouncer: "client disconnect while server was not ready") instead of keeping it in its pool for
     * {@code server_idle_timeout}, during which every {@code CREATE DATABASE} copying that template fails ("source
     * database ... is being accessed by other users"). Directly on the server it is a plain logout (PostgreSQL rolls
     * the transaction back).
     *
     * @param rc the connection
     * @param template whether its database is a template
     * @throws SQLException when closing fails
     */
    static void close(Connection rc, boolean template) throws SQLException {
        if (template) {
            try {
                if (rc.getAutoCommit()) {
                    rc.setAutoCommit(false);
                }
                try (java.sql.Statement st = rc.createStatement()) {
                    // opens the transaction the logout leaves open; a utility statement, never planned (nor JIT-compiled)
                    st.execute("SET LOCAL jit = off");
                }
            } catch (SQLException e) {
                // closed all the same: a connection that cannot run this has no usable server session behind it
            }
        }
        rc.close();
    }

    /**
     * A read-only connection to a database {@code --also-catalog} names ({@link #openRemote}).
     *
     * @param stop the run's stop condition (a login in progress is interrupted), or null
     * @param lockTimeout the lock_timeout to set on the session ({@link #openRemote})
     * @throws JanitorException {@link JanitorException.Reason#CONNECTION} when its login fails, naming it
     */
    static Connection openExplicit(ConnectionSpec spec, BooleanSupplier stop, String lockTimeout) throws JanitorException {
        try {
            return openRemote(spec, stop, lockTimeout);
        } catch (SQLException e) {
            throw spec.connectionFailure(e);
        }
    }

    /**
     * A read-only connection to another database, out of autocommit so that its reads stream, with the swept
     * session's {@code lock_timeout} (a writer's lock there ends a read at the run's --lock-timeout, not never); a
     * login in progress when {@code stop} turns true is interrupted ({@link ConnectionSpec#openRaw(BooleanSupplier)}).
     *
     * @param lockTimeout the lock_timeout setting as {@code current_setting} gives it (e.g. {@code 5s}), or null
     */
    static Connection openRemote(ConnectionSpec spec, BooleanSupplier stop, String lockTimeout) throws SQLException {
        Connection rc = spec.openRaw(stop);
        try {
            if (lockTimeout != null) {
                try (PreparedStatement ps = rc.prepareStatement("SELECT set_config('lock_timeout', ?, false)")) {
                    ps.setString(1, lockTimeout);
                    ps.execute();
                }
            }
            rc.setReadOnly(true);
            rc.setAutoCommit(false);
            return rc;
        } catch (SQLException e) {
            rc.close();
            throw e;
        }
    }

    /**
     * {datname, may connect, allows connections, is a template} of every database but the session's, by name;
     * templates included (a template that allows connections can hold a catalog; see {@link #pristineTemplate0}).
     */
    static List<String[]> otherDatabases(Connection c) throws SQLException {
        List<String[]> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT datname::text, pg_catalog.has_database_privilege(oid, 'CONNECT'),"
                + " datallowconn, datistemplate FROM pg_catalog.pg_database WHERE datname <> current_database() ORDER BY 1");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new String[] {rs.getString(1), Boolean.toString(rs.getBoolean(2)), Boolean.toString(rs.getBoolean(3)),
                        Boolean.toString(rs.getBoolean(4))});
            }
        }
        return out;
    }

    /**
     * PostgreSQL's own {@code template0}, as initdb makes it: named {@code template0}, a template, and allowing no
     * connections. By design it never holds a catalog (no session can write there while it stays so), so it is
     * skipped silently: were it refused like every database that allows no connections, every run on every server
     * would be. (A template0 opened, given a catalog and closed again looks the same and is not caught.) Any other
     * database that allows no connections, template or not, and a {@code template0} someone has opened to
     * connections, is treated as every other database.
     */
    static boolean pristineTemplate0(String[] db) {
        return "template0".equals(db[0]) && Boolean.parseBoolean(db[3]) && !Boolean.parseBoolean(db[2]);
    }
}
