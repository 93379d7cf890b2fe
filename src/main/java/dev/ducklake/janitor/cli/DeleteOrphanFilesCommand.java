package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFiles;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesOptions;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesResult;
import dev.ducklake.janitor.ops.files.CatalogFiles;
import dev.ducklake.janitor.storage.FileStore;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.PrintWriter;
import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code ducklake-janitor delete-orphan-files}: parses flags, calls {@link DeleteOrphanFiles}, prints. */
@Command(name = "delete-orphan-files", mixinStandardHelpOptions = true,
        description = {"Deletes files under the data path that no catalog row knows: the candidates DuckLake's "
                + "ducklake_delete_orphaned_files would consider (names ending in .parquet, with --include-puffin also .puffin; last modified before "
                + "--older-than), compared in canonical form with every data file, delete file and queued file of this "
                + "catalog and of every other catalog in the database whose data path overlaps (tenants sharing a bucket).",
            "Without --execute it is a dry run listing the candidates with sizes and ages.",
            "Brakes (nothing is deleted): exit 14 when the data path is empty or a root (/ or a bucket without a prefix) "
                + "unless --allow-root-data-path; exit 15 when none of the listed files is known to the catalog (wrong "
                + "location or --data-path); exit 16 when candidates exceed --max-orphan-ratio of the listed files. "
                + "Exit 12 when catalog rows with an unresolvable location stopped the deletion; 13 on storage failures."})
public final class DeleteOrphanFilesCommand implements Callable<Integer> {

    static final String OPERATION = "delete-orphan-files";

    @ParentCommand
    JanitorCommand parent;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    CatalogOptions catalog;

    @Mixin
    StorageOptions storage;

    @Mixin
    PushOptions push;

    @Option(names = "--execute", description = "Delete the candidates. Default: off (dry run).")
    boolean execute;

    @Option(names = "--max-orphan-ratio", paramLabel = "FRACTION", defaultValue = "0.5",
            description = "Abort (exit 16) when candidates exceed this fraction of the files listed under the data path, "
                    + "0 to 1. Default: ${DEFAULT-VALUE}.")
    double maxOrphanRatio;

    @Option(names = "--allow-root-data-path",
            description = "Allow sweeping a data path that is a root (/ or s3://bucket/ without a prefix). Default: off (exit 14).")
    boolean allowRoot;

    @Option(names = "--include-puffin",
            description = "Also delete unknown .puffin files (deletion vectors), as DuckLake releases after 1.5.5 do. "
                    + "Default: off (DuckLake 1.5.5 considers only .parquet files; known .puffin files are never deleted).")
    boolean includePuffin;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean json = catalog.output == CatalogOptions.Output.json;
        ConnectionSpec conn = null;
        try {
            if (!(maxOrphanRatio >= 0 && maxOrphanRatio <= 1)) {
                throw new JanitorException(Reason.USAGE, "--max-orphan-ratio must be between 0 and 1, got " + maxOrphanRatio + ".");
            }
            String schema = catalog.singleSchema();
            DeleteOrphanFilesOptions o = DeleteOrphanFilesOptions.defaults(schema).withDataPath(storage.dataPath)
                    .withOlderThan(storage.olderThan()).withMinAge(storage.minAge()).withMaxOrphanRatio(maxOrphanRatio)
                    .withAllowRootPath(allowRoot).withIncludePuffin(includePuffin).withDryRun(!execute).withLockName(catalog.lockName);
            conn = catalog.connection(parent.env());
            push.validate(parent.env());
            MaintenanceRunReporter reporter = push.reporter(parent.env(), conn, schema, OPERATION, !execute, err);
            DeleteOrphanFilesResult r;
            try (Connection c = conn.open()) {
                String dataPath = CatalogFiles.resolver(c, schema, storage.dataPath).dataPath();
                reporter.started();
                try (FileStore store = storage.open(dataPath)) {
                    r = DeleteOrphanFiles.run(c, store, o, StorageOptions.printer(out, err, json));
                } catch (JanitorException | RuntimeException e) {
                    reporter.failed();
                    throw e;
                }
                if (r.failed() == 0) {
                    Map<String, MaintenanceRunReporter.PerRun> g = new LinkedHashMap<>();
                    g.put("ducklake_maintenance_orphan_files_deleted_last_run",
                            new MaintenanceRunReporter.PerRun(r.deleted(), "Orphan files deleted by the last successful delete-orphan-files run."));
                    g.put("ducklake_maintenance_orphan_files_deleted_bytes_last_run",
                            new MaintenanceRunReporter.PerRun(r.dryRun() ? 0 : r.candidateBytes(), "Bytes of the orphan candidates of the last successful run."));
                    g.put("ducklake_maintenance_files_listed_last_run",
                            new MaintenanceRunReporter.PerRun(r.listed(), "Files listed under the data path by the last successful run."));
                    reporter.succeeded(g);
                } else {
                    reporter.failed();
                }
            }
            if (json) {
                Render.json(out, Render.envelope(OPERATION, conn, schema, fields(r)));
            } else {
                print(out, r);
            }
            return r.failed() > 0 ? Reason.STORAGE.exitCode() : r.hasFindings() ? Reason.FINDINGS.exitCode() : ExitCodes.OK;
        } catch (java.sql.SQLException e) {
            JanitorException je = StorageOptions.databaseFailure(e, conn);
            if (json) {
                Render.json(out, Render.error(OPERATION, conn, catalog.metadataSchema, je));
            }
            throw je;
        } catch (JanitorException e) {
            if (json) {
                Render.json(out, Render.error(OPERATION, conn, catalog.metadataSchema, e));
            }
            throw e;
        }
    }

    static Map<String, Object> fields(DeleteOrphanFilesResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("dry_run", r.dryRun());
        m.put("data_path", r.dataPath());
        m.put("cutoff", r.cutoff().toString());
        m.put("cutoff_source", r.cutoffSource());
        m.put("catalogs_consulted", r.catalogsConsulted());
        m.put("known_paths", r.knownPaths());
        m.put("unresolved_known_rows", r.unresolvedKnownRows());
        m.put("listed", r.listed());
        m.put("kept_known", r.keptKnown());
        m.put("kept_by_name", r.keptByName());
        m.put("kept_young", r.keptYoung());
        m.put("candidates", r.candidates());
        m.put("candidate_bytes", r.candidateBytes());
        m.put("deleted", r.deleted());
        m.put("failed", r.failed());
        m.put("findings", r.findings());
        return m;
    }

    private static void print(PrintWriter out, DeleteOrphanFilesResult r) {
        out.printf("delete-orphan-files %s: data path %s, cutoff %s (%s)%n", r.dryRun() ? "(dry run)" : "", r.dataPath(),
                r.cutoff(), r.cutoffSource());
        out.printf("  catalogs consulted: %s (%d known paths, %d rows with no resolvable location)%n",
                String.join(", ", r.catalogsConsulted()), r.knownPaths(), r.unresolvedKnownRows());
        out.printf("  listed %d files: kept %d known, %d by name (not a DuckLake data file name), %d younger than the cutoff%n",
                r.listed(), r.keptKnown(), r.keptByName(), r.keptYoung());
        out.printf("  orphans: %d (%d bytes); deleted %d, failed %d%n", r.candidates(), r.candidateBytes(), r.deleted(), r.failed());
        for (String f : r.findings()) {
            out.println("  " + f);
        }
        out.flush();
    }
}
