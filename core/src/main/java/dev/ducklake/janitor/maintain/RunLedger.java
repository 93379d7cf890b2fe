package dev.ducklake.janitor.maintain;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.pg.SqlState;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;

/**
 * The run ledger of {@code maintain}: the table {@value #TABLE} in the configuration's {@code state_schema}, in each
 * catalog's own database (a CronJob pod has no disk that outlives it), one row per configured catalog name, metadata
 * schema and step, holding the start and end of that step's last successful run. A step with {@code every} is due
 * when its last successful run started at least {@code every} minus a slack ago ({@link #slack}): the slack keeps a
 * schedule's start jitter from pushing a daily step to the next hour.
 *
 * <p>Times are the database's {@code now()}, never the pod's clock. Reads never create anything: without the table
 * every step is due. The first successful run of a step creates the schema (when absent: {@code CREATE} on the
 * database) and the table (when absent: {@code CREATE} on the schema), checked first with {@code to_regnamespace} /
 * {@code to_regclass} because PostgreSQL checks the privilege of {@code CREATE ... IF NOT EXISTS} before existence.
 * An operator who pre-creates the table grants {@code SELECT, INSERT, UPDATE} on it instead.
 *
 * <pre>
 * CREATE TABLE ducklake_janitor.ducklake_janitor_runs (
 *   catalog text, metadata_schema text, step text,
 *   last_success_started_at timestamptz NOT NULL, last_success_finished_at timestamptz NOT NULL, tool_version text,
 *   PRIMARY KEY (catalog, metadata_schema, step));
 * </pre>
 */
public final class RunLedger {

    /** The table name. */
    public static final String TABLE = "ducklake_janitor_runs";

    /** The longest slack: a step is due this much before its period is over at most. */
    static final Duration MAX_SLACK = Duration.ofMinutes(10);

    private final String schema;
    private final String toolVersion;

    /**
     * @param schema the state schema (quoted through {@link Sql#ident})
     * @param toolVersion the version recorded with each success
     */
    public RunLedger(String schema, String toolVersion) {
        this.schema = schema;
        this.toolVersion = toolVersion;
    }

    /**
     * Whether a step is due, by the database's clock.
     *
     * @param now the database's time of the question (also the step's start as recorded after a success)
     * @param lastSuccessStart when the last successful run started, or null for never (recorded)
     * @param nextDue when the step is due (null when it is due now because it never succeeded)
     * @param due whether it runs now
     */
    public record Due(Instant now, Instant lastSuccessStart, Instant nextDue, boolean due) {
    }

    /** The slack of a period: 5 % of it, at most {@link #MAX_SLACK}. */
    static Duration slack(Duration every) {
        Duration s = every.dividedBy(20);
        return s.compareTo(MAX_SLACK) > 0 ? MAX_SLACK : s;
    }

