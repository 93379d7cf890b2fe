package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.ops.files.KnownFiles;
import dev.ducklake.janitor.storage.PathResolver;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The brake for catalogs no consulted catalog can see (another server's catalog sharing the bucket, a database the
 * role cannot connect to, a DuckDB-file catalog): DuckLake-named candidates in a table folder that no consulted
 * catalog knows.
 *
 * <p>What "DuckLake-shaped" means follows DuckLake's own path rules (duckdb/ducklake at {@code 2ed0a0be}): a table's
 * files lie in its table folder, {@code <data_path><schema path><table path>} (default {@code <schema>/<table>/},
 * {@code src/storage/ducklake_metadata_manager.cpp}), directly or in hive partition folders {@code key=value/}
 * ({@code DuckLakePartitionUtils::BuildHivePartitionPath}, used by inserts and compaction); data files are named
 * {@code ducklake-<uuid>.parquet} ({@code src/storage/ducklake_insert.cpp}: filename pattern {@code ducklake-{uuidv7}}),
 * delete files {@code ducklake-<uuid>-delete.parquet} or {@code -delete.puffin} ({@code src/storage/ducklake_delete.cpp}).
 * So the table folder of a listed file is its directory with trailing {@code key=value} segments removed, at least two
 * levels below the swept data path (any catalog whose data path lies at or under it puts a schema and a table level
 * in between). A folder is reported when at least one of its candidates has a DuckLake file name and it is not the
 * table folder of any {@code ducklake_table} row (any snapshot) of a consulted catalog, whatever else it holds: a
 * file under another name ({@code ducklake_add_data_files} registers any name, a writer leaves a {@code _SUCCESS}), an
 * inventory entry for a file that does not exist (trial 40: until then a folder was reported only when every listed
 * file of it had a DuckLake name), or a file a consulted catalog knows (trial 41: a catalog that imported one file of
 * another catalog's table in place, with {@code ducklake_add_data_files}, knew a file in that folder, which then
 * vouched for the whole folder and let the other catalog's live files be deleted) does not make a foreign table
 * folder an orphan. Only a {@code ducklake_table} row makes a folder known. The brake errs on the side of stopping;
 * {@code --allow-unknown-table-folders} is the way out. Debris of a known table (files of a failed write in its
 * folder, whatever their names) is still deleted: a folder that a {@code ducklake_table} row names never stops the
 * run.
 *
 * <p>The listing comes in byte order, in which all keys under one prefix are contiguous, so the open folders form a
 * chain of nested prefixes (a stack at most as deep as the path): memory does not grow with the number of files.
 * Reported folders are checked against the known folders in chunks after the listing; at most
 * {@value #MAX_HELD} are held, beyond that each counts as unknown (the brake errs on the side of stopping).
 */
final class TableFolders {

    /** A file name DuckLake writes: {@code ducklake-<uuid>.parquet}, {@code ducklake-<uuid>-delete.parquet|puffin}. */
    static final Pattern DUCKLAKE_NAME = Pattern.compile(
            "ducklake-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(-delete)?\\.(parquet|puffin)");
    private static final Pattern PARTITION = Pattern.compile("[^/=]+=[^/]*");
    static final int MAX_HELD = 100_000;
    /** Folders named in the brake's message and the result. */
    static final int MAX_LISTED = 100;
    private static final int CHUNK = 1000;

    private static final class Folder {
        final String prefix;
        /** Candidates with a DuckLake file name. */
        long ducklakeCandidates;

        Folder(String prefix) {
            this.prefix = prefix;
        }
    }

    private final String root;
    private final Deque<Folder> open = new ArrayDeque<>();
    private final List<String> flagged = new ArrayList<>();
    private long overflow;
    /** The directory of the file observed last (its address up to the last {@code /}) and its {@link #folderOf}. */
    private String lastDirectory;
    private String lastFolder;

    /** @param root the swept data path as a canonical prefix (ending in {@code /}) */
    TableFolders(String root) {
        this.root = root;
    }

    /** Whether a file name (the last segment of an address) is one DuckLake writes. */
    static boolean ducklakeName(String address) {
        return DUCKLAKE_NAME.matcher(address.substring(address.lastIndexOf('/') + 1)).matches();
    }

    /**
     * The table folder of a listed file: its directory without trailing partition segments, or null when that lies
     * fewer than two levels below the root.
     *
     * @param canonical the file's canonical address, under the root
     * @return the folder as a canonical prefix ending in {@code /}, or null
     */
    String folderOf(String canonical) {
        String dir = canonical.substring(0, canonical.lastIndexOf('/'));
        while (dir.length() > root.length()) {
            int slash = dir.lastIndexOf('/');
            if (!PARTITION.matcher(dir.substring(slash + 1)).matches()) {
                break;
            }
            dir = dir.substring(0, slash);
        }
        if (dir.length() < root.length()) {
            return null;
        }
        String rel = dir.substring(Math.min(dir.length(), root.length()));
        return rel.isEmpty() || rel.indexOf('/') < 0 ? null : dir + "/";
    }

    /**
     * One listed file, in listing (byte) order (whether a catalog knows it does not matter: a known file does not make
     * its folder known, only a {@code ducklake_table} row does).
     *
     * @param canonical its canonical address
     * @param candidate whether it is an orphan candidate
     */
    void observe(String canonical, boolean candidate) {
        while (!open.isEmpty() && !canonical.startsWith(open.peek().prefix)) {
            close(open.pop());
        }
        int cut = canonical.lastIndexOf('/');
        String f;
        if (lastDirectory != null && cut == lastDirectory.length() && canonical.startsWith(lastDirectory)) {
            f = lastFolder; // the files of one directory come one after the other: its folder is worked out once
        } else {
            f = folderOf(canonical);
            lastDirectory = canonical.substring(0, cut);
            lastFolder = f;
        }
        if (f == null) {
            return;
        }
        Folder top = open.peek();
        if (top == null || !top.prefix.equals(f)) {
            top = new Folder(f);
            open.push(top);
        }
        if (candidate && ducklakeName(canonical)) {
            top.ducklakeCandidates++;
        }
    }

    private void close(Folder f) {
        if (f.ducklakeCandidates > 0) {
            if (flagged.size() < MAX_HELD) {
                flagged.add(f.prefix);
            } else {
                overflow++;
            }
        }
    }

    /** Ends the listing: closes the folders still open. */
    void finish() {
        while (!open.isEmpty()) {
            close(open.pop());
        }
    }

    /** The folders found after {@link #finish}: at most {@value #MAX_LISTED} named, and how many in all. */
    record Unknown(List<String> folders, long total) {

        /** The same folders as messages and the result name them: under the data path as spelled ({@link PathResolver#shown(String)}). */
        Unknown shown(PathResolver resolver) {
            return new Unknown(folders.stream().map(resolver::shown).toList(), total);
        }
    }

    /**
     * The reported folders that no consulted catalog has as a table folder.
     *
     * @param known the known set (its folder table)
     * @return the unknown folders
     * @throws SQLException on database errors
     */
    Unknown unknown(KnownFiles known) throws SQLException {
        List<String> named = new ArrayList<>();
        long total = overflow;
        for (int i = 0; i < flagged.size(); i += CHUNK) {
            List<String> chunk = flagged.subList(i, Math.min(flagged.size(), i + CHUNK));
            Set<String> k = known.knownFoldersAmong(chunk);
            for (String f : chunk) {
                if (!k.contains(f)) {
                    total++;
                    if (named.size() < MAX_LISTED) {
                        named.add(f);
                    }
                }
            }
        }
        return new Unknown(List.copyOf(named), total);
    }
}
