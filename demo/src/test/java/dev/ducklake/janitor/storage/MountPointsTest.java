package dev.ducklake.janitor.storage;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The trial of 2026-12-06 (left open then): another tenant's lake bind-mounted below this lake's data path
 * ({@code mount --bind /lakes/other /lakes/mine/main/t9}) is an ordinary folder by name, so neither the symbolic-link
 * check nor opening names without following links refuses it, and a queued path or inventory entry there deleted the
 * other tenant's file. A confined store refuses deletes on or below a mount point below its root.
 */
class MountPointsTest {

    @TempDir
    Path dir;

    @Test
    void theMountTableIsReadWithItsEscapesAndOnlyMountsBelowTheRootCount() {
        Path root = Path.of("/lakes/my lake");
        List<String> table = List.of(
                "22 27 0:21 / /proc rw,relatime - proc proc rw",
                "40 27 254:0 / /lakes rw - ext4 /dev/vda rw",
                "41 40 254:0 /lakes/my\\040lake / rw - ext4 /dev/vda rw", // not a mount point below: the root's parent side
                "45 27 254:0 /other /lakes/my\\040lake/main/t9 rw,relatime - ext4 /dev/vda rw",
                "46 27 254:0 /x /lakes/my\\040lake rw - ext4 /dev/vda rw", // the root itself: its own volume, fine
                "47 27 254:0 /y /real/lake/main/t8 rw - ext4 /dev/vda rw", // below the real path of the root
                "short line");
        List<Path> below = MountPoints.below(table, root, Path.of("/real/lake"));
        assertThat(below).containsExactlyInAnyOrder(Path.of("main/t9"), Path.of("main/t8"));
        assertThat(MountPoints.containing(Path.of("main/t9"), below)).isEqualTo(Path.of("main/t9"));
        assertThat(MountPoints.containing(Path.of("main/t9/sub"), below)).isEqualTo(Path.of("main/t9"));
        assertThat(MountPoints.containing(Path.of("main/t90"), below)).as("by names, not characters").isNull();
        assertThat(MountPoints.unescape("a\\040b\\134c\\011d\\9")).isEqualTo("a b\\c\td\\9");
    }

    @Test
    void aConfinedStoreRefusesDeletesOnAMountBelowItsRoot() throws Exception {
        Path lake = Files.createDirectories(dir.resolve("lake/main/t1")).getParent().getParent();
        Path mounted = Files.createDirectories(lake.resolve("main/t9/sub"));
        Path theirs = Files.write(mounted.resolve("v.parquet"), new byte[3]);
        Path own = Files.write(lake.resolve("main/t1/own.parquet"), new byte[2]);
        List<String> table = List.of("45 27 254:0 /other " + lake.resolve("main/t9") + " rw - ext4 /dev/vda rw");

        DeleteOutcome out = new LocalFileStore(lake, () -> table).delete(List.of(theirs.toString(), own.toString()), true);
        assertThat(out.deleted()).containsExactly(own.toString());
        assertThat(out.failed()).containsOnlyKeys(theirs.toString());
        assertThat(out.failed().get(theirs.toString()).getMessage()).contains("On a mount point below the data path")
                .contains(lake.resolve("main/t9").toString());
        assertThat(theirs).exists();
        assertThat(new LocalFileStore(lake, List::of).delete(List.of(theirs.toString()), false).deleted())
                .as("without the mount the same folder is the lake's own").hasSize(1);
    }

    /**
     * The re-trial of 2026-12-06 (stop 38): the mount table was read once, at the first delete, so a bind mount made
     * during the run was not seen and a file on it was deleted. It is read after each folder is opened.
     */
    @Test
    void aMountMadeDuringTheRunIsSeen() throws Exception {
        Path lake = Files.createDirectories(dir.resolve("lake/main/t1")).getParent().getParent();
        Path early = Files.write(lake.resolve("main/t1/early.parquet"), new byte[1]);
        Path theirs = Files.write(Files.createDirectories(lake.resolve("main/t9")).resolve("v.parquet"), new byte[3]);
        java.util.concurrent.atomic.AtomicReference<List<String>> table = new java.util.concurrent.atomic.AtomicReference<>(List.of());
        LocalFileStore store = new LocalFileStore(lake, table::get);
        assertThat(store.delete(List.of(early.toString()), false).deleted()).hasSize(1);
        table.set(List.of("45 27 254:0 /other " + lake.resolve("main/t9") + " rw - ext4 /dev/vda rw"));
        DeleteOutcome out = store.delete(List.of(theirs.toString()), false);
        assertThat(out.deleted()).isEmpty();
        assertThat(out.failed().get(theirs.toString()).getMessage()).contains("On a mount point below the data path");
        assertThat(theirs).exists();
        assertThat(store.refusal(theirs.toString())).as("the dry run's look too").contains("On a mount point");
    }

    /**
     * The re-trial of 2026-12-06 (stop 38): a mount made during the run over the data path itself (or a folder above
     * it) led every later delete into the mounted volume (1,451 and 29,000 files deleted there). The store remembers
     * the directory its data path named when it was opened and refuses deletes once the path leads elsewhere; shown
     * here with a rename and a fresh directory in its place (the same for a mount, which needs root).
     */
    @Test
    void aDataPathThatBecomesAnotherDirectoryMidRunDeletesNothingThere() throws Exception {
        Path lake = Files.createDirectories(dir.resolve("lake/main/t1")).getParent().getParent();
        Path first = Files.write(lake.resolve("main/t1/a.parquet"), new byte[1]);
        LocalFileStore store = new LocalFileStore(lake, List::of);
        assertThat(store.delete(List.of(first.toString()), false).deleted()).hasSize(1);

        Files.move(lake, dir.resolve("lake.before"));
        Path theirs = Files.write(Files.createDirectories(lake.resolve("main/t1")).resolve("b.parquet"), new byte[2]);
        DeleteOutcome out = store.delete(List.of(theirs.toString()), false);
        assertThat(out.deleted()).isEmpty();
        assertThat(out.failed().get(theirs.toString()).getMessage()).contains("is no longer the directory this run started on");
        assertThat(theirs).exists();
        assertThat(store.refusal(theirs.toString())).as("a dry run says so too").contains("no longer the directory");
        assertThat(new LocalFileStore(lake, List::of).delete(List.of(theirs.toString()), false).deleted())
                .as("a store opened on the new directory deletes there").hasSize(1);
    }

    /** The same with a real bind mount, where this machine allows one (root with CAP_SYS_ADMIN; skipped elsewhere). */
    @Test
    void aRealBindMountBelowTheRootIsRefused() throws Exception {
        Path lake = Files.createDirectories(dir.resolve("lake/main/t9")).getParent().getParent();
        Path other = Files.createDirectories(dir.resolve("other/main/t1"));
        Path theirs = Files.write(other.resolve("v.parquet"), new byte[3]);
        Path mountPoint = lake.resolve("main/t9");
        assumeTrue(Files.exists(MountPoints.MOUNTINFO) && run("mount", "--bind", other.toString(), mountPoint.toString()),
                "bind mounts are not allowed here");
        try {
            Path through = mountPoint.resolve("v.parquet");
            assertThat(through).exists();
            DeleteOutcome out = new LocalFileStore(lake).delete(List.of(through.toString()), false);
            assertThat(out.deleted()).isEmpty();
            assertThat(out.failed().get(through.toString()).getMessage()).contains("On a mount point below the data path");
            assertThat(theirs).as("the other lake's file stays").exists();
        } finally {
            run("umount", mountPoint.toString());
        }
    }

    private static boolean run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
    }
}
