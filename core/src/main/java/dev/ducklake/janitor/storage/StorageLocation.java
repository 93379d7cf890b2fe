package dev.ducklake.janitor.storage;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A location in a file store (a local path or an object-store URL) in its canonical form, so that two spellings
 * of one location compare equal byte for byte.
 *
 * <p>Canonicalisation (applied to what DuckLake stores in {@code data_path} and the {@code path} columns, and to
 * what a store lists):
 * <ul>
 *   <li>backslashes become {@code /} (DuckLake's own cleanup does the same, {@code REPLACE(path, '\', '/')} in
 *       {@code ducklake_metadata_manager.cpp});</li>
 *   <li>the scheme is lower-cased; {@code s3a://} and {@code s3n://} are {@code s3://}; {@code gcs://} is
 *       {@code gs://}; {@code file://} URIs and plain paths are one scheme {@code file}, plain relative paths are
 *       made absolute against the working directory (as DuckDB resolves them);</li>
 *   <li>doubled slashes collapse and {@code .} segments vanish; a {@code ..} segment (also spelled with
 *       percent-escapes) is refused: a file system resolves it while an object store keeps it as part of the key,
 *       so the same string can name two objects, and comparing it as written let a live file look unknown;</li>
 *   <li>percent-escapes: a {@code file:} location is never decoded, because DuckDB does not decode it: its file
 *       system only strips the {@code file:/}, {@code file:///} or {@code file://localhost/} prefix and hands the rest
 *       to the operating system ({@code GetFileUrlOffset} in {@code src/common/file_system.cpp}, duckdb/duckdb commit
 *       {@code 044a04a7}), so {@code file:///lake/fdir%41x/} is the directory named {@code fdir%41x}. In object-store
 *       keys only escapes of RFC 3986 unreserved characters are decoded (section 6.2.2.2), so a key spelled
 *       {@code a%2Db} equals {@code a-b} but {@code a%2Fb} stays one segment. Decoding only ever merges spellings: a
 *       comparison may keep a file it could have deleted, never the reverse.</li>
 * </ul>
 * A prefix (a directory) ends in exactly one {@code /}; an object never does. The canonical form is for comparing
 * only: a data path is listed as its store spells the keys ({@link #spelled}), since DuckDB writes an object-store key
 * byte for byte as the data path spells it ({@code s3://b/p%7Eq/} under {@code p%7Eq/}, not {@code p~q/}).
 *
 * @param scheme {@code file}, {@code s3}, {@code gs}, {@code az} ... (lower case)
 * @param bucket the bucket / container for object stores; empty for {@code file}
 * @param path the path inside the bucket without a leading slash (object stores), or the absolute local path
 *     starting with {@code /} (or a drive such as {@code C:/})
 */
public record StorageLocation(String scheme, String bucket, String path) {

    /** Orders canonical strings by Unicode code point, which is the byte order of their UTF-8 form (PostgreSQL's
     * {@code COLLATE "C"} on a UTF8 database). {@link String#compareTo} is not: it compares UTF-16 units. */
    public static final Comparator<String> BYTE_ORDER = StorageLocation::compareCodePoints;

    private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*)://(.*)$", Pattern.DOTALL);
    private static final Pattern DRIVE = Pattern.compile("^[A-Za-z]:/.*", Pattern.DOTALL);
    /** DuckDB's {@code file:/path} form (one slash, no authority). */
    private static final Pattern FILE_ONE_SLASH = Pattern.compile("^[Ff][Ii][Ll][Ee]:/[^/].*", Pattern.DOTALL);

    /**
     * Parses any spelling of a location.
     *
     * @param raw a path or URL as DuckLake stores it or a user types it
     * @return the canonical location
     * @throws IllegalArgumentException when raw is null or empty, or an object-store URL has no bucket
     */
    public static StorageLocation parse(String raw) {
        return parse(raw, false);
    }

    /**
     * The location a catalog row names, as a reader of the file reaches it: as {@link #parseFile}, but a {@code ..}
     * segment is resolved against the segment before it (DuckLake hands the string to a file system, which does
     * so) instead of refused. Only for the set of files to keep: a wider known set keeps more, never less.
     *
     * @param raw a path or URL as DuckLake stores it in a data or delete file row
     * @return the canonical location of the file
     * @throws IllegalArgumentException when it is empty, climbs above the root, or ends in {@code /}
     */
    public static StorageLocation parseKnownFile(String raw) {
        return requireFile(parse(raw, true), raw);
    }

    private static StorageLocation parse(String raw, boolean resolveDots) {
        if (raw == null || raw.isEmpty()) {
            throw new IllegalArgumentException("empty location");
        }
        if (plainAbsolute(raw)) {
            return new StorageLocation("file", "", raw); // what the rules below make of it, unchanged
        }
        String s = raw.replace('\\', '/');
        if (FILE_ONE_SLASH.matcher(s).matches()) {
            return local(s.substring("file:".length()), resolveDots);
        }
        Matcher m = SCHEME.matcher(s);
        if (!m.matches()) {
            return local(s, resolveDots);
        }
        String scheme = m.group(1).toLowerCase(Locale.ROOT);
        String rest = m.group(2);
        switch (scheme) {
            case "file":
                if (rest.startsWith("localhost/")) {
                    rest = rest.substring("localhost".length());
                }
                return local(rest, resolveDots);
            case "s3a":
            case "s3n":
                scheme = "s3";
                break;
            case "gcs":
                scheme = "gs";
                break;
            default:
                break;
        }
        int slash = rest.indexOf('/');
        String bucket = slash < 0 ? rest : rest.substring(0, slash);
        String key = slash < 0 ? "" : rest.substring(slash + 1);
        if (bucket.isEmpty()) {
            throw new IllegalArgumentException("no bucket in " + raw);
        }
        return new StorageLocation(scheme, bucket.toLowerCase(Locale.ROOT), normalisePath(percentDecode(key), false, resolveDots));
    }

    /**
     * A data path as the store spells its keys: the location a listing of it is made under. DuckDB hands an object-store
     * key to the store as written (its S3 file system neither decodes {@code %XX} escapes nor collapses {@code //}, nor
     * lower-cases the bucket), so {@code s3://bkt/p%7Eq/} holds its files under the key prefix {@code p%7Eq/}, while
     * its canonical form {@code s3://bkt/p~q/} is another prefix, possibly another lake's. The scheme is the store's
     * ({@code s3a://} is {@code s3://}); bucket and key stay byte for byte. A local path is its canonical form (a file
     * system reads {@code //} and {@code .} as the same directory and never decodes an escape). Never compare this
     * location: compare {@link #parse}'s canonical forms; list and delete under this one.
     *
     * @param raw a data path as DuckLake stores it or {@code --data-path} gives it
     * @return the prefix as spelled (ending in {@code /} unless a bucket root)
     * @throws IllegalArgumentException when {@link #parse} refuses it, or it has a backslash before its key
     */
    public static StorageLocation spelled(String raw) {
        StorageLocation canonical = parse(raw).asPrefix();
        if (canonical.scheme.equals("file")) {
            return canonical;
        }
        Matcher m = SCHEME.matcher(raw);
        int slash = m.matches() ? m.group(2).indexOf('/') : -1;
        String bucket = slash < 0 ? (m.matches() ? m.group(2) : "") : m.group(2).substring(0, slash);
        if (!m.matches() || bucket.isEmpty() || bucket.indexOf('\\') >= 0) {
            throw new IllegalArgumentException("cannot tell the bucket and key prefix as spelled in " + raw);
        }
        String key = slash < 0 ? "" : m.group(2).substring(slash + 1);
        return new StorageLocation(canonical.scheme, bucket, key.isEmpty() || key.endsWith("/") ? key : key + "/");
    }

    /**
     * The address a store gives an object at this location: the local path, or {@code scheme://bucket/key}. For a
     * canonical location it is the canonical spelling; for a {@link #spelled} prefix, the listing's addresses start with it.
     *
     * @return the address
     */
    public String spelling() {
        return scheme.equals("file") ? path : scheme + "://" + bucket + "/" + path;
    }

    /**
     * Parses the location of one file (a catalog row's path, a queued path): as {@link #parse}, and a location that
     * ends in {@code /} (a directory, not a file) is refused too. A file store would address {@code a.parquet/} as
     * {@code a.parquet}, while the comparison with the catalog's live files would see two different strings.
     *
     * @param raw a path or URL as DuckLake stores it
     * @return the canonical location of the file
     * @throws IllegalArgumentException when {@link #parse} refuses it or it is a prefix
     */
    public static StorageLocation parseFile(String raw) {
        return requireFile(parse(raw, false), raw);
    }

    /** The location itself, refused when it ends in {@code /} (a directory or prefix, not a file). */
    private static StorageLocation requireFile(StorageLocation l, String raw) {
        if (l.isPrefix()) {
            throw new IllegalArgumentException("a file location must not end in '/': " + raw);
        }
        return l;
    }

    /**
     * Whether a string is an absolute local path already in canonical form: it starts with {@code /}, has no backslash,
     * no empty segment but a final one (a trailing {@code /}), no {@code .} or {@code ..} segment, and its first segment
     * is not a drive ({@code C:}). {@link #parse} of such a path is the path itself (the listing's common case, taken
     * without the general rules' regular expressions and splitting).
     */
    static boolean plainAbsolute(String s) {
        int n = s.length();
        if (n == 0 || s.charAt(0) != '/') {
            return false;
        }
        int start = 1;
        for (int i = 1; i <= n; i++) {
            char ch = i < n ? s.charAt(i) : '/';
            if (ch == '\\') {
                return false;
            }
            if (ch != '/') {
                continue;
            }
            int len = i - start;
            if (len == 0 && i < n) {
                return false; // a doubled slash (a final one is the trailing slash of a prefix)
            }
            if (len == 1 && s.charAt(start) == '.' || len == 2 && s.charAt(start) == '.' && s.charAt(start + 1) == '.') {
                return false;
            }
            if (start == 1 && len == 2 && s.charAt(2) == ':' && Character.isLetter(s.charAt(1)) && s.charAt(1) < 128) {
                return false; // a drive as the first segment
            }
            start = i + 1;
        }
        return true;
    }

    private static StorageLocation local(String s, boolean resolveDots) {
        String p = s;
        if (!p.startsWith("/") && !DRIVE.matcher(p).matches()) {
            boolean dir = p.endsWith("/");
            p = Paths.get(p).toAbsolutePath().toString().replace('\\', '/') + (dir ? "/" : "");
        }
        return new StorageLocation("file", "", normalisePath(p, true, resolveDots));
    }

    /**
     * Collapses doubled slashes and {@code .} segments. A {@code ..} segment is refused, or with
     * {@code resolveDots} removes the segment before it, as a file system (or a URL-normalising HTTP client) reads
     * it; one that would climb above the root is refused either way.
     */
    private static String normalisePath(String p, boolean absolute, boolean resolveDots) {
        java.util.List<String> segments = new java.util.ArrayList<>();
        for (String part : p.split("/", -1)) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                if (!resolveDots) {
                    throw new IllegalArgumentException("a '..' segment makes the location ambiguous: " + p);
                }
                if (segments.isEmpty() || DRIVE.matcher(segments.get(segments.size() - 1) + "/").matches()) {
                    throw new IllegalArgumentException("a '..' segment climbs above the root: " + p);
                }
                segments.remove(segments.size() - 1);
                continue;
            }
            segments.add(part);
        }
        StringBuilder b = new StringBuilder(p.length());
        for (String part : segments) {
            if (b.length() > 0 || absolute && !DRIVE.matcher(part + "/").matches()) {
                b.append('/');
            }
            b.append(part);
        }
        if (absolute && b.length() == 0) {
            b.append('/');
        }
        if (!absolute && b.length() == 0) {
            return "";
        }
        if (p.endsWith("/") && b.charAt(b.length() - 1) != '/') {
            b.append('/');
        }
        return b.toString();
    }

    /** Decodes %XX escapes of unreserved characters (object-store keys); others are upper-cased, malformed ones stay. */
    private static String percentDecode(String s) {
        if (s.indexOf('%') < 0) {
            return s;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(s.length());
        byte[] in = s.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < in.length; i++) {
            if (in[i] == '%' && i + 2 < in.length && hex(in[i + 1]) >= 0 && hex(in[i + 2]) >= 0) {
                int v = hex(in[i + 1]) * 16 + hex(in[i + 2]);
                if (unreserved(v)) {
                    out.write(v);
                    i += 2;
                    continue;
                }
                out.write('%');
                out.write(Character.toUpperCase(in[i + 1]));
                out.write(Character.toUpperCase(in[i + 2]));
                i += 2;
                continue;
            }
            out.write(in[i]);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static boolean unreserved(int c) {
        return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~';
    }

    private static int hex(byte b) {
        return Character.digit(b, 16);
    }

    /**
     * The host of a {@code file://HOST/…} URI naming another machine: its authority when that is neither empty
     * ({@code file:///p}) nor {@code localhost} ({@code file://localhost/p}), the two forms DuckDB strips
     * ({@code GetFileUrlOffset}). Such a URI is no local address of this store; {@link #parse} reads it as a path relative
     * to the working directory ({@code HOST/p}), so a caller that takes addresses from outside (an inventory, a delete)
     * asks this first. {@code file:/p} has no authority.
     *
     * @param raw an address as spelled
     * @return the host, or null when raw is not a {@code file://} URI of another host
     */
    public static String foreignFileHost(String raw) {
        if (raw == null || raw.length() < 7) {
            return null;
        }
        String s = raw.replace('\\', '/');
        if (!s.regionMatches(true, 0, "file://", 0, 7)) {
            return null;
        }
        int slash = s.indexOf('/', 7);
        String host = slash < 0 ? s.substring(7) : s.substring(7, slash);
        return host.isEmpty() || host.equals("localhost") ? null : host;
    }

    /** Whether this location is a prefix (directory): its path ends in {@code /} or is empty. */
    public boolean isPrefix() {
        return path.isEmpty() || path.endsWith("/");
    }

    /** The same location as a prefix (one trailing {@code /}). */
    public StorageLocation asPrefix() {
        return isPrefix() ? this : new StorageLocation(scheme, bucket, path + "/");
    }

    /**
     * Whether this is a root: the local {@code /} or a drive root, or a bucket without a prefix. Sweeping a root
     * for orphans would look at files of everything else stored there.
     */
    public boolean isRoot() {
        if (scheme.equals("file")) {
            return path.equals("/") || DRIVE.matcher(path).matches() && path.length() <= 3;
        }
        return path.isEmpty();
    }

    /** Whether {@code other} lies under this prefix (or is it), comparing canonical strings byte for byte. */
    public boolean contains(StorageLocation other) {
        return other.canonical().startsWith(asPrefix().canonical());
    }

    /**
     * Whether one of two prefixes contains the other (two catalogs sharing files). Object-store prefixes are compared
     * twice: canonical, and with every {@code %XX} escape decoded (a reserved one such as {@code %2F} too), so that two
     * spellings that some client could read as one prefix count as overlapping (erring toward keeping files).
     */
    public boolean overlaps(StorageLocation other) {
        if (contains(other) || other.contains(this)) {
            return true;
        }
        if (scheme.equals("file") || other.scheme.equals("file") || !scheme.equals(other.scheme)
                || path.indexOf('%') < 0 && other.path.indexOf('%') < 0) {
            return false;
        }
        String a = loose(this);
        String b = loose(other);
        return a.startsWith(b) || b.startsWith(a);
    }

    /** An object-store prefix with every escape decoded and slashes collapsed, as a prefix string. */
    private static String loose(StorageLocation l) {
        String p = l.asPrefix().path;
        ByteArrayOutputStream out = new ByteArrayOutputStream(p.length());
        byte[] in = p.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < in.length; i++) {
            if (in[i] == '%' && i + 2 < in.length && hex(in[i + 1]) >= 0 && hex(in[i + 2]) >= 0) {
                out.write(hex(in[i + 1]) * 16 + hex(in[i + 2]));
                i += 2;
            } else {
                out.write(in[i]);
            }
        }
        String decoded = out.toString(StandardCharsets.UTF_8).replaceAll("/{2,}", "/");
        return l.bucket + "/" + (decoded.startsWith("/") ? decoded.substring(1) : decoded);
    }

    /** Appends a relative part (already in DuckLake's {@code /} form) to this prefix. */
    public StorageLocation resolve(String relative) {
        return parse(asPrefix().canonical() + relative);
    }

    /** The canonical string: {@code file:///abs/path}, {@code s3://bucket/key}. Equal locations have equal strings. */
    public String canonical() {
        if (scheme.equals("file")) {
            return "file://" + (path.startsWith("/") ? "" : "/") + path;
        }
        return scheme + "://" + bucket + "/" + path;
    }

    /**
     * The ways a canonical address can be written below its scheme and authority, for the near-match brake of
     * delete-orphan-files (Iceberg's {@code DeleteOrphanFiles} compares locations the same way: by path, with scheme and
     * authority apart, {@code prefixMismatchMode}): the path after {@code scheme://authority/} ({@code s3://b/lake/f} →
     * {@code lake/f}, {@code file:///lake/f} → {@code lake/f}), and for {@code http}/{@code https} addresses also that
     * path without its first segment, the bucket of a path-style URL ({@code https://s3.amazonaws.com/b/lake/f} →
     * {@code lake/f}). Two addresses that differ but share one of these may name one object through two spellings of
     * its store (another scheme such as {@code r2} or {@code gs} for the same bucket, another endpoint or host name).
     * {@code KnownFiles} computes the same in SQL; the two are pinned together by a test.
     *
     * @param canonical a canonical address ({@link #canonical()})
     * @return one or two paths (possibly empty strings), the plain one first
     */
    public static java.util.List<String> pathsBelowAuthority(String canonical) {
        int s = canonical.indexOf("://");
        int a = s < 0 ? -1 : canonical.indexOf('/', s + 3);
        if (a < 0) {
            return java.util.List.of("");
        }
        String below = canonical.substring(a + 1);
        String scheme = canonical.substring(0, s);
        int b = below.indexOf('/');
        if ((scheme.equals("http") || scheme.equals("https")) && b >= 0) {
            return java.util.List.of(below, below.substring(b + 1));
        }
        return java.util.List.of(below);
    }

    /** The spelling a store uses to address it: the local path, or the object key. */
    public String key() {
        return path;
    }

    @Override
    public String toString() {
        return canonical();
    }

    /**
     * Compares two strings by code point (UTF-8 byte order).
     *
     * @return negative, zero or positive as a sorts before, equal to or after b
     */
    public static int compareCodePoints(String a, String b) {
        // UTF-16 units compare as code points up to the first unit that differs, unless a surrogate is involved there
        int n = Math.min(a.length(), b.length());
        int k = 0;
        while (k < n && a.charAt(k) == b.charAt(k)) {
            k++;
        }
        if (k == n) {
            return Integer.compare(a.length(), b.length());
        }
        char x = a.charAt(k);
        char y = b.charAt(k);
        if (!Character.isSurrogate(x) && !Character.isSurrogate(y)) {
            return Integer.compare(x, y);
        }
        // from the start of the code point holding the first difference (its high surrogate may be the equal unit before)
        int start = k > 0 && Character.isHighSurrogate(a.charAt(k - 1)) ? k - 1 : k;
        return compareCodePointsFrom(a, b, start);
    }

    private static int compareCodePointsFrom(String a, String b, int from) {
        int i = from;
        int j = from;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
