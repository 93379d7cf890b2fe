package dev.ducklake.janitor.ops.deleteorphanfiles;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogInspector;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

/**
 * An Amazon S3 Inventory {@code manifest.json} ({@code sourceBucket}, {@code destinationBucket}, {@code fileFormat},
 * {@code fileSchema}, {@code files[]} with {@code key}, {@code size} and {@code MD5checksum}) and its listing files,
 * each streamed from its {@link InventoryOrigin} and checked against the manifest's size and MD5 before the run goes on:
 * a listing file that is missing, shorter, longer or other than the manifest says refuses the run (nothing deleted).
 *
 * <ul>
 *   <li>CSV listings (gzip'd or not, streamed): the columns named by {@code fileSchema}; the Amazon S3 User Guide's
 *   inventory list contents say the key of a CSV listing is URL-encoded and must be decoded: decoded here (a space as
 *   {@code %20} or {@code +}, a '+' as {@code %2B});</li>
 *   <li>Parquet listings ({@link InventoryParquet}, DuckDB in process): columns {@code bucket}, {@code key},
 *   {@code size}, {@code last_modified_date}; keys are stored as they are, never decoded;</li>
 *   <li>ORC listings are refused.</li>
 * </ul>
 */
final class InventoryManifest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private InventoryManifest() {
    }

    /**
     * Reads every listing file of a manifest into the sorter.
     *
     * @param manifestBytes the manifest's bytes
     * @param origin where the manifest and its listing files are read from
     * @param sorter receives the entries
     * @param tempDir where a Parquet listing is copied to be read (removed with the sorter's folder)
     * @param duckdbDriver DuckDB's JDBC driver class, loaded for Parquet listings only
     * @throws JanitorException USAGE for a manifest or listing that cannot be used, ENGINE_UNAVAILABLE for Parquet
     *     listings without DuckDB's driver, STORAGE when the store fails
     */
    static void read(InputStream manifestBytes, InventoryOrigin origin, Inventory.Sorter sorter, Path tempDir, String duckdbDriver)
            throws JanitorException, IOException {
        String name = origin.name();
        JsonNode m;
        try {
            m = JSON.readTree(manifestBytes);
        } catch (IOException e) {
            throw new JanitorException(Reason.USAGE, "The inventory manifest " + name + " is not valid JSON: " + e.getMessage(), e);
        }
        String format = m.path("fileFormat").asText("");
        boolean parquet = format.equalsIgnoreCase("Parquet");
        if (!parquet && !format.equalsIgnoreCase("CSV")) {
            throw new JanitorException(Reason.USAGE, "The inventory manifest " + name + " lists " + (format.isEmpty()
                    ? "no fileFormat" : "files of format " + CatalogInspector.printable(format)) + "; CSV and Parquet inventories"
                    + " are read (ORC is not). Configure the S3 Inventory with output format CSV or Parquet, or pass a plain"
                    + " file list. Nothing was deleted.");
        }
        String sourceBucket = m.path("sourceBucket").asText("");
        JsonNode files = m.path("files");
        if (!files.isArray() || files.isEmpty()) {
            throw new JanitorException(Reason.USAGE, "The inventory manifest " + name + " lists no files.");
        }
        if (parquet) {
            // before any listing file is fetched: without DuckDB's driver, exit 21 naming the jar
            try (InventoryParquet reader = InventoryParquet.open(duckdbDriver, tempDir)) {
                int n = 0;
                for (JsonNode f : files) {
                    String key = f.path("key").asText("");
                    InventoryOrigin.Opened o = origin.listing(key, m);
                    Path copy = tempDir.resolve("listing-" + n++ + ".parquet");
                    try (Checked in = new Checked(o, f, name)) {
                        try (OutputStream out = Files.newOutputStream(copy)) {
                            in.transferTo(out);
                        }
                        in.verify();
                        reader.read(copy, o.name(), sourceBucket, sorter);
                    } finally {
                        Files.deleteIfExists(copy);
                    }
                }
            }
            return;
        }
        Csv csv = Csv.of(m, name, sourceBucket);
        for (JsonNode f : files) {
            String key = f.path("key").asText("");
            InventoryOrigin.Opened o = origin.listing(key, m);
            try (Checked in = new Checked(o, f, name)) {
                InputStream body = key.endsWith(".gz") ? new GZIPInputStream(in, 1 << 16) : in;
                BufferedReader r = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8.newDecoder()), 1 << 16);
                String line;
                long n = 0;
                while ((line = r.readLine()) != null) {
                    n++;
                    if (!line.isEmpty()) {
                        csv.add(line, o.name(), n, sorter);
                    }
                }
                in.verify();
            }
        }
    }

    /** The columns of a CSV manifest's {@code fileSchema}. */
    private record Csv(String[] columns, int bucket, int key, int size, int time, String sourceBucket) {
        static Csv of(JsonNode m, String name, String sourceBucket) throws JanitorException {
            String[] columns = m.path("fileSchema").asText("").split(",");
            int[] at = {-1, -1, -1, -1};
            for (int i = 0; i < columns.length; i++) {
                switch (columns[i].strip().toLowerCase(Locale.ROOT)) {
                    case "bucket" -> at[0] = i;
                    case "key" -> at[1] = i;
                    case "size" -> at[2] = i;
                    case "lastmodifieddate" -> at[3] = i;
                    default -> {
                    }
                }
            }
            if (at[1] < 0 || at[0] < 0 && sourceBucket.isEmpty()) {
                throw new JanitorException(Reason.USAGE, "The inventory manifest " + name + " has no Key column (or neither a Bucket"
                        + " column nor sourceBucket) in its fileSchema " + CatalogInspector.printable(m.path("fileSchema").asText("")) + ".");
            }
            return new Csv(columns, at[0], at[1], at[2], at[3], sourceBucket);
        }

        void add(String line, String source, long n, Inventory.Sorter sorter) throws JanitorException {
            List<String> cells = Inventory.csv(line, source, n);
            int need = Math.max(key, Math.max(bucket, Math.max(size, time)));
            if (cells.size() <= need) {
                throw Inventory.bad(source, n, "expected " + columns.length + " CSV columns (" + String.join(",", columns)
                        + "), found " + cells.size());
            }
            String b = bucket >= 0 ? cells.get(bucket) : sourceBucket;
            String objectKey;
            try {
                objectKey = URLDecoder.decode(cells.get(key), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw Inventory.bad(source, n, "the key " + CatalogInspector.printable(cells.get(key)) + " is not URL-encoded as"
                        + " S3 Inventory writes CSV keys (" + e.getMessage() + ")");
            }
            long s = size >= 0 && !cells.get(size).isEmpty() ? Inventory.size(source, n, cells.get(size)) : -1;
            Instant t = time >= 0 && !cells.get(time).isEmpty() ? Inventory.instant(source, n, cells.get(time)) : null;
            sorter.add(source, n, "s3://" + b + "/" + objectKey, s, t);
        }
    }

    /**
     * A listing file's bytes, counted and digested as they are read; {@link #verify()} reads what is left and compares
     * with the manifest's {@code size} and {@code MD5checksum} where it gives them.
     */
    static final class Checked extends FilterInputStream {
        private final MessageDigest md5;
        private final String name;
        private final String manifest;
        private final long expectedSize;
        private final String expectedMd5;
        private long count;

        Checked(InventoryOrigin.Opened o, JsonNode file, String manifest) {
            super(new BufferedInputStream(o.in(), 1 << 16));
            try {
                this.md5 = MessageDigest.getInstance("MD5");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            this.name = o.name();
            this.manifest = manifest;
            this.expectedSize = file.path("size").isIntegralNumber() ? file.path("size").asLong() : -1;
            this.expectedMd5 = file.path("MD5checksum").asText("").strip().toLowerCase(Locale.ROOT);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                md5.update((byte) b);
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] buf, int off, int len) throws IOException {
            int n = super.read(buf, off, len);
            if (n > 0) {
                md5.update(buf, off, n);
                count += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            // every byte is digested
            byte[] buf = new byte[(int) Math.min(n, 8192)];
            int r = read(buf, 0, buf.length);
            return Math.max(r, 0);
        }

        @Override
        public boolean markSupported() {
            return false;
        }

        /** Reads the rest and compares. */
        void verify() throws IOException, JanitorException {
            byte[] buf = new byte[1 << 16];
            while (read(buf, 0, buf.length) >= 0) {
                // drained: a gzip reader stops at the end of its stream, not necessarily of the file
            }
            if (expectedSize >= 0 && count != expectedSize) {
                throw mismatch("is " + count + " bytes long, the manifest says " + expectedSize);
            }
            String got = HexFormat.of().formatHex(md5.digest());
            if (!expectedMd5.isEmpty() && !expectedMd5.equals(got)) {
                throw mismatch("has the MD5 " + got + ", the manifest says " + CatalogInspector.printable(expectedMd5));
            }
        }

        private JanitorException mismatch(String what) {
            return new JanitorException(Reason.USAGE, "The inventory listing file " + CatalogInspector.printable(name) + " "
                    + what + " (" + manifest + "): it is not the file the manifest describes (rewritten, truncated or damaged),"
                    + " so the inventory cannot be trusted. Nothing was deleted; run on a complete inventory, or without"
                    + " --inventory to list the store.");
        }
    }
}
