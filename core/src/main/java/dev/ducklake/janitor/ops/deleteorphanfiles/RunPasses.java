package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.catalog.CatalogDiscovery;
import dev.ducklake.janitor.ops.files.CatalogFiles;
import dev.ducklake.janitor.ops.files.ConsultedCatalogs;
import dev.ducklake.janitor.storage.PathResolver;
import dev.ducklake.janitor.storage.StorageLocation;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One file, one pass: when a run sweeps several schemas of a database one after the other
 * ({@code --all-metadata-schemas}), a file under the data paths of two of them would be listed (and counted, and in a
 * dry run reported) by both passes. Each file belongs to the pass of the schema with the deepest data path containing
 * it (ties: the schema that comes first in the run), so a pass leaves the files under a deeper data path of another
 * schema of the run to that schema's pass. The known set of the deeper pass holds every catalog whose data path
 * overlaps its own, the outer one included, so nothing is lost by leaving the files to it.
 */
final class RunPasses {

    private RunPasses() {
    }

    /**
     * The canonical prefixes this pass leaves to other passes of the run.
     *
     * @param c the session
     * @param own this pass's schema
     * @param root this pass's data path
     * @param runSchemas the run's schemas in run order (empty: a single-schema run)
     * @param override the run's --data-path (applies to every pass), or null
     * @return prefixes ending in {@code /}; {@code root} itself when an earlier pass sweeps the very same location
     * @throws SQLException on database errors
     */
    static List<String> leftToOtherPasses(Connection c, String own, StorageLocation root, List<String> runSchemas, String override)
            throws SQLException {
        List<String> out = new ArrayList<>();
        if (runSchemas.size() < 2 || !runSchemas.contains(own)) {
            return out;
        }
        Set<String> readable = new HashSet<>();
        for (CatalogDiscovery.Access a : CatalogDiscovery.access(c, ConsultedCatalogs.FILE_TABLES)) {
            if (a.readable() && a.isCatalog()) {
                readable.add(a.schema());
            }
        }
        String mine = root.asPrefix().canonical();
        boolean earlier = true;
        for (String other : runSchemas) {
            if (other.equals(own)) {
                earlier = false;
                continue;
            }
            if (!readable.contains(other)) {
                continue;
            }
            String p = override != null ? override : CatalogFiles.option(c, other, "data_path");
            if (p == null || p.isBlank()) {
                continue;
            }
            String theirs;
            try {
                theirs = new PathResolver(p).dataLocation().asPrefix().canonical();
            } catch (IllegalArgumentException e) {
                continue;
            }
            if (theirs.equals(mine) ? earlier : theirs.startsWith(mine)) {
                out.add(theirs);
            }
        }
        return out;
    }
}
