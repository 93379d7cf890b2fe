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

    /**
     * The trial of 2026-12-06: a queued path or an inventory entry through a directory link below the data path
     * ({@code main/t1/vlink -> another lake's table folder}) deleted another tenant's live file. A store confined to its
     * data path deletes nothing whose folder is not really below the root, and nothing outside the root; a root that is
     * itself a link is followed.
     */
    @Test
    void aConfinedStoreDeletesNothingThroughALinkBelowItsRootNorOutsideIt() throws Exception {
        Path lake = Files.createDirectories(dir.resolve("lake/main/t1")).getParent().getParent();
        Path victim = Files.write(Files.createDirectories(dir.resolve("other/main/victim")).resolve("v.parquet"), new byte[4]);
        Files.createSymbolicLink(lake.resolve("main/t1/vlink"), victim.getParent());
        Path own = Files.write(lake.resolve("main/t1/own.parquet"), new byte[2]);
        Path outside = Files.write(dir.resolve("other/x.parquet"), new byte[1]);
        String throughLink = lake.resolve("main/t1/vlink/v.parquet").toString();

        DeleteOutcome out = new LocalFileStore(lake).delete(List.of(throughLink, own.toString(), outside.toString(),
                lake + "/main/t1/../../../other/x.parquet"), true);
        assertThat(out.deleted()).containsExactly(own.toString());
        assertThat(out.failed()).containsOnlyKeys(throughLink, outside.toString(), lake + "/main/t1/../../../other/x.parquet");
        assertThat(out.failed().get(throughLink).getMessage()).contains("symbolic link below the data path");
        assertThat(out.failed().get(outside.toString()).getMessage()).contains("Not inside the data path");
        assertThat(victim).as("the other lake's file stays").exists();
        assertThat(outside).exists();

        Path rootLink = Files.createSymbolicLink(dir.resolve("lakelink"), lake);
        Path own2 = Files.write(lake.resolve("main/t1/own2.parquet"), new byte[2]);
        DeleteOutcome viaRootLink = new LocalFileStore(rootLink).delete(List.of(rootLink.resolve("main/t1/own2.parquet").toString(),
                rootLink.resolve("main/t1/vlink/v.parquet").toString()), false);
        assertThat(viaRootLink.deleted()).as("a root that is a link is followed").hasSize(1);
        assertThat(own2).doesNotExist();
        assertThat(viaRootLink.failed()).hasSize(1);
        assertThat(victim).exists();

        assertThat(new LocalFileStore().delete(List.of(throughLink), false).deleted())
                .as("unconfined (tests only): the link is followed, which is why production stores are confined").hasSize(1);
        assertThat(victim).doesNotExist();
    }

    /**
     * The re-trial of 2026-12-06: a folder swapped for a link between the confinement check and the delete (a loop of
     * {@code mv dir dir.real; ln -s /other dir}) led cleanup-old-files' deletes into the other folder. The folder is
     * now opened name by name below the root without following a link, so whatever the check saw, a link on the way
     * is refused at open and the deletes act inside the folder the handle holds.
     */
    @Test
    void theFolderIsOpenedBelowTheRootWithoutFollowingALink() throws Exception {
        Path lake = Files.createDirectories(dir.resolve("lake/main/real")).getParent().getParent();
        Path other = Files.createDirectories(dir.resolve("other"));
        Files.createSymbolicLink(lake.resolve("main/swapped"), other);
        DataPathConfinement store = new DataPathConfinement(lake, java.util.List::of);
        try (var ok = store.open(lake.resolve("main/real"))) {
            assertThat(ok).as("a real folder opens").isNotNull();
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.open(lake.resolve("main/swapped")))
                .as("a link below the root is not followed").isInstanceOf(java.io.IOException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> store.open(lake.resolve("main/gone")))
                .isInstanceOf(java.nio.file.NoSuchFileException.class);
        Path rootLink = Files.createSymbolicLink(dir.resolve("lakelink2"), lake);
        try (var viaRootLink = new DataPathConfinement(rootLink, java.util.List::of).open(rootLink.resolve("main/real"))) {
            assertThat(viaRootLink).as("the root itself may be a link").isNotNull();
        }
        LocalFileStore confined = new LocalFileStore(lake);
        assertThat(confined.refusal(lake.resolve("main/swapped/x.parquet").toString()))
                .as("a dry run's look: refused through the link").contains("symbolic link below the data path");
        assertThat(confined.refusal(lake.resolve("main/real/x.parquet").toString())).isNull();
        assertThat(confined.refusal(lake.resolve("main/gone/x.parquet").toString())).as("left to the delete").isNull();
        assertThat(confined.refusal(dir.resolve("other/x.parquet").toString())).contains("Not inside the data path");
        assertThat(new LocalFileStore().refusal(lake.resolve("main/swapped/x.parquet").toString())).isNull();
    }
}
