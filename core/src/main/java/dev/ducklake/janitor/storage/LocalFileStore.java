package dev.ducklake.janitor.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The local file system (scheme {@code file}). Listing walks directories depth first, each directory's entries
 * sorted so that the whole walk comes out in {@link StorageLocation#BYTE_ORDER}; memory is bounded by the largest
 * directory on the current path, not by the number of files. Symbolic links below the listed root are neither followed
 * nor listed, so a walk never leaves the prefix; the root itself may be a link to a directory (followed, its files
 * spelled under the root as given). Directories are never deleted.
 */
public final class LocalFileStore extends AbstractFileStore {

    /** The data path this store was opened for (absolute, normalised), or null: unconfined (tests, benchmarks). */
    private final Path root;
    /** Where deletes may go below {@link #root}, or null when unconfined. */
    private final DataPathConfinement confined;

    /** An unconfined store: deletes wherever an address points (tests and benchmarks; production stores are confined). */
    public LocalFileStore() {
        this(null);
    }

    /**
     * A store whose deletes stay inside {@code root}: a file is deleted only when its folder lies under the root and is
     * reached without a symbolic link below the root, and not on a mount point below it ({@link DataPathConfinement}). The root itself may be, or lie below, a
     * symbolic link.
     *
     * @param root the data path the store was opened for, or null for none
     */
    public LocalFileStore(Path root) {
        this(root, MountPoints.system());
    }

    /** As {@link #LocalFileStore(Path)}, with the mount table given (tests). */
    LocalFileStore(Path root, Supplier<List<String>> mountinfo) {
        this.root = root == null ? null : root.toAbsolutePath().normalize();
        this.confined = root == null ? null : new DataPathConfinement(this.root, mountinfo);
    }

    /**
     * Deletes kept in flight by default: four. Unlink is a system call bound by the kernel (and by one directory's lock
     * when the files share a folder); measured with a warm JVM (docs/benchmark.md, issue 27: 50,000 local files on 2
     * cores), 4 in flight were 1.18x (cleanup-old-files) and 1.35x (delete-orphan-files) as fast as one call at a time.
     */
    public static final int DELETE_CONCURRENCY = 4;

    @Override
    public int defaultDeleteConcurrency() {
        return DELETE_CONCURRENCY;
    }

    @Override
    public Listing list(StorageLocation prefix) throws StorageException {
        Path root = Paths.get(prefix.asPrefix().path());
        // the root itself may be a symbolic link to a directory (a data path DuckLake reads through a link): it is
        // followed, and the files are spelled under the root as given; every entry below it is read without
        // following links (Walk), so the walk never leaves the tree through a link below the root
        if (!Files.isDirectory(root)) {
            if (Files.exists(root)) {
                throw new StorageException(StorageException.Kind.OTHER, "Not a directory: " + root, null);
            }
            return new Walk(null);
        }
        return new Walk(root);
    }

    private static final class Entry {
        final Path path;
        final String sortKey;
        final BasicFileAttributes attrs;

        Entry(Path path, BasicFileAttributes attrs) {
            this.path = path;
            this.attrs = attrs;
            String name = path.getFileName().toString().replace('\\', '/');
            this.sortKey = attrs.isDirectory() ? name + "/" : name;
        }
    }

    /** Depth-first walk; each directory read fully and sorted, then consumed. */
    private static final class Walk implements Listing {
        private final Deque<Iterator<Entry>> stack = new ArrayDeque<>();
        private StoredObject next;

        Walk(Path root) throws StorageException {
            if (root != null) {
                stack.push(read(root));
            }
        }

        private static Iterator<Entry> read(Path dir) throws StorageException {
            List<Entry> entries = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
                for (Path p : ds) {
                    BasicFileAttributes a;
                    try {
                        a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    } catch (NoSuchFileException gone) {
                        continue;
                    }
                    if (a.isDirectory() || a.isRegularFile()) {
                        entries.add(new Entry(p, a));
                    }
                }
            } catch (NoSuchFileException gone) {
                return List.<Entry>of().iterator();
            } catch (IOException e) {
                throw classify(e, dir.toString());
            }
            entries.sort((x, y) -> StorageLocation.compareCodePoints(x.sortKey, y.sortKey));
            return entries.iterator();
        }

        @Override
        public boolean hasNext() {
            while (next == null && !stack.isEmpty()) {
                Iterator<Entry> top = stack.peek();
                if (!top.hasNext()) {
                    stack.pop();
                    continue;
                }
                Entry e = top.next();
                if (e.attrs.isDirectory()) {
                    try {
                        stack.push(read(e.path));
                    } catch (StorageException ex) {
                        throw new UncheckedIOException(ex);
                    }
                } else {
                    String address = e.path.toString();
                    next = new StoredObject(StorageLocation.parse(address), address, e.attrs.size(),
                            e.attrs.lastModifiedTime().toInstant());
                }
            }
            return next != null;
        }

        @Override
        public StoredObject next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            StoredObject o = next;
            next = null;
            return o;
        }

        @Override
        public void close() {
            stack.clear();
        }
    }

    /**
     * Deletes files, never a directory. A run of addresses in one folder is deleted through that folder's
     * {@link SecureDirectoryStream} ({@code unlinkat} of the name without {@code AT_REMOVEDIR}: one system call per file,
     * and a directory in the file's place fails instead of going); where the folder cannot be opened that way, each file
     * is checked and deleted by path ({@link #deleteByPath}).
     */
    @Override
    public DeleteOutcome delete(List<String> addresses) {
        return delete(addresses, false);
    }

    /** Local: a measured delete stats each file through its folder's handle ({@code fstatat}) just before unlinking it. */
    @Override
    public boolean measuresOnDelete() {
        return true;
    }

    /**
     * As {@link #delete(List)}; with {@code measure}, each file is first stat-ed through the same folder handle (its
     * size goes in {@link DeleteOutcome#sizes}; a directory is refused without an unlink; a file already gone counts
     * as missing without one).
     */
    @Override
    public DeleteOutcome delete(List<String> addresses, boolean measure) {
        Map<String, Long> sizes = new HashMap<>();
        Set<String> deleted = new HashSet<>();
        Set<String> missing = new HashSet<>();
        Map<String, StorageException> failed = new LinkedHashMap<>();
        Path openFolder = null;
        SecureDirectoryStream<Path> folder = null;
        String outside = null;
        IOException folderFailure = null;
        String folderLink = null; // why the folder would not open, when a link below the root is why
        try {
            for (String o : addresses) {
                String host = StorageLocation.foreignFileHost(o);
                if (host != null) {
                    failed.put(o, new StorageException(StorageException.Kind.OTHER, otherHost(o, host), null));
                    continue;
                }
                Path p = toPath(o).toAbsolutePath();
                Path parent = p.getParent();
                Path name = p.getFileName();
                if (parent == null || name == null) {
                    String why = root == null ? null : "Not inside the data path " + root;
                    if (why != null) {
                        failed.put(o, new StorageException(StorageException.Kind.OTHER, why + ", not deleted: " + p, null));
                    } else {
                        deleteByPath(o, p, deleted, missing, failed, sizes, measure);
                    }
                    continue;
                }
                if (!parent.equals(openFolder)) {
                    close(folder);
                    folder = null;
                    openFolder = parent;
                    outside = confined == null ? null : confined.outside(parent);
                    folderFailure = null;
                    folderLink = null;
                    if (outside == null && root != null) {
                        try {
                            folder = confined.open(parent);
                            // then the mount table: a mount made after the open cannot move what the handle holds
                            outside = folder == null ? null : confined.onMount(parent);
                            if (outside != null) {
                                close(folder);
                                folder = null;
                            }
                        } catch (NoSuchFileException e) {
                            folderFailure = e; // the folder is gone: its files are missing
                        } catch (DataPathConfinement.RootMoved e) {
                            folderFailure = e;
                            folderLink = e.getReason();
                        } catch (IOException e) {
                            folderFailure = e;
                            folderLink = confined.throughLink(parent);
                        }
                    } else if (outside == null) {
                        folder = open(parent);
                    }
                }
                if (outside != null) {
                    failed.put(o, new StorageException(StorageException.Kind.OTHER, outside + ", not deleted: " + p, null));
                    continue;
                }
                if (folderFailure instanceof NoSuchFileException) {
                    missing.add(o);
                    deleted.add(o);
                    continue;
                }
                if (folderFailure != null) {
                    // never by path when confined: a path delete would follow a link swapped in since the check
                    failed.put(o, folderLink != null
                            ? new StorageException(StorageException.Kind.OTHER, folderLink + ", not deleted: " + p, folderFailure)
                            : classify(folderFailure, p.toString()));
                    continue;
                }
                if (folder == null && root != null) {
                    failed.put(o, new StorageException(StorageException.Kind.OTHER, "The folder cannot be opened without"
                            + " following links (no secure directory streams here), not deleted: " + p, null));
                    continue;
                }
                if (folder == null) {
                    deleteByPath(o, p, deleted, missing, failed, sizes, measure);
                    continue;
                }
                if (measure) {
                    BasicFileAttributes a;
                    try {
                        a = folder.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                                .readAttributes();
                    } catch (NoSuchFileException e) {
                        missing.add(o);
                        deleted.add(o);
                        continue;
                    } catch (IOException e) {
                        a = null; // its size stays unknown; the unlink says what becomes of it
                    }
                    if (a != null && a.isDirectory()) {
                        failed.put(o, new StorageException(StorageException.Kind.OTHER, "Is a directory, not deleted: " + p, null));
                        continue;
                    }
                    if (a != null) {
                        sizes.put(o, a.size());
                    }
                }
                try {
                    folder.deleteFile(name);
                    deleted.add(o);
                } catch (NoSuchFileException e) {
                    missing.add(o);
                    deleted.add(o);
                    sizes.remove(o);
                } catch (IOException e) {
                    sizes.remove(o);
                    failed.put(o, Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)
                            ? new StorageException(StorageException.Kind.OTHER, "Is a directory, not deleted: " + p, null)
                            : classify(e, p.toString()));
                }
            }
        } finally {
            close(folder);
        }
        return new DeleteOutcome(deleted, missing, failed, sizes);
    }

    @Override
    public String refusal(String address) {
        String host = StorageLocation.foreignFileHost(address);
        if (host != null) {
            return otherHost(address, host);
        }
        if (confined == null) {
            return null;
        }
        Path p = toPath(address).toAbsolutePath();
        if (p.getParent() == null || p.getFileName() == null) {
            return "Not inside the data path " + root;
        }
        return confined.refusal(p.getParent());
    }

    /**
     * A folder in the file's place is refused by the delete ("Is a directory"), whatever folder holds it: asked per
     * address, with one {@code lstat} that does not follow a link.
     */
    @Override
    public String objectRefusal(String address) {
        if (StorageLocation.foreignFileHost(address) != null) {
            return null; // refused by refusal(), before any path is made of it
        }
        Path p = toPath(address).toAbsolutePath();
        return Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS) ? "Is a directory, not deleted: " + p : null;
    }

    /** Why a {@code file://HOST/…} URI of another host is neither deleted nor stat-ed here. */
    private static String otherHost(String address, String host) {
        return "A file URI of another host (" + host + ") is not a local file of this store, not deleted: " + address;
    }

    /** The folder as a secure directory stream, or null when it cannot be opened as one (the caller goes by path). */
    private static SecureDirectoryStream<Path> open(Path folder) {
        try {
            DirectoryStream<Path> ds = Files.newDirectoryStream(folder);
            if (ds instanceof SecureDirectoryStream<Path> sds) {
                return sds;
            }
            ds.close();
        } catch (IOException e) {
            // missing, not a folder, not readable: each file says which by path
        }
        return null;
    }

    static void close(SecureDirectoryStream<Path> folder) {
        if (folder != null) {
            try {
                folder.close();
            } catch (IOException ignored) {
                // a directory handle that would not close: nothing was written through it
            }
        }
    }

    /** Deletes one file by its path: a directory is refused, a missing file counts as deleted; measured when asked. */
    private static void deleteByPath(String o, Path p, Set<String> deleted, Set<String> missing,
                                     Map<String, StorageException> failed, Map<String, Long> sizes, boolean measure) {
        try {
            BasicFileAttributes a = null;
            if (measure) {
                try {
                    a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                } catch (NoSuchFileException gone) {
                    a = null;
                } catch (IOException e) {
                    a = null; // its size stays unknown
                }
            }
            if (a != null ? a.isDirectory() : Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                failed.put(o, new StorageException(StorageException.Kind.OTHER, "Is a directory, not deleted: " + p, null));
                return;
            }
            if (!Files.deleteIfExists(p)) {
                missing.add(o);
            } else if (a != null) {
                sizes.put(o, a.size());
            }
            deleted.add(o);
        } catch (IOException e) {
            failed.put(o, classify(e, p.toString()));
        }
    }

    @Override
    public Optional<StoredObject> stat(String address) throws StorageException {
        String host = StorageLocation.foreignFileHost(address);
        if (host != null) {
            throw new StorageException(StorageException.Kind.OTHER, otherHost(address, host), null);
        }
        Path p = toPath(address);
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return Optional.of(new StoredObject(StorageLocation.parse(address), address, a.size(),
                    a.lastModifiedTime().toInstant()));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw classify(e, p.toString());
        }
    }

    /**
     * The file an address names: a plain path as is, a {@code file://} URI decoded. Callers first refuse a URI of another
     * host ({@link StorageLocation#foreignFileHost}), which would otherwise name a path below the working directory.
     */
    static Path toPath(String address) {
        if (address.regionMatches(true, 0, "file://", 0, 7)) {
            return Paths.get(StorageLocation.parse(address).path());
        }
        return Paths.get(address);
    }

    static StorageException classify(IOException e, String where) {
        if (e instanceof StorageException se) {
            return se;
        }
        if (e instanceof NoSuchFileException) {
            return new StorageException(StorageException.Kind.NOT_FOUND, "Not found: " + where, e);
        }
        if (e instanceof AccessDeniedException) {
            return new StorageException(StorageException.Kind.ACCESS_DENIED, "Permission denied: " + where, e);
        }
        return new StorageException(StorageException.Kind.OTHER, e.getClass().getSimpleName() + " on " + where + ": "
                + e.getMessage(), e);
    }

    @Override
    public void close() {
    }
}
