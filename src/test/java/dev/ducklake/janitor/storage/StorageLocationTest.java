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
}
