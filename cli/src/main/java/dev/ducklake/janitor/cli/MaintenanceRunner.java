package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogDiscovery;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.ops.runtime.MaintenanceOperation;
import dev.ducklake.janitor.ops.runtime.MaintenanceResult;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.runtime.RunWatchdog;
import dev.ducklake.janitor.pg.ConnectionSpec;

import java.io.Console;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one maintenance operation from the CLI on one metadata schema or many (--metadata-schema given several
 * times, --all-metadata-schemas): the confirmation, the SIGTERM/SIGINT stop hook, the Pushgateway reporter, the
 * JSON envelope or error document, the text output, the VACUUM note and, for many schemas, one section each
 * plus a total and the worst exit code ({@link Reason#worseExitCode}). Every maintenance command gets all of this
 * by giving an {@link OperationAdapter}.
 *
 * @param <R> the operation's result
 */
final class MaintenanceRunner<R extends MaintenanceResult> {

    /** How long a SIGTERM/SIGINT waits for the batch in flight to commit and the result to be printed. */
    static final Duration STOP_GRACE = Duration.ofSeconds(30);

    private final OperationAdapter<R> adapter;
    private final Map<String, String> env;
    private final PushOptions push;
    private final PrintWriter out;
    private final PrintWriter err;
    private final boolean json;
    private final boolean verbose;
    /** Counted down once the result (or error) is printed: the stop hook waits for it. */
    private final CountDownLatch printed = new CountDownLatch(1);
    /** Schemas --all-metadata-schemas left out (no USAGE), with the reason, for the JSON document. */
    private final List<Map<String, String>> skipped = new ArrayList<>();
    /** Set by the stop hook: the run was stopped by SIGTERM/SIGINT (not by --run-budget). */
    private final AtomicBoolean signalled = new AtomicBoolean();

    MaintenanceRunner(OperationAdapter<R> adapter, Map<String, String> env, PushOptions push, PrintWriter out, PrintWriter err,
                      boolean json, boolean verbose) {
        this.verbose = verbose;
        this.adapter = adapter;
        this.env = env;
        this.push = push;
        this.out = out;
        this.err = err;
        this.json = json;
    }

    /**
     * Runs the command.
     *
     * @param catalog the connection mixin
     * @param flags the run-options mixin
     * @return the exit code (0, or the worst schema's for many schemas)
     * @throws JanitorException the failure of a single-schema run, or of the set-up of a multi-schema run (after
     *     printing the JSON error document in --output json)
     */
    int run(CatalogOptions catalog, RunOptionsMixin flags) throws JanitorException {
        ConnectionSpec conn = null;
        try {
            RunOptions options = flags.toRunOptions(catalog);
            conn = catalog.connection(env).withSocketTimeoutAbove(options.statementTimeout());
            logContext(conn, options.metadataSchema());
            push.validate(env);
            if (flags.multiSchema(catalog)) {
                List<String> schemas = flags.allMetadataSchemas ? discoverStoppably(conn)
                        : catalog.metadataSchemas.stream().distinct().toList();
                return runMany(conn, options, schemas, flags.yes);
            }
            return runOne(conn, options, flags.yes);
        } catch (JanitorException e) {
            if (signalled.get() && ConnectionSpec.loginStopped(e)) {
                // SIGTERM/SIGINT while logging in: nothing was done, a stop and not a connection failure
                return stoppedWhileLoggingIn(conn, catalog.metadataSchema, ConnectionSpec.stoppedLoginTarget(e));
            }
            if (signalled.get() && RunWatchdog.cancelled(e)) {
                // SIGTERM/SIGINT: the run's watchdog cancelled the statement in flight (a read of an operation that has
                // no stopped result of its own): a stop, not a database error
                return stopped(conn, catalog.metadataSchema, "SIGTERM/SIGINT received while " + adapter.operation()
                        + " was running a catalog statement: the statement was cancelled (SQLSTATE 57014) and the run"
                        + " stopped; work committed before it is kept, rerun to do the rest.");
            }
            if (json) {
                Map<String, Object> doc = Render.error(adapter.operation(), conn, catalog.metadataSchema, e);
                if (signalled.get()) {
                    // stopped by SIGTERM/SIGINT while failing (e.g. while reconnecting): the process ends with the signal's code
                    doc.put("status", "stopped");
                    doc.put("exit_code", SignalExit.exitCode());
                    doc.put("stopped_by_signal", true);
                }
                Render.json(out, doc);
            }
            throw e;
        } finally {
            printed.countDown();
        }
    }

    /**
     * The end of a run that SIGTERM/SIGINT stopped while it was logging in to the catalog: the document (status
     * {@code stopped}, the signal's exit code, {@code stopped_by_signal}) or a text line, nothing else done.
     *
     * @param target the database whose login was stopped ({@link ConnectionSpec#stoppedLoginTarget}), or null for the
     *     run's catalog
     * @return the signal's exit code (143 or 130)
     */
    private int stoppedWhileLoggingIn(ConnectionSpec conn, String schema, String target) {
        String where = target == null || target.equals(conn.describe()) ? "the catalog " + conn.describe()
                : target + " (a database the run consults, e.g. by --also-catalog; the catalog is " + conn.describe() + ")";
        return stopped(conn, schema, "SIGTERM/SIGINT received while logging in to " + where
                + ": the login was interrupted by a stop request and nothing was done; rerun to do the work.");
    }

    /**
     * The end of a run that SIGTERM/SIGINT stopped without a result: the document (status {@code stopped}, the
     * signal's exit code, {@code stopped_by_signal}, no {@code reason}) or a text line.
     *
     * @param message what was stopped and what was done
     * @return the signal's exit code (143 or 130)
     */
    private int stopped(ConnectionSpec conn, String schema, String message) {
        int exit = SignalExit.exitCode();
        if (json) {
            Map<String, Object> doc = new java.util.LinkedHashMap<>();
            doc.put("operation", adapter.operation());
            doc.put("tool_version", VersionProvider.version());
            doc.put("status", "stopped");
            doc.put("catalog", Render.catalog(conn, schema));
            doc.put("exit_code", exit);
            doc.put("message", message);
            doc.put("budget_exhausted", false); // a signal is not a spent budget
            doc.put("stopped_by_signal", true);
            Render.json(out, doc);
        } else {
            out.println("stopped: " + message);
            out.flush();
        }
        return exit;
    }

    private int runOne(ConnectionSpec conn, RunOptions options, boolean yes) throws JanitorException {
        String schema = options.metadataSchema();
        MaintenanceRunReporter reporter = push.reporter(env, conn, schema, adapter.operation(), options.dryRun(), err);
        confirm(conn, List.of(schema), options, yes);
        reporter.started();
        // push time counts inside --run-budget
        MaintenanceOperation<R> op = adapter.create(conn, push.deductFrom(options), new ProgressPrinter(out, err, json, true, verbose));
        AtomicReference<MaintenanceOperation<R>> current = new AtomicReference<>(op);
        Thread hook = stopHook(current, new AtomicBoolean());
        R result;
        try {
            result = op.execute();
            reporter.succeeded(adapter.pushedGauges(result));
        } catch (JanitorException | RuntimeException e) {
            reporter.failed();
            throw e;
        } finally {
            removeHook(hook);
        }
        int exit = adapter.exitCode(result);
        if (json) {
            Map<String, Object> doc = Render.envelope(adapter.operation(), conn, schema, result);
            if (signalled.get()) {
                // the process ends with the signal's exit code; the document says so
                doc.put("status", "stopped");
                doc.put("exit_code", SignalExit.exitCode());
            } else {
                // a completed run can still end with findings (12) or failed files (13): the document agrees
                if (exit != ExitCodes.OK) {
                    doc.put("status", exit == Reason.FINDINGS.exitCode() ? "findings" : "error");
                } else if (result.cutShort()) {
                    // the run budget ended a storage or DuckLake call: what was done so far, exit 0 as for any budget stop
                    doc.put("status", "stopped");
                }
                doc.put("exit_code", exit);
            }
            doc.put("stopped_by_signal", signalled.get());
            Render.json(out, doc);
        } else {
            adapter.printText(out, conn, result, signalled.get());
        }
        long dropped = adapter.relationsDropped(result);
        if (!result.dryRun() && dropped > 0) {
            note("note: pg_class, pg_attribute and pg_type keep the dead rows of the " + dropped
                    + " dropped tables until (auto)vacuum processes them; a plain VACUUM (ANALYZE) of those catalogs helps. "
                    + "Do not run VACUUM FULL on a live catalog.");
        }
        return exit;
    }

    private int runMany(ConnectionSpec conn, RunOptions base, List<String> schemas, boolean yes) throws JanitorException {
        adapter.runSchemas(schemas);
        confirm(conn, schemas, base, yes);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<MaintenanceOperation<R>> current = new AtomicReference<>();
        Thread hook = stopHook(current, stop);
        List<MultiSchemaReport.Outcome<R>> outcomes = new ArrayList<>();
        List<String> notRun = new ArrayList<>();
        try {
            for (String schema : schemas) {
                if (stop.get()) {
                    notRun.add(schema);
                    continue;
                }
                logContext(conn, schema);
                note("info: == schema " + schema + " ==");
                java.time.Instant schemaStarted = java.time.Instant.now();
                MaintenanceRunReporter reporter = push.reporter(env, conn, schema, adapter.operation(), base.dryRun(), err);
                reporter.started();
                // push time counts inside --run-budget
                MaintenanceOperation<R> op = adapter.create(conn, push.deductFrom(base.toBuilder().metadataSchema(schema).build()),
                        new ProgressPrinter(out, err, json, true, verbose));
                current.set(op);
                try {
                    R result = op.execute();
                    reporter.succeeded(adapter.pushedGauges(result));
                    outcomes.add(new MultiSchemaReport.Outcome<>(schema, result, null, schemaStarted, java.time.Instant.now()));
                } catch (RuntimeException e) {
                    reporter.failed();
                    throw e;
                } catch (JanitorException e) {
                    reporter.failed();
                    if (stop.get() && ConnectionSpec.loginStopped(e)) {
                        // stopped while logging in: nothing was done on this schema, so it did not run (not a failure)
                        note("info: schema " + schema + ": stopped (SIGTERM/SIGINT) while logging in; not run");
                        notRun.add(schema);
                        continue;
                    }
                    err.println("error: schema " + schema + ": " + conn.redact(e.getMessage()));
                    err.println("hint: " + e.reason().hint());
                    err.flush();
                    outcomes.add(new MultiSchemaReport.Outcome<>(schema, null, e, schemaStarted, java.time.Instant.now()));
                }
            }
        } finally {
            removeHook(hook);
            logContext(conn, null);
        }
        MultiSchemaReport<R> report = new MultiSchemaReport<>(adapter, conn, outcomes, notRun,
                signalled.get() ? SignalExit.exitCode() : 0);
        int exit = report.exitCode();
        if (json) {
            Map<String, Object> doc = report.document();
            doc.put("skipped_schemas", skipped);
            doc.put("stopped_by_signal", signalled.get());
            Render.json(out, doc);
        } else {
            report.printText(out, signalled.get());
        }
        long dropped = outcomes.stream().filter(o -> o.result() != null && !o.result().dryRun())
                .mapToLong(o -> adapter.relationsDropped(o.result())).sum();
        if (dropped > 0) {
            note("note: pg_class, pg_attribute and pg_type keep the dead rows of the " + dropped
                    + " dropped tables until (auto)vacuum processes them. Do not run VACUUM FULL on a live catalog.");
        }
        return exit;
    }

    /** Asks on a terminal before an execute run (not with --yes, never in a dry run or without a terminal). */
    private void confirm(ConnectionSpec conn, List<String> schemas, RunOptions options, boolean yes) throws JanitorException {
        if (options.dryRun() || yes) {
            return;
        }
        Console console = System.console();
        if (console == null) {
            return;
        }
        String answer = console.readLine("%s", adapter.confirmation(conn, schemas, options));
        if (answer == null || !(answer.strip().equalsIgnoreCase("y") || answer.strip().equalsIgnoreCase("yes"))) {
            throw new JanitorException(Reason.ABORTED, "Not confirmed; nothing was changed.");
        }
    }

    /**
     * SIGTERM/SIGINT: no further schema; the operation running stops at its next safe point and its batch commits;
     * the hook then waits for the result to be printed, at most {@link #STOP_GRACE} in all (Kubernetes' default
     * grace period is 30 s).
     */
    private Thread stopHook(AtomicReference<MaintenanceOperation<R>> current, AtomicBoolean stop) {
        Thread hook = new Thread(() -> {
            long t0 = System.nanoTime();
            stop.set(true);
            signalled.set(true);
            MaintenanceOperation<R> op = current.get();
            // the process is stopping: the login in progress (if any) ends now and none starts after it
            ConnectionSpec.stopAllLogins();
            boolean finished = true;
            if (op != null) {
                op.requestStop();
                finished = op.awaitFinished(STOP_GRACE);
            }
            if (finished) {
                long left = STOP_GRACE.toNanos() - (System.nanoTime() - t0);
                try {
                    printed.await(Math.max(left, 0), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, "ducklake-janitor-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        return hook;
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException ignored) {
            // shutting down already
        }
    }

    /**
     * The context of this command's log lines ({@code --log-format json}): the catalog is its label on pushed metrics
     * ({@code --catalog-label}, else the database name), the schema
     * the metadata schema in work (null between the schemas of a multi-schema run), the operation this command.
     */
    private void logContext(ConnectionSpec conn, String schema) {
        StructuredLog.context(new StructuredLog.Context(push.label(conn), schema, adapter.operation(), false));
    }

    private void note(String line) {
        err.println(line);
        err.flush();
    }

    /** {@link #discover} under the stop hook: a SIGTERM/SIGINT during its login ends the run as stopped. */
    private List<String> discoverStoppably(ConnectionSpec conn) throws JanitorException {
        Thread hook = stopHook(new AtomicReference<>(), new AtomicBoolean());
        try {
            return discover(conn);
        } finally {
            removeHook(hook);
        }
    }

    /** --all-metadata-schemas: the catalogs of the database; schemas the role has no USAGE on are skipped with a note. */
    private List<String> discover(ConnectionSpec conn) throws JanitorException {
        try (Connection c = conn.open()) {
            CatalogDiscovery.Found found = CatalogDiscovery.discover(c);
            for (String schema : found.noUsage()) {
                String note = CatalogDiscovery.skippedNote(schema, conn.user());
                skipped.add(Map.of("schema", schema, "reason", "no USAGE privilege"));
                err.println("WARN: " + note);
                err.flush();
            }
            if (found.schemas().isEmpty()) {
                if (!found.noUsage().isEmpty()) {
                    throw new JanitorException(Reason.PERMISSION_DENIED, "The role " + conn.user() + " has no USAGE privilege on any "
                            + "schema of database " + conn.database() + " that may hold a DuckLake catalog ("
                            + found.noUsage().size() + " skipped).");
                }
                throw CatalogDiscovery.noCatalog(conn.database());
            }
            return found.schemas();
        } catch (SQLException e) {
            throw new JanitorException(Reason.DATABASE_ERROR, "Could not list the DuckLake catalogs of " + conn.describe() + ": "
                    + conn.redact(e.getMessage()), e);
        }
    }
}