    /**
     * Reads the step's last successful run (creates nothing).
     *
     * @param conn the catalog database
     * @param catalog the configured catalog name
     * @param metadataSchema the metadata schema
     * @param step the step name
     * @param every the step's period, or null (then always due; the read gives the start time to record)
     * @return the decision
     * @throws JanitorException CONNECTION, PERMISSION_DENIED (no SELECT on the table) or DATABASE_ERROR
     */
    public Due due(ConnectionSpec conn, String catalog, String metadataSchema, String step, Duration every) throws JanitorException {
        try (Connection c = conn.open(); Statement st = c.createStatement()) {
            Instant now;
            try (ResultSet rs = st.executeQuery("SELECT now()")) {
                rs.next();
                now = rs.getTimestamp(1).toInstant();
            }
            Instant last = null;
            if (exists(c)) {
                try (PreparedStatement ps = c.prepareStatement("SELECT last_success_started_at FROM " + table()
                        + " WHERE catalog = ? AND metadata_schema = ? AND step = ?")) {
                    ps.setString(1, catalog);
                    ps.setString(2, metadataSchema);
                    ps.setString(3, step);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (rs.next()) {
                            last = rs.getTimestamp(1).toInstant();
                        }
                    }
                }
            }
            if (every == null || last == null) {
                return new Due(now, last, null, true);
            }
            Instant next = last.plus(every).minus(slack(every));
            return new Due(now, last, next, !now.isBefore(next));
        } catch (SQLException e) {
            throw failure("read", conn, e);
        }
    }

    /**
     * Records a successful run (creating the schema and table when absent).
     *
     * @param conn the catalog database
     * @param catalog the configured catalog name
     * @param metadataSchema the metadata schema
     * @param step the step name
     * @param startedAt the database's time when the step started ({@link Due#now()})
     * @throws JanitorException CONNECTION, PERMISSION_DENIED (no CREATE, INSERT or UPDATE) or DATABASE_ERROR
     */
    public void recordSuccess(ConnectionSpec conn, String catalog, String metadataSchema, String step, Instant startedAt)
            throws JanitorException {
        try (Connection c = conn.open()) {
            create(c);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table() + " AS r (catalog, metadata_schema, step, "
                    + "last_success_started_at, last_success_finished_at, tool_version) VALUES (?, ?, ?, ?, now(), ?) "
                    + "ON CONFLICT (catalog, metadata_schema, step) DO UPDATE SET last_success_started_at = EXCLUDED.last_success_started_at, "
                    + "last_success_finished_at = EXCLUDED.last_success_finished_at, tool_version = EXCLUDED.tool_version "
                    + "WHERE r.last_success_started_at <= EXCLUDED.last_success_started_at")) {
                ps.setString(1, catalog);
                ps.setString(2, metadataSchema);
                ps.setString(3, step);
                ps.setTimestamp(4, Timestamp.from(startedAt));
                ps.setString(5, toolVersion);
                ps.executeUpdate();
            }
        } catch (SQLException e) {
            throw failure("write", conn, e);
        }
    }

    private String table() {
        return Sql.ident(schema) + "." + Sql.ident(TABLE);
    }

    private boolean exists(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            ps.setString(1, table());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private void create(Connection c) throws SQLException {
        for (int attempt = 0; ; attempt++) {
            try {
                if (exists(c)) {
                    return;
                }
                boolean schemaExists;
                try (PreparedStatement ps = c.prepareStatement("SELECT to_regnamespace(?) IS NOT NULL")) {
                    ps.setString(1, Sql.ident(schema));
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        schemaExists = rs.getBoolean(1);
                    }
                }
                try (Statement st = c.createStatement()) {
                    if (!schemaExists) {
                        st.execute("CREATE SCHEMA IF NOT EXISTS " + Sql.ident(schema));
                    }
                    st.execute("CREATE TABLE IF NOT EXISTS " + table() + " (catalog text NOT NULL, metadata_schema text NOT NULL, "
                            + "step text NOT NULL, last_success_started_at timestamptz NOT NULL, "
                            + "last_success_finished_at timestamptz NOT NULL, tool_version text, "
                            + "PRIMARY KEY (catalog, metadata_schema, step))");
                }
                return;
            } catch (SQLException e) {
                // two runs creating it at once: one of them loses on the catalog's unique index; the table is there now
                String state = SqlState.codeOf(e);
                if (attempt == 0 && ("23505".equals(state) || "42P07".equals(state) || "42P06".equals(state))) {
                    continue;
                }
                throw e;
            }
        }
    }

    private JanitorException failure(String what, ConnectionSpec conn, SQLException e) {
        Reason reason = switch (SqlState.classify(e)) {
            case PERMISSION_DENIED -> Reason.PERMISSION_DENIED;
            case CONNECTION_LOST -> Reason.CONNECTION;
            default -> Reason.DATABASE_ERROR;
        };
        return new JanitorException(reason, "Could not " + what + " the run ledger " + schema + "." + TABLE + " in "
                + conn.describe() + ": " + conn.redact(e.getMessage()) + (reason == Reason.PERMISSION_DENIED
                ? " (maintain needs CREATE on the database or on schema " + schema + " once, then SELECT, INSERT, UPDATE on "
                + schema + "." + TABLE + ")" : ""), e);
    }
}
