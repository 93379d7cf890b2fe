package dev.ducklake.janitor.metrics;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * An extra gauge defined in the metrics YAML as an SQL query: one read-only statement, run as a cursor's query
 * ({@code CatalogHealthCollector#custom} refuses anything else before or by the server). The query runs in a read-only transaction whose
 * {@code search_path} is the metadata schema (so {@code ducklake_table} needs no schema prefix) and whose
 * {@code statement_timeout} is {@link #timeout()}. Each result row is one sample: the label columns give the
 * label values (NULL becomes ""), the value column the value (a NULL value skips the row).
 *
 * @param name the metric name, {@code [a-zA-Z_:][a-zA-Z0-9_:]*}; must not clash with a built-in metric
 * @param help the help text
 * @param sql the query text (operator-written, run as is)
 * @param labels the label columns, in order (the {@code catalog} label is added in front)
 * @param valueColumn the column holding the value (default {@code value})
 * @param timeout the statement timeout of this query
 */
public record CustomQuery(String name, String help, String sql, List<String> labels, String valueColumn, Duration timeout) {

    /** Valid metric names (Prometheus data model). */
    public static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    /** Valid label names (Prometheus data model; names starting with {@code __} are reserved). */
    public static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

    /** Copies the label list. */
    public CustomQuery {
        labels = List.copyOf(labels);
    }
}
