package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.NestedSchemas;
import dev.ducklake.janitor.ops.runtime.RunRecorder;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.pg.SqlState;
import dev.ducklake.janitor.storage.PathResolver;

import java.sql.Connection;
import java.util.function.BooleanSupplier;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The catalogs a storage sweep reads before it deletes a file, found once per run and held by the sweep: the swept
 * catalog, every other catalog of its database whose data path overlaps, the overlapping catalogs of the other
 * databases of the same server the role can connect to, and the catalogs named by {@code --also-catalog}. The rule it
 * enforces: <b>a file is deleted only when every catalog that could reach it has been read</b>. So a catalog the role
 * can see but not read (no USAGE on its schema, no SELECT on a table the known set is read from) stops the run with
 * {@link Reason#PERMISSION_DENIED} before anything is listed or deleted, since its data path is unknown and must be
 * assumed to overlap; only {@code --exclude-catalog-schema} waives that, one catalog at a time, with a warning. Another
 * database of the server the role cannot connect to cannot be seen at all, and may hold such a catalog: no CONNECT
 * privilege stops the run the same way ({@link Reason#PERMISSION_DENIED}), a login that fails (connection limits, a
 * server refusing sessions) stops it with {@link Reason#CONNECTION}; {@code --exclude-catalog-schema DATABASE/*} waives
 * one such database (reported in {@link #notConsulted()} with a warning). A database that allows no connections at all
 * ({@code datallowconn} false, {@code ALTER DATABASE ... ALLOW_CONNECTIONS false}) is refused the same way
 * ({@link Reason#PERMISSION_DENIED}, the same waiver): it is frozen, not empty, and its catalogs reference their files
 * again as soon as connections are allowed back (it used to be only reported, and a frozen tenant's live files were
 * deleted). Template databases are surveyed like any other (a template that allows connections, {@code template1},
 * is read: a DuckLake catalog there is possible, and would be copied into every new database), through a connection
 * closed so that a pooler does not keep its server session ({@link ServerDatabases#close}); the one exception is
 * PostgreSQL's own {@code template0}, skipped silently when it is exactly that: named {@code template0},
 * {@code datistemplate} and not {@code datallowconn} (no session can ever have written a catalog there). A readable catalog whose data path does not overlap is read as well, for the paths of
 * it that still resolve under the swept location (absolute or climbing paths, {@link #reachOnly()}).
 *
 * <p>Other databases are read through connections of their own, opened here and kept until {@link #close()}, so that a
 * later re-check of exact paths ({@link #connection(Catalog)}) reaches the same catalogs; the known set itself is
 * loaded into the swept session's temporary table ({@link KnownFiles#load(Connection, ConsultedCatalogs, boolean)}).
 */
public final class ConsultedCatalogs implements AutoCloseable {

    /**
     * The catalog tables the known set is read from ({@link KnownFiles}); SELECT on each (and USAGE on the schema) is
     * what "readable" means.
     */
    public static final List<String> FILE_TABLES = List.of("ducklake_data_file", "ducklake_delete_file", "ducklake_table",
            "ducklake_schema", "ducklake_files_scheduled_for_deletion");

    /**
     * The columns of {@link #FILE_TABLES} (and {@code ducklake_metadata}) the sweeps read that every format version has
     * (0.1 to 1.1: the paths of schema and table rows came with 0.2 and are read only where present): a catalog lacking
     * one is refused as a half-built one is, instead of failing on the server's 42703.
     */
    static final Map<String, List<String>> FILE_COLUMNS = Map.of(
            "ducklake_metadata", List.of("key", "value"),
            "ducklake_data_file", List.of("data_file_id", "table_id", "begin_snapshot", "end_snapshot", "path",
                    "path_is_relative", "file_size_bytes"),
            "ducklake_delete_file", List.of("delete_file_id", "table_id", "begin_snapshot", "end_snapshot", "path",
                    "path_is_relative", "file_size_bytes"),
            "ducklake_table", List.of("table_id", "schema_id"),
            "ducklake_schema", List.of("schema_id"),
            "ducklake_files_scheduled_for_deletion", List.of("data_file_id", "path", "path_is_relative", "schedule_start"));

    /**
     * One consulted catalog.
     *
     * @param database the database name (the swept one for local catalogs)
     * @param schema the metadata schema
     * @param resolver its paths (its own data_path; the swept catalog's with the override applied)
     * @param remote the connection of another database, or null for a catalog of the swept session's database
     * @param label how results name it: the schema for the swept database, {@code database/schema} for another
     *     database of the same server, {@code host:port/database/schema} for another server
     */
    public record Catalog(String database, String schema, PathResolver resolver, ConnectionSpec remote, String label) {
        /** @return whether it lives in the swept session's database */
        public boolean local() {
            return remote == null;
        }
    }

    /**
     * A database that could hold a catalog but was not read.
     *
     * @param database the database (with host and port when on another server)
     * @param reason why, e.g. {@code no CONNECT privilege}
     */
    public record NotConsulted(String database, String reason) {
    }

    /**
     * The schema part of an {@code --exclude-catalog-schema DATABASE/*} that waives a whole other database the role
     * cannot connect to (no CONNECT privilege, or a login that fails).
     */
    public static final String WHOLE_DATABASE = "*";

    private final Connection session;
    private final List<Catalog> catalogs = new ArrayList<>();
    private final List<Catalog> reachOnly = new ArrayList<>();
    private String sweptPrefix;
    /** The swept data path's real directory as a canonical prefix when it is reached through a symbolic link, else null. */
    private String sweptRealPrefix;
    private final List<String> excluded = new ArrayList<>();
    private final List<NotConsulted> notConsulted = new ArrayList<>();
    private final Map<String, Connection> remotes = new LinkedHashMap<>();
    /** The keys of {@link #remotes} whose database is a template ({@link ServerDatabases#close}). */
    private final java.util.Set<String> templateRemotes = new java.util.HashSet<>();
    /** The catalog schemas of each surveyed database, to tell one that appears during the run. */
    private final CatalogCensus census = new CatalogCensus();
    /** The run whose watchdog cancels the other databases' statements too, or null. */
    private RunControl control;

    private ConsultedCatalogs(Connection session) {
        this.session = session;
    }

    /**
     * A plain list of catalogs of the session's database (no discovery, no refusal): for callers that chose them.
     *
     * @param session the session
     * @param tenants the catalogs
     * @return the set
     */
    public static ConsultedCatalogs of(Connection session, List<CatalogFiles.Tenant> tenants) {
        ConsultedCatalogs cc = new ConsultedCatalogs(session);
        for (CatalogFiles.Tenant t : tenants) {
            cc.catalogs.add(new Catalog(null, t.schema(), t.resolver(), null, t.schema()));
        }
        return cc;
    }

    /**
     * Finds the catalogs to consult and refuses when one that could reach the swept location cannot be read.
     *
     * @param c the swept session (autocommit on or off; only reads)
     * @param own the swept catalog's schema
     * @param ownResolver its resolver (override applied)
     * @param o what to consult
     * @param recorder receives the warnings (exclusions, databases not consulted)
     * @return the catalogs, the swept one first; close it to close the other databases' connections
     * @throws JanitorException {@link Reason#USAGE} for options {@link ConsultOptions#validate} refuses;
     *     {@link Reason#PERMISSION_DENIED} naming every unreadable catalog and the grants it lacks; {@link Reason#CONNECTION} when a catalog named by --also-catalog cannot be reached;
     *     {@link Reason#NOT_A_CATALOG} when it names no DuckLake catalog
     *     ; {@link Reason#UNSUPPORTED_VERSION} when the swept catalog or an overlapping one has nested schemas
     *     ({@link NestedSchemas})
     * @throws SQLException on database errors
     */
    public static ConsultedCatalogs find(Connection c, String own, PathResolver ownResolver, ConsultOptions o,
                                         RunRecorder recorder) throws JanitorException, SQLException {
        return find(c, own, ownResolver, o, recorder, null);
    }

    /**
     * As {@link #find(Connection, String, PathResolver, ConsultOptions, RunRecorder)}, for a run that can be stopped:
     * a login to another database in progress when {@code stop} turns true is interrupted (else it waits for its
     * connect timeout), and the survey ends with {@link Reason#CONNECTION} saying a stop was requested.
     *
     * @param stop the run's stop condition (a library caller's {@code requestStop()}), or null for none
     */
    public static ConsultedCatalogs find(Connection c, String own, PathResolver ownResolver, ConsultOptions o,
                                         RunRecorder recorder, BooleanSupplier stop) throws JanitorException, SQLException {
        return find(c, own, ownResolver, o, recorder, stop, null);
    }

    /**
     * As {@link #find(Connection, String, PathResolver, ConsultOptions, RunRecorder, BooleanSupplier)}, for a run with
     * bounds: the other databases' connections are registered with the run's watchdog ({@link RunControl#watch}), so
     * that a stop request or the spent budget cancels their statements in flight, and a login to one of them ends
     * with the budget as with a stop request.
     *
     * @param control the run's control
     */
    public static ConsultedCatalogs find(Connection c, String own, PathResolver ownResolver, ConsultOptions o,
                                         RunControl control) throws JanitorException, SQLException {
        return find(c, own, ownResolver, o, control.recorder(), control::exhausted, control);
    }

    private static ConsultedCatalogs find(Connection c, String own, PathResolver ownResolver, ConsultOptions o,
                                          RunRecorder recorder, BooleanSupplier stop, RunControl control)
            throws JanitorException, SQLException {
        o.validate();
        ConsultedCatalogs cc = new ConsultedCatalogs(c);
        cc.control = control;
        try {
            new DatabaseSurvey(cc, c, o, recorder, stop).run(own, ownResolver);
            return cc;
        } catch (JanitorException | SQLException | RuntimeException e) {
            cc.close();
            throw e;
        }
    }

    /** Adds a catalog to {@link #catalogs()} (the survey, {@link DatabaseSurvey}). */
    void addConsulted(Catalog c) {
        catalogs.add(c);
    }

    /** Adds a catalog to {@link #reachOnly()} (the survey). */
    void addReachOnly(Catalog c) {
        reachOnly.add(c);
    }

    /** Adds a label (or a {@code DATABASE/*} waiver) to {@link #excluded()} (the survey). */
    void addExcluded(String label) {
        excluded.add(label);
    }

    /** Adds a database to {@link #notConsulted()} (the survey warns about it). */
    void addNotConsulted(NotConsulted n) {
        notConsulted.add(n);
    }

    /**
     * Records the swept data path (the survey, once, before any other catalog is added).
     *
     * @param prefix the swept data path as a canonical prefix ending in {@code /} ({@link #sweptPrefix()})
     * @param realPrefix its real directory as a canonical prefix when it is reached through a symbolic link, else null
     */
    void sweptAt(String prefix, String realPrefix) {
        sweptPrefix = prefix;
        sweptRealPrefix = realPrefix;
    }

    /** Registers another database's connection just opened (the survey) with the run's watchdog, if any. */
    void opened(Connection rc) {
        if (control != null) {
            control.watch(rc);
        }
    }

    /** Unregisters another database's connection about to be closed (the survey, the census) from the run's watchdog. */
    void closing(Connection rc) {
        if (control != null) {
            control.forget(rc);
        }
    }

    /** @return how many catalogs were added so far, consulted and reach-only together */
    int size() {
        return catalogs.size() + reachOnly.size();
    }

    /**
     * Holds another database's connection until {@link #close()} when its survey added a catalog and no connection to
     * the same database is held yet; closes it otherwise.
     *
     * @param spec the database's connection specification (held by {@link ConnectionSpec#describe()})
     * @param rc the connection
     * @param before {@link #size()} before the database was surveyed
     * @throws SQLException when closing fails
     */
    void keepOrClose(ConnectionSpec spec, Connection rc, int before) throws SQLException {
        keepOrClose(spec, rc, before, false);
    }

    /**
     * As {@link #keepOrClose(ConnectionSpec, Connection, int)}, for a connection to a database that may be a template:
     * one to a template is closed so that a pooler ends its server session too ({@link ServerDatabases#close}), now or,
     * when it holds a consulted catalog and is kept, at {@link #close()}.
     *
     * @param template whether the database is a template ({@code datistemplate})
     */
    void keepOrClose(ConnectionSpec spec, Connection rc, int before, boolean template) throws SQLException {
        if (size() > before && !remotes.containsKey(spec.describe())) {
            remotes.put(spec.describe(), rc);
            if (template) {
                templateRemotes.add(spec.describe());
            }
        } else {
            closing(rc);
            ServerDatabases.close(rc, template);
        }
    }

    /** @return the consulted catalogs, the swept one first */
    public List<Catalog> catalogs() {
        return List.copyOf(catalogs);
    }

    /**
     * The readable catalogs whose data path does not overlap the swept one (of the swept database and of the consulted
     * databases). DuckLake lets a catalog reference a file anywhere (an absolute file, table or schema path, as
     * {@code ducklake_add_data_files} registers; a relative path climbing out through {@code ..}), so these are read
     * too, but only their paths that resolve under {@link #sweptPrefix()} enter the known set
     * ({@link KnownFiles#load(Connection, ConsultedCatalogs, boolean)}). Not in {@link #labels()}.
     *
     * @return the catalogs, by database and schema
     */
    public List<Catalog> reachOnly() {
        return List.copyOf(reachOnly);
    }

    /** @return the swept data path as a canonical prefix ending in {@code /}, or null for a plain list ({@link #of}) */
    public String sweptPrefix() {
        return sweptPrefix;
    }

    /**
     * The same file spelled under the swept data path as given, when the swept data path is a local directory reached
     * through a symbolic link (its listing spells every file under the link, {@code LocalFileStore#list}) and the
     * address lies under the directory's real path: how a file another catalog (or this one, by an absolute path)
     * names by the real directory, or through a link of its own ({@link PathResolver#alias}), is recognised in the
     * listing.
     *
     * @param canonical a canonical address
     * @return the address under {@link #sweptPrefix()}, or null (no link, or not under the real directory)
     */
    public String sweptSpelling(String canonical) {
        return sweptRealPrefix != null && canonical.startsWith(sweptRealPrefix)
                ? sweptPrefix + canonical.substring(sweptRealPrefix.length()) : null;
    }

    /**
     * The inverse of {@link #sweptSpelling}: a canonical address under the swept data path as given, spelled under its
     * real directory when the data path is reached through a symbolic link.
     *
     * @param canonical a canonical address
     * @return the address under the real directory, or null (no link, or not under the swept data path)
     */
    public String realSpelling(String canonical) {
        return sweptRealPrefix != null && canonical.startsWith(sweptPrefix)
                ? sweptRealPrefix + canonical.substring(sweptPrefix.length()) : null;
    }

    /** @return the labels of the consulted catalogs, the swept one first */
    public List<String> labels() {
        List<String> out = new ArrayList<>();
        for (Catalog c : catalogs) {
            out.add(c.label());
        }
        return out;
    }

    /** @return the unreadable catalogs left out by --exclude-catalog-schema (labels) */
    public List<String> excluded() {
        return List.copyOf(excluded);
    }

    /** @return the databases that were not read, with the reason */
    public List<NotConsulted> notConsulted() {
        return List.copyOf(notConsulted);
    }

    /**
     * The connection to read a catalog through: the swept session for a local one, else the other database's own
     * connection (read-only, not in autocommit), open until {@link #close()}.
     *
     * @param catalog one of {@link #catalogs()}
     * @return the connection
     */
    public Connection connection(Catalog catalog) {
        return catalog.local() ? session : remotes.get(catalog.remote().describe());
    }

    /**
     * The catalogs of each database as the survey saw them: before each delete batch the sweeps ask it whether a
     * catalog appeared since ({@link CatalogCensus#appeared}).
     *
     * @return the census (empty for a plain list, {@link #of})
     */
    public CatalogCensus census() {
        return census;
    }

    /** @return the swept session */
    Connection session() {
        return session;
    }

    /** @return the held connections to other databases, by {@link ConnectionSpec#describe()} */
    Map<String, Connection> remoteConnections() {
        return java.util.Collections.unmodifiableMap(remotes);
    }

    /** Closes the other databases' connections, the census's too (the swept session stays open). */
    @Override
    public void close() {
        census.close(this);
        for (Map.Entry<String, Connection> e : remotes.entrySet()) {
            Connection rc = e.getValue();
            closing(rc);
            try {
                rc.rollback();
                ServerDatabases.close(rc, templateRemotes.contains(e.getKey()));
            } catch (SQLException ignored) {
                // read-only: nothing to lose
            }
        }
        remotes.clear();
        templateRemotes.clear();
    }

    /**
     * The error of a consulted catalog's read (the survey, the known-set load) that waited past the session's
     * {@code lock_timeout} for a lock another session holds (SQLSTATE 55P03): it names the database and, when known, the
     * schema where the lock is and the way out, instead of the server's bare "canceling statement due to lock timeout".
     * Still {@link Reason#DATABASE_ERROR} (exit 9, as every catalog read that fails; exit 7 is the janitor's own advisory
     * lock held by another run).
     *
     * @param e the failure
     * @param database the database read
     * @param schema the metadata schema read, or null when the failure came before one (the listing of its schemas)
     * @return the error, or null when {@code e} is not a lock wait (the caller rethrows it as it is)
     */
    static JanitorException lockWait(SQLException e, String database, String schema) {
        if (!SqlState.LOCK_NOT_AVAILABLE.is(e)) {
            return null;
        }
        String what = schema == null ? "the DuckLake catalogs of database " + Sql.printable(database)
                : "the DuckLake catalog in schema " + Sql.printable(schema) + " of database " + Sql.printable(database);
        String server = e.getMessage() == null ? "" : e.getMessage().lines().findFirst().orElse("");
        return new JanitorException(Reason.DATABASE_ERROR, "Reading " + what + " waited longer than --lock-timeout for a"
                + " lock another session holds on one of its tables (" + server + "). Nothing was listed or deleted: its files"
                + " are unknown until it is read. Find the holder in pg_locks and pg_stat_activity of database "
                + Sql.printable(database) + " (a long DuckLake transaction, a migration, a LOCK TABLE) and rerun once it is"
                + " done, or give the run a longer --lock-timeout.", e);
    }
}
