package dev.ducklake.janitor.storage;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.function.Supplier;

/**
 * Where a local store confined to its data path ({@link LocalFileStore#LocalFileStore(Path)}) may delete: in a folder
 * below the root by its names, not on a mount point below the root ({@link MountPoints}), and reached without a
 * symbolic link below the root (each folder is opened name by name below the root's handle without following links,
 * so a link swapped in after any check is refused too). The root itself may be, or lie below, a link, but it must stay
 * the directory it was when the store was opened ({@link RootMoved}). Thread-safe.
 */
final class DataPathConfinement {

    /** The data path (absolute, normalised). */
    private final Path root;
    /** The mount table's lines ({@link MountPoints}), read after each folder is opened. */
    private final Supplier<List<String>> mountinfo;
    /**
     * The identity (device and inode, {@link BasicFileAttributes#fileKey}) of the directory the root named when the store
     * was opened (at the run's start, before any listing), or null until it exists.
     */
    private volatile Object rootKey;
    /** The root's real path (the mount table names real paths), once resolved ({@link #onMount}). */
    private volatile Path realRoot;

    /**
     * @param root the data path (absolute, normalised)
     * @param mountinfo the mount table's lines
     */
    DataPathConfinement(Path root, Supplier<List<String>> mountinfo) {
        this.root = root;
        this.mountinfo = mountinfo;
        try {
            this.rootKey = Files.readAttributes(root, BasicFileAttributes.class).fileKey();
        } catch (IOException | RuntimeException e) {
            this.rootKey = null; // not there yet: the first open records it
        }
    }

    /**
     * The root's directory is no longer the one the run started on: a mount made over it or over a folder above it, or
     * a rename, during the run. Every delete below it is refused: the listing and the catalogs' paths were about the
     * other directory.
     */
    static final class RootMoved extends FileSystemException {
        private static final long serialVersionUID = 1L;

        RootMoved(Path root) {
            super(root.toString(), null, "The data path " + root + " is no longer the directory this run started on (a"
                    + " mount over it or over a folder above it, or a rename, during the run)");
        }
    }

    /**
     * Why no file of {@code folder} may be deleted by its names, or null when they may be tried: the folder must lie
     * under the root after {@code .} and {@code ..} are resolved. That it is reached without a symbolic link below the
     * root is checked when it is opened ({@link #open}), and that it is on no mount point below the root right after
     * ({@link #onMount}).
     */
    String outside(Path folder) {
        return folder.normalize().startsWith(root) ? null : "Not inside the data path " + root;
    }

    /**
     * Why the files of a folder just opened ({@link #open}) may not be deleted because it is on or below a mount point
     * below the root ({@link MountPoints}: another file system, or a bind mount of another directory such as another
     * tenant's lake), or null. The mount table is read now, after the open: a mount made before the open is in it, and
     * one made after cannot change what the open handle holds (the deletes go through the handle), so no mount made
     * during a run leads a delete into it.
     */
    String onMount(Path folder) {
        Path real = realRoot;
        if (real == null) {
            // once: a root that resolves elsewhere later is refused by the open's identity check (RootMoved)
            try {
                real = root.toRealPath();
                realRoot = real;
            } catch (IOException | RuntimeException e) {
                real = null;
            }
        }
        List<Path> mounts = MountPoints.below(mountinfo.get(), root, real);
        Path on = MountPoints.containing(root.relativize(folder.normalize()), mounts);
        return on == null ? null : "On a mount point below the data path " + root + " (" + root.resolve(on)
                + ": another file system or a bind mount, which may be another lake's)";
    }

    /**
     * Why a delete in {@code folder} would be refused without being tried ({@link FileStore#refusal}), or null: outside
     * the root ({@link #outside}), reached through a symbolic link below the root (the open {@link #open} would make
     * fails on it), or on a mount point below it ({@link #onMount}). A folder that is gone, or fails to open for another reason, is left to the
     * delete, which says what became of its files.
     */
    String refusal(Path folder) {
        String outside = outside(folder);
        if (outside != null) {
            return outside;
        }
        try {
            SecureDirectoryStream<Path> handle = open(folder);
            if (handle == null) {
                return "The folder cannot be opened without following links (no secure directory streams here)";
            }
            LocalFileStore.close(handle);
            return onMount(folder);
        } catch (NoSuchFileException e) {
            return null;
        } catch (RootMoved e) {
            return e.getReason();
        } catch (IOException e) {
            return throughLink(folder);
        }
    }

    /**
     * Why {@link #open} would not open a folder, when the reason is a symbolic link below the root (another
     * tenant's lake: a queued path or an inventory entry through {@code main/t1/link -> /their/lake/...}), naming where
     * the folder really is; null when no link is seen (the open failed for another reason). Read only after a failed
     * open, for the message: the refusal itself does not depend on it.
     */
    String throughLink(Path folder) {
        try {
            Path real = folder.toRealPath();
            Path expected = root.toRealPath().resolve(root.relativize(folder.normalize()).toString());
            return real.equals(expected) ? null : "Reached through a symbolic link below the data path " + root
                    + " (the folder is really " + real + ")";
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Opens a folder below the root one name at a time, each relative to the handle of the one above it and without
     * following a link ({@code openat} with {@code O_NOFOLLOW}): a name on the way that is a link (or was swapped for
     * one) fails the open, so no link below the root leads the deletes out of the tree. The root itself is followed (it may be a link).
     *
     * @return the folder's handle, or null when the file system has no secure directory streams
     * @throws NoSuchFileException when the folder (or one above it) is gone
     * @throws IOException when a name on the way is a link or not a folder, or cannot be opened
     */
    SecureDirectoryStream<Path> open(Path folder) throws IOException {
        DirectoryStream<Path> ds = Files.newDirectoryStream(root);
        if (!(ds instanceof SecureDirectoryStream<Path> cur)) {
            ds.close();
            return null;
        }
        try {
            // the handle's own identity (fstat): the directory the deletes will go through, whatever the path says later
            Object key = cur.getFileAttributeView(BasicFileAttributeView.class).readAttributes().fileKey();
            Object started = rootKey;
            if (started == null) {
                rootKey = key;
            } else if (key != null && !key.equals(started)) {
                throw new RootMoved(root);
            }
            for (Path name : root.relativize(folder.normalize())) {
                if (name.toString().isEmpty()) {
                    continue;
                }
                SecureDirectoryStream<Path> next = cur.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS);
                cur.close();
                cur = next;
            }
            return cur;
        } catch (IOException | RuntimeException e) {
            LocalFileStore.close(cur);
            throw e;
        }
    }
}
