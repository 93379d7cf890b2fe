package dev.ducklake.janitor.storage;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The second spelling of a relative path under {@code --data-path} ({@link PathResolver#storedSpelling}): the stored
 * data path inside the override (the data loss a tester found: the catalog's own files were swept), the override
 * inside the stored path, unrelated paths, S3, trailing slashes and {@code file://} spellings.
 */
class PathResolverTest {

    @Test
    void aRelativePathUnderTheOverrideIsAlsoSpelledUnderTheStoredDataPath() {
        PathResolver parent = new PathResolver("/d/", "/d/lake1/");
        String resolved = PathResolver.file(PathResolver.table(parent.schema("main/", true), "t1/", true), "f.parquet", true);
        assertThat(resolved).isEqualTo("/d/main/t1/f.parquet");
        assertThat(parent.storedSpelling(resolved, false)).isEqualTo("file:///d/lake1/main/t1/f.parquet");
        assertThat(parent.storedSpelling(parent.scheduled("main/t1/q.parquet", true), false))
                .isEqualTo("file:///d/lake1/main/t1/q.parquet");
        assertThat(parent.storedSpelling(PathResolver.table(parent.schema("main/", true), "t1/", true), true))
                .as("a table folder").isEqualTo("file:///d/lake1/main/t1/");

        PathResolver inside = new PathResolver("/d/lake1/main", "/d/lake1");
        assertThat(inside.storedSpelling("/d/lake1/main/main/t1/f.parquet", false))
                .isEqualTo("file:///d/lake1/main/t1/f.parquet");

        // spellings of one directory: no second spelling
        assertThat(new PathResolver("file:///d/lake1//", "/d/lake1").storedSpelling("/d/lake1/main/t1/f.parquet", false)).isNull();
        assertThat(new PathResolver("/d/lake1", null).storedSpelling("/d/lake1/main/t1/f.parquet", false))
                .as("no override").isNull();
        // trailing slashes and file:// on either side
        assertThat(new PathResolver("file:///d", "/d/lake1//").storedSpelling("file:///d/main/t1/f.parquet", false))
                .isEqualTo("file:///d/lake1/main/t1/f.parquet");

        PathResolver moved = new PathResolver("s3://new-bucket/lake", "s3://old-bucket/lake/");
        assertThat(moved.storedSpelling("s3://new-bucket/lake/main/t1/f.parquet", false))
                .as("unrelated: the spelling never matches a listed file of the swept store")
                .isEqualTo("s3://old-bucket/lake/main/t1/f.parquet");
        assertThat(new PathResolver("/mnt/lake", "s3://bucket/lake/").storedSpelling("/mnt/lake/main/t1/f.parquet", false))
                .isEqualTo("s3://bucket/lake/main/t1/f.parquet");
        assertThat(moved.storedSpelling("s3://elsewhere/x/f.parquet", false)).as("not under the override").isNull();
    }
}
