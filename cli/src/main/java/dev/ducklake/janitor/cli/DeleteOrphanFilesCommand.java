package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.ops.runtime.MaintenanceOperation;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFiles;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesOptions;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesResult;
import dev.ducklake.janitor.pg.ConnectionSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

/** {@code ducklake-janitor delete-orphan-files}: parses flags, runs the engine through {@link MaintenanceRunner}, prints. */
@Command(name = "delete-orphan-files", mixinStandardHelpOptions = true,
        modelTransformer = DeleteOrphanFilesCommand.UnusedRunFlags.class,
        resourceBundle = "dev.ducklake.janitor.cli.DeleteOrphanFilesCommand",
        description = {"Deletes files under the data path that no catalog row knows: the candidates DuckLake 1.5.5's "
                + "ducklake_delete_orphaned_files would consider (names ending in .parquet, with --include-puffin also "
                + ".puffin; last modified before --older-than), compared in canonical form with every data file, delete "
                + "file and queued file of this catalog and of every other catalog in the database whose data path "
                + "overlaps (tenants sharing a bucket), of the overlapping catalogs of the server's other databases (--no-consult-server) "
                + "and of --also-catalog. The catalog is only read.",
            "A dry run (--dry-run) lists the candidates with sizes and ages. An execute run on a terminal asks for "
                + "confirmation unless --yes is given; non-interactive runs (cron) do not ask.",
            "Brakes (nothing is deleted, also in a dry run): exit 14 when the data path is empty or a root (/ or a bucket "
                + "without a prefix) unless --allow-root-data-path; exit 15 when none of the listed files is known to the "
                + "catalog (wrong location or --data-path); exit 16 when candidates exceed --max-orphan-ratio of the listed "
                + "files; exit 17 when ducklake-<uuid> candidates lie in a table folder no consulted catalog knows, unless "
                + "--allow-unknown-table-folders; exit 18 when a candidate has the path of a file a consulted catalog names "
                + "under another scheme, authority or host (s3:// listed, r2:// or https:// in the catalog: maybe one object). "
                + "Exit 8 when a DuckLake catalog of the database (or of a consulted database) "
                + "cannot be read: its data path is unknown, so it may hold live files here (--exclude-catalog-schema for one "
                + "proven disjoint). Exit 12 when catalog rows with an unresolvable location stopped the deletion; 13 on storage failures."})
public final class DeleteOrphanFilesCommand extends StorageCommand<DeleteOrphanFilesResult, DeleteOrphanFilesOptions> {

    static final String OPERATION = "delete-orphan-files";

    /**
     * Removes the run flags this command does not use from its model, so that they are neither offered in --help nor
     * accepted: --batch-size (deletes go out in the store's own batches, S3 1,000 keys a request) and --max-batches (one
     * listing, then the deletes: one pass, not batches that a later run resumes). --run-budget stays: it bounds the
     * listing, every store call and the deletes.
     */
    static final class UnusedRunFlags implements picocli.CommandLine.IModelTransformer {
        @Override
        public picocli.CommandLine.Model.CommandSpec transform(picocli.CommandLine.Model.CommandSpec spec) {
            for (String name : List.of("--batch-size", "--max-batches")) {
                picocli.CommandLine.Model.OptionSpec o = spec.findOption(name);
                if (o != null) {
                    spec.remove(o);
                }
            }
            return spec;
        }
    }

    public DeleteOrphanFilesCommand() {
        super(OPERATION, DeleteOrphanFilesResult.class);
    }

    @Option(names = "--max-orphan-ratio", paramLabel = "FRACTION", defaultValue = "0.5",
            description = "Abort (exit 16) when candidates exceed this fraction of the files listed under the data path "
                    + "(with --inventory: of its candidates and the entries a consulted catalog knows; other entries are not "
                    + "checked against the store and do not count), 0 to 1. Default: ${DEFAULT-VALUE}.")
    double maxOrphanRatio;

