package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.NestedSchemas;
import dev.ducklake.janitor.catalog.CatalogDiscovery;
import dev.ducklake.janitor.ops.runtime.RunRecorder;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.PathResolver;
import dev.ducklake.janitor.storage.StorageLocation;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

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
 * is read); the one exception is PostgreSQL's own {@code template0}, skipped silently when it is exactly that: named
 * {@code template0}, {@code datistemplate} and not {@code datallowconn} (no session can ever have written a catalog
 * there). A readable catalog whose data path does not overlap is read as well, for the paths of
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
    /** Readable catalogs with a relative data path (refused unless excluded). */
    private final List<String> unplaceable = new ArrayList<>();
    /** The swept data path with symbolic links resolved ({@link PathResolver#realDataLocation()}). */
    private StorageLocation mineReal;
    private final Map<String, Connection> remotes = new LinkedHashMap<>();

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
     * @throws JanitorException {@link Reason#PERMISSION_DENIED} naming every unreadable catalog and the grants it
     *     lacks; {@link Reason#CONNECTION} when a catalog named by --also-catalog cannot be reached;
     *     {@link Reason#NOT_A_CATALOG} when it names no DuckLake catalog
     *     ; {@link Reason#UNSUPPORTED_VERSION} when the swept catalog or an overlapping one has nested schemas
     *     ({@link NestedSchemas})
     * @throws SQLException on database errors
     */
    public static ConsultedCatalogs find(Connection c, String own, PathResolver ownResolver, ConsultOptions o,
                                         RunRecorder recorder) throws JanitorException, SQLException {
        ConsultedCatalogs cc = new ConsultedCatalogs(c);
        try {
            cc.discover(own, ownResolver, o, recorder);
            return cc;
        } catch (JanitorException | SQLException | RuntimeException e) {
            cc.close();
            throw e;
        }
    }

    private void discover(String own, PathResolver ownResolver, ConsultOptions o, RunRecorder recorder)
            throws JanitorException, SQLException {
        NestedSchemas.requireFlat(session, own);
        catalogs.add(new Catalog(currentDatabase(session), own, ownResolver, null, own));
        StorageLocation mine = ownResolver.dataLocation();
        mineReal = ownResolver.withRealDirectory().realDataLocation();
        sweptPrefix = mine.asPrefix().canonical();
        String realPrefix = mineReal.asPrefix().canonical();
        sweptRealPrefix = realPrefix.equals(sweptPrefix) ? null : realPrefix;
        List<String> refusals = new ArrayList<>();
        List<String> unreachable = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        String ownDb = currentDatabase(session);
        seen.add(key(o.server(), ownDb, own));
        Set<String> exclusions = new HashSet<>(o.excludedSchemas());
        Set<String> usedExclusions = new HashSet<>();
        Set<String> explicitLocal = new HashSet<>();
        List<ConnectionSpec.CatalogReference> remoteRefs = new ArrayList<>();
        for (ConnectionSpec.CatalogReference ref : o.alsoCatalogs()) {
            if (o.server() != null && o.server().sameServer(ref.spec()) && ref.spec().database().equals(ownDb)) {
                explicitLocal.add(ref.metadataSchema() == null ? "*" : ref.metadataSchema());
            } else {
                remoteRefs.add(ref);
            }
        }
        // the swept database
        consultDatabase(session, null, ownDb, null, explicitLocal, mine, seen, exclusions, usedExclusions, refusals,
                o.server());
        // --also-catalog
        Set<String> coveredDatabases = new HashSet<>();
        for (ConnectionSpec.CatalogReference ref : remoteRefs) {
            ConnectionSpec spec = ref.spec();
            Connection rc = openExplicit(spec);
            Set<String> explicit = Set.of(ref.metadataSchema() == null ? "*" : ref.metadataSchema());
            int before = catalogs.size() + reachOnly.size();
            consultDatabase(rc, spec, spec.database(), ref.metadataSchema(), explicit, mine, seen, exclusions,
                    usedExclusions, refusals, o.server());
            if (ref.metadataSchema() == null && o.server() != null && o.server().sameServer(spec)) {
                coveredDatabases.add(spec.database());
            }
            keepOrClose(spec, rc, before);
        }
        // the other databases of the server
        if (o.consultServer()) {
            if (o.server() == null) {
                note(recorder, new NotConsulted("(other databases of the server)", "no connection specification to reach them"
                        + " (a library call on a plain connection)"));
            } else {
                for (String[] db : otherDatabases(session)) {
                    String name = db[0];
                    if (coveredDatabases.contains(name) || pristineTemplate0(db)) {
                        continue;
                    }
                    String waiver = name + "/" + WHOLE_DATABASE;
                    if (!Boolean.parseBoolean(db[1])) {
                        String why = "the role has no CONNECT privilege on it, so a DuckLake catalog there cannot be seen";
                        if (!waived(name, why, exclusions, usedExclusions, recorder)) {
                            refusals.add("database " + Sql.printable(name) + " (" + why + "; waived only by"
                                    + " --exclude-catalog-schema " + waiver + ")");
                        }
                        continue;
                    }
                    if (!Boolean.parseBoolean(db[2])) {
                        String why = "the database does not allow connections (datallowconn is false), so a DuckLake catalog"
                                + " there cannot be seen, and its files are live again once connections are allowed";
                        if (!waived(name, why, exclusions, usedExclusions, recorder)) {
                            refusals.add("database " + Sql.printable(name) + " (" + why + "; allow connections to it for the"
                                    + " run, or waive it with --exclude-catalog-schema " + waiver + ")");
                        }
                        continue;
                    }
                    ConnectionSpec spec = o.server().withDatabase(name);
                    Connection rc;
                    try {
                        rc = openRemote(spec);
                    } catch (SQLException e) {
                        if ("3D000".equals(e.getSQLState())) {
                            continue; // dropped since it was listed: it holds nothing any more
                        }
                        if (ConnectionSpec.interruptedLogin(e)) {
                            throw new JanitorException(Reason.CONNECTION, "A stop was requested while the other databases of the"
                                    + " server were being consulted (at " + Sql.printable(name) + "). Nothing was listed or deleted.", e);
                        }
                        String why = "connecting failed: " + spec.redact(e.getMessage());
                        if (!waived(name, why, exclusions, usedExclusions, recorder)) {
                            unreachable.add(Sql.printable(name) + " (" + why + "; waived only by --exclude-catalog-schema "
                                    + waiver + ")");
                        }
                        continue;
                    }
                    int before = catalogs.size() + reachOnly.size();
                    consultDatabase(rc, spec, name, null, Set.of(), mine, seen, exclusions, usedExclusions, refusals, o.server());
                    keepOrClose(spec, rc, before);
                }
            }
        }
        if (!refusals.isEmpty()) {
            String role = currentUser(session);
            throw new JanitorException(Reason.PERMISSION_DENIED, refusals.size() + " DuckLake catalog(s) or database(s) that may"
                    + " reference files under " + mine.canonical() + " cannot be read by role " + Sql.printable(role) + ", so the"
                    + " files they reference are unknown and their data path must be assumed to overlap: " + String.join("; ", refusals)
                    + ". Nothing was listed or deleted. Grant these (to " + Sql.ident(role) + "; CONNECT for a database), or pass"
                    + " --exclude-catalog-schema NAME (DATABASE/NAME for another database, DATABASE/" + WHOLE_DATABASE + " for a"
                    + " whole database) for a catalog whose data path you have proven disjoint from this one, or"
                    + " --no-consult-server.");
        }
        if (!unplaceable.isEmpty()) {
            throw new JanitorException(Reason.UNSAFE_CATALOG_STATE, unplaceable.size() + " readable DuckLake catalog(s) have a"
                    + " relative data path, so where their files are depends on the working directory of the DuckDB that wrote"
                    + " them, and they may reference files under " + mine.canonical() + ": " + String.join("; ", unplaceable)
                    + ". Nothing was listed or deleted. Give such a catalog an absolute data_path, name it with --also-catalog"
                    + " (its relative paths are then resolved from this process's working directory), or pass"
                    + " --exclude-catalog-schema NAME (DATABASE/NAME for another database) for one proven disjoint.");
        }
        if (!unreachable.isEmpty()) {
            throw new JanitorException(Reason.CONNECTION, unreachable.size() + " other database(s) of the server could not be"
                    + " consulted, and a DuckLake catalog there may reference files under " + mine.canonical() + ": "
                    + String.join("; ", unreachable) + ". Nothing was listed or deleted. Rerun when the server accepts the"
                    + " connections (max_connections, the database's CONNECTION LIMIT), or pass --exclude-catalog-schema"
                    + " DATABASE/" + WHOLE_DATABASE + " for a database proven to hold no catalog that reaches this data path.");
        }
        for (String x : exclusions) {
            if (!usedExclusions.contains(x)) {
                recorder.warn("--exclude-catalog-schema " + Sql.printable(x) + " matches no unreadable DuckLake catalog; nothing"
                        + " was excluded for it");
            }
        }
        for (String x : excluded) {
            recorder.warn("catalog " + Sql.printable(x) + " cannot be read and is excluded by --exclude-catalog-schema: files"
                    + " only it references may be deleted as orphans");
        }
    }

    /**
     * Consults one database: each schema holding a ducklake_metadata relation is read (or refused) and added when its
     * data path overlaps the swept location or it is named explicitly ({@code "*"}: every catalog of the database).
     */
    private void consultDatabase(Connection dc, ConnectionSpec remote, String database, String onlySchema, Set<String> explicit,
                                 StorageLocation mine, Set<String> seen, Set<String> exclusions, Set<String> usedExclusions,
                                 List<String> refusals, ConnectionSpec server) throws JanitorException, SQLException {
        boolean found = false;
        for (CatalogDiscovery.Access a : CatalogDiscovery.access(dc, FILE_TABLES)) {
            if (onlySchema != null && !onlySchema.equals(a.schema())) {
                continue;
            }
            String label = label(remote, server, database, a.schema());
            if (!seen.add(key(remote == null ? server : remote, database, a.schema()))) {
                found = true;
                continue;
            }
            if (!a.readable()) {
                found = true;
                String exclusion = remote == null ? a.schema() : database + "/" + a.schema();
                if (exclusions.contains(exclusion)) {
                    usedExclusions.add(exclusion);
                    excluded.add(label);
                } else {
                    refusals.add("catalog " + Sql.printable(label) + " (missing: " + String.join(", ", a.missing()) + ")");
                }
                continue;
            }
            if (!a.isCatalog()) {
                continue;
            }
            found = true;
            String p = CatalogFiles.option(dc, a.schema(), "data_path");
            boolean named = explicit.contains("*") || explicit.contains(a.schema());
            if (p == null || p.isEmpty()) {
                if (named) {
                    throw new JanitorException(Reason.NOT_A_CATALOG, "The catalog " + Sql.printable(label) + " named by"
                            + " --also-catalog has no data_path in ducklake_metadata; its relative paths cannot be resolved.");
                }
                continue;
            }
            if (PathResolver.isRelative(p) && !named) {
                String exclusion = remote == null ? a.schema() : database + "/" + a.schema();
                if (exclusions.contains(exclusion)) {
                    usedExclusions.add(exclusion);
                    excluded.add(label);
                } else {
                    unplaceable.add("catalog " + Sql.printable(label) + " (data_path " + Sql.printable(p) + ")");
                }
                continue;
            }
            PathResolver r = new PathResolver(p).withRealDirectory();
            boolean overlaps;
            try {
                // as spelled, and with symbolic links resolved: one directory spelled two ways is one place
                overlaps = r.dataLocation().overlaps(mine) || r.realDataLocation().overlaps(mineReal);
            } catch (IllegalArgumentException e) {
                overlaps = true; // an unparsable data path: its files are still known under their own spelling
            }
            if (overlaps || named) {
                NestedSchemas.requireFlat(dc, a.schema());
                catalogs.add(new Catalog(database, a.schema(), r, remote, label));
            } else {
                reachOnly.add(new Catalog(database, a.schema(), r, remote, label));
            }
        }
        if (onlySchema != null && !found) {
            throw new JanitorException(Reason.NOT_A_CATALOG, "--also-catalog names schema " + Sql.printable(onlySchema)
                    + " of database " + Sql.printable(database) + ", which holds no DuckLake catalog (no ducklake_metadata table"
                    + " with a 'version' key).");
        }
        if (remote != null && onlySchema == null && !found && !explicit.isEmpty()) {
            throw new JanitorException(Reason.NOT_A_CATALOG, "--also-catalog names database " + Sql.printable(label(remote,
                    server, database, "")) + ", which holds no DuckLake catalog.");
        }
    }

    private static String label(ConnectionSpec remote, ConnectionSpec server, String database, String schema) {
        if (remote == null) {
            return schema;
        }
        if (server != null && server.sameServer(remote)) {
            return database + "/" + schema;
        }
        return remote.host() + ":" + remote.port() + "/" + database + "/" + schema;
    }

    private static String key(ConnectionSpec spec, String database, String schema) {
        String server = spec == null ? "" : spec.host().toLowerCase(Locale.ROOT) + ":" + spec.port();
        return server + "/" + database + "/" + schema;
    }

    /**
     * The waiver of a database of the server that cannot be consulted ({@code --exclude-catalog-schema DB/*},
     * {@link #WHOLE_DATABASE}): when it was given, the database is excluded (warned at the end as every excluded
     * catalog: files only it references may be deleted as orphans), the waiver counted as used and the database noted
     * as not consulted.
     *
     * @param database the database's name
     * @param why why it cannot be consulted, for the note
     * @param exclusions the --exclude-catalog-schema values
     * @param usedExclusions receives the waiver when it applies
     * @param recorder receives the note
     * @return true when waived; false when the caller must refuse (or report) the database
     */
    private boolean waived(String database, String why, Set<String> exclusions, Set<String> usedExclusions, RunRecorder recorder) {
        String waiver = database + "/" + WHOLE_DATABASE;
        if (!exclusions.contains(waiver)) {
            return false;
        }
        usedExclusions.add(waiver);
        excluded.add(waiver);
        note(recorder, new NotConsulted(database, why + " (excluded by --exclude-catalog-schema " + waiver + ")"));
        return true;
    }

    private void note(RunRecorder recorder, NotConsulted n) {
        notConsulted.add(n);
        recorder.warn("database " + Sql.printable(n.database()) + " not consulted: " + n.reason());
    }

    private void keepOrClose(ConnectionSpec spec, Connection rc, int before) throws SQLException {
        if (catalogs.size() + reachOnly.size() > before && !remotes.containsKey(spec.describe())) {
            remotes.put(spec.describe(), rc);
        } else {
            rc.close();
        }
    }

    private static Connection openExplicit(ConnectionSpec spec) throws JanitorException {
        try {
            return openRemote(spec);
        } catch (SQLException e) {
            throw spec.connectionFailure(e);
        }
    }

    /** A read-only connection to another database, out of autocommit so that its reads stream. */
    private static Connection openRemote(ConnectionSpec spec) throws SQLException {
        Connection rc = spec.openRaw();
        try {
            rc.setReadOnly(true);
            rc.setAutoCommit(false);
            return rc;
        } catch (SQLException e) {
            rc.close();
            throw e;
        }
    }

    /**
     * {datname, may connect, allows connections, is a template} of every database but the session's, by name;
     * templates included (a template that allows connections can hold a catalog; see {@link #pristineTemplate0}).
     */
    private static List<String[]> otherDatabases(Connection c) throws SQLException {
        List<String[]> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT datname::text, pg_catalog.has_database_privilege(oid, 'CONNECT'),"
                + " datallowconn, datistemplate FROM pg_catalog.pg_database WHERE datname <> current_database() ORDER BY 1");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new String[] {rs.getString(1), Boolean.toString(rs.getBoolean(2)), Boolean.toString(rs.getBoolean(3)),
                        Boolean.toString(rs.getBoolean(4))});
            }
        }
        return out;
    }

    /**
     * PostgreSQL's own {@code template0}, as initdb makes it: named {@code template0}, a template, and allowing no
     * connections. By design it never holds a catalog (no session can write there while it stays so), so it is
     * skipped silently: were it refused like every database that allows no connections, every run on every server
     * would be. (A template0 opened, given a catalog and closed again looks the same and is not caught.) Any other
     * database that allows no connections, template or not, and a {@code template0} someone has opened to
     * connections, is treated as every other database.
     */
    static boolean pristineTemplate0(String[] db) {
        return "template0".equals(db[0]) && Boolean.parseBoolean(db[3]) && !Boolean.parseBoolean(db[2]);
    }

    private static String currentDatabase(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT current_database()::text"); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static String currentUser(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT current_user::text"); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getString(1);
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

    /** Closes the other databases' connections (the swept session stays open). */
    @Override
    public void close() {
        for (Connection rc : remotes.values()) {
            try {
                rc.rollback();
                rc.close();
            } catch (SQLException ignored) {
                // read-only: nothing to lose
            }
        }
        remotes.clear();
    }
}
