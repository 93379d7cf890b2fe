package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code ducklake-janitor demo}: starts an embedded PostgreSQL, writes a leaked DuckLake catalog into it, and
 * runs drop-orphan-inline-tables as a dry run and then for real, printing both summaries.
 */
@Command(name = OptionalCommands.DEMO, mixinStandardHelpOptions = true, description = OptionalCommands.DEMO_DESCRIPTION)
public final class DemoCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--leaked", paramLabel = "N", defaultValue = "3000",
            description = "Number of leaked inlined tables to create (0 to 100000). Default: ${DEFAULT-VALUE}.")
    int leaked;

    @Option(names = "--batch-size", paramLabel = "N", defaultValue = "500",
            description = "Batch size of the execute run (1 to 2000; lowered to the lock budget). Default: ${DEFAULT-VALUE}.")
    int batchSize;

    @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "text",
            description = "text, json (one document with both runs) or jsonl (that document on one line). Default: ${DEFAULT-VALUE}.")
    OutputOptions.Output output;

    @Option(names = "--verbose", description = "Print stack traces of errors. Default: off.")
    boolean verbose;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (leaked < 0 || leaked > 100_000) {
            throw new JanitorException(Reason.USAGE, "--leaked must be between 0 and 100000, got " + leaked + ".");
        }
        if (batchSize < 1 || batchSize > 2000) {
            throw new JanitorException(Reason.USAGE, "--batch-size must be between 1 and 2000 tables, got " + batchSize + ".");
        }
        boolean json = output != OutputOptions.Output.text;
        err.println("demo: starting an embedded PostgreSQL ...");
        err.flush();
        try (EmbeddedPostgres pg = EmbeddedServers.start(EmbeddedPostgres.builder(), "demo")) {
            String url = pg.getJdbcUrl("postgres", "postgres");
            ConnectionSpec conn = ConnectionSpec.parse(url, Map.of(), null);
            long t0 = System.nanoTime();
            try (Connection c = conn.open()) {
                DemoScenario.build(c, "public", leaked);
            }
            err.printf(Locale.ROOT, "demo: wrote a DuckLake 1.0 catalog with %d leaked inlined tables into %s in %s%n", leaked,
                    conn.describe(), Render.seconds((System.nanoTime() - t0) / 1e9));
            err.flush();
            ProgressListener listener = new ProgressPrinter(out, err, json, false, false);
            DropOrphanInlineTablesOptions base = DropOrphanInlineTablesOptions.builder().batchSize(batchSize).build();
            DropOrphanInlineTablesResult dry = new DropOrphanInlineTables(conn, base.toBuilder().dryRun(true).build(), listener).execute();
            if (!json) {
                DropOrphanInlineTablesText.print(out, conn, dry, false, true);
                out.println();
            }
            DropOrphanInlineTablesResult run = new DropOrphanInlineTables(conn, base, listener).execute();
            if (json) {
                Map<String, Object> doc = new LinkedHashMap<>();
                doc.put("operation", "demo");
                doc.put("tool_version", VersionProvider.version());
                doc.put("dry_run", Render.envelope(DropOrphanInlineTablesCommand.OPERATION, conn, "public", dry));
                doc.put("execute", Render.envelope(DropOrphanInlineTablesCommand.OPERATION, conn, "public", run));
                Render.json(out, doc);
            } else {
                DropOrphanInlineTablesText.print(out, conn, run, false, true);
            }
            err.println("demo: done; the embedded PostgreSQL is stopped and deleted.");
            err.flush();
        }
        return ExitCodes.OK;
    }
}
