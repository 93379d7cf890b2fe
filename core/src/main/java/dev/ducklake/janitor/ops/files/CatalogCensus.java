package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.catalog.CatalogDiscovery;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

import static dev.ducklake.janitor.ops.files.ConsultedCatalogs.WHOLE_DATABASE;

/**
 * Which schemas held a DuckLake catalog ({@code ducklake_metadata}) in each database the run's survey looked at, and
 * the check that none appeared since: a catalog created during the run (a new {@code METADATA_SCHEMA} in a surveyed
 * database, the first catalog of a database that had none, a new database of the server) is in neither the known set
 * nor the re-check before each delete batch ({@link CatalogRecheck}), so a file it registers would be deleted while
 * live. The storage sweeps ask {@link #appeared} just before each batch's (cleanup-old-files) or round's
 * (delete-orphan-files) re-check and stop cleanly before its deletes when anything appeared; the next run reads the new
 * catalog. Filled by the survey ({@link DatabaseSurvey}) and held by {@link ConsultedCatalogs}.
 *
 * <p>Cost of one check: one probe of {@code pg_class}'s name index on the swept session and on each other database's
 * held connection; with the server's other databases consulted, one read of {@code pg_database} and a login (closed at
 * once) to each database that held no consulted catalog at the survey, which has no connection to ask through. Schemas
 * and databases waived by {@code --exclude-catalog-schema} are not looked at again; neither are the databases the survey
 * could not read (the run stopped then unless they were waived) nor PostgreSQL's pristine {@code template0}.
 */
public final class CatalogCensus {

    /** The key of the swept database in {@link #atSurvey}. */
    private static final String SWEPT = "";

    /** Schemas with a ducklake_metadata relation per database at the survey: {@link #SWEPT}, or the spec's describe(). */
    private final Map<String, Set<String>> atSurvey = new HashMap<>();
    /**
     * The name the survey gave each other database it surveyed, by the spec's describe() (as {@link #atSurvey}): the
     * check labels what appeared in a held connection's database with it, as the survey labels and waives that
     * database's catalogs ({@code DATABASE/SCHEMA}), without asking the connection again.
     */
    private final Map<String, String> names = new HashMap<>();
    /** Databases of the swept server the check leaves alone (named whole by --also-catalog, waived, unreadable). */
    private final Set<String> leftAlone = new HashSet<>();
    private ConsultOptions options;
    private BooleanSupplier stop;
    private String lockTimeout;

    CatalogCensus() {
    }

    /** The survey's settings, for the logins of the check (the survey, once). */
    void configure(ConsultOptions o, BooleanSupplier stop, String lockTimeout) {
        this.options = o;
        this.stop = stop;
        this.lockTimeout = lockTimeout;
    }

    /**
     * Records the catalog schemas of a surveyed database (the survey).
     *
     * @param remote the database's connection specification, or null for the swept database
     * @param database the database's name as the survey labels its catalogs ({@code DATABASE/SCHEMA})
     * @param schemas the schemas holding a {@code ducklake_metadata} relation
     */
    void saw(ConnectionSpec remote, String database, Set<String> schemas) {
        String key = remote == null ? SWEPT : remote.describe();
        atSurvey.computeIfAbsent(key, k -> new HashSet<>()).addAll(schemas);
        if (remote != null) {
            names.put(key, database);
        }
    }

    /** Records a database of the swept server the check leaves alone (the survey). */
    void leaveAlone(String database) {
        leftAlone.add(database);
    }

    /**
     * The catalogs that appeared since the survey, by label ({@code schema} in the swept database,
     * {@code database/schema} in another one; a database that cannot be read now is named whole).
     *
     * @param cc the run's consulted catalogs (the swept session and the held connections to other databases; their
     *     transactions are committed)
     * @return the labels, empty when nothing appeared
     * @throws SQLException on database errors (a login to another database that fails is named as appeared: what it
     *     holds cannot be seen)
     */
    public List<String> appeared(ConsultedCatalogs cc) throws SQLException {
        List<String> out = new ArrayList<>();
        if (options == null) {
            return out; // a plain list of catalogs (ConsultedCatalogs.of): nothing was surveyed
        }
        Connection session = cc.session();
        try {
            diff(SWEPT, CatalogDiscovery.metadataSchemas(session), null, out);
        } finally {
            commit(session);
        }
        Set<String> held = new HashSet<>();
        for (Map.Entry<String, Connection> e : cc.remoteConnections().entrySet()) {
            held.add(e.getKey());
            Connection rc = e.getValue();
            try {
                diff(e.getKey(), CatalogDiscovery.metadataSchemas(rc), names.get(e.getKey()), out);
            } finally {
                rc.commit();
            }
        }
        if (options.consultServer() && options.server() != null) {
            List<String[]> dbs;
            try {
                dbs = ServerDatabases.otherDatabases(session);
            } finally {
                commit(session);
            }
            for (String[] db : dbs) {
                String name = db[0];
                ConnectionSpec spec = options.server().withDatabase(name);
                if (leftAlone.contains(name) || held.contains(spec.describe()) || ServerDatabases.pristineTemplate0(db)
                        || options.excludedSchemas().contains(name + "/" + WHOLE_DATABASE)) {
                    continue;
                }
                if (!Boolean.parseBoolean(db[1]) || !Boolean.parseBoolean(db[2])) {
                    out.add(name + "/" + WHOLE_DATABASE + " (a database that cannot be read now)");
                    continue;
                }
                Set<String> now;
                try (Connection rc = ServerDatabases.openRemote(spec, stop, lockTimeout)) {
                    now = CatalogDiscovery.metadataSchemas(rc);
                    rc.rollback();
                } catch (SQLException e) {
                    if ("3D000".equals(e.getSQLState())) {
                        continue; // dropped since it was listed
                    }
                    throw e;
                }
                diff(spec.describe(), now, name, out);
            }
        }
        return out;
    }

    /**
     * The finding and warning of a sweep that stops because catalogs appeared.
     *
     * @param before what was not done, e.g. {@code "the deletes of batch 3"}
     * @param appeared {@link #appeared}'s labels
     * @param kept what stays, e.g. {@code "its rows are kept"}
     * @return the line
     */
    public static String stopLine(String before, List<String> appeared, String kept) {
        return "stopped before " + before + ": DuckLake catalog(s) appeared during the run, which the run has not read and"
                + " which may reference those files (" + String.join(", ", appeared) + "); " + kept + ", and the next run"
                + " reads the new catalog(s)";
    }

    private static void commit(Connection c) throws SQLException {
        if (!c.getAutoCommit()) {
            c.commit();
        }
    }

    private void diff(String key, Set<String> now, String database, List<String> out) {
        Set<String> before = atSurvey.getOrDefault(key, Set.of());
        for (String schema : now) {
            String label = database == null ? schema : database + "/" + schema;
            if (!before.contains(schema) && !options.excludedSchemas().contains(label)) {
                out.add(Sql.printable(label));
            }
        }
    }
}
