package dev.ducklake.janitor.storage;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.util.List;
import java.util.function.Supplier;

/**
 * Where a local store confined to its data path ({@link LocalFileStore#LocalFileStore(Path)}) may delete: in a folder
 * below the root by its names, not on a mount point below the root ({@link MountPoints}), and reached without a
 * symbolic link below the root (each folder is opened name by name below the root's handle without following links,
 * so a link swapped in after any check is refused too). The root itself may be, or lie below, a link. Thread-safe.
 */
final class DataPathConfinement {

    /** The data path (absolute, normalised). */
    private final Path root;
    /** The mount table's lines ({@link MountPoints}), read at the first check. */
    private final Supplier<List<String>> mountinfo;
    /** Mount points strictly below the root, relative to it, once read ({@link #outside}). */
    private volatile List<Path> mountsBelow;

    /**
     * @param root the data path (absolute, normalised)
     * @param mountinfo the mount table's lines
     */
    DataPathConfinement(Path root, Supplier<List<String>> mountinfo) {
        this.root = root;
        this.mountinfo = mountinfo;
    }

    /**
     * Why no file of {@code folder} may be deleted, or null when they may be tried: the folder must lie under the root
     * (by its names, after {@code .} and {@code ..} are resolved), and not on or below a mount point below it
     * ({@link MountPoints}: another file system, or a bind mount of another directory such as another tenant's lake).
     * That the folder is reached without a symbolic link below the root is checked when it is opened ({@link #open}),
     * so that one system call per name both checks and opens it and no link swapped in between can be followed.
     */
    String outside(Path folder) {
        Path lexical = folder.normalize();
        if (!lexical.startsWith(root)) {
            return "Not inside the data path " + root;
        }
        List<Path> mounts = mountsBelow;
        if (mounts == null) {
            Path real;
            try {
                real = root.toRealPath();
            } catch (IOException | RuntimeException e) {
                real = null;
            }
            mounts = MountPoints.below(mountinfo.get(), root, real);
            mountsBelow = mounts;
        }
        Path on = MountPoints.containing(root.relativize(lexical), mounts);
        return on == null ? null : "On a mount point below the data path " + root + " (" + root.resolve(on)
                + ": another file system or a bind mount, which may be another lake's)";
    }

    /**
     * Why a delete in {@code folder} would be refused without being tried ({@link FileStore#refusal}), or null: outside
     * the root or on a mount below it ({@link #outside}), or reached through a symbolic link below the root (the open
     * {@link #open} would make fails on it). A folder that is gone, or fails to open for another reason, is left to the
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
            return null;
        } catch (NoSuchFileException e) {
            return null;
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
