package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.PathResolver;
import dev.ducklake.janitor.storage.StorageLocation;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static dev.ducklake.janitor.ops.files.KnownFiles.CHUNK;
import static dev.ducklake.janitor.ops.files.KnownFiles.FOLDERS;
import static dev.ducklake.janitor.ops.files.KnownFiles.TABLE;

/**
 * One load of the known set ({@link KnownFiles#load(Connection, ConsultedCatalogs, boolean)}): streams the file rows,
 * the queued files when asked and the table folders of the consulted catalogs into the known set's temporary tables,
 * each address under every spelling a listing of the swept location may show, counting the rows added and the file
 * rows whose address cannot be worked out. Used once; the tables must exist (empty) before.
 */
final class KnownFilesLoader {

    /** The swept session, where the temporary tables live. */
    private final Connection c;
    /** The consulted catalogs, for their connections and {@link ConsultedCatalogs#sweptSpelling}. */
    private final ConsultedCatalogs consulted;
    private long rows;
    private long unresolved;
    /**
     * While the catalogs of {@link ConsultedCatalogs#reachOnly()} load: the swept prefix; only addresses under it are
     * kept, and a row whose location cannot be worked out is not counted (relative to a data path that does not
     * overlap, it cannot lie under the swept one). Null otherwise.
     */
    private String under;
    /** The files' spellings with the links of their folders resolved (a row naming a swept file through a link). */
    private final RealSpellings realSpellings = new RealSpellings();
    /**
     * While {@link #under} is set: its {@link StorageLocation#pathsBelowAuthority path below the authority}; an address
     * of another scheme or authority whose path lies under it is kept too, so the near-match brake of
     * delete-orphan-files sees the files such a catalog names under another spelling of the swept store.
     */
    private String nearUnder;

    /**
     * @param c the swept session (autocommit off; the caller commits)
     * @param consulted the catalogs to load
     */
    KnownFilesLoader(Connection c, ConsultedCatalogs consulted) {
        this.c = c;
        this.consulted = consulted;
    }

    /**
     * Loads the files and folders of every consulted catalog, then, when the swept prefix is known, the files of the
     * reach-only ones ({@link ConsultedCatalogs#reachOnly()}) that lie under it; the connection of another database is
     * committed after each of its catalogs, the swept session is left to the caller.
     *
     * @param includeQueue whether queued files count as known
     * @throws JanitorException a read that waited past the lock timeout ({@link ConsultedCatalogs#lockWait})
     * @throws SQLException on other database errors
     */
    void loadAll(boolean includeQueue) throws JanitorException, SQLException {
        for (ConsultedCatalogs.Catalog t : consulted.catalogs()) {
            load(t, includeQueue, true);
        }
        under = consulted.sweptPrefix();
        nearUnder = under == null ? null : StorageLocation.pathsBelowAuthority(under).get(0);
        if (under != null) {
            for (ConsultedCatalogs.Catalog t : consulted.reachOnly()) {
                load(t, includeQueue, false);
            }
        }
        under = null;
        nearUnder = null;
    }

    /**
     * Loads one catalog's files (and queue, and folders), committing the connection of another database after it.
     *
     * @throws JanitorException {@link ConsultedCatalogs#lockWait} when a read waited past the lock timeout, naming it
     */
    private void load(ConsultedCatalogs.Catalog t, boolean includeQueue, boolean folders) throws JanitorException, SQLException {
        Connection source = consulted.connection(t);
        try {
            loadFiles(source, t.schema(), t.resolver());
            if (includeQueue) {
                loadQueue(source, t.schema(), t.resolver());
            }
            if (folders) {
                loadFolders(source, t.schema(), t.resolver());
            }
        } catch (SQLException e) {
            JanitorException named = ConsultedCatalogs.lockWait(e, t.database(), t.schema());
            if (named != null) {
                throw named;
            }
            throw e;
        }
        if (source != c) {
            source.commit();
        }
    }

    /** @return how many known addresses were inserted into the files table (a file under two spellings counts twice) */
    long rows() {
        return rows;
    }

    /** @return the file rows whose address could not be worked out */
    long unresolved() {
        return unresolved;
    }

    private void loadFiles(Connection source, String schema, PathResolver r) throws SQLException {
        load(source, FileRows.sql(source, schema, ""), r, (rs, path) -> FileRows.resolve(rs, r, path), TABLE, true);
    }

    private void loadQueue(Connection source, String schema, PathResolver r) throws SQLException {
        load(source, "SELECT path, path_is_relative FROM " + Sql.qualified(schema, "ducklake_files_scheduled_for_deletion"),
                r, (rs, path) -> r.scheduled(path, true), TABLE, true);
    }