    @Option(names = "--allow-root-data-path",
            description = "Allow sweeping a data path that is a root (/ or s3://bucket/ without a prefix). Default: off (exit 14).")
    boolean allowRoot;

    @Option(names = "--include-puffin",
            description = "Also delete unknown .puffin files (deletion vectors), as DuckLake releases after 1.5.5 do. "
                    + "Default: off (DuckLake 1.5.5 considers only .parquet files; known .puffin files are never deleted).")
    boolean includePuffin;

    @Option(names = "--allow-unknown-table-folders",
            description = "Delete candidates in DuckLake table folders that hold ducklake-<uuid> data or delete files as candidates "
                    + "(whatever else they hold, known files included) and that no consulted catalog knows as a table folder; logged "
                    + "as a warning. Default: off (exit 17: "
                    + "such folders may belong to a catalog this run cannot see, e.g. on another server sharing the storage; name it "
                    + "with --also-catalog instead).")
    boolean allowUnknownTableFolders;

    @StepOptions.CliOnly
    @Option(names = "--inventory", paramLabel = "FILE|s3://KEY",
            description = "Read the store's objects from this inventory instead of listing the data path, a local file or an "
                    + "s3://bucket/key read with the data path's S3 settings: a plain list (one address per line as the store "
                    + "spells it: a local path, file:// or s3://bucket/key; optionally a tab, the size in bytes, a tab and the "
                    + "last-modified ISO-8601 instant) or an S3 Inventory manifest.json with CSV (gzip'd or not) or Parquet "
                    + "listings (Parquet needs DuckDB's JDBC driver, exit 21 without it; ORC refused). The listing files come "
                    + "from the manifest's destination bucket (a local manifest: beside it) and must match the manifest's size "
                    + "and MD5, else exit 2 and nothing is deleted. "
                    + "Entries outside the data path are ignored; every brake applies as to a listing, and every candidate is "
                    + "confirmed with a stat of the store just before its delete round (gone: skipped; modified since the "
                    + "cutoff: kept). A dry run reports the inventory's view. Default: none (list the store).")
    String inventory;

    @Override
    DeleteOrphanFilesOptions options() throws JanitorException {
        return storage.applyTo(DeleteOrphanFilesOptions.builder(catalog.metadataSchema)).maxOrphanRatio(maxOrphanRatio)
                .allowRootPath(allowRoot).includePuffin(includePuffin).allowUnknownTableFolders(allowUnknownTableFolders)
                .inventory(inventory).build();
    }

    @Override
    public MaintenanceOperation<DeleteOrphanFilesResult> create(ConnectionSpec conn, RunOptions options, ProgressListener listener) {
        return new DeleteOrphanFiles(conn, base.withRun(options).withConsult(consultOptions(conn)), storage.store::open, filePrinter(),
                listener);
    }

    @Override
    public Map<String, MaintenanceRunReporter.PerRun> pushedGauges(DeleteOrphanFilesResult r) {
        return new PerRunGauges().label("short_retention", String.valueOf(r.allowShortRetention()))
                .add("ducklake_maintenance_orphan_files_deleted_last_run", r.deleted(),
                        "Orphan files deleted by the last successful delete-orphan-files run.")
                .add("ducklake_maintenance_orphan_files_deleted_bytes_last_run", r.bytesDeleted(),
                        "Bytes of the orphan files deleted by the last successful run (their listed sizes).")
                .add("ducklake_maintenance_files_listed_last_run", r.listed(),
                        "Files listed under the data path by the last successful run.")
                .map();
    }

    @Override
    public int exitCode(DeleteOrphanFilesResult r) {
        return r.exitCode();
    }

