package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.files.ConsultOptions;
import dev.ducklake.janitor.pg.ConnectionSpec;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Flags of the storage commands that say which other catalogs are read before a file is deleted
 * ({@link ConsultOptions}): --exclude-catalog-schema, --also-catalog, --no-consult-server.
 */
public final class ConsultFlags {

    @StepOptions.CliOnly
    @Option(names = "--exclude-catalog-schema", paramLabel = "NAME",
            description = "Do not refuse the run because the DuckLake catalog in schema NAME cannot be read (no USAGE or SELECT "
                    + "for this role): only for a catalog whose data path you have proven disjoint from this one; its files then "
                    + "count as unknown. DATABASE/NAME names one in another database of the server; DATABASE/* a whole other database the role cannot connect to (no CONNECT, ALLOW_CONNECTIONS false, or its login fails). Repeatable; each exclusion is "
                    + "logged as a warning and listed in the result (excluded_catalog_schemas). A catalog that can be read is "
                    + "consulted anyway. Default: none (an unreadable catalog stops the run, exit 8).")
    List<String> excludeCatalogSchemas = new ArrayList<>();

    @StepOptions.CliOnly
    @Option(names = "--also-catalog", paramLabel = "CONN",
            description = "Also read the DuckLake catalogs of the database CONN names before deleting anything: any --catalog form "
                    + "(other servers too), with metadata_schema=NAME (key/value) or ?metadata_schema=NAME (URI) for one catalog, "
                    + "else every catalog of that database, whatever its data path. User, host, port and password come from "
                    + "--catalog's connection unless CONN gives its own. Repeatable. Default: none.")
    List<String> alsoCatalogs = new ArrayList<>();

    @Option(names = "--no-consult-server",
            description = "Do not search the other databases of the catalog's server (templates too; PostgreSQL's own template0 "
                    + "excepted) for DuckLake catalogs whose data path overlaps. Default: they are searched, and a database the role "
                    + "cannot connect to stops the run before anything is listed (exit 8 without CONNECT or with ALLOW_CONNECTIONS "
                    + "false, exit 3 when its login fails) unless "
                    + "--exclude-catalog-schema DATABASE/* waives it (then listed in databases_not_consulted).")
    boolean noConsultServer;

    /**
     * Checks the flags' values before anything runs.
     *
     * @param env the environment (PG* variables)
     * @throws JanitorException USAGE naming the bad value
     */
    void validate(Map<String, String> env) throws JanitorException {
        for (String a : alsoCatalogs) {
            try {
                ConnectionSpec.parseCatalogReference(a, env, null);
            } catch (JanitorException e) {
                throw new JanitorException(e.reason(), "--also-catalog: " + e.getMessage(), e);
            }
        }
        ConsultOptions.defaults().withExcludedSchemas(excludeCatalogSchemas).validate();
    }

    /**
     * The options for a run on {@code conn}.
     *
     * @param env the environment
     * @param conn the swept catalog's connection (the server, and the defaults of --also-catalog)
     * @return the options
     */
    ConsultOptions options(Map<String, String> env, ConnectionSpec conn) {
        List<ConnectionSpec.CatalogReference> refs = new ArrayList<>();
        for (String a : alsoCatalogs) {
            try {
                refs.add(ConnectionSpec.parseCatalogReference(a, env, conn));
            } catch (JanitorException e) {
                throw new IllegalStateException("--also-catalog was validated before: " + e.getMessage(), e);
            }
        }
        return ConsultOptions.defaults().withExcludedSchemas(excludeCatalogSchemas).withAlsoCatalogs(refs)
                .withConsultServer(!noConsultServer).withServer(conn);
    }
}
