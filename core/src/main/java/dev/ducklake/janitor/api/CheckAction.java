package dev.ducklake.janitor.api;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.check.CatalogCheck;
import dev.ducklake.janitor.ops.check.CheckOptions;
import dev.ducklake.janitor.ops.check.CheckResult;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code check}: the read-only catalog doctor. Runs every rule on the metadata schema, each in its own read-only
 * transaction (no lock beyond what SELECT takes; safe on a live catalog), and returns each kind of damage with a count,
 * examples and its fix. A finding is not an error: read {@link CheckResult#status()} ({@code clean} or
 * {@code findings}; the CLI exits 12 on findings) and {@link CheckResult#errors()} (rules that failed).
 *
 * <pre>{@code
 * CheckResult r = Janitor.on(dataSource, "lake_meta").check().execute();
 * if (!r.findings().isEmpty()) { alert(r.findings()); }
 * }</pre>
 *
 * Not batched and not stoppable: it has no run settings beyond its statement timeout. The catalog's files in storage
 * ({@code check --storage}) are not compared by this action.
 */
public final class CheckAction {

    private final Janitor janitor;
    private CheckOptions options = CheckOptions.defaults();
    private final AtomicBoolean started = new AtomicBoolean();

    CheckAction(Janitor janitor) {
        this.janitor = janitor;
    }

    /**
     * {@code statement_timeout} of each rule's query; a rule that times out is reported as failed in
     * {@link CheckResult#errors()}, the others still run. Default {@value CheckOptions#DEFAULT_STATEMENT_TIMEOUT_SECONDS} s.
     *
     * @param timeout 0 (none) to 2,147,483 s
     * @return this action
     */
    public CheckAction statementTimeout(Duration timeout) {
        options = options.withStatementTimeout(Objects.requireNonNull(timeout, "timeout"));
        return this;
    }

    /**
     * Examples listed per finding kind. Default {@value CheckOptions#DEFAULT_MAX_EXAMPLES}.
     *
     * @param examples 0 to 1,000
     * @return this action
     */
    public CheckAction maxExamples(int examples) {
        options = options.withMaxExamples(examples);
        return this;
    }

    /**
     * When a system catalog counts as bloated (finding {@code catalog_bloat}): at least {@code minDeadRows} dead rows
     * and dead rows above {@code deadRatio} of its live rows. Defaults {@value CheckOptions#DEFAULT_BLOAT_MIN_DEAD_ROWS}
     * rows and {@value CheckOptions#DEFAULT_BLOAT_DEAD_RATIO}.
     *
     * @param minDeadRows rows, 0 or more
     * @param deadRatio fraction of live rows, 0 or more
     * @return this action
     */
    public CheckAction bloatThresholds(long minDeadRows, double deadRatio) {
        options = options.withBloatThresholds(minDeadRows, deadRatio);
        return this;
    }

    /**
     * Runs the check once, on the calling thread.
     *
     * @return the findings: the same record the CLI's {@code check --output json} prints
     * @throws JanitorException {@link Reason#USAGE} for a bad setting; {@link Reason#CONNECTION},
     *     {@link Reason#NOT_A_CATALOG}, {@link Reason#UNSUPPORTED_VERSION}, {@link Reason#PERMISSION_DENIED},
     *     {@link Reason#DATABASE_ERROR} as the CLI reports them
     * @throws IllegalStateException when this action was executed already (an action is single-use)
     */
    public CheckResult execute() throws JanitorException {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("this action was executed already; make a new one from the Janitor");
        }
        return new CatalogCheck(janitor.spec(), options.withMetadataSchema(janitor.metadataSchema())).execute();
    }
}
