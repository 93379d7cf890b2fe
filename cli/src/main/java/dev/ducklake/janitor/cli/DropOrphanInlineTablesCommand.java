package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.ops.runtime.MaintenanceOperation;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.pg.ConnectionSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

/** {@code ducklake-janitor drop-orphan-inline-tables}: parses flags, runs the engine through {@link MaintenanceRunner}, prints. */
@Command(name = "drop-orphan-inline-tables", mixinStandardHelpOptions = true,
        resourceBundle = "dev.ducklake.janitor.cli.DropOrphanInlineTablesCommand",
        description = {"Drops the inlined-data tables (ducklake_inlined_data_<table_id>_<schema_version>) of DuckLake tables that "
                + "no retained snapshot can reach, and deletes their rows from ducklake_inlined_data_tables, in batches of one "
                + "transaction each. Only empty tables are dropped (unless --include-nonempty); non-empty ones are kept "
                + "and reported. Works on the "
                + "PostgreSQL catalog directly; never opens DuckDB.",
            "A dry run (--dry-run) changes nothing and takes no lock. An execute run on a terminal asks for confirmation "
                + "unless --yes is given; non-interactive runs (cron) do not ask.",
            "Unregistered leftovers (ducklake_inlined_data_<id>_<v> without a registry row) and inlined deletion tables "
                + "(ducklake_inlined_delete_<id>) of unreachable table_ids are always reported; --include-unregistered drops them.",
            "Several catalogs: --metadata-schema may be given several times, or --all-metadata-schemas finds every schema with "
                + "a DuckLake catalog; each runs in turn with its own connection and lock. The exit code is then the worst "
                + "schema's: " + dev.ducklake.janitor.JanitorException.Reason.EXIT_CODE_ORDER + "."})
public final class DropOrphanInlineTablesCommand extends MaintenanceCommand<DropOrphanInlineTablesResult> {

    static final String OPERATION = "drop-orphan-inline-tables";

    public DropOrphanInlineTablesCommand() {
        super(OPERATION, DropOrphanInlineTablesResult.class);
    }

    @Option(names = "--include-unregistered",
            description = "Also drop tables that have no registry row: unregistered leftovers ducklake_inlined_data_<id>_<v> "
                    + "and inlined deletion tables ducklake_inlined_delete_<id>, both only when the table_id is unreachable "
                    + "(same lock, emptiness check, batching and retries; re-checked under the table lock). Without it they "
                    + "are only reported. Default: off.")
    boolean includeUnregistered;

    @Option(names = "--include-nonempty",
            description = "Also drop orphans that still hold rows (a table dropped before its inlined rows were flushed). "
                    + "No retained snapshot can read those rows; DuckLake's own snapshot expiry drops such tables whatever "
                    + "their content. The dry run lists each with its exact row count first. Default: off (skipped with a warning).")
    boolean includeNonempty;

    @Override
    public Integer call() throws JanitorException {
        return runOperation();
    }


    @Override
    public MaintenanceOperation<DropOrphanInlineTablesResult> create(ConnectionSpec conn, RunOptions options,
                                                                     ProgressListener listener) {
        return new DropOrphanInlineTables(conn, new DropOrphanInlineTablesOptions(options, includeUnregistered, includeNonempty),
                listener);
    }

    /** The per-run gauges pushed after a successful execute run (names documented in the README). */
    @Override
    public Map<String, MaintenanceRunReporter.PerRun> pushedGauges(DropOrphanInlineTablesResult r) {
        return new PerRunGauges()
                .add("ducklake_maintenance_inline_orphans_dropped_last_run", r.dropped(),
                        "Orphaned inlined-data tables dropped by the last successful run.")
                .add("ducklake_maintenance_inline_orphans_skipped_nonempty_last_run", r.skippedNonempty(),
                        "Non-empty orphaned inlined tables of every kind (registered and "
                        + "unregistered inlined-data tables, inlined deletion tables) kept by the last successful run.")
                .add("ducklake_maintenance_inline_orphans_skipped_nonempty_unregistered_last_run", r.skippedNonemptyUnregistered(),
                        "Of the non-empty orphans kept by the last "
                        + "successful run: unregistered leftover inlined-data tables.")
                .add("ducklake_maintenance_inline_orphans_skipped_nonempty_inlined_delete_last_run", r.skippedNonemptyInlinedDelete(),
                        "Of the non-empty orphans kept by the last "
                        + "successful run: inlined deletion tables.")
                .add("ducklake_maintenance_inline_orphans_dropped_unregistered_last_run", r.droppedUnregistered(),
                        "Unregistered leftover inlined-data tables dropped by the last successful run.")
                .add("ducklake_maintenance_inline_orphans_dropped_inlined_delete_last_run", r.droppedInlinedDelete(),
                        "Inlined deletion tables of unreachable tables dropped by the last successful run.")
                .add("ducklake_maintenance_inline_orphans_remaining", r.remaining(),
                        "Orphan registry rows left after the last successful run.")
                .add("ducklake_maintenance_inline_orphans_budget_exhausted_last_run", r.budgetExhausted() || r.stopRequested() ? 1 : 0,
                        "1 when the last successful run stopped early (--run-budget spent, or SIGTERM/SIGINT); the rest is left for the next run.")
                .map();
    }

    @Override
    public void printText(PrintWriter out, ConnectionSpec conn, DropOrphanInlineTablesResult result, boolean signalled) {
        DropOrphanInlineTablesText.print(out, conn, result, signalled, verbose.verbose);
    }

    /** Counts what the execute run would drop with a dry run of each schema, then asks. */
    @Override
    public String confirmation(ConnectionSpec conn, List<String> schemas, RunOptions options) throws JanitorException {
        long wouldDrop = 0;
        long nonEmptyKept = 0;
        for (String schema : schemas) {
            DropOrphanInlineTablesResult dry = create(conn, options.toBuilder().metadataSchema(schema).dryRun(true).build(),
                    ProgressListener.NONE).execute();
            wouldDrop += dry.wouldDrop();
            nonEmptyKept += includeNonempty ? 0 : dry.orphanNonempty() + (includeUnregistered ? dry.unregisteredNonempty() : 0);
        }
        return String.format(java.util.Locale.ROOT, "Drop %d orphaned inlined table(s)%s in %s? [y/N] ",
                wouldDrop, nonEmptyKept > 0 ? " (" + nonEmptyKept + " non-empty kept)" : "", Render.where(conn, schemas));
    }

    @Override
    public long relationsDropped(DropOrphanInlineTablesResult r) {
        return r.dropped() + r.droppedUnregistered() + r.droppedInlinedDelete();
    }

    /** A dry run's total shows what would go, an execute run's what went (not "would drop 0" / "dropped 0"). */
    @Override
    public List<String> totalFields(boolean dryRun) {
        // the keys of DropOrphanInlineTablesResult#doneOrWould: an execute run's figures are not in a dry run's JSON
        List<String> executeOnly = List.of("dropped", "dropped_unregistered", "dropped_inlined_delete", "dropped_nonempty",
                "inlined_rows_dropped", "skipped_nonempty");
        return List.of("registry_rows", "orphan_rows", "unregistered_orphans", "inlined_delete_orphans",
                "would_drop", "dropped", "dropped_unregistered", "dropped_inlined_delete", "dropped_nonempty",
                "inlined_rows_dropped", "skipped_nonempty", "unregistered_anomalies", "remaining", "remaining_unregistered")
                .stream().filter(k -> dryRun ? !executeOnly.contains(k) : !k.equals("would_drop")).toList();
    }
}
