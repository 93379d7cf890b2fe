package dev.ducklake.janitor.ops.check;

import dev.ducklake.janitor.catalog.health.CheckRule;
import dev.ducklake.janitor.retry.FailureKind;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.catalog.health.CheckRules;
import dev.ducklake.janitor.catalog.health.Finding;
import dev.ducklake.janitor.catalog.health.InlineSurvey;
import dev.ducklake.janitor.catalog.health.RuleEvaluation;
import dev.ducklake.janitor.catalog.health.RuleOutcome;
import dev.ducklake.janitor.ops.runtime.MaintenanceRun;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.QueryRunner;
import dev.ducklake.janitor.ops.files.MissingObjects;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.pg.Transactions;
import dev.ducklake.janitor.pg.SqlState;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code check}: a read-only catalog doctor. Runs every {@link CheckRule} of {@link CheckRules#all()} on one metadata
 * schema, each in its own read-only transaction with its own {@code statement_timeout} (no lock beyond what SELECT takes;
 * safe on a live catalog), and reports each kind of damage with a count, a few examples and its fix. A rule that fails is
 * reported as failed and the others still run. Joins against the unindexed catalog tables are forced to hash joins
 * ({@code SET LOCAL enable_nestloop = off}), so the cost grows linearly with the catalog, and JIT is off for them
 * ({@link Transactions#JIT_OFF}): their inflated plan cost would otherwise make a JIT-enabled server compile each one.
 *
 * <p>Runs on the shared runtime as a read-only operation ({@link MaintenanceRun}, no advisory lock): the inspection, the
 * evaluation and the storage comparison go through the run's {@link QueryRunner}, so a retryable failure is retried with
 * the policy's backoff and a lost connection is reopened (for {@value CheckOptions#RECONNECT_TIMEOUT_SECONDS} s) and the
 * work run again; a rule that fails on its own is its outcome and is not retried.
 *
 * <p>The rules and their evaluation live in {@code catalog.health} ({@link RuleEvaluation}); the metric
 * {@code ducklake_check_findings{kind}} runs the same rules through it.
 */
public final class CatalogCheck {

    private final ConnectionSpec spec;
    private final CheckOptions options;
    private dev.ducklake.janitor.ops.files.StoreOpener storeOpener;
    private String dataPathOverride;

    /**
     * @param spec where the catalog database is; its reads are bounded by the options' statement timeout plus
     *     {@link ConnectionSpec#SOCKET_TIMEOUT_MARGIN_SECONDS} ({@link ConnectionSpec#withSocketTimeoutJustAbove}), so a
     *     server gone silent after login ends the check with exit 3 instead of hanging it
     * @param options what to check and how
     */
    public CatalogCheck(ConnectionSpec spec, CheckOptions options) {
        this.spec = spec.withSocketTimeoutJustAbove(options.statementTimeout());
        this.options = options;
    }

    /**
     * Also compares the catalog's retained file rows with the store ({@code check --storage}, {@link MissingObjects}): the
     * findings {@value #MISSING_DATA}, {@value #MISSING_DELETE} and {@value #SIZE_MISMATCH} (damage), and
     * {@link CheckResult#storage()}. Default: off (the check reads the catalog only).
     *
     * @param opener opens the store of the data path
     * @param override {@code --data-path}, or null for the catalog's data_path
     * @return this check
     */
    public CatalogCheck withStorage(dev.ducklake.janitor.ops.files.StoreOpener opener, String override) {
        this.storeOpener = opener;
        this.dataPathOverride = override;
        return this;
    }

    /** Finding kind: retained data file rows whose object is gone ({@link CheckRules#MISSING_DATA}). */
    public static final String MISSING_DATA = CheckRules.MISSING_DATA;
    /** Finding kind: retained delete file rows whose object is gone ({@link CheckRules#MISSING_DELETE}). */
    public static final String MISSING_DELETE = CheckRules.MISSING_DELETE;
    /** Finding kind: retained file rows whose object's size differs from file_size_bytes ({@link CheckRules#SIZE_MISMATCH}). */
    public static final String SIZE_MISMATCH = CheckRules.SIZE_MISMATCH;
    /** The fix of the storage findings. */
    static final String RESTORE = "restore the object at the address shown from a versioned bucket (an earlier object version)"
            + " or a backup; nothing automatic: the janitor never deletes catalog rows for missing objects, since DuckLake still"
            + " reads them and the object may come back";

    /**
     * Runs the check.
     *
     * @return the findings
     * @throws JanitorException USAGE for invalid options; CONNECTION when the catalog cannot be reached or the connection
     *     was lost and did not come back; NOT_A_CATALOG, UNSUPPORTED_VERSION, UNSAFE_CATALOG_STATE, PERMISSION_DENIED from
     *     the catalog checks; DATABASE_ERROR when reading the layout still fails after the retries; STORAGE and
     *     BRAKE_ROOT_PATH from the storage comparison. A failing rule is not an exception: see {@link CheckResult#errors()}.
     */
    public CheckResult execute() throws JanitorException {
        options.validate();
        long t0 = System.nanoTime();
        String schema = options.metadataSchema();
        try (MaintenanceRun run = MaintenanceRun.open(spec, options.runOptions(), ProgressListener.NONE, new AtomicBoolean())) {
            QueryRunner queries = run.queries();
            CatalogInfo info = queries.withRetries("the catalog inspection", c -> CatalogInspector.inspect(c, schema, false));
            // a lost connection ends the evaluation (a rule's own failure is its outcome): it runs again, survey and all
            List<RuleOutcome> outcomes = queries.withRetries("the check", c -> RuleEvaluation.evaluate(c, info, options.settings(),
                    InlineSurvey.on(c, info, options.maxExamples()), CheckRules.all()));
            List<Finding> findings = new ArrayList<>();
            Map<String, Long> counts = new LinkedHashMap<>();
            List<CheckResult.RuleError> errors = new ArrayList<>();
            Map<String, Double> seconds = new LinkedHashMap<>();
            for (RuleOutcome o : outcomes) {
                seconds.put(o.rule().kind(), o.seconds());
                if (o.error() != null) {
                    errors.add(new CheckResult.RuleError(o.rule().kind(), describe(o.error()),
                            SqlState.classify(o.error()) == FailureKind.PERMISSION_DENIED));
                    continue;
                }
                counts.put(o.rule().kind(), o.finding().count());
                if (o.finding().count() > 0) {
                    findings.add(o.finding());
                }
            }
            MissingObjects.Result storage = null;
            if (storeOpener != null) {
                storage = queries.withRetries("the storage comparison", c -> MissingObjects.compare(c, schema, storeOpener,
                        dataPathOverride, options.maxExamples(), store -> { }));
                long[] n = {storage.missingData(), storage.missingDelete(), storage.sizeMismatch()};
                String[] kinds = {MISSING_DATA, MISSING_DELETE, SIZE_MISMATCH};
                List<List<String>> ex = List.of(storage.missingDataExamples(), storage.missingDeleteExamples(),
                        storage.sizeMismatchExamples());
                for (int i = 0; i < 3; i++) {
                    counts.put(kinds[i], n[i]);
                    if (n[i] > 0) {
                        findings.add(new Finding(kinds[i], n[i], ex.get(i), SIZE_MISMATCH.equals(kinds[i])
                                ? "the object at that address is not the one the catalog wrote: " + RESTORE : RESTORE));
                    }
                }
            }
            String status = !findings.isEmpty() ? CheckResult.FINDINGS : errors.isEmpty() ? CheckResult.CLEAN : CheckResult.INCOMPLETE;
            return new CheckResult(schema, info.version().text(), status, findings, counts, errors, (System.nanoTime() - t0) / 1e9,
                    seconds, storage);
        }
    }

    private String describe(SQLException e) {
        String state = SqlState.codeOf(e);
        return (state == null ? "" : "SQLSTATE " + state + ": ") + spec.redact(String.valueOf(e.getMessage()));
    }
}
