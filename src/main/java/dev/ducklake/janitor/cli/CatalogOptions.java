package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.catalog.ConnectionSpec;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Map;

/** Options shared by every subcommand that works on a catalog. */
public final class CatalogOptions {

    /** Output format. */
    public enum Output { text, json }

    @Option(names = "--catalog", paramLabel = "CONN",
            description = {"The catalog database: a JDBC URL (jdbc:postgresql://host:5432/db), a libpq URI "
                    + "(postgresql://user@host:5432/db), a libpq key/value string (host=h dbname=d user=u) or DuckLake's "
                    + "ATTACH string (ducklake:postgres:dbname=d host=h). Default: $DUCKLAKE_JANITOR_CATALOG. "
                    + "Missing parts come from PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD, PGSSLMODE and the other PG* variables."})
    String catalog;

    @Option(names = "--password-file", paramLabel = "FILE",
            description = "Read the password from the first line of FILE when the connection string and PGPASSWORD give none. "
                    + "The password is never printed.")
    Path passwordFile;

    @Option(names = "--metadata-schema", paramLabel = "SCHEMA", defaultValue = "public",
            description = "The Postgres schema holding the ducklake_* tables (DuckLake's METADATA_SCHEMA). Default: ${DEFAULT-VALUE}.")
    String metadataSchema;

    @Option(names = "--lock-name", paramLabel = "NAME", defaultValue = "ducklake-maintenance",
            description = "Advisory lock taken by execute runs (pg_try_advisory_lock(hashtext(NAME))); a run refuses to start while "
                    + "another session holds it. Default: ${DEFAULT-VALUE}.")
    String lockName;

    @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "text",
            description = "Result format on stdout: text or json (one JSON document; progress and logs go to stderr). Default: ${DEFAULT-VALUE}.")
    Output output;

    @Option(names = "--verbose", description = "Print stack traces of errors and debug details to stderr. Default: off.")
    boolean verbose;

    /**
     * Resolves the connection from --catalog, DUCKLAKE_JANITOR_CATALOG and the PG* variables.
     *
     * @param env the environment
     * @return the connection specification
     * @throws JanitorException USAGE when nothing names a catalog or the string is malformed
     */
    ConnectionSpec connection(Map<String, String> env) throws JanitorException {
        String text = catalog != null ? catalog : env.get("DUCKLAKE_JANITOR_CATALOG");
        return ConnectionSpec.parse(text, env, passwordFile);
    }
}
