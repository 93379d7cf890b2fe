package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogDiscovery;
import dev.ducklake.janitor.catalog.NestedSchemas;
import dev.ducklake.janitor.ops.files.ConsultedCatalogs.Catalog;
import dev.ducklake.janitor.ops.files.ConsultedCatalogs.NotConsulted;
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
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.BooleanSupplier;

import static dev.ducklake.janitor.ops.files.ConsultedCatalogs.FILE_COLUMNS;
import static dev.ducklake.janitor.ops.files.ConsultedCatalogs.FILE_TABLES;
import static dev.ducklake.janitor.ops.files.ConsultedCatalogs.WHOLE_DATABASE;

/**
 * The survey behind {@link ConsultedCatalogs#find}: walks the swept database, the databases named by
 * {@code --also-catalog} and the server's other databases, adds each readable DuckLake catalog there to the
 * {@link ConsultedCatalogs} it fills, and refuses the run when one that could reach the swept location cannot be read
 * (the rules are those of {@link ConsultedCatalogs}). One instance per {@code find}, used once.
 */
final class DatabaseSurvey {

    /** What the survey fills: the catalogs, the exclusions and notes, the other databases' connections. */
    private final ConsultedCatalogs cc;
    private final Connection session;
    private final ConsultOptions o;
    /** Receives the warnings (exclusions, databases not consulted). */
    private final RunRecorder recorder;
    /** The swept data path as given ({@link PathResolver#dataLocation()}). */
    private StorageLocation mine;
    private String mineShown; // as messages name it (PathResolver#shown)
    /** The swept data path with symbolic links resolved ({@link PathResolver#realDataLocation()}). */
    private StorageLocation mineReal;
    /** Catalogs surveyed so far, by {@link #key}: each is considered once. */
    private final Set<String> seen = new HashSet<>();
    /** The swept catalog's {@link #key}. */
    private String ownKey;
    /** The swept session's lock_timeout, once read ({@link #lockTimeout}). */
    private String sessionLockTimeout;
    /** The run's stop condition: interrupts a login to another database (null: none). */
    private final BooleanSupplier stop;
    /** The {@code --exclude-catalog-schema} values. */
    private final Set<String> exclusions;
    /** The {@link #exclusions} that waived something (the others are warned about at the end). */
    private final Set<String> usedExclusions = new HashSet<>();
    /** Unreadable catalogs and databases, for the {@link Reason#PERMISSION_DENIED} refusal. */
    private final List<String> refusals = new ArrayList<>();
    /** Other databases of the server whose login failed, for the {@link Reason#CONNECTION} refusal. */
    private final List<String> unreachable = new ArrayList<>();
    /** Readable catalogs with a relative data path (refused unless excluded). */
    private final List<String> unplaceable = new ArrayList<>();
    /** Catalogs lacking tables every format has (half created or half dropped; refused unless excluded). */
    private final List<String> incomplete = new ArrayList<>();

    /**
     * @param cc the set to fill (empty)
     * @param session the swept session (autocommit on or off; only reads)
     * @param o what to consult
     * @param recorder receives the warnings
     */
    DatabaseSurvey(ConsultedCatalogs cc, Connection session, ConsultOptions o, RunRecorder recorder, BooleanSupplier stop) {
        this.cc = cc;
        this.session = session;
        this.o = o;
        this.recorder = recorder;
        this.stop = stop;
        this.exclusions = new HashSet<>(o.excludedSchemas());
    }

    /**
     * The swept session's {@code lock_timeout} (the run's --lock-timeout, set on it before the survey), read once: the
     * other databases' connections get the same, so that a writer's lock there ends a read at the lock timeout too.
     */
    private String lockTimeout() throws SQLException {
        if (sessionLockTimeout == null) {
            try (PreparedStatement ps = session.prepareStatement("SELECT current_setting('lock_timeout')");
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                sessionLockTimeout = rs.getString(1);
            }
        }
        return sessionLockTimeout;
    }

