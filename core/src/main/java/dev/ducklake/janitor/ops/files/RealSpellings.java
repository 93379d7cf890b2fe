package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.storage.StorageLocation;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;

/**
 * The spelling of a local file with the symbolic links of its folder resolved: a catalog row may name a file of the
 * swept directory through a link ({@code /lakes-link/lake1/main/t2/f.parquet}, an absolute path as
 * {@code ducklake_add_data_files} registers it, or a table path through a link), which compares equal to the listing's
 * spelling only once resolved. Used by the known set ({@link KnownFiles}) and the re-check before each delete
 * ({@link CatalogRecheck}), so that such a file is never taken for an orphan.
 *
 * <p>One {@code realpath} per distinct folder (cached for the instance's life: a run); object stores and folders that
 * do not exist give nothing (a file there cannot be in the listing). Not thread-safe.
 */
final class RealSpellings {

    /** Folder as spelled → its real path, or null when it does not resolve. */
    private final Map<String, Path> folders = new HashMap<>();

    /**
     * @param address a file address in any accepted spelling
     * @return the canonical address with the folder's links resolved, when that differs from the address's own
     *     canonical form; null for an object store, a relative or unparsable address, a folder that does not resolve, or
     *     a folder without links
     */
    String of(String address) {
        StorageLocation l;
        try {
            l = StorageLocation.parseKnownFile(address);
        } catch (IllegalArgumentException e) {
            return null;
        }
        return of(l);
    }

    /**
     * As {@link #of(String)}, for an address already parsed ({@link StorageLocation#parseKnownFile}): the known set
     * parses each catalog row once.
     */
    String of(StorageLocation l) {
        if (!l.scheme().equals("file") || !l.path().startsWith("/")) {
            return null;
        }
        Path p = Paths.get(l.path());
        Path parent = p.getParent();
        if (parent == null || p.getFileName() == null) {
            return null;
        }
        String key = parent.toString();
        Path real;
        if (folders.containsKey(key)) {
            real = folders.get(key);
        } else {
            try {
                real = parent.toRealPath();
            } catch (IOException | SecurityException e) {
                real = null;
            }
            folders.put(key, real);
        }
        if (real == null || real.equals(parent)) {
            return null;
        }
        try {
            String canon = StorageLocation.parseKnownFile(real.resolve(p.getFileName().toString()).toString()).canonical();
            return canon.equals(l.canonical()) ? null : canon;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
