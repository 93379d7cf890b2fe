package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.catalog.CatalogDiscovery;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
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
 * held connection; with the server's other databases consulted, one read of {@code pg_database} and a probe of each
 * database that held no consulted catalog at the survey. Such a database is probed through a connection of the census's
 * own, opened at the first check and kept open for the run's later checks ({@link #close}), up to {@link #keepCap}
 * connections: a login per database and check cost 8 to 15 ms, about 90% of a cleanup of 20,000 files on a server of
 * 200 databases (docs/benchmark.md, issue 27); the databases beyond the cap, and every template (a session in a
 * template makes each {@code CREATE DATABASE} from it fail: it is probed through a login closed at once, inside an open
 * transaction so that a pooler ends its server session too, {@link ServerDatabases#close}), are logged in to at each
 * check as before. A kept connection sits outside any transaction between checks (no snapshot, nothing
 * held back from vacuum); one that died (a {@code DROP DATABASE ... WITH (FORCE)}, {@code pg_terminate_backend}, an
 * {@code idle_session_timeout}) is replaced by a login at the same check, and a database dropped since is skipped as
 * before. A login refused while connections are kept (the server's {@code max_connections}, a pooler's
 * {@code max_client_conn}) gives them all back and is tried once more; the run's later checks keep none. While kept, a
 * connection makes a plain {@code DROP DATABASE} or {@code ALTER DATABASE ... RENAME} of that database fail, as the
 * survey's connections to catalog databases do. Schemas and databases waived by {@code --exclude-catalog-schema} are
 * not looked at again; neither are the databases the survey could not read (the run stopped then unless they were
 * waived) nor PostgreSQL's pristine {@code template0}.
 */
public final class CatalogCensus {

    /** The key of the swept database in {@link #atSurvey}. */
    private static final String SWEPT = "";
    /** The most connections the census keeps open across checks ({@link #keepCap}). */
    static final int KEEP_MAX = 64;

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
    /** The census's own connections to databases without a consulted catalog, by name, kept across checks. */
    private final Map<String, Connection> kept = new LinkedHashMap<>();
    /** {@link #keepCap}, once read; -1 before. */
    private int cap = -1;
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
            Set<String> probed = new HashSet<>();
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
                probed.add(name);
                Set<String> now = probe(cc, db, spec);
                if (now != null) {
                    diff(spec.describe(), now, name, out);
                }
            }
            for (String name : List.copyOf(kept.keySet())) {
                if (!probed.contains(name)) {
                    release(cc, name); // dropped (WITH (FORCE)) or no longer to be probed: its session serves nothing
                }
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

    /**
     * The catalog schemas of another database without a consulted catalog now: through the connection kept for it,
     * else (none yet, or it died) through a new login, kept when there is room ({@link #keepCap}) and the database is
     * no template, closed at once otherwise.
     *
     * @param db a row of {@link ServerDatabases#otherDatabases}
     * @return the schemas, or null when the database was dropped since it was listed
     */
    private Set<String> probe(ConsultedCatalogs cc, String[] db, ConnectionSpec spec) throws SQLException {
        String name = db[0];
        boolean template = Boolean.parseBoolean(db[3]);
        Connection rc = kept.get(name);
        if (rc != null) {
            try {
                Set<String> now = CatalogDiscovery.metadataSchemas(rc);
                rc.rollback();
                if (template) {
                    release(cc, name, true); // it became a template since: CREATE DATABASE from it needs it free
                }
                return now;
            } catch (SQLException e) {
                release(cc, name);
                if (!dead(e)) {
                    throw e;
                }
                // its session ended (terminated, timed out, the database dropped WITH (FORCE)): log in again
            }
        }
        try {
            rc = ServerDatabases.openRemote(spec, stop, lockTimeout);
        } catch (SQLException e) {
            if ("3D000".equals(e.getSQLState())) {
                return null; // dropped since it was listed
            }
            if (kept.isEmpty()) {
                throw e;
            }
            // refused while the census holds connections (the server's max_connections, a pooler's max_client_conn):
            // they go back, and from now on each database is logged in to at each check, as without them
            close(cc);
            cap = 0;
            try {
                rc = ServerDatabases.openRemote(spec, stop, lockTimeout);
            } catch (SQLException again) {
                if ("3D000".equals(again.getSQLState())) {
                    return null;
                }
                again.addSuppressed(e);
                throw again;
            }
        }
        boolean keep = false;
        try {
            Set<String> now = CatalogDiscovery.metadataSchemas(rc);
            rc.rollback();
            keep = !template && kept.size() < keepCap(cc);
            if (keep) {
                kept.put(name, rc);
                cc.opened(rc);
            }
            return now;
        } finally {
            if (!keep) {
                ServerDatabases.close(rc, template); // a template's pooled server session too
            }
        }
    }

    /**
     * How many connections the census keeps open across checks: a tenth of the server's {@code max_connections}, at
     * most {@value #KEEP_MAX}, so that a run leaves nearly all of the server's connection slots to its other clients (the
     * connections the survey holds to databases with a consulted catalog come on top). Read once, on the swept session.
     */
    private int keepCap(ConsultedCatalogs cc) throws SQLException {
        if (cap < 0) {
            Connection session = cc.session();
            try (var ps = session.prepareStatement("SELECT current_setting('max_connections')::int");
                 var rs = ps.executeQuery()) {
                rs.next();
                cap = Math.min(KEEP_MAX, rs.getInt(1) / 10);
            } finally {
                commit(session);
            }
        }
        return cap;
    }

    /** Whether a kept connection's failure means its session is gone (a connection error, an administrator's end). */
    private static boolean dead(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.startsWith("08") || state.startsWith("57P0"));
    }

    private void release(ConsultedCatalogs cc, String name) {
        release(cc, name, false);
    }

    private void release(ConsultedCatalogs cc, String name, boolean template) {
        Connection rc = kept.remove(name);
        if (rc != null) {
            cc.closing(rc);
            try {
                ServerDatabases.close(rc, template);
            } catch (SQLException ignored) {
                // read-only and outside a transaction: nothing to lose
            }
        }
    }

    /**
     * Closes the connections the census kept (the run's end, also on failure: {@link ConsultedCatalogs#close()}).
     *
     * @param cc the run's consulted catalogs (the watchdog forgets the connections)
     */
    void close(ConsultedCatalogs cc) {
        for (String name : List.copyOf(kept.keySet())) {
            release(cc, name);
        }
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
