package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.maintain.MaintainConfig;
import dev.ducklake.janitor.maintain.MaintainRun;
import dev.ducklake.janitor.maintain.MaintainRun.Status;
import dev.ducklake.janitor.maintain.MaintainRun.StepOutcome;
import dev.ducklake.janitor.maintain.MaintenanceStep;
import dev.ducklake.janitor.pg.ConnectionSpec;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/** {@code ducklake-janitor maintain}: reads the maintain configuration, runs the chain, prints one section per catalog and step. */
@Command(name = "maintain", mixinStandardHelpOptions = true,
        description = {"Runs a chain of maintenance steps (" + MaintainCommand.STEPS + ") on every catalog of a YAML configuration file, in the order the "
                + "file's 'maintain:' section lists them, through the same code as the single commands. Each step takes the "
                + "advisory lock itself and pushes its outcome to the Pushgateway with its own 'operation' label.",
            "One catalog's failure never stops the others. Within a schema, a failure that makes the catalog unusable "
                + "(connection, not a catalog, unsupported version, unsafe state) leaves its later steps not run; any other "
                + "failure lets the next step run. A step that is not possible on a catalog (a storage step without S3 credentials) "
                + "is reported as skipped, unless the file marks it 'required: true'. A check step exits 12 on findings of the severities its fail-on option names (default: damage). "
                + "A catalog whose password file cannot be read fails alone (exit 3).",
            "A step with 'every: 24h' in the file runs only when that long has passed since its last successful run on the "
                + "catalog (recorded in the table ducklake_janitor_runs of the file's state_schema); otherwise it is skipped as "
                + "not_due with its next due time.",
            "On a terminal an execute run lists every catalog, schema and step (with the dry-run counts the single commands "
                + "ask with) and asks first, unless --yes; without a terminal (cron, Kubernetes) it does not ask, as every "
                + "single command.",
            "The configuration is checked completely before anything runs: unknown keys, steps or options and bad values "
                + "are errors (exit 11) naming the file, the line and the key. Exit code: the worst step's, in the order "
                + Reason.EXIT_CODE_ORDER + ". Under --output json every "
                + "failure before the run (a configuration error, exit 11) prints a JSON error document too."})
public final class MaintainCommand implements Callable<Integer> {

    static final String OPERATION = "maintain";

    /** Stands for the steps in the description; {@link Operations} puts the names of its steps there, in the chain's order. */
    static final String STEPS = "{steps}";

