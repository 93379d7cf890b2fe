package dev.ducklake.janitor.storage;

import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The listing of a whole prefix of an object store, assembled from listings of its folders that run concurrently: a
 * store whose listing request returns one page of keys per round trip (S3: 1,000 keys per ListObjectsV2) lists a
 * catalog's table folders at once instead of one page after the other.
 *
 * <p>How: the first {@link #FOLDER_DEPTH} folder levels under the prefix (DuckLake's {@code schema/} and
 * {@code schema/table/} folders under its data path) are walked with one-level listings; each run of consecutive
 * folders at the last of those levels is one key range, listed flat in the background
 * ({@code StartAfter} its first folder, up to the entry that follows its last). Objects that sit directly in a walked
 * level are passed through. The caller reads everything in the order of a plain listing: the key ranges are
 * disjoint and each holds consecutive keys (all keys under one folder are contiguous in byte order), and the
 * listing hands them out in range order, so the result is exactly that of one flat listing (a test compares them).
 *
 * <p>How many folders a range spans adapts to what earlier ranges held: a range starts as one folder, and once
 * ranges have finished it spans about {@value #KEYS_PER_RANGE} keys' worth of folders (at most
 * {@value #MAX_FOLDERS_PER_RANGE}), so that a catalog of many near-empty table folders is not listed one request per
 * folder.
 *
 * <p>Bounds: at most {@code concurrency} ranges are listed at once, each buffering at most {@value #QUEUE} objects
 * ahead of the reader, and at most {@value #QUEUE} passed-through objects wait: memory does not grow with the store.
 * Each range's requests go through the store's own retry and {@link CallBounds}, so a stop or the run budget ends them
 * as it ends a plain listing; a range's failure is thrown (as an {@link UncheckedIOException} wrapping the
 * {@link StorageException}) when the reader reaches that range. {@link #close()} abandons the ranges in flight.
 */
final class FolderParallelListing extends LookAhead<StoredObject> implements FileStore.Listing {

    /** Folder levels walked under the listed prefix: DuckLake's schema and table folders. */
    static final int FOLDER_DEPTH = 2;
    /** About how many keys one background range should hold once the folders' sizes are known. */
    static final int KEYS_PER_RANGE = 1_000;
    /** The most folders one background range spans. */
    static final int MAX_FOLDERS_PER_RANGE = 1_000;
    /** Objects a range buffers ahead of the reader, and passed-through objects that may wait. */
    static final int QUEUE = 1_000;

    /** One entry of a folder level: an object directly in it, or a sub-folder ({@code object} null, key ends in '/'). */
    record Entry(String key, StoredObject object) {
    }

    /** What the store lists, keys in its byte order ({@link StorageLocation#compareCodePoints}). */
    interface Source {
        /**
         * The entries directly in a folder, paged lazily.
         *
         * @param folder a key prefix ending in '/', or "" for the bucket's root
         * @return its objects and sub-folders in byte order of key; a failure while iterating is an
         *     {@link UncheckedIOException} wrapping a {@link StorageException}
         * @throws StorageException when the first page fails
         */
        Iterator<Entry> level(String folder) throws StorageException;

        /**
         * Every object under {@code within} whose key is greater than {@code startAfter} and less than
         * {@code endBefore}, in byte order of key.
         *
         * @param endBefore the first key past the range, or null for the end of {@code within}
         * @throws StorageException when the first page fails
         */
        FileStore.Listing range(String within, String startAfter, String endBefore) throws StorageException;
    }

    private static final Object END = new Object();

    private record Failure(RuntimeException error) {
    }

    private final Source source;
    private final ExecutorService pool;
    private final Deque<Level> levels = new ArrayDeque<>();
    private final Deque<Slot> window = new ArrayDeque<>();
    private final int concurrency;
    private int rangesInWindow;
    private int objectsInWindow;
    private boolean walked;
    private boolean closed;
    private long foldersListed;
    private long keysListed;

    /**
     * Starts the listing: the root level's first page is read now, so a missing bucket or a refusal fails here.
     *
     * @param source the store's listings
     * @param root the listed prefix (a key prefix ending in '/', or "")
     * @param concurrency ranges listed at once, at least 1
     * @throws StorageException when the root level cannot be listed
     */
    FolderParallelListing(Source source, String root, int concurrency) throws StorageException {
        this.source = source;
        this.concurrency = Math.max(1, concurrency);
        levels.push(new Level(root, source.level(root), 0));
        this.pool = Executors.newFixedThreadPool(this.concurrency, r -> {
            Thread t = new Thread(r, "ducklake-janitor-list");
            t.setDaemon(true);
            return t;
        });
    }

    /** A walked folder level, with one entry of look-ahead. */
    private static final class Level {
        final String folder;
        final Iterator<Entry> entries;
        final int depth;
        Entry peeked;

        Level(String folder, Iterator<Entry> entries, int depth) {
            this.folder = folder;
            this.entries = entries;
            this.depth = depth;
        }

        Entry peek() {
            if (peeked == null && entries.hasNext()) {
                peeked = entries.next();
            }
            return peeked;
        }

        Entry take() {
            Entry e = peek();
            peeked = null;
            return e;
        }
    }

    /** A passed-through object, or a range listed in the background. */
    private record Slot(StoredObject object, Range range) {
    }

    private final class Range implements Runnable {
        final String within;
        final String startAfter;
        final String endBefore;
        final int folders;
        final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(QUEUE + 1);
        Future<?> future;

        Range(String within, String startAfter, String endBefore, int folders) {
            this.within = within;
            this.startAfter = startAfter;
            this.endBefore = endBefore;
            this.folders = folders;
        }

        @Override
        public void run() {
            Object last = END;
            long keys = 0;
            try (FileStore.Listing l = source.range(within, startAfter, endBefore)) {
                while (l.hasNext()) {
                    queue.put(l.next());
                    keys++;
                }
            } catch (InterruptedException e) {
                return; // closed
            } catch (StorageException e) {
                last = new Failure(new UncheckedIOException(e));
            } catch (RuntimeException e) {
                last = new Failure(e);
            }
            finished(folders, keys);
            try {
                queue.put(last);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private synchronized void finished(int folders, long keys) {
        foldersListed += folders;
        keysListed += keys;
    }

    /** @return how many folders the next range spans: one until a range has finished, then about {@link #KEYS_PER_RANGE} keys' worth */
    private synchronized int foldersPerRange() {
        if (foldersListed == 0) {
            return 1;
        }
        double keysPerFolder = Math.max(1.0, (double) keysListed / foldersListed);
        return (int) Math.max(1, Math.min(MAX_FOLDERS_PER_RANGE, Math.ceil(KEYS_PER_RANGE / keysPerFolder)));
    }

    /** The next slot in key order, or null when the walk is done. */
    private Slot walk() throws StorageException {
        while (!levels.isEmpty()) {
            Level top = levels.peek();
            Entry e = top.peek();
            if (e == null) {
                levels.pop();
                continue;
            }
            if (e.object() != null) {
                top.take();
                return new Slot(e.object(), null);
            }
            if (top.depth + 1 < FOLDER_DEPTH) {
                top.take();
                levels.push(new Level(e.key(), source.level(e.key()), top.depth + 1));
                continue;
            }
            // a run of consecutive folders of the last walked level: one range, ended by the entry after it
            int span = foldersPerRange();
            int n = 0;
            while (n < span && top.peek() != null && top.peek().object() == null) {
                top.take();
                n++;
            }
            Entry after = top.peek();
            return new Slot(null, new Range(top.folder, e.key(), after == null ? null : after.key(), n));
        }
        return null;
    }

    private void fill() {
        try {
            while (!walked && rangesInWindow < concurrency && objectsInWindow < QUEUE) {
                Slot s = walk();
                if (s == null) {
                    walked = true;
                } else if (s.range() != null) {
                    s.range().future = pool.submit(s.range());
                    rangesInWindow++;
                    window.addLast(s);
                } else {
                    objectsInWindow++;
                    window.addLast(s);
                }
            }
        } catch (StorageException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    protected StoredObject fetch() {
        while (!closed) {
            fill();
            Slot head = window.peekFirst();
            if (head == null) {
                return null;
            }
            if (head.object() != null) {
                window.removeFirst();
                objectsInWindow--;
                return head.object();
            }
            Object item;
            try {
                item = head.range().queue.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new UncheckedIOException(new StorageException(StorageException.Kind.STOPPED,
                        "list " + head.range().within + ": interrupted", e));
            }
            if (item == END) {
                window.removeFirst();
                rangesInWindow--;
            } else if (item instanceof Failure f) {
                head.range().queue.offer(item); // a later call fails the same way
                throw f.error();
            } else {
                return (StoredObject) item;
            }
        }
        return null;
    }

    @Override
    public void close() {
        closed = true;
        end();
        for (Slot s : window) {
            if (s.range() != null && s.range().future != null) {
                s.range().future.cancel(true);
            }
        }
        window.clear();
        pool.shutdownNow();
    }
}