    /**
     * Runs the survey: the swept catalog, the swept database, the catalogs named by {@code --also-catalog}, the other
     * databases of the server, in that order; then refuses what could not be read and warns about the exclusions.
     *
     * @param own the swept catalog's schema
     * @param ownResolver its resolver (override applied)
     * @throws JanitorException as {@link ConsultedCatalogs#find}
     * @throws SQLException on database errors
     */
    void run(String own, PathResolver ownResolver) throws JanitorException, SQLException {
        cc.census().configure(o, stop, lockTimeout());
        String ownDb = sweptCatalog(own, ownResolver);
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
        consultDatabase(session, null, ownDb, null, explicitLocal);
        // --also-catalog
        Set<String> coveredDatabases = consultNamed(remoteRefs);
        // the other databases of the server
        if (o.consultServer()) {
            consultServer(coveredDatabases);
        }
        requireAllRead();
        warnExclusions();
    }

    /**
     * Adds the swept catalog (first of {@link ConsultedCatalogs#catalogs()}) and records its data path as given and
     * with symbolic links resolved.
     *
     * @return the swept database's name
     */
    private String sweptCatalog(String own, PathResolver ownResolver) throws JanitorException, SQLException {
        NestedSchemas.requireFlat(session, own);
        String ownDb = currentDatabase(session);
        cc.addConsulted(new Catalog(ownDb, own, ownResolver, null, own));
        mine = ownResolver.dataLocation();
        mineShown = ownResolver.shown();
        mineReal = ownResolver.withRealDirectory().realDataLocation();
        String sweptPrefix = mine.asPrefix().canonical();
        String realPrefix = mineReal.asPrefix().canonical();
        cc.sweptAt(sweptPrefix, realPrefix.equals(sweptPrefix) ? null : realPrefix);
        ownKey = key(o.server(), ownDb, own);
        seen.add(ownKey);
        return ownDb;
    }

    /**
     * Consults the catalogs {@code --also-catalog} names outside the swept database, each database through a
     * connection of its own ({@link ServerDatabases#openExplicit}), kept when it holds a consulted catalog.
     *
     * @param remoteRefs the references, in the order given
     * @return the databases of the swept server named whole (no schema): the survey of the server skips them
     */
    private Set<String> consultNamed(List<ConnectionSpec.CatalogReference> remoteRefs) throws JanitorException, SQLException {
        Set<String> coveredDatabases = new HashSet<>();
        for (ConnectionSpec.CatalogReference ref : remoteRefs) {
            ConnectionSpec spec = ref.spec();
            Connection rc = ServerDatabases.openExplicit(spec, stop, lockTimeout());
            cc.opened(rc);
            Set<String> explicit = Set.of(ref.metadataSchema() == null ? "*" : ref.metadataSchema());
            int before = cc.size();
            ServerDatabases.consultOrClose(rc, () -> consultDatabase(rc, spec, spec.database(), ref.metadataSchema(), explicit));
            if (ref.metadataSchema() == null && o.server() != null && o.server().sameServer(spec)) {
                coveredDatabases.add(spec.database());
            }
            cc.keepOrClose(spec, rc, before);
        }
        return coveredDatabases;
    }

    /**
     * Consults every other database of the swept server ({@link ServerDatabases#otherDatabases}, by name) but those already named
     * whole and a {@link ServerDatabases#pristineTemplate0}; without a connection specification to reach them, notes them as not
     * consulted instead.
     *
     * @param coveredDatabases the databases {@code --also-catalog} named whole
     */
    private void consultServer(Set<String> coveredDatabases) throws JanitorException, SQLException {
        if (o.server() == null) {
            note(new NotConsulted("(other databases of the server)", "no connection specification to reach them"
                    + " (a library call on a plain connection)"));
            return;
        }
        for (String[] db : ServerDatabases.otherDatabases(session)) {
            if (!coveredDatabases.contains(db[0]) && !ServerDatabases.pristineTemplate0(db)) {
                consultOther(db);
            } else {
                cc.census().leaveAlone(db[0]);
            }
        }
    }