    @ParentCommand
    JanitorCommand parent;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", required = true,
            description = "The YAML configuration: catalogs (the same list serve reads), the 'maintain:' steps with their options, "
                    + "run budgets and the Pushgateway URL (see README, Operating it). Required.")
    Path config;

    @Option(names = "--catalog-parallelism", paramLabel = "N", defaultValue = "1",
            description = "How many catalogs run at once, 1 to 64, each with its own connections. Default: ${DEFAULT-VALUE}.")
    int parallelism;

    @Option(names = "--dry-run", description = "Run every step as a dry run: nothing changed, no lock, nothing pushed. Default: off.")
    boolean dryRun;

    @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "text",
            description = "Result format on stdout: text (one section per catalog and step), json (one document with every "
                    + "step's result) or jsonl (that document on one line); progress and logs go to stderr. Default: ${DEFAULT-VALUE}.")
    OutputOptions.Output output;

    @Option(names = "--verbose", description = "Print stack traces of errors to stderr. Default: off.")
    boolean verbose;

    @Option(names = "--yes", description = "Do not ask for confirmation on a terminal. Default: off (asks only when run on a "
            + "terminal; cron and Kubernetes runs never ask).")
    boolean yes;

    @Option(names = "--only-catalog", paramLabel = "NAME", description = "Maintain only this catalog of the file (its 'name'); "
            + "repeat for several. Default: every catalog.")
    List<String> onlyCatalogs = new ArrayList<>();

    @Option(names = "--only-step", paramLabel = "STEP", description = "Run only this step of the file's chain (e.g. "
            + "delete-orphan-files); repeat for several; the chain's order is kept. Default: every step.")
    List<String> onlySteps = new ArrayList<>();

    @Option(names = "--skip-step", paramLabel = "STEP", description = "Leave this step of the file's chain out; repeat for several. "
            + "Default: none.")
    List<String> skipSteps = new ArrayList<>();

    @Option(names = "--run-budget", paramLabel = "DURATION", description = "The budget of the whole run, instead of the file's "
            + "run_budget: a duration (" + dev.ducklake.janitor.Durations.GRAMMAR + "), a number of seconds, or inf for none. "
            + "The catalogs' and steps' own budgets still apply. Default: the file's run_budget.")
    String runBudget;

    @Option(names = "--pushgateway-url", paramLabel = "URL", description = "Push each step's outcome to this Pushgateway instead "
            + "of the file's pushgateway_url (and of $PUSHGATEWAY_URL). Default: the file's.")
    String pushgatewayUrl;

    /** Where the confirmation is asked: the process's terminal, or null without one. Tests replace it. */
    static volatile java.util.function.Supplier<java.util.function.UnaryOperator<String>> terminal = () -> {
        java.io.Console c = System.console();
        return c == null ? null : question -> c.readLine("%s", question);
    };

    private final CountDownLatch printed = new CountDownLatch(1);
    private final AtomicBoolean signalled = new AtomicBoolean();

    @Override
    public Integer call() throws Exception {
        try {
            return run(spec.commandLine().getOut(), spec.commandLine().getErr());
        } finally {
            printed.countDown();
        }
    }

    private int run(PrintWriter out, PrintWriter err) throws Exception {
        Map<String, MaintenanceStep> registry = MaintainSteps.registry(() -> new ProgressPrinter(out, err, true, true, verbose), err);
        MaintainConfig cfg;
        MaintainRun run;
        try {
            cfg = prepare(registry);
            cfg.catalogs().forEach(c -> StructuredLog.addRedactor(c.connection()::redact));
            // as libpq warns (and as every single command does): a password file others can read is not used
            cfg.catalogs().stream().map(c -> c.connection().passwordSource().passFileWarning()).filter(java.util.Objects::nonNull)
                    .distinct().forEach(w -> err.println("WARN: " + w + "."));
            run = newRun(cfg, registry, err);
            confirm(run, cfg);
        } catch (JanitorException e) {
            if (output == OutputOptions.Output.json) {
                // every exit code has its document: a bad file (11), a bad flag (2), a declined confirmation (10)
                Map<String, Object> doc = Render.error(OPERATION, null, null, e);
                doc.remove("catalog");
                doc.put("config", String.valueOf(config));
                Render.json(out, doc);
            }
            throw e;
        }
        return execute(run, cfg, out);
    }

    /** The file, checked completely, narrowed and overridden by the command line. */
    private MaintainConfig prepare(Map<String, MaintenanceStep> registry) throws JanitorException {
        if (parallelism < 1 || parallelism > 64) {
            throw new JanitorException(Reason.USAGE, "--catalog-parallelism must be between 1 and 64, got " + parallelism + ".");
        }
        Duration budget = runBudget == null ? null : budget(runBudget);
        MaintenanceRunReporter.Target target = pushgatewayUrl == null ? null : MaintenanceRunReporter.parseUrl(pushgatewayUrl);
        MaintainConfig cfg = MaintainConfig.load(config, parent.env(), registry)
                .select(new LinkedHashSet<>(onlyCatalogs), new LinkedHashSet<>(onlySteps), new LinkedHashSet<>(skipSteps));
        if (runBudget != null) {
            cfg = cfg.withRunBudget(budget);
        }
        return target == null ? cfg : cfg.withPushgateway(target);
    }

    /** --run-budget: a positive duration of the one grammar, a number of seconds, or inf (null: none). */
    static Duration budget(String text) throws JanitorException {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.equals("inf") || t.equals("infinity")) {
            return null;
        }
        Duration d = dev.ducklake.janitor.maintain.OptionKind.duration(text);
        if (d == null || d.isZero()) {
            throw new JanitorException(Reason.USAGE, "--run-budget must be a positive duration (" + dev.ducklake.janitor.Durations.GRAMMAR
                    + "), a number of seconds or inf, got '" + dev.ducklake.janitor.Secrets.redact(text.strip()) + "'.");
        }
        return d;
    }

    /**
     * Asks on a terminal before an execute run, listing catalogs, schemas and steps with their dry-run counts (not with
     * --yes, never in a dry run or without a terminal: as every single command, {@link MaintenanceRunner}).
     */
    private void confirm(MaintainRun run, MaintainConfig cfg) throws JanitorException {
        if (dryRun || yes) {
            return;
        }
        java.util.function.UnaryOperator<String> ask = terminal.get();
        if (ask == null) {
            return;
        }
        StringBuilder q = new StringBuilder("maintain will run these steps (configuration " + cfg.source() + "):\n");
        run.plan().forEach(l -> q.append("  ").append(l).append('\n'));
        q.append("Run them on ").append(cfg.catalogs().size()).append(" catalog(s)? [y/N] ");
        String answer = ask.apply(q.toString());
        if (answer == null || !(answer.strip().equalsIgnoreCase("y") || answer.strip().equalsIgnoreCase("yes"))) {
            throw new JanitorException(Reason.ABORTED, "Not confirmed; nothing was changed.");
        }
    }

    private MaintainRun newRun(MaintainConfig cfg, Map<String, MaintenanceStep> registry, PrintWriter err) {
        boolean prefix = cfg.catalogs().size() > 1;
        return new MaintainRun(cfg, registry, dryRun, parallelism, new MaintainRun.Observer() {
            @Override
            public void starting(MaintainConfig.Catalog catalog, String schema, String step) {
                StructuredLog.context(new StructuredLog.Context(catalog.name(), schema, step, prefix));
                err.println("info: == " + step + " on catalog " + catalog.name() + ", schema " + schema + " ==");
                err.flush();
            }

            @Override
            public void finished(StepOutcome o) {
                String took = " (" + Render.seconds(o.elapsedSeconds()) + ")";
                switch (o.status()) {
                    case ok, findings -> err.println("info: " + o.step() + ": " + o.status() + took);
                    // a step that is not due is the cadence working, not something to look at (--quiet hides it)
                    case skipped -> err.println((MaintainRun.NOT_DUE.equals(o.skipReason()) ? "info: " : "WARN: ") + o.step()
                            + " skipped: " + o.message() + took);
                    case not_run -> err.println("WARN: " + o.step() + " not run: " + o.message());
                    case stopped -> err.println("WARN: " + o.step() + " stopped: " + o.message() + took);
                    default -> {
                        err.println("error: " + o.step() + " failed (exit " + o.exitCode() + ", "
                                + o.reason().name().toLowerCase(Locale.ROOT) + "): " + o.message() + took);
                        err.println("hint: " + o.reason().hint());
                    }
                }
                err.flush();
                StructuredLog.context(new StructuredLog.Context(null, null, OPERATION, false));
            }
        }, msg -> {
            err.println("WARN: " + msg);
            err.flush();
        });
    }

    private int execute(MaintainRun run, MaintainConfig cfg, PrintWriter out) throws Exception {
        Thread hook = new Thread(() -> {
            long t0 = System.nanoTime();
            signalled.set(true);
            run.requestStop();
            // the process is stopping: a login in progress (a step's, the schema discovery's) ends now, none starts after it
            ConnectionSpec.stopAllLogins();
            try {
                printed.await(Math.max(0, MaintenanceRunner.STOP_GRACE.toNanos() - (System.nanoTime() - t0)), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "ducklake-janitor-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        List<List<StepOutcome>> outcomes;
        try {
            outcomes = run.execute();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException ignored) {
                // shutting down already
            }
        }
        // after SIGTERM/SIGINT the process exits with the signal's code (143/130): the document and the return value agree
        int exit = signalled.get() ? SignalExit.exitCode() : worst(outcomes);
        if (output != OutputOptions.Output.text) {
            Render.json(out, document(cfg, outcomes, exit));
        } else {
            printText(out, cfg, outcomes, exit);
        }
        return exit;
    }

    /** The worst exit code by {@link Reason#worseExitCode} (the order of {@link Reason#exitCodesBySeverity()}). */
    static int worst(List<List<StepOutcome>> outcomes) {
        int worst = 0;
        for (List<StepOutcome> l : outcomes) {
            for (StepOutcome o : l) {
                worst = Reason.worseExitCode(worst, o.exitCode());
            }
        }
        return worst;
    }

    Map<String, Object> document(MaintainConfig cfg, List<List<StepOutcome>> outcomes, int exit) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("operation", OPERATION);
        doc.put("tool_version", VersionProvider.version());
        doc.put("status", signalled.get() ? "stopped" : exit == 0 ? "ok" : exit == Reason.FINDINGS.exitCode() ? "findings" : "error");
        doc.put("exit_code", exit);
        doc.put("dry_run", dryRun);
        doc.put("stopped_by_signal", signalled.get());
        doc.put("config", String.valueOf(cfg.source()));
        List<Map<String, Object>> cats = new ArrayList<>();
        Map<String, Long> counts = new LinkedHashMap<>();
        for (Status s : Status.values()) {
            counts.put("steps_" + s.name(), 0L);
        }
        for (int i = 0; i < cfg.catalogs().size(); i++) {
            MaintainConfig.Catalog c = cfg.catalogs().get(i);
            Map<String, Object> cat = new LinkedHashMap<>();
            cat.put("name", c.name());
            cat.putAll(Render.catalog(c.connection(), null));
            cat.remove("schema");
            List<Map<String, Object>> steps = new ArrayList<>();
            for (StepOutcome o : outcomes.get(i)) {
                counts.merge("steps_" + o.status().name(), 1L, Long::sum);
                steps.add(step(c, o, stepExit(o)));
            }
            int catExit = 0;
            for (StepOutcome o : outcomes.get(i)) {
                catExit = Reason.worseExitCode(catExit, stepExit(o));
                if (signalled.get() && (o.status() == Status.stopped || o.status() == Status.not_run)) {
                    catExit = SignalExit.exitCode();
                }
            }
            cat.put("exit_code", catExit);
            cat.put("status", catExit == 0 ? "ok" : catExit == Reason.FINDINGS.exitCode() ? "findings"
                    : signalled.get() && catExit == SignalExit.exitCode() ? "stopped" : "error");
            StepOutcome whole = wholeCatalogFailure(c, outcomes.get(i));
            if (whole != null) {
                // the catalog could not be maintained at all (its password file cannot be read, connection refused, not a
                // catalog): why, once; every step says so too
                cat.put("reason", whole.reason().name().toLowerCase(Locale.ROOT));
                cat.put("message", c.connection().redact(whole.message()));
            }
            cat.put("steps", steps);
            cats.add(cat);
        }
        doc.put("catalogs", cats);
        doc.put("summary", counts);
        return doc;
    }

    /**
     * @return the failure that kept the whole catalog from being maintained: its configuration's (e.g. an unreadable
     *     password file), or the first step's when every step failed with the same reason and none completed (connection
     *     refused, not a catalog, the advisory lock held by another run, ...); null when some step ran or failed otherwise
     */
    static StepOutcome wholeCatalogFailure(MaintainConfig.Catalog c, List<StepOutcome> outcomes) {
        if (c.failure() != null) {
            return new StepOutcome(c.name(), null, "*", Status.error, c.failure().reason(), c.failure().getMessage(), null, 0);
        }
        boolean all = !outcomes.isEmpty() && outcomes.stream().allMatch(o -> o.status() == Status.error && o.result() == null
                && o.reason() == outcomes.get(0).reason());
        return all ? outcomes.get(0) : null;
    }

    /** A step's exit code in the document: a step stopped by SIGTERM/SIGINT carries the process's (143/130). */
    private int stepExit(StepOutcome o) {
        return o.status() == Status.stopped && signalled.get() ? SignalExit.exitCode() : o.exitCode();
    }

    private static Map<String, Object> step(MaintainConfig.Catalog c, StepOutcome o, int exit) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("schema", o.schema());
        s.put("step", o.step());
        s.put("status", o.status().name());
        s.put("exit_code", exit);
        if (o.reason() != null) {
            s.put("reason", o.reason().name().toLowerCase(Locale.ROOT));
            s.put("hint", o.reason().hint());
        }
        if (o.message() != null) {
            s.put("message", c.connection().redact(o.message()));
        }
        if (o.skipReason() != null) {
            s.put("reason", o.skipReason());
        }
        if (o.lastSuccessAt() != null) {
            s.put("last_success_at", o.lastSuccessAt().toString());
        }
        if (o.nextDueAt() != null) {
            s.put("next_due_at", o.nextDueAt().toString());
        }
        s.put("elapsed_seconds", o.elapsedSeconds());
        if (o.result() != null) {
            s.put("result", Render.JSON.convertValue(o.result(), Map.class));
        }
        return s;
    }

    private void printText(PrintWriter out, MaintainConfig cfg, List<List<StepOutcome>> outcomes, int exit) {
        Map<Status, Integer> counts = new LinkedHashMap<>();
        for (int i = 0; i < cfg.catalogs().size(); i++) {
            MaintainConfig.Catalog c = cfg.catalogs().get(i);
            out.printf(Locale.ROOT, "== catalog %s (%s)%s ==%n", c.name(), c.connection().describe(), dryRun ? ", dry run" : "");
            StepOutcome whole = wholeCatalogFailure(c, outcomes.get(i));
            if (whole != null) {
                out.printf(Locale.ROOT, "catalog %s cannot be maintained (exit %d, %s): %s%n", c.name(), whole.exitCode(),
                        whole.reason().name().toLowerCase(Locale.ROOT), c.connection().redact(whole.message()));
            }
            for (StepOutcome o : outcomes.get(i)) {
                counts.merge(o.status(), 1, Integer::sum);
                out.printf(Locale.ROOT, "-- %s, schema %s: %s%s%n", o.step(), o.schema() == null ? "?" : o.schema(),
                        o.status() == Status.error ? "FAILED (exit " + o.exitCode() + ", " + o.reason().name().toLowerCase(Locale.ROOT) + ")"
                                : o.status() == Status.stopped ? "STOPPED (exit " + stepExit(o) + ")"
                                : o.status().name().replace('_', ' '),
                        o.message() == null ? "" : ": " + c.connection().redact(o.message()));
                if (o.result() != null && !MaintainSteps.printText(out, o.step(), c.connection(), o.result(), signalled.get())) {
                    Render.JSON.convertValue(o.result(), Map.class).forEach((k, v) -> out.printf(Locale.ROOT, "  %-30s %s%n", k, v));
                }
            }
            out.println();
        }
        out.printf(Locale.ROOT, "maintain: %d catalog(s); steps: %s; exit code %d%s%n", cfg.catalogs().size(),
                String.join(", ", counts.entrySet().stream().map(e -> e.getValue() + " " + e.getKey().name().replace('_', ' ')).toList()),
                exit, signalled.get() ? " (stopped: SIGTERM/SIGINT received)" : "");
        out.flush();
    }
}
