package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.maintain.OptionKind;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.ops.check.CatalogCheck;
import dev.ducklake.janitor.ops.check.CheckOptions;
import dev.ducklake.janitor.ops.check.CheckResult;
import dev.ducklake.janitor.catalog.health.Finding;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code ducklake-janitor check}: parses flags, runs {@link CatalogCheck} on each schema, prints. */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = {"Read-only catalog doctor: looks for every known kind of DuckLake catalog damage (leaked inlined tables, "
                + "orphaned stats rows, live files of unreachable tables, duplicate or still-referenced deletion-queue rows, dead "
                + "inlined rows, leftover snapshot-change and schema-version rows, system-catalog bloat) and names the command that "
                + "fixes each. Works on the PostgreSQL catalog directly; never opens DuckDB; takes no lock beyond what SELECT takes, "
                + "so it is safe on a live catalog. The finding kinds are listed in docs/check.md. With --storage it also compares the "
                + "data path's objects with the catalog's file rows (missing or resized objects).",
            "Exit codes: 0 clean; 12 findings; 9 a rule failed (e.g. its --statement-timeout) and the rest is printed, 8 when it "
                + "failed for a missing privilege; the usual codes for connection (3), catalog (4, 5, 6) and privilege (8) errors. "
                + "With several schemas: the worst."})
public final class CheckCommand extends CatalogCommand implements Callable<Integer> {

    static final String OPERATION = "check";

    @StepOptions.CliOnly
    @Option(names = "--all-metadata-schemas",
            description = "Check every schema of the database that holds a DuckLake catalog (a ducklake_metadata table with a 'version' "
                    + "key), one after the other; not with --metadata-schema (which may be given several times). Default: off.")
    boolean allMetadataSchemas;

    @StepOptions.Kind(OptionKind.DURATION)
    @Option(names = "--statement-timeout", paramLabel = "SECONDS", defaultValue = "" + CheckOptions.DEFAULT_STATEMENT_TIMEOUT_SECONDS,
            description = "statement_timeout of each rule's queries, in seconds (0 = none); a rule that runs out is reported as "
                    + "failed and the others still run. Default: ${DEFAULT-VALUE}.")
    double statementTimeout;

    @Option(names = "--max-examples", paramLabel = "N", defaultValue = "" + CheckOptions.DEFAULT_MAX_EXAMPLES,
            description = "Examples listed per finding kind, 0 to 1000. Default: ${DEFAULT-VALUE}.")
    int maxExamples;

    @Option(names = "--bloat-min-dead-rows", paramLabel = "ROWS", defaultValue = "" + CheckOptions.DEFAULT_BLOAT_MIN_DEAD_ROWS,
            description = "catalog_bloat: a system catalog (pg_class, pg_attribute, pg_type, pg_depend) counts as bloated only with "
                    + "at least this many dead rows. Default: ${DEFAULT-VALUE} rows.")
    long bloatMinDeadRows;

    @Option(names = "--bloat-dead-ratio", paramLabel = "FRACTION", defaultValue = "" + CheckOptions.DEFAULT_BLOAT_DEAD_RATIO,
            description = "catalog_bloat: ... and dead rows above this fraction of its live rows (autovacuum's default scale factor). "
                    + "Default: ${DEFAULT-VALUE}.")
    double bloatDeadRatio;

    @Option(names = "--storage",
            description = "Also list the data path once and compare it with the catalog's data and delete file rows that a "
                    + "retained snapshot still reaches: findings missing_data_files and missing_delete_files (the object is gone) "
                    + "and size_mismatch_files (its size differs from file_size_bytes), all damage; each is fixed by restoring the "
                    + "object from a versioned bucket or a backup (the janitor never deletes catalog rows). Needs read access to "
                    + "the store (list; S3 credentials from the AWS SDK default chain). Default: off (the catalog only).")
    boolean storage;

