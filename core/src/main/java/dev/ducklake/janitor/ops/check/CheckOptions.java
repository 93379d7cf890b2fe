package dev.ducklake.janitor.ops.check;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.health.RuleSettings;
import dev.ducklake.janitor.ops.runtime.RunOptions;

import java.time.Duration;

/**
 * Options of {@link CatalogCheck}. Build with {@link #defaults()} and the {@code with…} methods.
 *
 * @param metadataSchema the Postgres schema holding the ducklake_* tables (default {@code public})
 * @param statementTimeout statement_timeout of each rule's query (default {@value #DEFAULT_STATEMENT_TIMEOUT_SECONDS} s;
 *     a rule that times out is reported as failed, the others still run)
 * @param maxExamples examples listed per finding kind (default {@value #DEFAULT_MAX_EXAMPLES})
 * @param bloatMinDeadRows catalog_bloat: a system catalog is bloated only with at least this many dead rows (default
 *     {@value #DEFAULT_BLOAT_MIN_DEAD_ROWS} rows)
 * @param bloatDeadRatio catalog_bloat: ... and dead rows above this fraction of its live rows (default
 *     {@value #DEFAULT_BLOAT_DEAD_RATIO}, autovacuum's default scale factor)
 */
public record CheckOptions(String metadataSchema, Duration statementTimeout, int maxExamples, long bloatMinDeadRows,
                           double bloatDeadRatio) {

    /** Default statement timeout of each query, seconds ({@link RuleSettings#DEFAULT_STATEMENT_TIMEOUT_SECONDS}). */
    public static final long DEFAULT_STATEMENT_TIMEOUT_SECONDS = RuleSettings.DEFAULT_STATEMENT_TIMEOUT_SECONDS;
    /** Default examples per finding ({@link RuleSettings#DEFAULT_MAX_EXAMPLES}). */
    public static final int DEFAULT_MAX_EXAMPLES = RuleSettings.DEFAULT_MAX_EXAMPLES;
    /** Default minimum dead rows of a bloated system catalog ({@link RuleSettings#DEFAULT_BLOAT_MIN_DEAD_ROWS}). */
    public static final long DEFAULT_BLOAT_MIN_DEAD_ROWS = RuleSettings.DEFAULT_BLOAT_MIN_DEAD_ROWS;
    /** Default dead-to-live ratio of a bloated system catalog ({@link RuleSettings#DEFAULT_BLOAT_DEAD_RATIO}). */
    public static final double DEFAULT_BLOAT_DEAD_RATIO = RuleSettings.DEFAULT_BLOAT_DEAD_RATIO;

    /**
     * How long a check keeps reopening a lost connection, seconds (a check has no {@code --reconnect-timeout}): short, so
     * that a server gone silent still ends the check with exit 3 soon after the socket timeout (the statement timeout
     * plus {@link dev.ducklake.janitor.pg.ConnectionSpec#SOCKET_TIMEOUT_MARGIN_SECONDS}) and one bounded login.
     */
    public static final int RECONNECT_TIMEOUT_SECONDS = 10;

    /** The defaults: schema public, 60 s per query, 5 examples, bloat at 100,000 dead rows and 20 % of live rows. */
    public static CheckOptions defaults() {
        return new CheckOptions("public", Duration.ofSeconds(DEFAULT_STATEMENT_TIMEOUT_SECONDS), DEFAULT_MAX_EXAMPLES,
                DEFAULT_BLOAT_MIN_DEAD_ROWS, DEFAULT_BLOAT_DEAD_RATIO);
    }

    /** @return a copy with this metadata schema */
    public CheckOptions withMetadataSchema(String s) {
        return new CheckOptions(s, statementTimeout, maxExamples, bloatMinDeadRows, bloatDeadRatio);
    }

    /** @return a copy with this per-query statement timeout (zero = none) */
    public CheckOptions withStatementTimeout(Duration d) {
        return new CheckOptions(metadataSchema, d, maxExamples, bloatMinDeadRows, bloatDeadRatio);
    }

    /** @return a copy with this number of examples per finding */
    public CheckOptions withMaxExamples(int n) {
        return new CheckOptions(metadataSchema, statementTimeout, n, bloatMinDeadRows, bloatDeadRatio);
    }

    /** @return a copy with these catalog_bloat thresholds (rows, fraction of live rows) */
    public CheckOptions withBloatThresholds(long minDeadRows, double deadRatio) {
        return new CheckOptions(metadataSchema, statementTimeout, maxExamples, minDeadRows, deadRatio);
    }

    /** @return what the rules read of these options (statement timeout, examples, bloat thresholds) */
    public RuleSettings settings() {
        return new RuleSettings(statementTimeout, maxExamples, bloatMinDeadRows, bloatDeadRatio);
    }

    /**
     * The run options of the check's read-only run on the shared runtime: this schema and statement timeout, a dry run
     * (no advisory lock), reconnects for {@value #RECONNECT_TIMEOUT_SECONDS} s, no run budget.
     *
     * @return the run options
     */
    public RunOptions runOptions() {
        return RunOptions.builder().metadataSchema(metadataSchema).dryRun(true).statementTimeout(statementTimeout)
                .reconnectTimeout(Duration.ofSeconds(RECONNECT_TIMEOUT_SECONDS)).build();
    }

    /**
     * Checks the values.
     *
     * @throws JanitorException USAGE naming the bad value
     */
    public void validate() throws JanitorException {
        if (metadataSchema == null || metadataSchema.isEmpty() || metadataSchema.indexOf('\0') >= 0) {
            throw new JanitorException(Reason.USAGE, "--metadata-schema must name a schema.");
        }
        if (statementTimeout == null || statementTimeout.isNegative() || statementTimeout.toMillis() > Integer.MAX_VALUE) {
            throw new JanitorException(Reason.USAGE, "--statement-timeout must be between 0 and 2147483 seconds.");
        }
        if (maxExamples < 0 || maxExamples > 1000) {
            throw new JanitorException(Reason.USAGE, "--max-examples must be between 0 and 1000.");
        }
        if (bloatMinDeadRows < 0) {
            throw new JanitorException(Reason.USAGE, "--bloat-min-dead-rows must be 0 or more.");
        }
        if (!(bloatDeadRatio >= 0) || Double.isInfinite(bloatDeadRatio)) {
            throw new JanitorException(Reason.USAGE, "--bloat-dead-ratio must be a number of 0 or more.");
        }
    }
}
