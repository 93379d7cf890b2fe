package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.ops.runtime.DuckDbDriver;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.StorageLocation;
import dev.ducklake.janitor.storage.StoredObject;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;

/**
 * An inventory of the store ({@code delete-orphan-files --inventory}), read instead of listing the store, as Iceberg's
 * {@code compareToFileList} and Delta's inventory VACUUM do: the objects under the swept root, sorted in
 * {@link StorageLocation#BYTE_ORDER} of their canonical form as a store listing is, so that the one merge with the
 * catalog's known files serves both.
 *
 * <p>Two forms, told apart by content (a JSON object is a manifest), each a local file or an {@code s3://bucket/key}
 * object read through the run's S3 store ({@link InventoryOrigin}):
 * <ul>
 *   <li>a plain list: one object per line, its address as the store spells it (an absolute local path, a
 *   {@code file://} URI, {@code s3://bucket/key}), optionally followed by a tab, its size in bytes, a tab and its
 *   last-modified instant (ISO-8601); blank lines and lines starting with {@code #} are skipped;</li>
 *   <li>an Amazon S3 Inventory {@code manifest.json} with CSV or Parquet listing files ({@link InventoryManifest}), each
 *   checked against the manifest's size and MD5: a local copy finds them under the manifest's folder and its parents
 *   (the destination bucket's layout copied down), then in the {@code data/} folder beside the manifest's; an S3
 *   manifest fetches them from its {@code destinationBucket}. ORC listings are refused.</li>
 * </ul>
 *
 * <p>An inventory is stale by nature: the sweep confirms every candidate with a stat of the store just before its
 * delete round (it must still exist and still be older than the cutoff), and an entry without a last-modified time is a
 * candidate only through that stat. Files written after the inventory are simply not in it (never candidates).
 *
 * <p>Memory is bounded by one chunk ({@value #CHUNK} entries): the entries under the root are sorted chunk by chunk
 * into temporary files next to the run's spill file, then merged.
 */
final class Inventory {

    /** Entries sorted in memory at once before they are spilled. */
    static final int CHUNK = 50_000;
    /** Written for an entry without a last-modified time. */
    private static final long NO_TIME = Long.MIN_VALUE;

    private Inventory() {
    }

    /** What reading the inventory found, for the result. */
    static final class Counts {
        /** Entries read (every line or CSV row, those outside the root included). */
        long read;
        /** Entries under the swept root (duplicates included). */
        long underRoot;
        /** Entries that are {@code file://HOST/…} URIs of another host (no local address of this store: ignored), the first. */
        long otherHost;
        String otherHostExample;
    }

    /**
     * Reads, filters and sorts a local inventory (as {@link #open(String, FileStore, StorageLocation, Path, Counts)}).
     */
    static FileStore.Listing open(Path file, StorageLocation root, Path tempDir, Counts counts) throws JanitorException {
        return open(file.toString(), null, root, tempDir, counts);
    }

    /**
     * Reads, filters and sorts an inventory.
     *
     * @param inventory the plain list or the manifest: a local path or an {@code s3://bucket/key} read through the store
     * @param store the run's store (reads an {@code s3://} inventory and its listing files; null for a local one)
     * @param root the swept root (a prefix)
     * @param tempDir where the sorted chunks go (removed when the listing is closed)
     * @param counts filled while reading
     * @return the entries under the root, in byte order of their canonical form, duplicates collapsed; a size of -1 and a
     *     null time where the inventory did not say
     * @throws JanitorException USAGE for an unreadable inventory (a line that does not parse: named with its number; an
     *     ORC manifest; a listing file not found or other than its manifest's size and MD5), ENGINE_UNAVAILABLE for a
     *     Parquet manifest without DuckDB's driver, STORAGE when the store fails or the temporary chunks cannot be written
     */
    static FileStore.Listing open(String inventory, FileStore store, StorageLocation root, Path tempDir, Counts counts)
            throws JanitorException {
        return open(inventory, store, root, tempDir, counts, DuckDbDriver.CLASS_NAME);
    }

