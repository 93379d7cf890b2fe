package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.ConnectionSpec;

import java.util.List;

/**
 * Which catalogs besides the swept one a storage command must read before it deletes a file
 * ({@link ConsultedCatalogs}). The defaults consult the most: every readable catalog of the swept database whose data
 * path overlaps, and every database of the same server the role can connect to.
 *
 * @param excludedSchemas {@code --exclude-catalog-schema}: catalogs the run may leave unread although they cannot be
 *     read (the operator has proven their data paths disjoint); {@code SCHEMA} for the swept database,
 *     {@code DATABASE/SCHEMA} for another database of the server. A listed catalog that can be read is consulted anyway.
 *     Default none
 * @param alsoCatalogs {@code --also-catalog}: catalogs of other databases (any server) to read as well, whatever their
 *     data path (an explicit catalog may reference files anywhere); a reference without a schema means every DuckLake
 *     catalog of that database. Default none
 * @param consultServer whether every other database of the session's server that the role can CONNECT to is searched
 *     for DuckLake catalogs whose data path overlaps ({@code --no-consult-server} turns it off). Default true
 * @param server the connection of the swept database, from which the other databases of the server are reached (same
 *     user and password source); null when the caller has only a plain connection: then other databases cannot be
 *     opened and are reported as not consulted
 * @param runSchemas the metadata schemas of the swept database that this run sweeps one after the other
 *     ({@code --all-metadata-schemas}, repeated {@code --metadata-schema}), in run order; a pass leaves the files under
 *     another of them whose data path lies deeper to that schema's pass, so that each file is counted and deleted once.
 *     Empty for a single-schema run
 */
public record ConsultOptions(List<String> excludedSchemas, List<ConnectionSpec.CatalogReference> alsoCatalogs,
                             boolean consultServer, ConnectionSpec server, List<String> runSchemas) {

    public ConsultOptions {
        excludedSchemas = List.copyOf(excludedSchemas);
        alsoCatalogs = List.copyOf(alsoCatalogs);
        runSchemas = List.copyOf(runSchemas);
    }

    /**
     * Checks the values on their own: every exclusion names a schema, and the server's other databases can be reached
     * when they are to be consulted (a {@link ConnectionSpec#reachesOtherDatabases DataSource's connection} reaches one
     * database only, and a catalog of another database that shares the data path would go unread).
     *
     * @throws JanitorException {@link Reason#USAGE} naming the value and the way out
     */
    public void validate() throws JanitorException {
        for (String x : excludedSchemas) {
            if (x == null || x.isBlank()) {
                throw new JanitorException(Reason.USAGE, "--exclude-catalog-schema needs a schema name.");
            }
        }
        if (consultServer && server != null && !server.reachesOtherDatabases()) {
            throw new JanitorException(Reason.USAGE, "The run's connections come from a DataSource, which reaches the catalog's"
                    + " database only, so the server's other databases cannot be searched for DuckLake catalogs sharing the data"
                    + " path; nothing was listed or deleted. Give the catalog as a connection string, or turn that search off"
                    + " (--no-consult-server, consultServer(false)) once no catalog of another database can reach this data path.");
        }
    }

    /** @return the defaults: nothing excluded, nothing added, the server consulted, no connection to reach it yet */
    public static ConsultOptions defaults() {
        return new ConsultOptions(List.of(), List.of(), true, null, List.of());
    }

    /** @return a copy with these exclusions */
    public ConsultOptions withExcludedSchemas(List<String> s) {
        return new ConsultOptions(s, alsoCatalogs, consultServer, server, runSchemas);
    }

    /** @return a copy with these extra catalogs */
    public ConsultOptions withAlsoCatalogs(List<ConnectionSpec.CatalogReference> a) {
        return new ConsultOptions(excludedSchemas, a, consultServer, server, runSchemas);
    }

    /** @return a copy that does (true) or does not consult the server's other databases */
    public ConsultOptions withConsultServer(boolean c) {
        return new ConsultOptions(excludedSchemas, alsoCatalogs, c, server, runSchemas);
    }

    /** @return a copy that reaches the server's other databases through this connection */
    public ConsultOptions withServer(ConnectionSpec s) {
        return new ConsultOptions(excludedSchemas, alsoCatalogs, consultServer, s, runSchemas);
    }

    /** @return a copy naming the schemas of the whole run */
    public ConsultOptions withRunSchemas(List<String> s) {
        return new ConsultOptions(excludedSchemas, alsoCatalogs, consultServer, server, s);
    }
}
