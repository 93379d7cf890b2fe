package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.pg.SqlState;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** An operator's custom gauge query (README "Custom SQL"), run read-only as one cursor. */
final class CustomQueryRunner {

    private CustomQueryRunner() {
    }

    /** The cursor a custom query runs in (one at a time, closed before the step's transaction ends). */
    private static final String CUSTOM_CURSOR = "ducklake_janitor_custom_query";

    /**
     * Runs an operator-written query so that nothing in its text can write, end the transaction or run a server
     * program (README "Custom SQL"):
     * <ol>
     *   <li>the text is wrapped as {@code DECLARE ... NO SCROLL CURSOR FOR <text>}, and pgJDBC's own statement
     *       splitter (the one that would otherwise send each {@code ;}-separated part as its own statement) must
     *       find exactly one statement in it, so {@code SELECT 1; COMMIT; DROP ...} is refused before anything
     *       is sent;</li>
     *   <li>PostgreSQL accepts only a {@code SELECT}, {@code VALUES} or {@code WITH ... SELECT} without
     *       data-modifying parts as a cursor's query, so {@code COMMIT}, {@code SET TRANSACTION READ WRITE},
     *       {@code COPY ... TO PROGRAM} and DML are refused by the server itself;</li>
     *   <li>it runs in the step's read-only transaction ({@code BEGIN READ ONLY}; a function that writes fails,
     *       and the mode cannot be switched back once the step's first query ran), with the session's
     *       {@code default_transaction_read_only} set to on again first (a query that turned it off cannot
     *       reach a later transaction) and the query's {@code statement_timeout}.</li>
     * </ol>
     * Sent as a plain statement (no bind parameters), so an operator's {@code ?} (a jsonb operator) is not taken
     * for a parameter.
     */
    /**
     * @param conn the step's connection, inside its read-only transaction
     * @param catalog the {@code catalog} label's value
     * @param q the query
     * @return its one gauge family, one sample per row with a numeric value
     * @throws SQLException the server's error, or a refusal of text that is not one read-only query
     */
    static List<MetricFamily> run(Connection conn, String catalog, CustomQuery q) throws SQLException {
        List<MetricFamily.Sample> samples = new ArrayList<>();
        String declare = "DECLARE " + CUSTOM_CURSOR + " NO SCROLL CURSOR FOR " + q.sql();
        int statements = org.postgresql.core.Parser.parseJdbcSql(declare,
                conn.unwrap(org.postgresql.core.BaseConnection.class).getStandardConformingStrings(), false, true, false, false).size();
        if (statements != 1) {
            throw new SQLException("custom SQL must be one statement (a SELECT, VALUES or WITH ... SELECT); this text holds "
                    + statements + " statements separated by ';'. Nothing was run.", SqlState.SYNTAX_ERROR.code());
        }
        try (Statement st = conn.createStatement()) {
            if (!dev.ducklake.janitor.pg.Pooling.transactionPooled(conn)) {
                // session-level: behind a transaction-mode pooler it would stay on a server session other applications
                // use (and make their transactions read-only); there the step's own BEGIN READ ONLY is the guard
                st.execute("SELECT pg_catalog.set_config('default_transaction_read_only', 'on', false)");
            }
            try {
                st.execute(declare);
            } catch (SQLException e) {
                if (!SqlState.SYNTAX_ERROR.code().equals(e.getSQLState())) {
                    throw e;
                }
                throw new SQLException("custom SQL must be one read-only query (a SELECT, VALUES or WITH ... SELECT statement); "
                        + "the server refused it as such: " + e.getMessage(), e.getSQLState(), e);
            }
        }
        try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery("FETCH ALL FROM " + CUSTOM_CURSOR)) {
            ResultSetMetaData md = rs.getMetaData();
            int[] labelCols = new int[q.labels().size()];
            for (int i = 0; i < labelCols.length; i++) {
                labelCols[i] = column(md, q.labels().get(i), q.name());
            }
            int valueCol = column(md, q.valueColumn(), q.name());
            while (rs.next()) {
                Object v = rs.getObject(valueCol);
                Double value = toDouble(v);
                if (value == null) {
                    continue;
                }
                List<String> labels = new ArrayList<>();
                labels.add(catalog);
                for (int c : labelCols) {
                    String label = rs.getString(c);
                    labels.add(label == null ? "" : label);
                }
                samples.add(new MetricFamily.Sample(labels, value));
            }
        }
        try (Statement st = conn.createStatement()) {
            st.execute("CLOSE " + CUSTOM_CURSOR);
        }
        List<String> names = new ArrayList<>();
        names.add(CatalogHealthCollector.CATALOG_LABEL);
        names.addAll(q.labels());
        return List.of(new MetricFamily(q.name(), q.help(), MetricFamily.Type.GAUGE, names, samples));
    }

    private static int column(ResultSetMetaData md, String name, String query) throws SQLException {
        for (int i = 1; i <= md.getColumnCount(); i++) {
            if (md.getColumnLabel(i).equalsIgnoreCase(name)) {
                return i;
            }
        }
        throw new SQLException("query " + query + " returns no column named " + name, SqlState.UNDEFINED_COLUMN.code());
    }

    private static Double toDouble(Object v) throws SQLException {
        if (v == null) {
            return null;
        }
        if (v instanceof Number n) {
            return n instanceof BigDecimal b ? b.doubleValue() : n.doubleValue();
        }
        if (v instanceof Boolean b) {
            return b ? 1.0 : 0.0;
        }
        try {
            return Double.parseDouble(v.toString().strip());
        } catch (NumberFormatException e) {
            throw new SQLException("value " + dev.ducklake.janitor.pg.Sql.printable(String.valueOf(v)) + " is not a number", SqlState.INVALID_TEXT_REPRESENTATION.code());
        }
    }
}
