package dev.ducklake.janitor.catalog.health;

import dev.ducklake.janitor.catalog.CatalogLayout;
import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.pg.Sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a {@link CheckRule} works with: the open connection (inside a read-only transaction the caller opened), the
 * catalog facts and layout, and the options of the check. Also a few query helpers that keep the rules short.
 *
 * @param conn the connection; rules never commit, roll back or change session settings beyond SET LOCAL
 * @param info what {@link CatalogInspector} found
 * @param layout which catalog tables and columns exist
 * @param settings the rules' settings (example limit, bloat thresholds)
 * @param survey the inlined-table survey of drop-orphan-inline-tables, computed at most once per check
 */
public record CheckContext(Connection conn, CatalogInfo info, CatalogLayout layout, RuleSettings settings, InlineSurvey survey) {

    /** The metadata schema. */
    public String schema() {
        return info.schema();
    }

    /** A catalog table of the metadata schema, quoted. */
    public String t(String table) {
        return Sql.qualified(info.schema(), table);
    }

    /** The most examples a finding lists. */
    public int maxExamples() {
        return settings.maxExamples();
    }

    /**
     * Runs a query whose first column is a bigint and returns it (0 when there is no row or it is NULL).
     *
     * @param sql the query; its bind parameters are {@code params}, in order
     * @param params bind values (String, Long, Integer, Double or Boolean)
     * @return the value
     * @throws SQLException on database errors
     */
    public long count(String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(sql, params); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    /**
     * Runs a query and renders each row as an example: the columns joined by the labels given (label i precedes
     * column i), catalog strings escaped with {@link CatalogInspector#printable} when {@code quoteStrings}.
     *
     * @param sql the query (it should carry its own LIMIT; at most {@link #maxExamples()} rows are read)
     * @param labels one label per column, e.g. {@code "table_id="}
     * @param params bind values
     * @return the examples
     * @throws SQLException on database errors
     */
    public List<String> examples(String sql, List<String> labels, Object... params) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = prepare(sql, params); ResultSet rs = ps.executeQuery()) {
            while (rs.next() && out.size() < maxExamples()) {
                StringBuilder b = new StringBuilder();
                for (int i = 0; i < labels.size(); i++) {
                    Object v = rs.getObject(i + 1);
                    b.append(i == 0 ? "" : " ").append(labels.get(i))
                            .append(v instanceof String s ? CatalogInspector.printable(s) : String.valueOf(v));
                }
                out.add(b.toString());
            }
        }
        return out;
    }

    /** Prepares a statement with its bind values. */
    public PreparedStatement prepare(String sql, Object... params) throws SQLException {
        PreparedStatement ps = conn.prepareStatement(sql);
        try {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
        } catch (SQLException e) {
            ps.close();
            throw e;
        }
        return ps;
    }
}
