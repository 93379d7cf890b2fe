package dev.ducklake.janitor.storage;

/**
 * Turns DuckLake's stored paths into full addresses, the one way every command does it.
 *
 * <p>Rules (DuckLake 1.5.5, {@code DuckLakeMetadataManager::FromRelativePath} and the known-files query of
 * {@code GetOrphanFilesForCleanup} in {@code src/storage/ducklake_metadata_manager.cpp}, and
 * {@code DuckLakeInitializer::InitializeDataPath}):
 * <ul>
 *   <li>the data path is {@code ducklake_metadata.data_path} (or the override), with trailing {@code /} and
 *       {@code \} removed and exactly one {@code /} appended;</li>
 *   <li>a schema path is relative to the data path when {@code path_is_relative}; a table path relative to its
 *       schema's full path; a data or delete file path relative to its table's full path;</li>
 *   <li>a {@code ducklake_files_scheduled_for_deletion} path is relative to the data path directly;</li>
 *   <li>a path that is not relative is taken as is; with an override of the data path ({@code --data-path}, the
 *       lake mounted elsewhere), an absolute path that lies under the catalog's stored {@code data_path} names the
 *       same file under the override too ({@link #rebase}): DuckLake stores a file added from inside the data path
 *       but outside its table's folder ({@code ducklake_add_data_files}) with its absolute path;</li>
 *   <li>with an override, a relative path names its file under the override <em>and</em> under the stored
 *       {@code data_path} ({@link #storedSpelling}): the override says where the data is for this run, but a DuckLake
 *       without it still reads the stored location, and the two may overlap (an override that is a parent of the
 *       stored data path sweeps the catalog's own files there).</li>
 * </ul>
 * The results are raw addresses (what DuckLake would hand its file system); compare them only through
 * {@link StorageLocation#parse} and {@link StorageLocation#canonical()}.
 */
public final class PathResolver {

    private final String dataPath;
    private final String storedDataPath;
    /** The data path's canonical prefix as spelled, when {@link #aliasTo} is its other spelling; else null. */
    private final String aliasFrom;
    /** The canonical prefix of the data path's real directory (symbolic links resolved), or null when the same. */
    private final String aliasTo;

    /**
     * @param dataPath the catalog's {@code data_path} or the {@code --data-path} override
     * @throws IllegalArgumentException when it is null or empty
     */
    public PathResolver(String dataPath) {
        this(dataPath, null);
    }

    /**
     * @param dataPath the data path in use: the {@code --data-path} override, or the catalog's {@code data_path}
     * @param storedDataPath the catalog's stored {@code data_path} when an override is in use (absolute paths under it
     *     are rebased onto the override), else null
     * @throws IllegalArgumentException when dataPath is null or empty
     */
    public PathResolver(String dataPath, String storedDataPath) {
        if (dataPath == null || dataPath.isEmpty()) {
            throw new IllegalArgumentException("empty data path");
        }
        this.dataPath = withSeparator(dataPath);
        this.storedDataPath = storedDataPath == null || storedDataPath.isEmpty() ? null : withSeparator(storedDataPath);
        this.aliasFrom = null;
        this.aliasTo = null;
    }

    private PathResolver(PathResolver r, String aliasFrom, String aliasTo) {
        this.dataPath = r.dataPath;
        this.storedDataPath = r.storedDataPath;
        this.aliasFrom = aliasFrom;
        this.aliasTo = aliasTo;
    }

    /**
     * This resolver with a second spelling of its files: when the data path is a local directory reached through a
     * symbolic link (or a link above it), the same files under the directory's real path. Two catalogs whose data
     * paths spell one directory two ways then overlap ({@link #realDataLocation()}), and a file one of them
     * references is known under the spelling a listing of the other gives ({@link #alias}).
     *
     * @return a resolver with the alias, or this one (not a local path, not an existing directory, no link on the way)
     */
    public PathResolver withRealDirectory() {
        StorageLocation loc;
        try {
            loc = dataLocation();
        } catch (IllegalArgumentException e) {
            return this;
        }
        if (!"file".equals(loc.scheme())) {
            return this;
        }
        try {
            java.nio.file.Path real = java.nio.file.Path.of(loc.path()).toRealPath();
            String realPrefix = StorageLocation.parse(real.toString()).asPrefix().canonical();
            String spelled = loc.canonical();
            return realPrefix.equals(spelled) ? this : new PathResolver(this, spelled, realPrefix);
        } catch (java.io.IOException | RuntimeException e) {
            return this; // gone or unreadable here: only the spelling the catalog gives
        }
    }

