package dev.ducklake.janitor.storage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A data path that is a symbolic link to a directory (DuckLake reads it fine) is listed through the link: the root is
 * followed, its files are spelled under the root as given, and a link below the root is still neither followed nor
 * listed (a walk never leaves the tree). Found by a tester: the root was checked without following links, and every
 * sweep of such a catalog ended with exit 13 ("Not a directory").
 */
class LocalFileStoreListTest {

    @TempDir
    Path dir;

    private static List<String> list(StorageLocation root) throws Exception {
        List<String> out = new ArrayList<>();
        try (FileStore.Listing l = new LocalFileStore().list(root)) {
            while (l.hasNext()) {
                out.add(l.next().address());
            }
        }
        return out;
    }

    @Test
    void aRootThatIsALinkToADirectoryIsListedUnderItsOwnSpellingAndLinksBelowItAreNotFollowed() throws Exception {
        Path real = Files.createDirectories(dir.resolve("real"));
        Files.write(Files.createDirectories(real.resolve("main/t1")).resolve("a.parquet"), new byte[3]);
        Files.write(real.resolve("b.parquet"), new byte[1]);
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.write(outside.resolve("x.parquet"), new byte[1]);
        Files.createSymbolicLink(real.resolve("escape"), outside); // a link below the root: never followed
        Files.createSymbolicLink(real.resolve("main/t1/l.parquet"), outside.resolve("x.parquet")); // nor listed
        Path link = Files.createSymbolicLink(dir.resolve("lnk"), real);

        List<String> viaLink = list(StorageLocation.parse(link + "/"));
        assertThat(viaLink).containsExactly(link + "/b.parquet", link + "/main/t1/a.parquet");
        assertThat(list(StorageLocation.parse("file://" + link))).containsExactly(link + "/b.parquet",
                link + "/main/t1/a.parquet");
        assertThat(list(StorageLocation.parse(real + "/"))).as("the same files, spelled under the real directory")
                .containsExactly(real + "/b.parquet", real + "/main/t1/a.parquet");

        // a link to a link to the directory is a root too; a link to a file is not a directory; a dangling link is empty
        Path link2 = Files.createSymbolicLink(dir.resolve("lnk2"), link);
        assertThat(list(StorageLocation.parse(link2 + "/"))).containsExactly(link2 + "/b.parquet", link2 + "/main/t1/a.parquet");
        Path toFile = Files.createSymbolicLink(dir.resolve("tofile"), real.resolve("b.parquet"));
        assertThatThrownBy(() -> list(StorageLocation.parse(toFile + "/"))).isInstanceOf(StorageException.class)
                .hasMessageContaining("Not a directory");
        Path dangling = Files.createSymbolicLink(dir.resolve("dangling"), dir.resolve("nowhere"));
        assertThat(list(StorageLocation.parse(dangling + "/"))).isEmpty();
    }
}