    /**
     * The table folders of a catalog: every {@code ducklake_table} row of any snapshot, its path resolved through its
     * schema row as DuckLake resolves it (a table path relative to its schema path, a schema path relative to the data
     * path; {@code src/storage/ducklake_metadata_manager.cpp}, {@code GetPathForTable}/{@code GetPathForSchema}).
     * A table whose location cannot be worked out is left out (the folder brake then errs on the side of stopping).
     */
    private void loadFolders(Connection source, String schema, PathResolver r) throws SQLException {
        if (!CatalogFiles.hasColumn(source, schema, "ducklake_table", "path")
                || !CatalogFiles.hasColumn(source, schema, "ducklake_schema", "path")) {
            // format 0.1 has no paths: files resolve against the data path itself (PathResolver)
            load(source, "SELECT ''::varchar, true", r, (rs, path) -> r.dataPath(), FOLDERS, false);
            return;
        }
        load(source, "SELECT t.path, t.path_is_relative, s.path, s.path_is_relative, s.schema_id IS NULL"
                + " FROM (SELECT DISTINCT schema_id, path, path_is_relative FROM " + Sql.qualified(schema, "ducklake_table") + ") t"
                + " LEFT JOIN (SELECT DISTINCT schema_id, path, path_is_relative FROM " + Sql.qualified(schema, "ducklake_schema")
                + ") s ON s.schema_id = t.schema_id", r,
                (rs, path) -> rs.getBoolean(5) ? null : PathResolver.table(r.schema(rs.getString(3), (Boolean) rs.getObject(4)),
                        path, true), FOLDERS, false);
    }

    /** Works out the full address of a relative path from the rest of its row; null when it cannot be worked out. */
    @FunctionalInterface
    private interface RelativeAddress {
        String resolve(ResultSet rs, String path) throws SQLException;
    }

    /**
     * Streams a query whose first two columns are a path and its path_is_relative flag into the table, in chunks of
     * {@link KnownFiles#CHUNK}: an absolute path is added as it is, a relative one as {@code relative} resolves it, and a path
     * whose flag is null both ways (it could be either). A null path or an unresolvable address counts as unresolved.
     * Every file address is also added as {@link PathResolver#rebase rebased} onto --data-path when it lies under the
     * catalog's stored data path (both spellings are known), and every address resolved from a relative path (files and
     * folders) also under the stored data path ({@link PathResolver#storedSpelling}): with --data-path, a relative path
     * names its file under the override and under the stored data path.
     */
    private void load(Connection source, String sql, PathResolver r, RelativeAddress relative, String table, boolean files)
            throws SQLException {
        List<String> buf = new ArrayList<>(CHUNK);
        try (PreparedStatement ps = source.prepareStatement(sql)) {
            ps.setFetchSize(CHUNK);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String path = rs.getString(1);
                    if (path == null) {
                        if (files && under == null) {
                            unresolved++;
                        }
                        continue;
                    }
                    Boolean rel = (Boolean) rs.getObject(2);
                    if (rel == null || !rel) {
                        add(buf, path, r, files, false);
                    }
                    if (rel == null || rel) {
                        String full = relative.resolve(rs, path);
                        if (full == null) {
                            if (files && under == null) {
                                unresolved++;
                            }
                        } else {
                            add(buf, full, r, files, true);
                        }
                    }
                    if (buf.size() >= CHUNK) {
                        flush(buf, table, files);
                    }
                }
            }
        }
        flush(buf, table, files);
    }

    private void add(List<String> buf, String address, PathResolver r, boolean files, boolean relative) {
        StorageLocation file = null;
        try {
            String canon;
            if (files) {
                file = StorageLocation.parseKnownFile(address);
                canon = file.canonical();
            } else {
                canon = StorageLocation.parse(address).asPrefix().canonical();
            }
            keep(buf, canon);
        } catch (IllegalArgumentException e) {
            if (files && under == null) {
                unresolved++;
            }
            return;
        }
        String rebased = files && r != null ? r.rebase(address) : null;
        if (rebased != null) {
            keep(buf, rebased);
        }
        String aka = files && r != null ? r.alias(address) : null;
        if (aka != null) {
            keep(buf, aka);
        }
        // under --data-path, a relative path also names its file under the stored data_path (PathResolver.storedSpelling)
        String stored = relative && r != null ? r.storedSpelling(address, !files) : null;
        if (stored != null) {
            keep(buf, stored);
        }
        // a local file named through a link (an absolute path or a table path through one): also by its real folder
        String real = file != null ? realSpellings.of(file) : null;
        if (real != null) {
            keep(buf, real);
        }
    }

    /**
     * Adds a canonical address when {@link #kept}, and its spelling under the swept data path as given when that is
     * reached through a symbolic link and the address names the real directory ({@link ConsultedCatalogs#sweptSpelling}):
     * the listing spells files under the link.
     */
    private void keep(List<String> buf, String canon) {
        if (kept(canon)) {
            buf.add(canon);
        }
        String swept = consulted.sweptSpelling(canon);
        if (swept != null && kept(swept)) {
            buf.add(swept);
        }
    }

    /** Whether a canonical address enters the set: always, or while reach-only catalogs load, when under the swept prefix. */
    private boolean kept(String canon) {
        if (under == null || canon.startsWith(under)) {
            return true;
        }
        for (String p : StorageLocation.pathsBelowAuthority(canon)) {
            if (p.startsWith(nearUnder)) {
                return true;
            }
        }
        return false;
    }

    private void flush(List<String> buf, String table, boolean files) throws SQLException {
        if (buf.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (canon) SELECT unnest(?::text[])")) {
            Array a = c.createArrayOf("text", buf.toArray());
            ps.setArray(1, a);
            int n = ps.executeUpdate();
            if (files) {
                rows += n;
            }
        }
        buf.clear();
    }
}