    /** As {@link #open(String, FileStore, StorageLocation, Path, Counts)}, with DuckDB's driver class named. */
    static FileStore.Listing open(String inventory, FileStore store, StorageLocation root, Path tempDir, Counts counts,
                                  String duckdbDriver) throws JanitorException {
        String prefix = root.asPrefix().canonical();
        InventoryOrigin origin;
        if (InventoryOrigin.isS3(inventory)) {
            if (store == null || !root.scheme().equals("s3")) {
                throw new JanitorException(Reason.USAGE, "--inventory " + CatalogInspector.printable(inventory) + " is read"
                        + " through the S3 store of an s3:// data path, and this data path is " + root.canonical() + ": copy"
                        + " the inventory to a local file.");
            }
            origin = InventoryOrigin.s3(inventory, store);
        } else {
            Path file = Path.of(inventory);
            if (!Files.isRegularFile(file)) {
                throw new JanitorException(Reason.USAGE, "--inventory " + file + " is not a readable file.");
            }
            origin = InventoryOrigin.local(file);
        }
        Path dir;
        try {
            dir = Files.createTempDirectory(tempDir, "ducklake-janitor-inventory-");
        } catch (IOException e) {
            throw new JanitorException(Reason.STORAGE, "Cannot create a temporary folder for the inventory in " + tempDir + ": "
                    + e.getMessage(), e);
        }
        Sorter sorter = new Sorter(dir, prefix, counts);
        try {
            try (BufferedInputStream in = new BufferedInputStream(origin.open(), 1 << 16)) {
                if (isManifest(in)) {
                    InventoryManifest.read(in, origin, sorter, dir, duckdbDriver);
                } else {
                    readPlain(new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8.newDecoder()), 1 << 16),
                            inventory, sorter);
                }
            }
            sorter.flush();
            return sorter.merged();
        } catch (java.nio.charset.CharacterCodingException e) {
            sorter.delete();
            // the decoder reads ahead, so the line is not known exactly: name the encoding and the fix instead
            throw new JanitorException(Reason.USAGE, "The inventory " + inventory + " is not UTF-8 text (a byte sequence that is"
                    + " not UTF-8, e.g. a UTF-16 or Latin-1 file). Convert it to UTF-8 (iconv -t UTF-8) and run again;"
                    + " nothing was deleted.", e);
        } catch (IOException | UncheckedIOException e) {
            sorter.delete();
            throw new JanitorException(Reason.USAGE, "The inventory " + inventory + " could not be read: " + e.getMessage()
                    + ". Nothing was deleted.", e);
        } catch (JanitorException | RuntimeException e) {
            sorter.delete();
            throw e;
        }
    }

    /** Whether the bytes are a JSON object (a manifest): the first one after blanks and a byte-order mark is '{'. */
    private static boolean isManifest(BufferedInputStream in) throws IOException {
        int limit = 1 << 16;
        in.mark(limit);
        try {
            int b;
            int n = 0;
            do {
                b = in.read();
            } while (++n < limit && (b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == 0xEF || b == 0xBB || b == 0xBF));
            return b == '{';
        } finally {
            in.reset();
        }
    }

    static void readPlain(BufferedReader r, String source, Sorter sorter) throws IOException, JanitorException {
        String line;
        long n = 0;
        while ((line = r.readLine()) != null) {
            n++;
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t", -1);
            if (f.length > 3) {
                throw bad(source, n, "expected an address, optionally a tab, the size in bytes, a tab and the last-modified"
                        + " instant; found " + f.length + " tab-separated fields");
            }
            long size = f.length > 1 && !f[1].isEmpty() ? size(source, n, f[1]) : -1;
            Instant time = f.length > 2 && !f[2].isEmpty() ? instant(source, n, f[2]) : null;
            sorter.add(source, n, f[0], size, time);
        }
    }

    /** One CSV line as S3 Inventory writes it (fields in double quotes, {@code ""} inside). */
    static List<String> csv(String line, String source, long n) throws JanitorException {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        boolean wasQuoted = false;
        for (int i = 0; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (quoted) {
                if (ch == '"') {
                    if (i + 1 < line.length() && line.charAt(i + 1) == '"') {
                        cur.append('"');
                        i++;
                    } else {
                        quoted = false;
                    }
                } else {
                    cur.append(ch);
                }
            } else if (ch == '"' && cur.length() == 0 && !wasQuoted) {
                quoted = true;
                wasQuoted = true;
            } else if (ch == ',') {
                out.add(cur.toString());
                cur.setLength(0);
                wasQuoted = false;
            } else {
                cur.append(ch);
            }
        }
        if (quoted) {
            throw bad(source, n, "a quoted CSV field is not closed");
        }
        out.add(cur.toString());
        return out;
    }

    static long size(String source, long n, String v) throws JanitorException {
        try {
            long s = Long.parseLong(v.strip());
            if (s < 0) {
                throw new NumberFormatException();
            }
            return s;
        } catch (NumberFormatException e) {
            throw bad(source, n, "the size " + CatalogInspector.printable(v) + " is not a whole number of bytes");
        }
    }

    static Instant instant(String source, long n, String v) throws JanitorException {
        try {
            return Instant.parse(v.strip());
        } catch (DateTimeParseException e) {
            throw bad(source, n, "the last-modified time " + CatalogInspector.printable(v) + " is not an ISO-8601 instant"
                    + " (e.g. 2026-11-30T12:00:00Z)");
        }
    }

    static JanitorException bad(String source, long line, String what) {
        return new JanitorException(Reason.USAGE, "The inventory " + source + ", line " + line + ": " + what + ". Nothing was deleted.");
    }

    /** One entry: canonical form (the sort key), address, size, time. */
    private record Entry(String canonical, String address, long size, long time) {
    }

    /** Sorts entries chunk by chunk into files, then merges them. */
    static final class Sorter {
        private static final Comparator<Entry> ORDER = (a, b) -> {
            int c = StorageLocation.compareCodePoints(a.canonical(), b.canonical());
            return c != 0 ? c : StorageLocation.compareCodePoints(a.address(), b.address());
        };
        private final Path dir;
        private final String prefix;
        private final Counts counts;
        private final List<Entry> chunk = new ArrayList<>();
        private final List<Path> chunks = new ArrayList<>();

        Sorter(Path dir, String prefix, Counts counts) {
            this.dir = dir;
            this.prefix = prefix;
            this.counts = counts;
        }

        void add(String source, long line, String address, long size, Instant time) throws JanitorException {
            counts.read++;
            if (address.strip().endsWith("/")) {
                // a folder marker (S3 Inventory lists the console's zero-byte "dir/" objects): never a file, as in a listing
                return;
            }
            String spelled = address.strip();
            if (StorageLocation.foreignFileHost(spelled) != null) { // parsed, it would be HOST/p below the working directory
                counts.otherHostExample = counts.otherHost++ == 0 ? spelled : counts.otherHostExample;
                return;
            }
            StoredObject o;
            try {
                StorageLocation l = StorageLocation.parseFile(spelled);
                // a file URI (file:///p, file:/p, file://localhost/p) names the local file a listing spells by its path:
                // kept as that spelling, so that it is compared, judged canonical and deleted as the listed file is
                // (else every such entry is kept unjudged)
                o = new StoredObject(l, localUri(l, spelled) ? l.path() : spelled, size, time);
            } catch (IllegalArgumentException e) {
                if (e.getMessage() != null && e.getMessage().contains("'..' segment")) { // a store's listing leaves it out
                    throw bad(source, line, "the address " + CatalogInspector.printable(address) + " has a '..' segment,"
                            + " which a file system resolves and an object store keeps as part of the key, so it may name"
                            + " another file than it spells and is never taken for one. Write the inventory with resolved"
                            + " addresses, without '..' segments (realpath, find from the data path itself), or remove the line");
                }
                throw bad(source, line, "the address " + CatalogInspector.printable(address) + " is not a file location ("
                        + e.getMessage() + ")");
            }
            String canonical = o.location().canonical();
            if (!canonical.startsWith(prefix)) {
                return;
            }
            counts.underRoot++;
            chunk.add(new Entry(canonical, o.address(), size, time == null ? NO_TIME : time.toEpochMilli()));
            if (chunk.size() >= CHUNK) {
                flush();
            }
        }

        /** Whether an entry is a file URI spelling exactly the local path it parsed to (no escape, no other host). */
        private static boolean localUri(StorageLocation l, String spelled) {
            return l.scheme().equals("file") && l.path().startsWith("/") && (spelled.equals(l.canonical())
                    || spelled.equals("file:" + l.path()) || spelled.equals("file://localhost" + l.path()));
        }

        void flush() throws JanitorException {
            if (chunk.isEmpty()) {
                return;
            }
            chunk.sort(ORDER);
            Path p = dir.resolve("chunk-" + chunks.size());
            try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(p), 1 << 16))) {
                for (Entry e : chunk) {
                    out.writeUTF(e.canonical());
                    out.writeUTF(e.address());
                    out.writeLong(e.size());
                    out.writeLong(e.time());
                }
            } catch (IOException e) {
                throw new JanitorException(Reason.STORAGE, "Cannot write the sorted inventory to " + dir + ": " + e.getMessage(), e);
            }
            chunks.add(p);
            chunk.clear();
        }

        void delete() {
            // deepest first: DuckDB's temporary folder of a Parquet inventory too
            try (var s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException ignored) {
                // temporary files left behind
            }
        }

        FileStore.Listing merged() throws JanitorException {
            return new Merge(this);
        }
    }

    /** A k-way merge of the sorted chunks, collapsing duplicates; closing it removes the chunks. */
    private static final class Merge implements FileStore.Listing {
        private record Head(Entry entry, DataInputStream in) {
        }

        private final Sorter sorter;
        private final PriorityQueue<Head> heads = new PriorityQueue<>((a, b) -> Sorter.ORDER.compare(a.entry(), b.entry()));
        private final List<DataInputStream> open = new ArrayList<>();
        private Entry last;
        private StoredObject next;

        Merge(Sorter sorter) throws JanitorException {
            this.sorter = sorter;
            try {
                for (Path p : sorter.chunks) {
                    DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(p), 1 << 14));
                    open.add(in);
                    Entry e = read(in);
                    if (e != null) {
                        heads.add(new Head(e, in));
                    }
                }
            } catch (IOException e) {
                close();
                throw new JanitorException(Reason.STORAGE, "Cannot read the sorted inventory: " + e.getMessage(), e);
            }
        }

        private static Entry read(DataInputStream in) throws IOException {
            try {
                return new Entry(in.readUTF(), in.readUTF(), in.readLong(), in.readLong());
            } catch (EOFException e) {
                return null;
            }
        }

        @Override
        public boolean hasNext() {
            while (next == null && !heads.isEmpty()) {
                Head h = heads.poll();
                try {
                    Entry e = read(h.in());
                    if (e != null) {
                        heads.add(new Head(e, h.in()));
                    }
                } catch (IOException ex) {
                    throw new UncheckedIOException(ex);
                }
                Entry e = h.entry();
                if (last != null && last.address().equals(e.address())) {
                    continue;
                }
                last = e;
                next = new StoredObject(StorageLocation.parseFile(e.address()), e.address(), e.size(),
                        e.time() == NO_TIME ? null : Instant.ofEpochMilli(e.time()));
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
            for (DataInputStream in : open) {
                try {
                    in.close();
                } catch (IOException ignored) {
                    // closing a temporary file
                }
            }
            sorter.delete();
        }
    }
}
