package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.PasswordSource;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The connection mixin of every subcommand that works on a catalog: where the database is (--catalog,
 * --password-file) and which metadata schema(s) (--metadata-schema). Output and run options are separate mixins
 * ({@link OutputOptions}, {@link VerboseOption}, {@link RunOptionsMixin}).
 */
@StepOptions.CliOnly
public final class CatalogOptions {

    @Option(names = "--catalog", paramLabel = "CONN",
            description = {"The catalog database: a JDBC URL (jdbc:postgresql://host:5432/db), a libpq URI "
                    + "(postgresql://user@host:5432/db), a libpq key/value string (host=h dbname=d user=u) or DuckLake's "
                    + "ATTACH string (ducklake:postgres:dbname=d host=h). Default: $DUCKLAKE_JANITOR_CATALOG. "
                    + "Missing parts come from PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD, PGSSLMODE and the other PG* variables. "
                    + "A password here is visible in the process list: prefer --password-file or PGPASSWORD."})
    String catalog;

    @Option(names = "--password-file", paramLabel = "FILE",
            description = "Read the password from the first line of FILE, re-read at every (re)connect so that a rotated "
                    + "secret is picked up. Wins over PGPASSWORD; a password in the connection string wins over it. "
                    + "The password is never printed. Default: none (PGPASSWORD, else ~/.pgpass).")
    Path passwordFile;

    /** The first --metadata-schema given, or {@code public}: the schema of single-schema commands. */
    String metadataSchema = "public";

    /** Every --metadata-schema given, in order (empty when none was given). */
    List<String> metadataSchemas = List.of();

    @Option(names = "--metadata-schema", paramLabel = "SCHEMA",
            description = "The Postgres schema holding the ducklake_* tables (DuckLake's METADATA_SCHEMA). Default: public.")
    void metadataSchema(List<String> schemas) {
        // picocli calls this with the values collected so far (first with an empty list)
        metadataSchemas = List.copyOf(schemas);
        metadataSchema = schemas.isEmpty() ? "public" : schemas.get(0);
    }

    /**
     * The one schema of a command that works on a single schema.
     *
     * @return the schema given, or {@code public}
     * @throws JanitorException USAGE when --metadata-schema was given more than once
     */
    String singleSchema() throws JanitorException {
        if (metadataSchemas.size() > 1) {
            throw new JanitorException(JanitorException.Reason.USAGE, "This command works on one schema; --metadata-schema was given "
                    + metadataSchemas.size() + " times.");
        }
        return metadataSchema;
    }

    /**
     * Resolves the connection from --catalog, DUCKLAKE_JANITOR_CATALOG and the PG* variables.
     *
     * @param env the environment
     * @return the connection specification
     * @throws JanitorException USAGE when nothing names a catalog or the string is malformed
     */
    ConnectionSpec connection(Map<String, String> env) throws JanitorException {
        String text = catalog != null ? catalog : env.get("DUCKLAKE_JANITOR_CATALOG");
        ConnectionSpec spec = ConnectionSpec.parse(text, env, passwordFile);
        if (catalog != null && spec.passwordSource().kind() == PasswordSource.Kind.CONNECTION_STRING && !warned && mixee != null) {
            // once per run, on stderr only (never in the JSON document on stdout)
            warned = true;
            mixee.commandLine().getErr().println("WARN: " + PASSWORD_ON_COMMAND_LINE);
        }
        String passFile = spec.passwordSource().passFileWarning();
        if (passFile != null && !passFileWarned && mixee != null) {
            // as libpq warns; once per run, on stderr only
            passFileWarned = true;
            mixee.commandLine().getErr().println("WARN: " + passFile + ".");
        }
        return spec;
    }

    /** The warning for a password in --catalog (the README's "Passwords" section says the same). */
    static final String PASSWORD_ON_COMMAND_LINE = "the --catalog value holds a password, which other local users can read in the "
            + "process list (/proc/<pid>/cmdline); prefer --password-file, PGPASSWORD or ~/.pgpass.";

    /** The command this mixin belongs to (its stderr carries the warning). */
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    private boolean warned;
    private boolean passFileWarned;
}