    @Mixin
    StoreOptions store;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean json = output.json();
        ConnectionSpec conn = null;
        try {
            CheckOptions base = options();
            conn = catalog.connection(parent.env());
            StructuredLog.context(new StructuredLog.Context(conn.database(), catalog.metadataSchema, OPERATION, false));
            List<String> schemas = SchemaLoop.schemas(catalog, allMetadataSchemas, conn, err);
            ConnectionSpec c = conn;
            List<SchemaLoop.Outcome> outcomes = SchemaLoop.run(schemas, schema -> {
                CatalogCheck check = new CatalogCheck(c, base.withMetadataSchema(schema));
                if (storage) {
                    // an S3 data path without credentials: say what is missing and what to set (not the listing's "access denied")
                    store.beforeOpen = location -> {
                        String why = MaintainSteps.noCredentials(location);
                        if (why != null) {
                            throw new JanitorException(Reason.STORAGE, "check --storage: " + why + "; or run check without --storage.");
                        }
                    };
                    check.withStorage(store::open, store.dataPath);
                }
                CheckResult r = check.execute();
                @SuppressWarnings("unchecked")
                Map<String, Object> fields = Render.JSON.convertValue(r, Map.class);
                return new SchemaLoop.Outcome(schema, r, fields, exitCode(r), null);
            }, conn, err);
            int exit = SchemaLoop.worst(outcomes);
            boolean single = !allMetadataSchemas && schemas.size() == 1;
            if (single && outcomes.get(0).error() != null) {
                throw outcomes.get(0).error();
            }
            if (json) {
                if (single) {
                    Map<String, Object> doc = Render.envelope(OPERATION, conn, schemas.get(0), Map.of());
                    doc.putAll(outcomes.get(0).fields());
                    doc.put("exit_code", exit);
                    Render.json(out, doc);
                } else {
                    Render.json(out, SchemaLoop.document(OPERATION, conn, outcomes, exit));
                }
            } else {
                for (SchemaLoop.Outcome o : outcomes) {
                    printText(out, conn, o);
                }
                if (!single) {
                    out.printf(Locale.ROOT, "total over %d schema(s): exit code %d%n", outcomes.size(), exit);
                }
                out.flush();
            }
            return exit;
        } catch (JanitorException e) {
            if (json) {
                Render.json(out, Render.error(OPERATION, conn, catalog.metadataSchema, e));
            }
            throw e;
        }
    }

    /**
     * The check options from the parsed flags (also what {@code maintain}'s check step runs with).
     *
     * @return the validated options, schema public
     * @throws JanitorException USAGE naming the first bad flag
     */
    CheckOptions options() throws JanitorException {
        if (store != null && store.given() && !storage) {
            throw new JanitorException(Reason.USAGE, "--data-path and the --s3-* flags only apply with --storage.");
        }
        CheckOptions base = CheckOptions.defaults().withStatementTimeout(SchemaLoop.pgTimeout("--statement-timeout", statementTimeout))
                .withMaxExamples(maxExamples).withBloatThresholds(bloatMinDeadRows, bloatDeadRatio);
        base.validate();
        return base;
    }

    /**
     * 0 clean, 12 findings, 8 when a rule failed for a missing privilege (docs/privileges.md), 9 when a rule failed
     * otherwise (the catalog is then not known to be clean).
     */
    static int exitCode(CheckResult r) {
        if (r.errors().stream().anyMatch(CheckResult.RuleError::permissionDenied)) {
            return Reason.PERMISSION_DENIED.exitCode();
        }
        if (!r.errors().isEmpty()) {
            return Reason.DATABASE_ERROR.exitCode();
        }
        return r.findings().isEmpty() ? 0 : Reason.FINDINGS.exitCode();
    }

    private static void printText(PrintWriter out, ConnectionSpec conn, SchemaLoop.Outcome o) {
        if (o.error() != null) {
            out.printf(Locale.ROOT, "check on %s, schema %s: FAILED (exit %d, %s): %s%n", conn.describe(), o.schema(),
                    o.error().reason().exitCode(), o.error().reason().name().toLowerCase(Locale.ROOT), conn.redact(o.error().getMessage()));
            return;
        }
        printResult(out, conn, (CheckResult) o.result());
    }

    /**
     * Prints one schema's check result as text (also {@code maintain}'s section for its check step).
     *
     * @param out stdout
     * @param conn the catalog database
     * @param r the result
     */
    static void printResult(PrintWriter out, ConnectionSpec conn, CheckResult r) {
        out.printf(Locale.ROOT, "check on %s, schema %s (DuckLake format %s): %s, %d kind(s) checked in %s%n", conn.describe(),
                r.schema(), r.formatVersion(), r.status(), r.counts().size() + r.errors().size(), Render.seconds(r.elapsedSeconds()));
        for (Finding f : r.findings()) {
            out.printf(Locale.ROOT, "  %s (%s): %,d%s | fix: %s%n", f.kind(), f.severity(), f.count(),
                    f.examples().isEmpty() ? "" : " | e.g. " + String.join("; ", f.examples()), f.fix());
        }
        for (CheckResult.RuleError e : r.errors()) {
            out.printf(Locale.ROOT, "  %s: FAILED: %s%n", e.kind(), e.message());
        }
        if (r.storageNotChecked() != null) {
            out.printf(Locale.ROOT, "  storage: not checked: %s%n", r.storageNotChecked());
        }
        long clean = r.counts().values().stream().filter(v -> v == 0).count();
        out.printf(Locale.ROOT, "  clean: %d kind(s)%n", clean);
    }
}