    /**
     * Consults one other database of the server: refused (unless waived) when the role has no CONNECT privilege on it
     * or it allows no connections; skipped when dropped since it was listed; unreachable (unless waived) when the login
     * fails; otherwise surveyed through a connection of its own, kept when it holds a consulted catalog.
     *
     * @param db a row of {@link ServerDatabases#otherDatabases}
     * @throws JanitorException {@link Reason#CONNECTION} when a stop was requested during the login
     */
    private void consultOther(String[] db) throws JanitorException, SQLException {
        String name = db[0];
        String waiver = name + "/" + WHOLE_DATABASE;
        if (!Boolean.parseBoolean(db[1]) || !Boolean.parseBoolean(db[2])) {
            // refused below (the run stops) unless waived (then excluded): the census leaves it alone
            cc.census().leaveAlone(name);
        }
        if (!Boolean.parseBoolean(db[1])) {
            String why = "the role has no CONNECT privilege on it, so a DuckLake catalog there cannot be seen";
            if (!waived(name, why)) {
                refusals.add("database " + Sql.printable(name) + " (" + why + "; waived only by"
                        + " --exclude-catalog-schema " + waiver + ")");
            }
            return;
        }
        if (!Boolean.parseBoolean(db[2])) {
            String why = "the database does not allow connections (datallowconn is false), so a DuckLake catalog"
                    + " there cannot be seen, and its files are live again once connections are allowed";
            if (!waived(name, why)) {
                refusals.add("database " + Sql.printable(name) + " (" + why + "; allow connections to it for the"
                        + " run, or waive it with --exclude-catalog-schema " + waiver + ")");
            }
            return;
        }
        ConnectionSpec spec = o.server().withDatabase(name);
        Connection rc;
        try {
            rc = ServerDatabases.openRemote(spec, stop, lockTimeout());
        } catch (SQLException e) {
            if ("3D000".equals(e.getSQLState())) {
                return; // dropped since it was listed: it holds nothing any more
            }
            if (ConnectionSpec.interruptedLogin(e)) {
                throw new JanitorException(Reason.CONNECTION, "A stop was requested while the other databases of the"
                        + " server were being consulted (at " + Sql.printable(name) + "). Nothing was listed or deleted.", e);
            }
            String why = "connecting failed: " + spec.redact(e.getMessage());
            cc.census().leaveAlone(name); // refused below (the run stops) unless waived
            if (!waived(name, why)) {
                unreachable.add(Sql.printable(name) + " (" + why + "; waived only by --exclude-catalog-schema "
                        + waiver + ")");
            }
            return;
        }
        cc.opened(rc);
        int before = cc.size();
        boolean template = Boolean.parseBoolean(db[3]); // read (it may hold a catalog), closed so a pooler ends its session
        ServerDatabases.consultOrClose(rc, template, () -> consultDatabase(rc, spec, name, null, Set.of()));
        cc.keepOrClose(spec, rc, before, template);
    }

