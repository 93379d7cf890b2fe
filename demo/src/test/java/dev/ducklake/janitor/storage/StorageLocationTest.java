package dev.ducklake.janitor.storage;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StorageLocationTest {

    private static String canon(String s) {
        return StorageLocation.parse(s).canonical();
    }

    /**
     * DuckDB writes an S3 data path's keys as spelled (no escape decoded, {@code //} kept, the bucket's case kept): the
     * prefix to list is that spelling; the canonical form only compares.
     */
    @Test
    void anObjectStoreDataPathIsListedAsSpelledAndComparedCanonical() {
        StorageLocation tilde = StorageLocation.spelled("s3://bkt4/p%7Eq/");
        assertThat(tilde.bucket()).isEqualTo("bkt4");
        assertThat(tilde.key()).isEqualTo("p%7Eq/");
        assertThat(tilde.spelling()).isEqualTo("s3://bkt4/p%7Eq/");
        assertThat(StorageLocation.spelled("s3a://bkt5/d//q").key()).isEqualTo("d//q/");
        assertThat(StorageLocation.spelled("s3a://bkt5/d//q").scheme()).isEqualTo("s3");
        assertThat(StorageLocation.spelled("s3://BKT/lake/").bucket()).isEqualTo("BKT");
        assertThat(StorageLocation.spelled("s3://BKT/").isRoot()).isTrue();
        assertThat(StorageLocation.spelled("/tmp/lake//p%7Eq/")).as("local: one directory, no escape decoded")
                .isEqualTo(StorageLocation.parse("/tmp/lake/p%7Eq/"));
        assertThatThrownBy(() -> StorageLocation.spelled("s3://b/a/../c/")).isInstanceOf(IllegalArgumentException.class);

        String prefix = StorageLocation.parse("s3://bkt4/p%7Eq/").canonical();
        assertThat(prefix).isEqualTo("s3://bkt4/p~q/");
        StoredObject own = new StoredObject(StorageLocation.parse("s3://bkt4/p%7Eq/main/t/f.parquet"),
                "s3://bkt4/p%7Eq/main/t/f.parquet", 1, null);
        assertThat(own.canonicalSpelling()).isFalse();
        assertThat(own.canonicalBelow("s3://bkt4/p%7Eq/", prefix)).as("canonical below the spelled prefix").isTrue();
        StoredObject other = new StoredObject(StorageLocation.parse("s3://bkt4/p~q/main/t/f.parquet"),
                "s3://bkt4/p~q/main/t/f.parquet", 1, null);
        assertThat(other.canonicalBelow("s3://bkt4/p%7Eq/", prefix)).as("another spelling of the prefix").isFalse();
        StoredObject stray = new StoredObject(StorageLocation.parse("s3://bkt4/p%7Eq/main//t/f.parquet"),
                "s3://bkt4/p%7Eq/main//t/f.parquet", 1, null);
        assertThat(stray.canonicalBelow("s3://bkt4/p%7Eq/", prefix)).as("not canonical below the prefix").isFalse();
        StoredObject upper = new StoredObject(StorageLocation.parse("s3://BKT/lake/f.parquet"), "s3://BKT/lake/f.parquet", 1, null);
        assertThat(upper.canonicalBelow("s3://BKT/lake/", "s3://bkt/lake/")).isTrue();
    }

    /** Two catalogs whose data paths could be read as one prefix overlap, whichever spelling each uses. */
    @Test
    void spellingsThatMayNameOnePrefixOverlap() {
        StorageLocation tilde = StorageLocation.parse("s3://b/p%7Eq/");
        assertThat(tilde.overlaps(StorageLocation.parse("s3://b/p~q/"))).isTrue();
        assertThat(StorageLocation.parse("s3://b/d//q/").overlaps(StorageLocation.parse("s3://b/d/q/"))).isTrue();
        assertThat(StorageLocation.parse("s3://BKT/lake/").overlaps(StorageLocation.parse("s3://bkt/lake/x/"))).isTrue();
        assertThat(StorageLocation.parse("s3://b/a%2Fb/").overlaps(StorageLocation.parse("s3://b/a/b/"))).as("%2F read as /")
                .isTrue();
        assertThat(StorageLocation.parse("s3://b/a/b/c/").overlaps(StorageLocation.parse("s3://b/a%2fb/"))).isTrue();
        assertThat(StorageLocation.parse("s3://b/a%2Fb/").overlaps(StorageLocation.parse("s3://b/a/c/"))).isFalse();
        assertThat(StorageLocation.parse("s3://b/a%2Fb/").overlaps(StorageLocation.parse("s3://c/a/b/"))).isFalse();
        assertThat(StorageLocation.parse("/tmp/a%2Fb/").overlaps(StorageLocation.parse("/tmp/a/b/"))).as("a local name is literal")
                .isFalse();
    }

    /** Issue 28 item 4: DuckDB writes file:///…/fdir%41x/ to the directory named fdir%41x; decoding it swept fdirAx/. */
    @Test
    void aFileUrlIsNotPercentDecodedBecauseDuckDbDoesNotDecodeIt() {
        assertThat(canon("file:///tmp/lake/fdir%41x/a.parquet")).isEqualTo("file:///tmp/lake/fdir%41x/a.parquet")
                .isEqualTo(canon("/tmp/lake/fdir%41x/a.parquet")).isNotEqualTo(canon("/tmp/lake/fdirAx/a.parquet"));
        assertThat(canon("file:///tmp/lake/a%20b.parquet")).isEqualTo("file:///tmp/lake/a%20b.parquet");
        assertThat(canon("file:///tmp/lake/%2E%2E/a.parquet")).as("a directory literally named %2E%2E, not '..'")
                .isEqualTo("file:///tmp/lake/%2E%2E/a.parquet");
        StorageLocation l = StorageLocation.parse("file:///tmp/lake/fdir%41x/");
        assertThat(l.resolve("main/x.parquet").canonical()).as("re-parsing a canonical string changes nothing")
                .isEqualTo("file:///tmp/lake/fdir%41x/main/x.parquet");
    }

    @Test
    void spellingsOfOneLocationAreEqual() {
        assertThat(canon("s3a://Bucket/lake//main/x.parquet")).isEqualTo("s3://bucket/lake/main/x.parquet");
        assertThat(canon("s3://bucket/lake/./main/x.parquet")).isEqualTo("s3://bucket/lake/main/x.parquet");
        assertThat(canon("S3://bucket/lake/ma%69n/x.parquet")).as("escape of an unreserved char").isEqualTo("s3://bucket/lake/main/x.parquet");
        assertThat(canon("s3://bucket/a%2fb")).as("an escaped slash stays one segment").isEqualTo("s3://bucket/a%2Fb");
        assertThat(canon("file:/tmp/lake/x.parquet")).as("DuckDB's one-slash file URL").isEqualTo("file:///tmp/lake/x.parquet");
        assertThat(canon("/tmp//lake/a b.parquet")).isEqualTo("file:///tmp/lake/a b.parquet");
        assertThat(canon("file://localhost/tmp/x")).isEqualTo("file:///tmp/x");
        assertThat(canon("C:\\lake\\main\\x.parquet")).isEqualTo("file:///C:/lake/main/x.parquet");
        assertThat(canon("s3://bucket/lake")).isNotEqualTo(canon("s3://bucket/lake/"));
        assertThat(StorageLocation.parse("s3://bucket/lake").asPrefix()).isEqualTo(StorageLocation.parse("s3://bucket/lake///"));
    }

    @Test
    void rootsAndPrefixes() {
        assertThat(StorageLocation.parse("/").isRoot()).isTrue();
        assertThat(StorageLocation.parse("file:///").isRoot()).isTrue();
        assertThat(StorageLocation.parse("s3://bucket").isRoot()).isTrue();
        assertThat(StorageLocation.parse("s3://bucket/").isRoot()).isTrue();
        assertThat(StorageLocation.parse("s3://bucket//").isRoot()).isTrue();
        assertThat(StorageLocation.parse("C:/").isRoot()).isTrue();
        assertThat(StorageLocation.parse("s3://bucket/lake/").isRoot()).isFalse();
        assertThat(StorageLocation.parse("/data/lake").isRoot()).isFalse();
        StorageLocation lake = StorageLocation.parse("s3://b/lake");
        assertThat(lake.contains(StorageLocation.parse("s3://b/lake/x.parquet"))).isTrue();
        assertThat(lake.contains(StorageLocation.parse("s3://b/lake2/x.parquet"))).as("sibling prefix (trailing slash bug)").isFalse();
        assertThat(lake.overlaps(StorageLocation.parse("s3a://b/"))).isTrue();
        assertThat(lake.overlaps(StorageLocation.parse("s3://b/lake2/"))).isFalse();
        assertThatThrownBy(() -> StorageLocation.parse("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StorageLocation.parse("s3:///key")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void byteOrderIsUtf8OrderNotUtf16() {
        String bmpHigh = "\uFFFD";
        String supplementary = new String(Character.toChars(0x1F600));
        assertThat(bmpHigh.compareTo(supplementary)).as("String.compareTo puts U+FFFD after a surrogate pair").isPositive();
        assertThat(StorageLocation.compareCodePoints(bmpHigh, supplementary)).isNegative();
        List<String> l = new ArrayList<>(List.of("a/b", "a.b", "a", "a0"));
        l.sort(StorageLocation.BYTE_ORDER);
        assertThat(l).containsExactly("a", "a.b", "a/b", "a0");
    }

    @Test
    void resolverFollowsDuckLakeRules() {
        PathResolver r = new PathResolver("s3://b/lake//");
        assertThat(r.dataPath()).isEqualTo("s3://b/lake/");
        assertThat(new PathResolver("s3://b/lake").dataPath()).as("missing trailing slash").isEqualTo("s3://b/lake/");
        String schema = r.schema("main/", true);
        String table = PathResolver.table(schema, "t/", true);
        assertThat(PathResolver.file(table, "f.parquet", true)).isEqualTo("s3://b/lake/main/t/f.parquet");
        assertThat(PathResolver.file(PathResolver.table(r.schema("s3://other/s/", false), "t/", true), "f.parquet", true))
                .isEqualTo("s3://other/s/t/f.parquet");
        assertThat(PathResolver.file(table, "s3://x/abs.parquet", false)).isEqualTo("s3://x/abs.parquet");
        assertThat(r.scheduled("main/t/f.parquet", true)).isEqualTo("s3://b/lake/main/t/f.parquet");
        assertThat(new PathResolver("file:///").dataLocation().isRoot()).as("the scheme's slashes are not trailing slashes").isTrue();
        assertThat(r.schema(null, null)).as("0.1 catalogs: no schema path").isEqualTo("s3://b/lake/");
    }

    /** Trial of issue 14's work: '..' and a trailing slash made a live file look unknown to the cleanup. */
    @Test
    void dotDotSegmentsAndFileLocationsEndingInASlashAreNeverComparedAsWritten() {
        assertThatThrownBy(() -> StorageLocation.parse("/lake/main/t2/../t1/a.parquet")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StorageLocation.parse("s3://b/lake/%2E%2E/a.parquet")).as("escaped dots too")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StorageLocation.parseFile("/lake/main/t1/a.parquet/")).isInstanceOf(IllegalArgumentException.class);
        assertThat(StorageLocation.parseKnownFile("/lake/main/t2/../t1/a.parquet").canonical())
                .as("a catalog row's path is kept as the file system reads it").isEqualTo("file:///lake/main/t1/a.parquet");
        assertThat(StorageLocation.parseKnownFile("s3://b/lake/x/../a.parquet").canonical()).isEqualTo("s3://b/lake/a.parquet");
        assertThatThrownBy(() -> StorageLocation.parseKnownFile("/../a.parquet")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StorageLocation.parseKnownFile("/lake/a.parquet/")).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Issue 27: the fast path of a plain absolute local path gives what the general rules give (reached here through the
     * {@code file://} spelling of the same path, which the fast path never takes), for paths it takes and paths it leaves.
     */
    @Test
    void thePlainAbsolutePathFastPathAgreesWithTheGeneralRules() {
        List<String> paths = new ArrayList<>(List.of("/", "/a", "/a/", "/tmp/lake/main/x.parquet", "/tmp/lake/a b.parquet",
                "/tmp//lake/x", "/tmp/./x", "/tmp/../x", "/tmp/x/.", "/tmp/x/..", "/C:/lake/x", "/c:", "/C:x/y", "/.a/..b/...",
                "/é/ü/\uD83D\uDE00.parquet", "/a\\b/c", "/tmp/lake/fdir%41x/", "/a/b//", "/x:/y", "/1:/y"));
        java.util.Random r = new java.util.Random(27);
        String alphabet = "/./a:\\C%é";
        for (int i = 0; i < 5_000; i++) {
            StringBuilder b = new StringBuilder("/");
            for (int k = r.nextInt(9); k > 0; k--) {
                b.append(alphabet.charAt(r.nextInt(alphabet.length())));
            }
            paths.add(b.toString());
        }
        int fast = 0;
        for (String p : paths) {
            if (StorageLocation.plainAbsolute(p)) {
                fast++;
            }
            String general;
            try {
                general = StorageLocation.parse("file://" + p).canonical();
            } catch (IllegalArgumentException e) {
                assertThatThrownBy(() -> StorageLocation.parse(p)).as(p).isInstanceOf(IllegalArgumentException.class);
                continue;
            }
            assertThat(canon(p)).as(p).isEqualTo(general);
            if (StorageLocation.plainAbsolute(p)) {
                assertThat(StorageLocation.parse(p).path()).as("the fast path keeps the string: %s", p).isEqualTo(p);
            }
        }
        assertThat(fast).as("the fast path was taken").isGreaterThan(100);
    }

    /** Issue 27: the unit-by-unit comparison with its surrogate fallback orders as comparing code point by code point. */
    @Test
    void compareCodePointsOrdersByCodePoint() {
        java.util.Random r = new java.util.Random(27);
        String[] pieces = {"a", "b", "\uFFFF", "\uE000", "\uD83D\uDE00", "\uD83D\uDE01", "\uD83E\uDD14", "é", "/", "\uD800"};
        for (int i = 0; i < 20_000; i++) {
            String a = random(r, pieces);
            String b = r.nextInt(4) == 0 ? a + random(r, pieces) : random(r, pieces);
            int expected = Integer.signum(referenceCompare(a, b));
            assertThat(Integer.signum(StorageLocation.compareCodePoints(a, b))).as("%s vs %s", a, b).isEqualTo(expected);
            assertThat(Integer.signum(StorageLocation.compareCodePoints(b, a))).as("%s vs %s", b, a).isEqualTo(-expected);
        }
    }

    private static String random(java.util.Random r, String[] pieces) {
        StringBuilder b = new StringBuilder();
        for (int k = r.nextInt(6); k > 0; k--) {
            b.append(pieces[r.nextInt(pieces.length)]);
        }
        return b.toString();
    }

    /** Code point by code point, as the comparison was written before its fast path. */
    private static int referenceCompare(String a, String b) {
        int i = 0;
        int j = 0;
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
