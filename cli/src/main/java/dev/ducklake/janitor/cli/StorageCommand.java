package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.runtime.MaintenanceResult;
import dev.ducklake.janitor.ops.files.ConsultOptions;
import dev.ducklake.janitor.ops.files.ConsultedCatalogs;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.ops.files.StorageRunOptions;
import picocli.CommandLine.Mixin;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Base of the subcommands that work on the catalog's files in storage (cleanup-old-files, delete-orphan-files): adds
 * the {@link StorageOptions} flags to {@link MaintenanceCommand}'s, and prints each file event in text output.
 *
 * @param <R> the operation's result
 * @param <O> the operation's options
 */
abstract class StorageCommand<R extends MaintenanceResult, O extends StorageRunOptions> extends MaintenanceCommand<R> {

    @Mixin
    StorageOptions storage;

    @Mixin
    ConsultFlags consult;

    /** The schemas of a multi-schema run, in order (empty for one schema): each file is counted by one pass. */
    private List<String> runSchemas = List.of();

    /**
     * What {@code maintain}'s configuration of the catalog adds to the consult flags: {@code also_catalogs} to
     * --also-catalog, {@code exclude_catalog_schemas} to --exclude-catalog-schema, {@code consult_server: false} as
     * --no-consult-server; null outside maintain.
     */
    ConsultOptions configConsult;

    /** The options from the flags ({@link #prepare()}); each run adds its own run options and consulted catalogs. */
    O base;

    StorageCommand(String operation, Class<R> resultType) {
        super(operation, resultType);
    }

    /**
     * The command's options from its flags: the shared storage flags ({@link StorageOptions#applyTo}) and its own.
     *
     * @return the options, not yet validated
     * @throws JanitorException USAGE for a malformed flag
     */
    abstract O options() throws JanitorException;

    @Override
    public final Integer call() throws JanitorException {
        prepare();
        return runOperation();
    }

    @Override
    public final void prepare() throws JanitorException {
        base = options();
        base.validate();
        validateConsult();
    }

    @Override
    public void runSchemas(List<String> schemas) {
        runSchemas = List.copyOf(schemas);
    }

    /** Checks the consult flags (called by {@code prepare}). */
    final void validateConsult() throws JanitorException {
        consult.validate(parent == null ? Map.of() : parent.env());
    }

    /**
     * @param conn the swept catalog's connection
     * @return which other catalogs a run on it reads first
     */
    final ConsultOptions consultOptions(ConnectionSpec conn) {
        ConsultOptions o = consult.options(parent == null ? Map.of() : parent.env(), conn).withRunSchemas(runSchemas);
        if (configConsult == null) {
            return o;
        }
        List<ConnectionSpec.CatalogReference> also = new ArrayList<>(o.alsoCatalogs());
        also.addAll(configConsult.alsoCatalogs());
        List<String> excluded = new ArrayList<>(o.excludedSchemas());
        excluded.addAll(configConsult.excludedSchemas());
        return o.withAlsoCatalogs(also).withExcludedSchemas(excluded).withConsultServer(o.consultServer()
                && configConsult.consultServer());
    }

    /** Prints which catalogs were read, which were excluded and which databases were not consulted. */
    static void printConsulted(PrintWriter out, List<String> consulted, List<String> excluded,
                               List<ConsultedCatalogs.NotConsulted> notConsulted) {
        out.printf("  catalogs consulted: %s%n", String.join(", ", consulted));
        if (!excluded.isEmpty()) {
            out.printf("  excluded by --exclude-catalog-schema (not read; their files count as unknown): %s%n",
                    String.join(", ", excluded));
        }
        for (ConsultedCatalogs.NotConsulted n : notConsulted) {
            out.printf("  database %s not consulted: %s%n", n.database(), n.reason());
        }
    }

    /**
     * @return the listener that prints each file as a line on stdout: only in text output with {@code --verbose} (the
     *     text output is a summary by default; the JSON document carries the counts)
     */
    final FileListener filePrinter() {
        return StorageOptions.printer(spec.commandLine().getOut(), output.json() || !verbose.verbose);
    }

    /** Prints the findings the result lists, and how many it does not. */
    static void printFindings(PrintWriter out, List<String> findings, long total) {
        for (String f : findings) {
            out.println("  " + Sql.lineSafe(f)); // a path with a newline in a finding must not forge a line
        }
        if (total > findings.size()) {
            out.printf("  ... and %d more finding(s) not listed%n", total - findings.size());
        }
    }

    /** In a summary (no --verbose), says where the list of files is. */
    final void printFileListHint(PrintWriter out, long files) {
        if (!verbose.verbose && files > 0) {
            out.println("  (one line per file with --verbose)");
        }
    }
}