    /**
     * Stops the run when something that may reference files under the swept location was not read, checked in this
     * order: unreadable catalogs and databases, catalogs lacking file tables, catalogs with a relative data path,
     * databases whose login failed.
     *
     * @throws JanitorException {@link Reason#PERMISSION_DENIED}, {@link Reason#UNSAFE_CATALOG_STATE} (twice) or
     *     {@link Reason#CONNECTION} respectively, naming each one and the way out
     */
    private void requireAllRead() throws JanitorException, SQLException {
        if (!refusals.isEmpty()) {
            String role = currentUser(session);
            throw new JanitorException(Reason.PERMISSION_DENIED, refusals.size() + " DuckLake catalog(s) or database(s) that may"
                    + " reference files under " + mineShown + " cannot be read by role " + Sql.printable(role) + ", so the"
                    + " files they reference are unknown and their data path must be assumed to overlap: " + String.join("; ", refusals)
                    + ". Nothing was listed or deleted. Grant these (to " + Sql.ident(role) + "; CONNECT for a database), or pass"
                    + " --exclude-catalog-schema NAME (DATABASE/NAME for another database, DATABASE/" + WHOLE_DATABASE + " for a"
                    + " whole database) for a catalog whose data path you have proven disjoint from this one, or"
                    + " --no-consult-server.");
        }
        if (!incomplete.isEmpty()) {
            throw new JanitorException(Reason.UNSAFE_CATALOG_STATE, incomplete.size() + " DuckLake catalog(s) lack tables or"
                    + " columns every catalog format has (a catalog half created or half dropped, damaged, or a layout no"
                    + " DuckLake writes), so the files they reference"
                    + " cannot be read and they may reference files under " + mineShown + ": "
                    + String.join("; ", incomplete) + ". Nothing was listed or deleted. Let DuckLake finish the catalog (ATTACH"
                    + " it once), drop the schema if it is debris, or pass --exclude-catalog-schema NAME (DATABASE/NAME for"
                    + " another database) for one proven disjoint.");
        }
        if (!unplaceable.isEmpty()) {
            throw new JanitorException(Reason.UNSAFE_CATALOG_STATE, unplaceable.size() + " readable DuckLake catalog(s) have a"
                    + " relative data path, so where their files are depends on the working directory of the DuckDB that wrote"
                    + " them, and they may reference files under " + mineShown + ": " + String.join("; ", unplaceable)
                    + ". Nothing was listed or deleted. Give such a catalog an absolute data_path, name it with --also-catalog"
                    + " (its relative paths are then resolved from this process's working directory), or pass"
                    + " --exclude-catalog-schema NAME (DATABASE/NAME for another database) for one proven disjoint.");
        }
        if (!unreachable.isEmpty()) {
            throw new JanitorException(Reason.CONNECTION, unreachable.size() + " other database(s) of the server could not be"
                    + " consulted, and a DuckLake catalog there may reference files under " + mineShown + ": "
                    + String.join("; ", unreachable) + ". Nothing was listed or deleted. Rerun when the server accepts the"
                    + " connections (max_connections, the database's CONNECTION LIMIT), or pass --exclude-catalog-schema"
                    + " DATABASE/" + WHOLE_DATABASE + " for a database proven to hold no catalog that reaches this data path.");
        }
    }

    /** Warns about each {@code --exclude-catalog-schema} that waived nothing, then about each catalog excluded. */
    private void warnExclusions() {
        for (String x : exclusions) {
            if (!usedExclusions.contains(x)) {
                recorder.warn("--exclude-catalog-schema " + Sql.printable(x) + " matches no unreadable DuckLake catalog; nothing"
                        + " was excluded for it");
            }
        }
        for (String x : cc.excluded()) {
            recorder.warn("catalog " + Sql.printable(x) + " cannot be read and is excluded by --exclude-catalog-schema: files"
                    + " only it references may be deleted as orphans");
        }
    }

