package dev.ducklake.janitor.ops.deleteorphanfiles;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogInspector;
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
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.zip.GZIPInputStream;

/**
 * An inventory of the store ({@code delete-orphan-files --inventory}), read instead of listing the store, as Iceberg's
 * {@code compareToFileList} and Delta's inventory VACUUM do: the objects under the swept root, sorted in
 * {@link StorageLocation#BYTE_ORDER} of their canonical form as a store listing is, so that the one merge with the
 * catalog's known files serves both.
 *
 * <p>Two forms, told apart by content (a JSON object is a manifest):
 * <ul>
 *   <li>a plain list: one object per line, its address as the store spells it (an absolute local path, a
 *   {@code file://} URI, {@code s3://bucket/key}), optionally followed by a tab, its size in bytes, a tab and its
 *   last-modified instant (ISO-8601); blank lines and lines starting with {@code #} are skipped;</li>
 *   <li>an Amazon S3 Inventory {@code manifest.json} ({@code sourceBucket}, {@code fileFormat}, {@code fileSchema},
 *   {@code files[].key}) with CSV listing files, gzip'd or not, read from the local file system: each {@code files[].key}
 *   is looked up under the manifest's folder and its parents (the destination bucket's layout copied down), then in the
 *   {@code data/} folder beside the manifest's. Keys are URL-decoded as S3 Inventory writes them. Parquet and ORC
 *   listings are refused (this tool reads no Parquet).</li>
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
    private static final ObjectMapper JSON = new ObjectMapper();

    private Inventory() {
    }

    /** What reading the inventory found, for the result. */
    static final class Counts {
        /** Entries read (every line or CSV row, those outside the root included). */
        long read;
        /** Entries under the swept root (duplicates included). */
        long underRoot;
    }

    /**
     * Reads, filters and sorts an inventory.
     *
     * @param file the plain list or the manifest
     * @param root the swept root (a prefix)
     * @param tempDir where the sorted chunks go (removed when the listing is closed)
     * @param counts filled while reading
     * @return the entries under the root, in byte order of their canonical form, duplicates collapsed; a size of -1 and a
     *     null time where the inventory did not say
     * @throws JanitorException USAGE for an unreadable inventory (a line that does not parse: named with its number; a
     *     Parquet or ORC manifest; a listing file not found), STORAGE when the temporary chunks cannot be written
     */
    static FileStore.Listing open(Path file, StorageLocation root, Path tempDir, Counts counts) throws JanitorException {
        String prefix = root.asPrefix().canonical();
        Path dir;
        try {
            dir = Files.createTempDirectory(tempDir, "ducklake-janitor-inventory-");
        } catch (IOException e) {
            throw new JanitorException(Reason.STORAGE, "Cannot create a temporary folder for the inventory in " + tempDir + ": "
                    + e.getMessage(), e);
        }
        Sorter sorter = new Sorter(dir, prefix, counts);
        try {
            if (!Files.isRegularFile(file)) {
                throw new JanitorException(Reason.USAGE, "--inventory " + file + " is not a readable file.");
            }
            if (isManifest(file)) {
                readManifest(file, sorter);
            } else {
                try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                    readPlain(r, file.toString(), sorter);
                }
            }
            sorter.flush();
            return sorter.merged();
        } catch (java.nio.charset.CharacterCodingException e) {
            sorter.delete();
            // the decoder reads ahead, so the line is not known exactly: name the encoding and the fix instead
            throw new JanitorException(Reason.USAGE, "The inventory " + file + " is not UTF-8 text (a byte sequence that is"
                    + " not UTF-8, e.g. a UTF-16 or Latin-1 file). Convert it to UTF-8 (iconv -t UTF-8) and run again;"
                    + " nothing was deleted.", e);
        } catch (IOException e) {
            sorter.delete();
            throw new JanitorException(Reason.USAGE, "The inventory " + file + " could not be read: " + e.getMessage(), e);
        } catch (JanitorException | RuntimeException e) {
            sorter.delete();
            throw e;
        }
    }

    private static boolean isManifest(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            int b;
            do {
                b = in.read();
            } while (b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == 0xEF || b == 0xBB || b == 0xBF);
            return b == '{';
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

    private static void readManifest(Path manifest, Sorter sorter) throws IOException, JanitorException {
        JsonNode m;
        try {
            m = JSON.readTree(manifest.toFile());
        } catch (IOException e) {
            throw new JanitorException(Reason.USAGE, "The inventory manifest " + manifest + " is not valid JSON: " + e.getMessage(), e);
        }
        String format = m.path("fileFormat").asText("");
        if (!format.equalsIgnoreCase("CSV")) {
            throw new JanitorException(Reason.USAGE, "The inventory manifest " + manifest + " lists " + (format.isEmpty()
                    ? "no fileFormat" : "files of format " + CatalogInspector.printable(format)) + "; only CSV inventories are read"
                    + " (this tool reads no Parquet or ORC). Configure the S3 Inventory with output format CSV, or pass a plain"
                    + " file list. Nothing was deleted.");
        }
        String[] columns = m.path("fileSchema").asText("").split(",");
        int bucketCol = -1;
        int keyCol = -1;
        int sizeCol = -1;
        int timeCol = -1;
        for (int i = 0; i < columns.length; i++) {
            switch (columns[i].strip().toLowerCase(Locale.ROOT)) {
                case "bucket" -> bucketCol = i;
                case "key" -> keyCol = i;
                case "size" -> sizeCol = i;
                case "lastmodifieddate" -> timeCol = i;
                default -> {
                }
            }
        }
        String sourceBucket = m.path("sourceBucket").asText("");
        if (keyCol < 0 || bucketCol < 0 && sourceBucket.isEmpty()) {
            throw new JanitorException(Reason.USAGE, "The inventory manifest " + manifest + " has no Key column (or neither a Bucket"
                    + " column nor sourceBucket) in its fileSchema " + CatalogInspector.printable(m.path("fileSchema").asText("")) + ".");
        }
        JsonNode files = m.path("files");
        if (!files.isArray() || files.isEmpty()) {
            throw new JanitorException(Reason.USAGE, "The inventory manifest " + manifest + " lists no files.");
        }
        for (JsonNode f : files) {
            String key = f.path("key").asText("");
            Path data = locate(manifest, key);
            try (InputStream raw = new BufferedInputStream(Files.newInputStream(data));
                 BufferedReader r = new BufferedReader(new InputStreamReader(key.endsWith(".gz") ? new GZIPInputStream(raw) : raw,
                         StandardCharsets.UTF_8))) {
                String line;
                long n = 0;
                while ((line = r.readLine()) != null) {
                    n++;
                    if (line.isEmpty()) {
                        continue;
                    }
                    List<String> cells = csv(line, data.toString(), n);
                    int need = Math.max(keyCol, Math.max(bucketCol, Math.max(sizeCol, timeCol)));
                    if (cells.size() <= need) {
                        throw bad(data.toString(), n, "expected " + columns.length + " CSV columns (" + String.join(",", columns)
                                + "), found " + cells.size());
                    }
                    String bucket = bucketCol >= 0 ? cells.get(bucketCol) : sourceBucket;
                    String objectKey = URLDecoder.decode(cells.get(keyCol), StandardCharsets.UTF_8);
                    long size = sizeCol >= 0 && !cells.get(sizeCol).isEmpty() ? size(data.toString(), n, cells.get(sizeCol)) : -1;
                    Instant time = timeCol >= 0 && !cells.get(timeCol).isEmpty() ? instant(data.toString(), n, cells.get(timeCol)) : null;
                    sorter.add(data.toString(), n, "s3://" + bucket + "/" + objectKey, size, time);
                }
            }
        }
    }

    /** A manifest's listing file on the local file system. */
    private static Path locate(Path manifest, String key) throws JanitorException {
        if (key.isEmpty() || key.contains("..")) {
            throw new JanitorException(Reason.USAGE, "The inventory manifest " + manifest + " names a listing file "
                    + CatalogInspector.printable(key) + " that cannot be looked up.");
        }
        Path dir = manifest.toAbsolutePath().getParent();
        for (Path d = dir; d != null; d = d.getParent()) {
            Path p = d.resolve(key);
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        String name = key.substring(key.lastIndexOf('/') + 1);
        for (Path p : new Path[] {dir.resolveSibling("data").resolve(name), dir.resolve("data").resolve(name), dir.resolve(name)}) {
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        throw new JanitorException(Reason.USAGE, "The inventory listing file " + CatalogInspector.printable(key) + " named by "
                + manifest + " was found neither under the manifest's folder or its parents nor in data/ beside it. Copy the"
                + " inventory with its data/ folder. Nothing was deleted.");
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

    private static long size(String source, long n, String v) throws JanitorException {
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

    private static Instant instant(String source, long n, String v) throws JanitorException {
        try {
            return Instant.parse(v.strip());
        } catch (DateTimeParseException e) {
            throw bad(source, n, "the last-modified time " + CatalogInspector.printable(v) + " is not an ISO-8601 instant"
                    + " (e.g. 2026-11-30T12:00:00Z)");
        }
    }

    private static JanitorException bad(String source, long line, String what) {
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
            StoredObject o;
            try {
                String spelled = address.strip();
                StorageLocation l = StorageLocation.parseFile(spelled);
                // a file URI (file:///p, file:/p, file://localhost/p) names the local file a listing spells by its path:
                // kept as that spelling, so that it is compared, judged canonical and deleted as the listed file is
                // (else every such entry is kept unjudged)
                o = new StoredObject(l, localUri(l, spelled) ? l.path() : spelled, size, time);
            } catch (IllegalArgumentException e) {
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
            try (var s = Files.list(dir)) {
                for (Path p : s.toList()) {
                    Files.deleteIfExists(p);
                }
                Files.deleteIfExists(dir);
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
