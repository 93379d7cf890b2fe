package dev.ducklake.janitor.ops.cleanupoldfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.PathResolver;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.storage.StorageLocation;

import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The brake of cleanup-old-files against a data path that is not where the lake is: a missing directory, an empty
 * mount point whose volume is not mounted, a {@code --data-path} with a typo, an empty S3 prefix. Every queued file is
 * then "not found", and deleting a queue row whose file was not found (as DuckLake does) would forget every file the
 * queue holds while leaving them all in storage, with exit 0. So before anything is deleted, a data path under which the
 * store lists no object at all, while the catalog has live data files with relative paths (which resolve under it),
 * stops the run with {@link Reason#BRAKE_NO_KNOWN_FILES}; dry runs too. A catalog with no live
 * data file (everything deleted, or only inlined data) may have an empty data path, and is cleaned as before.
 */
final class DataPathPresence {

    private DataPathPresence() {
    }

    /**
     * Refuses the run when the data path holds no object while the catalog has live data files.
     *
     * @param c the session (autocommit on)
     * @param schema the metadata schema
     * @param store the data path's store
     * @param resolver the catalog's paths (the override applied)
     * @throws JanitorException {@link Reason#BRAKE_NO_KNOWN_FILES} naming the data path; {@link Reason#STORAGE} when the
     *     listing fails
     * @throws SQLException on database errors
     */
    static void require(Connection c, String schema, FileStore store, PathResolver resolver) throws JanitorException, SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT EXISTS (SELECT 1 FROM "
                + Sql.qualified(schema, "ducklake_data_file") + " WHERE end_snapshot IS NULL AND path_is_relative)");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            if (!rs.getBoolean(1)) {
                return;
            }
        }
        StorageLocation root = resolver.dataLocation();
        boolean empty;
        try (FileStore.Listing l = store.list(resolver.listingLocation())) {
            empty = !l.hasNext();
        } catch (StorageException | UncheckedIOException e) {
            throw new JanitorException(Reason.STORAGE, "Listing the data path " + Sql.printable(root.canonical())
                    + " to check that the lake is there failed: " + e.getMessage() + ". Nothing was deleted.", e);
        }
        if (empty) {
            throw new JanitorException(Reason.BRAKE_NO_KNOWN_FILES, "The data path " + Sql.printable(root.canonical())
                    + " holds no file, yet the catalog has live data files there: a wrong --data-path, a volume that is not mounted or a bucket prefix that"
                    + " moved. Every queued file would be counted not found and its queue row deleted, forgetting files"
                    + " that may still be in storage. Nothing was deleted.");
        }
    }
}
