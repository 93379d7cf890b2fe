package dev.ducklake.janitor.catalog.health;

import java.time.Duration;

/**
 * What the rules of {@link CheckRules} read besides the catalog: the statement timeout of each rule, how many examples a
 * finding lists, and the thresholds of {@code catalog_bloat}. {@code check} builds them from its options; the
 * {@code ducklake_check_findings} gauge from the defaults and the collector's statement timeout.
 *
 * @param statementTimeout statement_timeout of each rule's query (zero = none)
 * @param maxExamples examples listed per finding kind
 * @param bloatMinDeadRows catalog_bloat: a system catalog is bloated only with at least this many dead rows (rows)
 * @param bloatDeadRatio catalog_bloat: ... and dead rows above this fraction of its live rows
 */
public record RuleSettings(Duration statementTimeout, int maxExamples, long bloatMinDeadRows, double bloatDeadRatio) {

    /** Default statement timeout of each rule, seconds. */
    public static final long DEFAULT_STATEMENT_TIMEOUT_SECONDS = 60;
    /** Default examples per finding. */
    public static final int DEFAULT_MAX_EXAMPLES = 5;
    /** Default minimum dead rows of a bloated system catalog. */
    public static final long DEFAULT_BLOAT_MIN_DEAD_ROWS = 100_000;
    /** Default dead-to-live ratio of a bloated system catalog (autovacuum's default scale factor). */
    public static final double DEFAULT_BLOAT_DEAD_RATIO = 0.2;

    /**
     * The defaults with a statement timeout: {@value #DEFAULT_MAX_EXAMPLES} examples, bloat at
     * {@value #DEFAULT_BLOAT_MIN_DEAD_ROWS} dead rows and {@value #DEFAULT_BLOAT_DEAD_RATIO} of live rows.
     *
     * @param statementTimeout statement_timeout of each rule's query
     * @return the settings
     */
    public static RuleSettings defaults(Duration statementTimeout) {
        return new RuleSettings(statementTimeout, DEFAULT_MAX_EXAMPLES, DEFAULT_BLOAT_MIN_DEAD_ROWS, DEFAULT_BLOAT_DEAD_RATIO);
    }
}
