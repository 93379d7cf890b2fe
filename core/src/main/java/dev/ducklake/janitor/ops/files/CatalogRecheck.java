package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.PathResolver;
import dev.ducklake.janitor.storage.StorageLocation;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The last look at the catalog before a batch of orphan candidates is deleted: which of the batch's addresses a
 * catalog row names <em>now</em>. The known set ({@link KnownFiles}) is read once, before the listing; a file
 * registered meanwhile (DuckLake's {@code ducklake_add_data_files} of an old staged file, a commit of a writer that
 * wrote its file long ago) would otherwise be deleted while live.
 *
 * <p>Reads the catalog tables themselves, not the temporary known table, in a fresh transaction: of every consulted
 * catalog {@code ducklake_data_file}, {@code ducklake_delete_file} (of any snapshot) and
 * {@code ducklake_files_scheduled_for_deletion}, considering the rows whose stored {@code path} is one of the spellings
 * a batch address can be stored as: the address itself, its canonical form and local path, and every tail of its key
 * after a {@code /} (a file path is relative to its table's path, a queued one to the data path; hive partition
 * folders make tails longer than the file name). The rows found are resolved exactly as the known set resolves them
 * (DuckLake 1.5.5, {@code GetOrphanFilesForCleanup} in {@code src/storage/ducklake_metadata_manager.cpp}, see
 * {@link FileRows#sql}; with {@code --data-path} a relative path under the override and under the stored
 * data path, {@link PathResolver#storedSpelling}) and compared in canonical form; a matching row whose table or schema
 * row is missing keeps every address it could name.
 *
 * <p>Set-based, one statement per database a round: the round's spellings travel as the distinct last segments of
 * their key (the file names, {@link #lastSegment}: about one per address however deep the key) in one array bound once;
 * PostgreSQL selects, in one {@code UNION ALL} over every consulted catalog of that database, the rows whose path ends
 * in one of them (a hash semi-join), and the JVM keeps of those exactly the rows whose path is one of the spellings
 * before resolving them (the spellings of an address are worked out only when a row shares its last segment). So the
 * rows considered are those an exact match on the spellings would find, the names are sent once instead of every
 * spelling once per table and catalog, and the statements' text (which path columns each catalog's
 * format has) is worked out once per run. The catalogs have no index on {@code path}: each statement is a sequential
 * scan of their file tables, once per delete round (delete-orphan-files: at least {@value #MIN_ROUND} candidates),
 * except where the run read the ids of the known set's reading ({@link CatalogWatermark}: the runs of both commands):
 * then only the data and delete file rows above them are read, a range of the primary key; the queues have no key
 * and are read whole.
 *
 * <p>What it does not see: a row registered after it ran (the window is one round's delete calls), and a row
 * registered during the run under a spelling that is none of the above ({@code ./x.parquet}, {@code ../t/x.parquet},
 * another URL scheme). The age floor covers both: only files last modified before the cutoff (24 h by default) are
 * candidates, so a file must be both old and registered in that instant.
 */
public final class CatalogRecheck {

    /**
     * The fewest candidates delete-orphan-files re-checks in one round (more when {@code --delete-concurrency} ×
     * {@link dev.ducklake.janitor.storage.FileStore#maxDeleteBatch} is larger): a round costs a sequential scan of every
     * consulted catalog's file tables whatever its size, and its deletes follow the re-check at once.
     */
    public static final int MIN_ROUND = 10_000;

    /** The last segment of a path in SQL: what follows its last {@code /} (all of it without one), as {@link #lastSegment}. */
    static final String LAST_SEGMENT_SQL = "reverse(split_part(reverse(path), '/', 1))";

    private final Connection session;
    /**
     * Every consulted catalog (overlapping and reach-only), by the connection it is read through, in order
     * (connections compare by identity).
     */
    private final Map<Connection, List<ConsultedCatalogs.Catalog>> byConnection = new LinkedHashMap<>();
    /** The statement of each connection, built on first use. */
    private final Map<Connection, Statement> sql = new IdentityHashMap<>();

    /**
     * With cleanup-old-files, the highest file ids of each catalog when its known set was read: only rows above them
     * are read (a primary-key range, {@link CatalogWatermark#idsAtLoad}); null reads every row.
     */
    private final CatalogWatermark idsAtLoad;

    /** Rows' spellings with the links of their folders resolved (a row naming a swept file through a link). */
    private final RealSpellings realSpellings = new RealSpellings();
    /** The consulted catalogs, for the real spelling of a swept data path reached through a link. */
    private final ConsultedCatalogs consulted;

    /** Whether the catalogs' queues count too (delete-orphan-files), or only live data and delete files (cleanup). */
    private final boolean queues;

    private CatalogRecheck(Connection session, ConsultedCatalogs consulted, boolean queues, CatalogWatermark idsAtLoad) {
        this.session = session;
        this.consulted = consulted;
        this.queues = queues;
        this.idsAtLoad = idsAtLoad;
        List<ConsultedCatalogs.Catalog> all = new ArrayList<>(consulted.catalogs());
        all.addAll(consulted.reachOnly());
        for (ConsultedCatalogs.Catalog cat : all) {
            byConnection.computeIfAbsent(consulted.connection(cat), k -> new ArrayList<>()).add(cat);
        }
    }

    /**
     * The re-check of a run: holds the statements' text for its rounds.
     *
     * @param c the swept session
     * @param consulted every catalog the known set was loaded from
     * @return the re-check
     */
    public static CatalogRecheck of(Connection c, ConsultedCatalogs consulted) {
        return new CatalogRecheck(c, consulted, true, null);
    }

    /**
     * The re-check of a delete-orphan-files run whose known set was read after {@code watermark}: of the catalogs' data
     * and delete files only the rows committed since are read, those whose id is above the catalog's highest at that
     * reading (a range of the primary key, {@link CatalogWatermark#idsAtLoad}); the queues, which have no key, are
     * read whole as in {@link #of(Connection, ConsultedCatalogs)}.
     *
     * @param c the swept session
     * @param consulted every catalog the known set was loaded from
     * @param watermark the reading taken before the known set was loaded
     * @return the re-check
     */
    public static CatalogRecheck of(Connection c, ConsultedCatalogs consulted, CatalogWatermark watermark) {
        return new CatalogRecheck(c, consulted, true, watermark);
    }

    /**
     * The re-check of a cleanup-old-files run: which queued files a data or delete file row of a consulted catalog
     * names now (a file registered during the run); the queues are left out (the swept catalog's own queue names every
     * file it cleans up, and another catalog's queued file is no live reference, as in the known set cleanup loads).
     * Only the rows committed since the known set was read are looked at: those whose id is above the catalog's
     * highest at {@code watermark}'s reading (a range of the primary key, however large the catalog); a catalog whose
     * file tables could not be read then is scanned whole.
     *
     * @param c the swept session
     * @param consulted every catalog the known set was loaded from
     * @param watermark the reading taken before the known set was loaded
     * @return the re-check
     */
    public static CatalogRecheck ofLiveFiles(Connection c, ConsultedCatalogs consulted, CatalogWatermark watermark) {
        return new CatalogRecheck(c, consulted, false, watermark);
    }

    /**
     * Which addresses a catalog row names now.
     *
     * @param c the session (autocommit off; the transaction in progress is committed first, and the check's own
     *     transaction is committed after, so the check sees every commit made before it started)
     * @param tenants the consulted catalogs with their resolvers ({@link CatalogFiles#tenants})
     * @param addresses exact addresses as listed (a local path, {@code file://} or {@code s3://bucket/key})
     * @return the subset of {@code addresses} that some catalog row names (or may name)
     * @throws SQLException on database errors
     */
    public static Set<String> named(Connection c, List<CatalogFiles.Tenant> tenants, Collection<String> addresses)
            throws SQLException {
        return named(c, ConsultedCatalogs.of(c, tenants), addresses);
    }

    /**
     * One round's check on a re-check made for it alone ({@link #of}, then {@link #named(Collection)}).
     *
     * @param c the swept session (autocommit off; committed before and after)
     * @param consulted every catalog the known set was loaded from
     * @param addresses exact addresses as listed
     * @return the subset of {@code addresses} that some catalog row names (or may name)
     * @throws SQLException on database errors
     */
    public static Set<String> named(Connection c, ConsultedCatalogs consulted, Collection<String> addresses)
            throws SQLException {
        return of(c, consulted).named(addresses);
    }

    /**
     * Which addresses a row of any consulted catalog names now: the catalogs whose data path overlaps and the
     * reach-only ones ({@link ConsultedCatalogs#reachOnly()}), each database read through its own connection (the swept
     * session for this database's catalogs, a held read-only connection for another database's) in one statement and
     * a fresh transaction.
     *
     * @param addresses exact addresses as listed (at most a round: the JVM holds their spellings)
     * @return the subset of {@code addresses} that some catalog row names (or may name)
     * @throws SQLException on database errors
     */
    public Set<String> named(Collection<String> addresses) throws SQLException {
        Set<String> out = new HashSet<>();
        if (addresses.isEmpty()) {
            return out;
        }
        Spellings sp = new Spellings(addresses.size());
        for (String a : addresses) {
            StorageLocation l;
            try {
                l = StorageLocation.parse(a);
            } catch (IllegalArgumentException e) {
                out.add(a); // not comparable: keep it
                continue;
            }
            sp.add(a, l);
            String real = consulted.realSpelling(l.canonical());
            if (real != null) {
                // the swept data path is a link: a row may name the file by the real directory
                sp.addReal(a, StorageLocation.parse(real));
            }
        }
        session.commit();
        try {
            for (Map.Entry<Connection, List<ConsultedCatalogs.Catalog>> e : byConnection.entrySet()) {
                Connection source = e.getKey();
                if (source != session) {
                    source.commit();
                }
                try {
                    check(source, e.getValue(), sp, out);
                } finally {
                    if (source != session) {
                        source.commit();
                    }
                }
            }
        } finally {
            session.commit();
        }
        return out;
    }

    /**
     * What follows the last {@code /} of a spelling (all of it without one): the SQL twin is {@link #LAST_SEGMENT_SQL}.
     * A row whose path equals a spelling has the spelling's last segment, so selecting by last segment finds every
     * such row (and some more, which {@link #check} drops).
     */
    static String lastSegment(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /**
     * A round's addresses by canonical form and by the last segments of their spellings; the spellings themselves
     * ({@link #forms}) are worked out only for the addresses sharing a last segment with a row the statement returned.
     */
    private static final class Spellings {
        final Map<String, String> byCanonical;
        /** Address by last segment of one of its spellings: a String, or a List of them when several share it. */
        final Map<String, Object> byName;
        final Map<String, StorageLocation> parsed;
        /** The address under the real directory of a swept data path reached through a symbolic link. */
        final Map<String, StorageLocation> real = new HashMap<>();
        /** Addresses by spelling, for the last segments already expanded. */
        final Map<String, Set<String>> byForm = new HashMap<>();
        final Set<String> expanded = new HashSet<>();

        Spellings(int n) {
            byCanonical = new HashMap<>(n * 2);
            byName = new HashMap<>(n * 2);
            parsed = new HashMap<>(n * 2);
        }

        void add(String a, StorageLocation l) {
            parsed.put(a, l);
            String canon = l.canonical();
            byCanonical.put(canon, a);
            // every tail of the key ends as the key does, so three last segments cover all of forms()
            name(lastSegment(a), a);
            name(lastSegment(canon), a);
            name(lastSegment(l.path()), a);
        }

        /** Another spelling of {@code a}: the same file under the swept directory's real path. */
        void addReal(String a, StorageLocation r) {
            real.put(a, r);
            String canon = r.canonical();
            byCanonical.putIfAbsent(canon, a);
            name(lastSegment(canon), a);
            name(lastSegment(r.path()), a);
        }

        @SuppressWarnings("unchecked")
        private void name(String n, String a) {
            Object o = byName.putIfAbsent(n, a);
            if (o == null || o.equals(a)) {
                return;
            }
            List<String> list;
            if (o instanceof String s) {
                list = new ArrayList<>(2);
                list.add(s);
                byName.put(n, list);
            } else {
                list = (List<String>) o;
                if (list.contains(a)) {
                    return;
                }
            }
            list.add(a);
        }

        /** The round's addresses one of whose spellings is exactly {@code path}. */
        @SuppressWarnings("unchecked")
        Set<String> spelledAs(String path) {
            String n = lastSegment(path);
            if (expanded.add(n)) {
                Object o = byName.get(n);
                List<String> as = o == null ? List.of() : o instanceof String s ? List.of(s) : (List<String>) o;
                for (String a : as) {
                    for (String f : forms(a, parsed.get(a))) {
                        byForm.computeIfAbsent(f, k -> new LinkedHashSet<>()).add(a);
                    }
                    StorageLocation r = real.get(a);
                    if (r != null) {
                        for (String f : forms(r.canonical(), r)) {
                            byForm.computeIfAbsent(f, k -> new LinkedHashSet<>()).add(a);
                        }
                    }
                }
            }
            return byForm.getOrDefault(path, Set.of());
        }
    }

    /** The spellings a catalog row may store for this address: absolute forms and every tail of the key. */
    static List<String> forms(String address, StorageLocation l) {
        List<String> f = new ArrayList<>();
        f.add(address);
        f.add(l.canonical());
        if (l.scheme().equals("file")) {
            f.add(l.path());
        }
        String key = l.path();
        for (int i = key.indexOf('/'); i >= 0 && i < key.length() - 1; i = key.indexOf('/', i + 1)) {
            f.add(key.substring(i + 1));
        }
        if (!key.startsWith("/")) {
            f.add(key);
        }
        return f;
    }

    /** Where the round's names are bound among a {@link Statement}'s parameters. */
    private static final Object NAMES = new Object();

    /**
     * One database's statement and its bind values in order ({@link #NAMES} where the round's array goes).
     *
     * @param text the SQL text
     * @param params the values of its parameters
     */
    private record Statement(String text, List<Object> params) {
    }

    /**
     * The statement of one database's catalogs: per catalog its file rows ({@link FileRows#sql}, columns 1 to
     * 8) and (with {@code queues}) its queue rows, column 9 whether the row is queued, column 10 the catalog's position
     * in {@code cats}; rows whose path's last segment is one of the bound names (and, with {@link #idsAtLoad}, whose id
     * is above the catalog's highest then).
     */
    private Statement statement(Connection c, List<ConsultedCatalogs.Catalog> cats) throws SQLException {
        String byName = " WHERE " + LAST_SEGMENT_SQL + " IN (SELECT name FROM n)";
        List<Object> params = new ArrayList<>();
        params.add(NAMES);
        StringBuilder sb = new StringBuilder("WITH n AS MATERIALIZED (SELECT DISTINCT unnest(?::text[]) AS name)");
        for (int i = 0; i < cats.size(); i++) {
            String schema = cats.get(i).schema();
            CatalogWatermark.FileIds ids = idsAtLoad == null ? null : idsAtLoad.idsAtLoad(cats.get(i));
            String dataFilter = byName;
            String deleteFilter = byName;
            params.add(i);
            if (ids != null) {
                dataFilter += " AND data_file_id > ?";
                deleteFilter += " AND delete_file_id > ?";
                params.add(ids.dataFile());
                params.add(ids.deleteFile());
            }
            sb.append(i == 0 ? " " : " UNION ALL ")
                    .append("SELECT *, false AS queued, ?::int AS cat FROM (")
                    .append(FileRows.sql(c, schema, dataFilter, deleteFilter, false)).append(") k");
            if (queues) {
                sb.append(" UNION ALL SELECT path, path_is_relative, NULL, NULL, NULL, NULL, false, false, true, ?::int")
                        .append(" FROM ").append(Sql.qualified(schema, "ducklake_files_scheduled_for_deletion")).append(byName);
                params.add(i);
            }
        }
        return new Statement(sb.toString(), params);
    }

    private void check(Connection c, List<ConsultedCatalogs.Catalog> cats, Spellings sp, Set<String> out) throws SQLException {
        Statement st = sql.get(c);
        if (st == null) {
            st = statement(c, cats);
            sql.put(c, st);
        }
        try (PreparedStatement ps = c.prepareStatement(st.text())) {
            ps.setFetchSize(5000);
            for (int i = 0; i < st.params().size(); i++) {
                Object p = st.params().get(i);
                if (p == NAMES) {
                    ps.setArray(i + 1, c.createArrayOf("text", sp.byName.keySet().toArray()));
                } else if (p instanceof Integer n) {
                    ps.setInt(i + 1, n);
                } else {
                    ps.setLong(i + 1, (Long) p);
                }
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String path = rs.getString(1);
                    Set<String> spelled = sp.spelledAs(path);
                    if (spelled.isEmpty()) {
                        // the same last segment, another path: no spelling of the round's addresses, unless an absolute
                        // path names one of them through a link (resolved, it is the swept file)
                        if (Boolean.FALSE.equals(rs.getObject(2))) {
                            String real = realSpellings.of(path);
                            if (real != null) {
                                match(real, sp.byCanonical, out);
                            }
                        }
                        continue;
                    }
                    PathResolver r = cats.get(rs.getInt(10)).resolver();
                    Boolean rel = (Boolean) rs.getObject(2);
                    boolean queued = rs.getBoolean(9);
                    List<String> full = new ArrayList<>(3);
                    boolean unresolved = false;
                    if (rel == null || !rel) {
                        full.add(path);
                    }
                    if (rel == null || rel) {
                        String f = queued ? r.scheduled(path, true) : FileRows.resolve(rs, r, path);
                        if (f == null) {
                            unresolved = true;
                        } else {
                            full.add(f);
                            // with --data-path, a relative path names its file under the stored data path too
                            String stored = r.storedSpelling(f, false);
                            if (stored != null) {
                                match(stored, sp.byCanonical, out);
                            }
                        }
                    }
                    if (unresolved) {
                        out.addAll(spelled);
                    }
                    for (String f : full) {
                        match(f, sp.byCanonical, out);
                        String rebased = r.rebase(f);
                        if (rebased != null) {
                            match(rebased, sp.byCanonical, out);
                        }
                        String aka = r.alias(f);
                        if (aka != null) {
                            match(aka, sp.byCanonical, out);
                        }
                        String real = realSpellings.of(f);
                        if (real != null) {
                            match(real, sp.byCanonical, out);
                        }
                    }
                }
            }
        }
    }

    private static void match(String address, Map<String, String> byCanonical, Set<String> out) {
        try {
            String a = byCanonical.get(StorageLocation.parseKnownFile(address).canonical());
            if (a != null) {
                out.add(a);
            }
        } catch (IllegalArgumentException e) {
            // not a file location: it names none of the batch
        }
    }
}
