package dev.ducklake.janitor.storage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27: local deletes go through the folder's handle (one unlinkat per file), and a measured delete stats each file
 * through the same handle on the way: sizes of the files deleted, none for a missing one, a directory refused and kept.
 */
class LocalFileStoreTest {

    @TempDir
    Path dir;

    @Test
    void aMeasuredDeleteSizesWhatItDeletesAndNeverADirectory() throws Exception {
        Path a = Files.write(dir.resolve("a.parquet"), new byte[7]);
        Files.createDirectories(dir.resolve("sub"));
        Path b = Files.write(dir.resolve("sub/b.parquet"), new byte[3]); // another folder: another handle
        Path d = Files.createDirectories(dir.resolve("d.parquet"));
        Path gone = dir.resolve("gone.parquet");
        List<String> asked = List.of(a.toString(), b.toString(), gone.toString(), d.toString(), "file://" + dir.resolve("c.parquet"));
        Files.write(dir.resolve("c.parquet"), new byte[5]);
        DeleteOutcome out = new LocalFileStore().delete(asked, true);
        assertThat(out.deleted()).containsExactlyInAnyOrder(a.toString(), b.toString(), gone.toString(), asked.get(4));
        assertThat(out.alreadyMissing()).containsExactly(gone.toString());
        assertThat(out.failed()).containsOnlyKeys(d.toString());
        assertThat(out.failed().get(d.toString()).getMessage()).contains("Is a directory");
        assertThat(out.sizes()).as("sizes of the files deleted, by the address asked")
                .containsOnly(java.util.Map.entry(a.toString(), 7L), java.util.Map.entry(b.toString(), 3L),
                        java.util.Map.entry(asked.get(4), 5L));
        assertThat(Files.isDirectory(d)).as("a directory is never deleted").isTrue();
        assertThat(Files.exists(a) || Files.exists(b) || Files.exists(dir.resolve("c.parquet"))).isFalse();

        Path e = Files.write(dir.resolve("e.parquet"), new byte[2]);
        DeleteOutcome plain = new LocalFileStore().delete(List.of(e.toString(), d.toString()));
        assertThat(plain.deleted()).containsExactly(e.toString());
        assertThat(plain.failed()).containsOnlyKeys(d.toString());
        assertThat(plain.sizes()).as("not asked to measure").isEmpty();
        assertThat(Files.isDirectory(d)).isTrue();
    }
}