    @Override
    public void printText(PrintWriter out, ConnectionSpec conn, DeleteOrphanFilesResult r, boolean signalled) {
        out.printf("delete-orphan-files%s: schema %s, data path %s, cutoff %s (%s)%n", r.dryRun() ? " (dry run)" : "",
                r.schema(), r.dataPath(), r.cutoff(), r.cutoffSource());
        printConsulted(out, r.catalogsConsulted(), r.excludedCatalogSchemas(), r.databasesNotConsulted());
        out.printf("  %d known paths, %d rows with no resolvable location%n", r.knownPaths(), r.unresolvedKnownRows());
        if (r.unknownTableFoldersTotal() > 0) {
            out.printf("  %d unknown DuckLake table folder(s) swept (--allow-unknown-table-folders): %s%n",
                    r.unknownTableFoldersTotal(), String.join(", ", r.unknownTableFolders()));
        }
        if (r.leftToOtherSchemas() > 0) {
            out.printf("  %d files left to the pass of a schema of this run whose data path lies deeper%n", r.leftToOtherSchemas());
        }
        if ("inventory".equals(r.listingSource())) {
            out.printf("  from the inventory (%d entries): the counts below are its entries under the data path%n",
                    r.inventoryEntries());
        }
        out.printf("  listed %d files: kept %d known, %d by name (not a DuckLake data file name), %d younger than the cutoff%n",
                r.listed(), r.keptKnown(), r.keptByName(), r.keptYoung());
        if (r.inventoryGone() + r.inventoryModified() + r.inventoryStatFailed() > 0) {
            out.printf("  confirmed with the store before deleting: %d gone since the inventory, %d modified since (kept), %d not"
                    + " confirmed (stat failed, kept)%n", r.inventoryGone(), r.inventoryModified(), r.inventoryStatFailed());
        }
        if (r.dryRun()) {
            long would = r.doneOrWould().get("files_would_delete");
            out.printf("  orphans: %d (%d bytes); would delete %d (%d bytes)%s%n", r.candidates(), r.candidateBytes(), would,
                    r.doneOrWould().get("bytes_would_delete"), r.failed() > 0 ? ", would fail " + r.failed() : "");
        } else {
            out.printf("  orphans: %d (%d bytes); deleted %d (%d bytes freed), failed %d%n", r.candidates(), r.candidateBytes(),
                    r.deleted(), r.bytesDeleted(), r.failed());
        }
        if (r.keptNonCanonical() > 0) {
            out.printf("  kept %d listed keys not in canonical spelling (doubled slash, '.' segment, escape): never DuckLake files%n",
                    r.keptNonCanonical());
        }
        if (r.keptRegisteredDuringRun() > 0) {
            out.printf("  kept %d candidates a catalog registered during the run (re-checked before each delete batch)%n",
                    r.keptRegisteredDuringRun());
        }
        if (r.allowShortRetention()) {
            out.println("  --allow-short-retention was given: the floor could be undercut");
        }
        if (r.run().stopReason() != null && r.run().stopReason() != dev.ducklake.janitor.ops.runtime.RunFigures.StopReason.COMPLETED) {
            out.printf("  stopped early (%s%s): %s%n", signalled ? "signal" : r.run().stopReason(),
                    r.stoppedDuring() == null ? "" : ", during " + r.stoppedDuring(), "listing".equals(r.stoppedDuring())
                            ? "the listing was not finished, nothing was deleted; the next run lists again"
                            : "the candidates left are for the next run");
        }
        printFindings(out, r.findings(), r.findingsTotal());
        printFileListHint(out, r.candidates() + r.keptRegisteredDuringRun());
        out.flush();
    }

    @Override
    public String confirmation(ConnectionSpec conn, List<String> schemas, RunOptions options) {
        return "Delete files no catalog row knows under the data path of the DuckLake catalog in " + Render.where(conn, schemas)
                + "? [y/N] ";
    }

    @Override
    public List<String> totalFields(boolean dryRun) {
        return dryRun ? List.of("listed", "kept_known", "kept_by_name", "kept_young", "candidates", "candidate_bytes",
                "files_would_delete", "bytes_would_delete", "files_would_fail", "kept_non_canonical")
                : List.of("listed", "kept_known", "kept_by_name", "kept_young", "candidates", "candidate_bytes", "files_deleted",
                "bytes_deleted", "files_failed", "kept_registered_during_run", "kept_non_canonical");
    }
}