    /** @return the data path's real directory as a canonical prefix ({@link #withRealDirectory}), else {@link #dataLocation()} */
    public StorageLocation realDataLocation() {
        return aliasTo == null ? dataLocation() : StorageLocation.parse(aliasTo).asPrefix();
    }

    /**
     * @param address a full file address
     * @return the canonical address under the data path's real directory when it lies under the data path as spelled
     *     and that is reached through a symbolic link ({@link #withRealDirectory}); else null
     */
    public String alias(String address) {
        if (aliasFrom == null) {
            return null;
        }
        try {
            String canon = StorageLocation.parseKnownFile(address).canonical();
            return canon.startsWith(aliasFrom) ? aliasTo + canon.substring(aliasFrom.length()) : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * @param canonical a canonical file address
     * @return whether it lies under the data path, as spelled or (after {@link #withRealDirectory}) under its real
     *     directory
     */
    public boolean holds(String canonical) {
        String prefix = dataPrefix;
        if (prefix == null) {
            prefix = dataLocation().asPrefix().canonical();
            dataPrefix = prefix;
        }
        return canonical.startsWith(prefix) || aliasTo != null && canonical.startsWith(aliasTo);
    }

    /** {@link #dataLocation()}'s canonical prefix, once {@link #holds} needed it. */
    private volatile String dataPrefix;

    /**
     * @param dataPath a catalog's {@code data_path}
     * @return whether it is a relative local path: where its files are then depends on the working directory of the
     *     process that writes them, which no reader of the catalog can know
     */
    public static boolean isRelative(String dataPath) {
        return dataPath != null && !dataPath.isEmpty() && !dataPath.startsWith("/") && !dataPath.startsWith("\\")
                && !dataPath.contains(":");
    }

    /**
     * The same file under the override when an absolute address lies under the catalog's stored data path: the
     * override's canonical prefix followed by the rest of the address (canonical). A file stored as
     * {@code /mnt/a/lake/x/f.parquet} with data_path {@code /mnt/a/lake/} is {@code file:///mnt/b/lake/x/f.parquet}
     * with {@code --data-path /mnt/b/lake}.
     *
     * @param address a full address (an absolute catalog path, or a relative one already resolved)
     * @return the address under the override, or null when no override is in use, the address does not lie under
     *     the stored data path, or either cannot be parsed
     */
    public String rebase(String address) {
        if (storedDataPath == null) {
            return null;
        }
        try {
            StorageLocation stored = StorageLocation.parse(storedDataPath).asPrefix();
            StorageLocation file = StorageLocation.parseKnownFile(address);
            String prefix = stored.canonical();
            String canon = file.canonical();
            if (!canon.startsWith(prefix)) {
                return null;
            }
            return dataLocation().canonical() + canon.substring(prefix.length());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The same relative path under the catalog's stored data path: when an override is in use and differs from the
     * stored {@code data_path}, an address that lies under the override (a relative catalog path resolved against it,
     * {@link #schema}, {@link #table}, {@link #file}, {@link #scheduled}) is also spelled under the stored data path,
     * since without the override DuckLake reads the file there. A file at {@code /d/lake1/main/t/f.parquet} of a
     * catalog with data_path {@code /d/lake1/} is so known to a sweep with {@code --data-path /d/}, whose own resolution
     * gives {@code /d/main/t/f.parquet}. When the two paths do not overlap the spelling never matches a listed file.
     *
     * @param address a full address resolved from a relative catalog path (a file, or with {@code folder} a directory)
     * @param folder whether the address is a directory (the result is then a canonical prefix ending in {@code /})
     * @return the canonical address under the stored data path, or null when no override is in use, it spells the
     *     stored data path too, the address does not lie under the override, or either cannot be parsed
     */
    public String storedSpelling(String address, boolean folder) {
        String[] p = storedPrefixes;
        if (p == null) {
            p = NO_STORED;
            if (storedDataPath != null) {
                try {
                    String over = dataLocation().canonical();
                    String stored = StorageLocation.parse(storedDataPath).asPrefix().canonical();
                    if (!stored.equals(over)) {
                        p = new String[] {over, stored};
                    }
                } catch (IllegalArgumentException e) {
                    // either cannot be parsed: no second spelling
                }
            }
            storedPrefixes = p;
        }
        if (p.length == 0) {
            return null;
        }
        String over = p[0];
        String stored = p[1];
        try {
            String canon = folder ? StorageLocation.parse(address).asPrefix().canonical()
                    : StorageLocation.parseKnownFile(address).canonical();
            return canon.startsWith(over) ? stored + canon.substring(over.length()) : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static final String[] NO_STORED = {};
    /** {override prefix, stored prefix} once {@link #storedSpelling} needed them; empty when there is no second spelling. */
    private volatile String[] storedPrefixes;

    /** A directory path with trailing separators removed and one {@code /} appended (DuckLake's InitializeDataPath). */
    public static String withSeparator(String p) {
        int end = p.length();
        while (end > 0 && (p.charAt(end - 1) == '/' || p.charAt(end - 1) == '\\')) {
            end--;
        }
        String stripped = p.substring(0, end);
        if (stripped.matches("[A-Za-z][A-Za-z0-9+.-]*:")) {
            // "file:///" or "s3://": the slashes belong to the scheme; the location is a root
            return stripped + "///";
        }
        return stripped + "/";
    }

    /** The data path, ending in one {@code /}. */
    public String dataPath() {
        return dataPath;
    }

    /** The data path as a canonical prefix location. */
    public StorageLocation dataLocation() {
        return StorageLocation.parse(dataPath).asPrefix();
    }

    /**
     * The data path as its store spells the keys ({@link StorageLocation#spelled}): the prefix to list, never to
     * compare ({@link #dataLocation()} is the one to compare).
     *
     * @return the prefix as spelled
     * @throws IllegalArgumentException when the data path cannot be parsed
     */
    public StorageLocation listingLocation() {
        return StorageLocation.spelled(dataPath);
    }

    /**
     * The data path as messages name it: as the catalog (or {@code --data-path}) spells it and its store lists it
     * ({@link #listingLocation()}: {@code s3://b/p%7Eq/} stays so, where its canonical form {@code s3://b/p~q/} is another
     * prefix, possibly another lake's), so that an operator finds it with grep; the canonical form when the spelling
     * cannot be told. A local data path is named by its canonical {@code file://} form, as before: a file system
     * reads every spelling of it as one directory, and the sweep lists that one.
     *
     * @return the prefix as spelled, ending in {@code /} (a local path: its canonical form)
     */
    public String shown() {
        try {
            StorageLocation spelled = listingLocation();
            return "file".equals(spelled.scheme()) ? spelled.canonical() : spelled.spelling();
        } catch (IllegalArgumentException e) {
            try {
                return dataLocation().canonical();
            } catch (IllegalArgumentException e2) {
                return dataPath;
            }
        }
    }

    /**
     * An address under the data path as messages name it: a canonical address (or folder) below the data path's
     * canonical prefix with that prefix spelled as {@link #shown()} (what lies below it is spelled alike: the sweep
     * keeps a key that is not); anything else as given.
     *
     * @param canonical a canonical address
     * @return the address as spelled
     */
    public String shown(String canonical) {
        try {
            String prefix = dataLocation().canonical();
            return canonical.startsWith(prefix) ? shown() + canonical.substring(prefix.length()) : canonical;
        } catch (IllegalArgumentException e) {
            return canonical;
        }
    }

    /**
     * Full address of a queued file ({@code ducklake_files_scheduled_for_deletion}): where it is for this run, so an
     * absolute path under the stored data path is {@link #rebase rebased} onto the override.
     *
     * @param path the row's path
     * @param relative the row's path_is_relative
     * @return the address
     */
    public String scheduled(String path, boolean relative) {
        if (relative) {
            return dataPath + path;
        }
        String rebased = rebase(path);
        return rebased != null ? rebased : path;
    }

    /**
     * Full address of a schema directory.
     *
     * @param path ducklake_schema.path (null in 0.1 catalogs: then the data path itself)
     * @param relative ducklake_schema.path_is_relative (null counts as relative)
     * @return the address
     */
    public String schema(String path, Boolean relative) {
        if (path == null) {
            return dataPath;
        }
        return relative == null || relative ? dataPath + path : path;
    }

    /**
     * Full address of a table directory.
     *
     * @param schemaFull the schema's full address ({@link #schema})
     * @param path ducklake_table.path (null in 0.1 catalogs: then the schema's address)
     * @param relative ducklake_table.path_is_relative (null counts as relative)
     * @return the address
     */
    public static String table(String schemaFull, String path, Boolean relative) {
        if (path == null) {
            return schemaFull;
        }
        return relative == null || relative ? schemaFull + path : path;
    }

    /**
     * Full address of a data or delete file.
     *
     * @param tableFull the table's full address ({@link #table})
     * @param path the file row's path
     * @param relative the file row's path_is_relative
     * @return the address
     */
    public static String file(String tableFull, String path, boolean relative) {
        return relative ? tableFull + path : path;
    }
}