    /**
     * Consults one database: each schema holding a ducklake_metadata relation is read (or refused) and added when its
     * data path overlaps the swept location or it is named explicitly ({@code "*"}: every catalog of the database).
     */
    private void consultDatabase(Connection dc, ConnectionSpec remote, String database, String onlySchema, Set<String> explicit)
            throws JanitorException, SQLException {
        ConnectionSpec server = o.server();
        boolean found = false;
        List<CatalogDiscovery.Access> access;
        try {
            access = CatalogDiscovery.access(dc, FILE_TABLES, FILE_COLUMNS);
        } catch (SQLException e) {
            throw named(e, database, null);
        }
        Set<String> schemas = new HashSet<>();
        for (CatalogDiscovery.Access a : access) {
            schemas.add(a.schema());
        }
        cc.census().saw(remote, database, schemas);
        for (CatalogDiscovery.Access a : access) {
            if (onlySchema != null && !onlySchema.equals(a.schema())) {
                continue;
            }
            try {
                found |= consultSchema(dc, remote, database, a, explicit);
            } catch (SQLException e) {
                throw named(e, database, a.schema());
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

    /**
     * Consults one schema of a database holding a ducklake_metadata relation ({@link #consultDatabase}).
     *
     * @return whether it holds a catalog (or must be assumed to: unreadable)
     */
    private boolean consultSchema(Connection dc, ConnectionSpec remote, String database, CatalogDiscovery.Access a,
                                  Set<String> explicit) throws JanitorException, SQLException {
        String label = label(remote, o.server(), database, a.schema());
        String key = key(remote == null ? o.server() : remote, database, a.schema());
        if (!seen.add(key)) {
            if (key.equals(ownKey) && a.incomplete()) {
                // the swept catalog itself: nothing to waive, its own reads would fail on the server's "does not exist"
                throw new JanitorException(Reason.UNSAFE_CATALOG_STATE, "The catalog " + Sql.printable(label) + " lacks"
                        + " tables or columns every DuckLake catalog format has (no " + String.join(", ", a.absent()) + "):"
                        + " half created, half dropped, damaged, or a layout no DuckLake writes, so the files it references"
                        + " cannot be read. Nothing was listed or deleted. Let DuckLake finish or migrate the catalog (ATTACH"
                        + " it once) or restore what is missing.");
            }
            return true;
        }
        String exclusion = remote == null ? a.schema() : database + "/" + a.schema();
        if (!a.readable()) {
            if (exclusions.contains(exclusion)) {
                usedExclusions.add(exclusion);
                cc.addExcluded(label);
            } else {
                refusals.add("catalog " + Sql.printable(label) + " (missing: " + String.join(", ", a.missing()) + ")");
            }
            return true;
        }
        if (!a.isCatalog()) {
            return false;
        }
        if (a.incomplete()) {
            // a version row without the file tables or a column of them: half created or half dropped, or a layout no
            // DuckLake writes; what it references is unknown
            if (exclusions.contains(exclusion)) {
                usedExclusions.add(exclusion);
                cc.addExcluded(label);
            } else {
                incomplete.add("catalog " + Sql.printable(label) + " (no " + String.join(", ", a.absent()) + ")");
            }
            return true;
        }
        String p = CatalogFiles.option(dc, a.schema(), "data_path");
        boolean named = explicit.contains("*") || explicit.contains(a.schema());
        if (p == null || p.isEmpty()) {
            if (named) {
                throw new JanitorException(Reason.NOT_A_CATALOG, "The catalog " + Sql.printable(label) + " named by"
                        + " --also-catalog has no data_path in ducklake_metadata; its relative paths cannot be resolved.");
            }
            return true;
        }
        if (PathResolver.isRelative(p) && !named) {
            if (exclusions.contains(exclusion)) {
                usedExclusions.add(exclusion);
                cc.addExcluded(label);
            } else {
                unplaceable.add("catalog " + Sql.printable(label) + " (data_path " + Sql.printable(p) + ")");
            }
            return true;
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
            cc.addConsulted(new Catalog(database, a.schema(), r, remote, label));
        } else {
            cc.addReachOnly(new Catalog(database, a.schema(), r, remote, label));
        }
        return true;
    }

    /** A read of the survey that failed: a lock wait named ({@link ConsultedCatalogs#lockWait}), else as it is. */
    private static SQLException named(SQLException e, String database, String schema) throws JanitorException {
        JanitorException lockWait = ConsultedCatalogs.lockWait(e, database, schema);
        if (lockWait != null) {
            throw lockWait;
        }
        return e;
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
     * {@link ConsultedCatalogs#WHOLE_DATABASE}): when it was given, the database is excluded (warned at the end as every
     * excluded catalog: files only it references may be deleted as orphans), the waiver counted as used and the
     * database noted as not consulted.
     *
     * @param database the database's name
     * @param why why it cannot be consulted, for the note
     * @return true when waived; false when the caller must refuse (or report) the database
     */
    private boolean waived(String database, String why) {
        String waiver = database + "/" + WHOLE_DATABASE;
        if (!exclusions.contains(waiver)) {
            return false;
        }
        usedExclusions.add(waiver);
        cc.addExcluded(waiver);
        note(new NotConsulted(database, why + " (excluded by --exclude-catalog-schema " + waiver + ")"));
        return true;
    }

    private void note(NotConsulted n) {
        cc.addNotConsulted(n);
        recorder.warn("database " + Sql.printable(n.database()) + " not consulted: " + n.reason());
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
}
