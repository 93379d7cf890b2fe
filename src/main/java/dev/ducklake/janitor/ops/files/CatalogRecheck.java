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
 * <p>Reads the catalog tables themselves, not the temporary known table, in a fresh transaction: per consulted
 * catalog one statement over {@code ducklake_data_file}, {@code ducklake_delete_file} (of any snapshot) and
 * {@code ducklake_files_scheduled_for_deletion}, selecting the rows whose stored {@code path} is one of the spellings
 * a batch address can be stored as: the address itself, its canonical form and local path, and every tail of its key
 * after a {@code /} (a file path is relative to its table's path, a queued one to the data path; hive partition
 * folders make tails longer than the file name). The rows found are resolved exactly as the known set resolves them
 * (DuckLake 1.5.5, {@code GetOrphanFilesForCleanup} in {@code src/storage/ducklake_metadata_manager.cpp}, see
 * {@link KnownFiles#fileRowsSql}) and compared in canonical form; a matching row whose table or schema row is missing
 * keeps every address it could name. The catalog has no index on {@code path}: each statement is a sequential scan
 * with a hashed {@code = ANY} (about 0.5 s at 1,000,000 data file rows on PostgreSQL 15, nearly independent of the
 * batch size up to 5,000 addresses), once per delete round (cleanup-old-files: per batch; delete-orphan-files:
 * per {@code --delete-concurrency} × 1,000 candidates, {@link ParallelDeletes}).
 *
 * <p>What it does not see: a row registered after it ran (the window is one round's delete calls), and a row
 * registered during the run under a spelling that is none of the above ({@code ./x.parquet}, {@code ../t/x.parquet},
 * another URL scheme). The age floor covers both: only files last modified before the cutoff (24 h by default) are
 * candidates, so a file must be both old and registered in that instant.
 */
public final class CatalogRecheck {

    private CatalogRecheck() {
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
     * Which addresses a row of any consulted catalog names now: the catalogs whose data path overlaps and the
     * reach-only ones ({@link ConsultedCatalogs#reachOnly()}), each read through its own connection (the swept session
     * for this database's catalogs, a held read-only connection for another database's), each in a fresh transaction.
     *
     * @param c the swept session (autocommit off; committed before and after, as above)
     * @param consulted every catalog the known set was loaded from
     * @param addresses exact addresses as listed
     * @return the subset of {@code addresses} that some catalog row names (or may name)
     * @throws SQLException on database errors
     */
    public static Set<String> named(Connection c, ConsultedCatalogs consulted, Collection<String> addresses)
            throws SQLException {
        Set<String> out = new HashSet<>();
        if (addresses.isEmpty()) {
            return out;
        }
        Map<String, String> byCanonical = new HashMap<>();
        Map<String, Set<String>> byForm = new HashMap<>();
        for (String a : addresses) {
            StorageLocation l;
            try {
                l = StorageLocation.parse(a);
            } catch (IllegalArgumentException e) {
                out.add(a); // not comparable: keep it
                continue;
            }
            byCanonical.put(l.canonical(), a);
            for (String f : forms(a, l)) {
                byForm.computeIfAbsent(f, k -> new LinkedHashSet<>()).add(a);
            }
        }
        List<ConsultedCatalogs.Catalog> all = new ArrayList<>(consulted.catalogs());
        all.addAll(consulted.reachOnly());
        c.commit();
        try {
            for (ConsultedCatalogs.Catalog cat : all) {
                Connection source = consulted.connection(cat);
                if (source != c) {
                    source.commit();
                }
                try {
                    check(source, cat.schema(), cat.resolver(), byCanonical, byForm, out);
                } finally {
                    if (source != c) {
                        source.commit();
                    }
                }
            }
        } finally {
            c.commit();
        }
        return out;
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

    private static void check(Connection c, String schema, PathResolver r, Map<String, String> byCanonical,
                              Map<String, Set<String>> byForm, Set<String> out) throws SQLException {
        String files = KnownFiles.fileRowsSql(c, schema, " WHERE path = ANY (?::text[])");
        String sql = "SELECT *, false AS queued FROM (" + files + ") k"
                + " UNION ALL SELECT path, path_is_relative, NULL, NULL, NULL, NULL, false, false, true FROM "
                + Sql.qualified(schema, "ducklake_files_scheduled_for_deletion") + " WHERE path = ANY (?::text[])";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            // never a server-prepared generic plan: only a plan for the bound array hashes the = ANY (one lookup per
            // row instead of a scan of the array)
            ps.unwrap(org.postgresql.PGStatement.class).setPrepareThreshold(0);
            Array forms = c.createArrayOf("text", byForm.keySet().toArray());
            ps.setArray(1, forms);
            ps.setArray(2, forms);
            ps.setArray(3, forms);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String path = rs.getString(1);
                    Boolean rel = (Boolean) rs.getObject(2);
                    boolean queued = rs.getBoolean(9);
                    List<String> full = new ArrayList<>(3);
                    boolean unresolved = false;
                    if (rel == null || !rel) {
                        full.add(path);
                    }
                    if (rel == null || rel) {
                        String f = queued ? r.scheduled(path, true) : KnownFiles.resolveFileRow(rs, r, path);
                        if (f == null) {
                            unresolved = true;
                        } else {
                            full.add(f);
                        }
                    }
                    if (unresolved) {
                        out.addAll(byForm.getOrDefault(path, Set.of()));
                    }
                    for (String f : full) {
                        match(f, byCanonical, out);
                        String rebased = r.rebase(f);
                        if (rebased != null) {
                            match(rebased, byCanonical, out);
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
