package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.storage.StorageLocation;
import dev.ducklake.janitor.storage.StoredObject;
import dev.ducklake.janitor.testsupport.FileCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * delete-orphan-files --inventory (issue 27): the store's objects read from an inventory instead of a listing. The
 * inventory is unsorted, repeats entries, names files outside the data path and is stale: the sweep must delete
 * exactly what a listing of the store deletes, never a file the catalog knows, and confirm each candidate with the
 * store (gone since: skipped; rewritten since: kept).
 */
class InventorySweepTest {

    private static final Duration OLD = Duration.ofDays(3);

    @TempDir
    Path dir;

    private static DeleteOrphanFilesResult run(FileCatalog cat, FileStore store, UnaryOperator<DeleteOrphanFilesOptions> opts,
                                               List<String> events) throws Exception {
        return DeleteOrphanFilesLocalTest.run(cat, store, opts, events);
    }

    /** A lake of 20 known files, 5 orphans, one young orphan and a file DuckLake would not consider. */
    private FileCatalog lake(String name, Path lake) throws Exception {
        FileCatalog cat = FileCatalog.create(name, lake + "/");
        for (int i = 0; i < 20; i++) {
            FileCatalog.file(lake.resolve("main/test/k" + i + ".parquet"), OLD);
            cat.dataFile(1, "k" + i + ".parquet", true);
        }
        for (int i = 0; i < 5; i++) {
            FileCatalog.file(lake.resolve("main/test/o" + i + ".parquet"), OLD);
        }
        FileCatalog.file(lake.resolve("main/test/young.parquet"), Duration.ofMinutes(5));
        FileCatalog.file(lake.resolve("main/test/notes.txt"), OLD);
        return cat;
    }

    private static TreeSet<String> files(Path lake) throws Exception {
        TreeSet<String> out = new TreeSet<>();
        try (var s = Files.walk(lake)) {
            s.filter(Files::isRegularFile).forEach(p -> out.add(lake.relativize(p).toString()));
        }
        return out;
    }

    @Test
    void aStaleUnsortedInventoryDeletesWhatAListingDeletesAndConfirmsEachCandidate() throws Exception {
        Path a = dir.resolve("lake_a");
        Path b = dir.resolve("lake_b");
        FileCatalog catA = lake("inv_a", a);
        FileCatalog catB = lake("inv_b", b);

        DeleteOrphanFilesResult listed = run(catA, new LocalFileStore(), o -> o.withDryRun(false), new ArrayList<>());
        assertThat(listed.deleted()).isEqualTo(5);

        // the inventory of b, taken "yesterday": unsorted, o1 twice, no time for o3, an entry outside the data path,
        // a file since deleted (gone), a file since rewritten (its inventory time is old, the store's is new)
        FileCatalog.file(b.resolve("main/test/rewritten.parquet"), Duration.ofMinutes(1));
        String old = Instant.now().minus(OLD).toString();
        List<String> lines = new ArrayList<>();
        for (int i = 19; i >= 0; i--) {
            lines.add(b.resolve("main/test/k" + i + ".parquet") + "\t7\t" + old);
        }
        lines.add("# comment");
        lines.add(b.resolve("main/test/o4.parquet") + "\t7\t" + old);
        lines.add(b.resolve("main/test/o1.parquet") + "\t7\t" + old);
        lines.add(b.resolve("main/test/o0.parquet").toString());
        lines.add(b.resolve("main/test/o1.parquet") + "\t7\t" + old);
        lines.add(b.resolve("main/test/o3.parquet") + "\t7\t");
        lines.add(b.resolve("main/test/o2.parquet") + "\t7\t" + old);
        lines.add(b.resolve("main/test/young.parquet") + "\t7\t" + Instant.now());
        lines.add(b.resolve("main/test/notes.txt") + "\t7\t" + old);
        lines.add(b.resolve("main/test/gone.parquet") + "\t7\t" + old);
        lines.add(b.resolve("main/test/rewritten.parquet") + "\t7\t" + old);
        lines.add("");
        lines.add(dir.resolve("elsewhere/x.parquet") + "\t7\t" + old);
        Collections.shuffle(lines, new java.util.Random(3));
        Path inv = dir.resolve("inventory.tsv");
        Files.write(inv, lines, StandardCharsets.UTF_8);
        Path outside = dir.resolve("elsewhere/x.parquet");
        FileCatalog.file(outside, OLD);

        List<String> events = new ArrayList<>();
        DeleteOrphanFilesResult dry = run(catB, new LocalFileStore(), o -> o.toBuilder().inventory(inv).build(), events);
        assertThat(dry.listingSource()).isEqualTo("inventory");
        assertThat(dry.listed()).as("entries under the data path, duplicates once").isEqualTo(29);
        assertThat(dry.candidates()).as("the inventory's view: o0..o4, gone, rewritten").isEqualTo(7);
        assertThat(files(b)).as("a dry run deletes nothing").contains("main/test/o0.parquet", "main/test/o4.parquet");

        DeleteOrphanFilesResult r = run(catB, new LocalFileStore(), o -> o.toBuilder().dryRun(false).inventory(inv).build(), events);
        assertThat(r.deleted()).isEqualTo(5);
        assertThat(r.failed()).isZero();
        assertThat(r.inventoryGone()).isEqualTo(1);
        assertThat(r.inventoryModified()).as("rewritten since the inventory").isEqualTo(1);
        assertThat(r.inventoryEntries()).as("every entry read, o1 twice and the one outside included").isEqualTo(31);
        TreeSet<String> left = files(b);
        left.remove("main/test/rewritten.parquet");
        assertThat(left).as("the same files remain as after a listing").isEqualTo(files(a));
        assertThat(Files.exists(b.resolve("main/test/rewritten.parquet"))).isTrue();
        assertThat(Files.exists(outside)).as("outside the data path: never touched").isTrue();
    }

    @Test
    void anInventoryEntryTheCatalogKnowsIsKeptAndABadLineIsAnErrorNamingIt() throws Exception {
        Path b = dir.resolve("lake_k");
        FileCatalog cat = lake("inv_k", b);
        String old = Instant.now().minus(OLD).toString();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            lines.add(b.resolve("main/test/k" + i + ".parquet") + "\t7\t" + old);
        }
        lines.add(b.resolve("main/test/o0.parquet") + "\t7\t" + old);
        lines.add(b.resolve("main/test/o1.parquet") + "\t7\t" + old);
        Path inv = dir.resolve("inv-k.tsv");
        Files.write(inv, lines);
        // o1 registered after the inventory was taken
        cat.dataFile(1, "o1.parquet", true);
        DeleteOrphanFilesResult r = run(cat, new LocalFileStore(), o -> o.toBuilder().dryRun(false).inventory(inv).build(), new ArrayList<>());
        assertThat(r.deleted()).isEqualTo(1);
        assertThat(Files.exists(b.resolve("main/test/o1.parquet"))).isTrue();
        assertThat(Files.exists(b.resolve("main/test/o0.parquet"))).isFalse();
        for (int i = 0; i < 20; i++) {
            assertThat(Files.exists(b.resolve("main/test/k" + i + ".parquet"))).isTrue();
        }

        Path bad = dir.resolve("bad.tsv");
        Files.write(bad, List.of(b.resolve("main/test/o2.parquet") + "\t7\t" + old, b.resolve("main/test/o3.parquet") + "\tseven\t" + old));
        assertThatThrownBy(() -> run(cat, new LocalFileStore(), o -> o.toBuilder().dryRun(false).inventory(bad).build(), new ArrayList<>()))
                .isInstanceOf(JanitorException.class).hasMessageContaining("line 2").hasMessageContaining("seven")
                .extracting(e -> ((JanitorException) e).reason()).isEqualTo(Reason.USAGE);
        assertThat(Files.exists(b.resolve("main/test/o2.parquet"))).as("nothing deleted").isTrue();
    }

    /** The trial of 2026-12-06: a UTF-16 inventory was refused with Java's bare "Input length = 1". */
    @Test
    void anInventoryThatIsNotUtf8IsRefusedNamingTheEncodingAndTheFix() throws Exception {
        Path b = dir.resolve("lake_u16");
        FileCatalog cat = lake("inv_u16", b);
        Path u16 = dir.resolve("inv-utf16.tsv");
        Files.write(u16, (b.resolve("main/test/o0.parquet") + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_16));
        assertThatThrownBy(() -> run(cat, new LocalFileStore(), o -> o.toBuilder().dryRun(false).inventory(u16).build(), new ArrayList<>()))
                .isInstanceOf(JanitorException.class).hasMessageContaining("is not UTF-8 text").hasMessageContaining("iconv")
                .extracting(e -> ((JanitorException) e).reason()).isEqualTo(Reason.USAGE);
        assertThat(Files.exists(b.resolve("main/test/o0.parquet"))).as("nothing deleted").isTrue();
    }

    /**
     * The trial of 2026-12-06 (data lost before the fix): inventory entries through a directory link in the data path
     * ({@code main/test/vlink -> another lake's table folder}; inventories made by {@code find -L} or rclone follow
     * links) were confirmed and deleted through it. With the production store (confined to the data path) they are
     * refused and counted as failed; the other lake's files stay, the true orphan goes.
     */
    @Test
    void inventoryEntriesThroughADirectoryLinkDeleteNothingElsewhere() throws Exception {
        Path b = dir.resolve("lake_link");
        FileCatalog cat = lake("inv_link", b);
        Path victim = FileCatalog.file(dir.resolve("victim/main/victim/ducklake-live.parquet"), OLD);
        Path stray = FileCatalog.file(victim.resolveSibling("stray.parquet"), OLD);
        java.nio.file.Files.createSymbolicLink(b.resolve("main/test/vlink"), victim.getParent());
        String old = Instant.now().minus(OLD).toString();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            lines.add(b.resolve("main/test/k" + i + ".parquet") + "\t7\t" + old);
        }
        lines.add(b.resolve("main/test/o0.parquet") + "\t7\t" + old);
        lines.add(b.resolve("main/test/vlink/ducklake-live.parquet") + "\t7\t" + old);
        lines.add(b.resolve("main/test/vlink/stray.parquet") + "\t7\t" + old);
        Path inv = dir.resolve("inv-link.tsv");
        Files.write(inv, lines);
        DeleteOrphanFilesResult r = run(cat, new LocalFileStore(b), o -> o.toBuilder().dryRun(false).inventory(inv).build(), new ArrayList<>());
        assertThat(Files.exists(victim)).as("the other lake's live file stays").isTrue();
        assertThat(Files.exists(stray)).isTrue();
        assertThat(Files.exists(b.resolve("main/test/o0.parquet"))).as("the true orphan goes").isFalse();
        assertThat(r.failed()).as("the two entries through the link").isEqualTo(2);
    }

    /** An S3 Inventory manifest with gzip'd CSV listings, laid out as the destination bucket holds it. */
    @Test
    void anS3InventoryManifestIsReadSortedAndDecodedAndOrcIsRefused() throws Exception {
        Path dest = dir.resolve("dest/src-bucket/cfg");
        Files.createDirectories(dest.resolve("data"));
        Files.createDirectories(dest.resolve("2026-12-01T01-00Z"));
        try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(dest.resolve("data/part-1.csv.gz")))) {
            o.write(("\"src-bucket\",\"lake/main/t/b%20file.parquet\",\"10\",\"2026-11-01T00:00:00.000Z\"\n"
                    + "\"src-bucket\",\"lake/main/t/a.parquet\",\"20\",\"2026-11-02T00:00:00.000Z\"\n"
                    + "\"src-bucket\",\"other/x.parquet\",\"30\",\"2026-11-02T00:00:00.000Z\"\n").getBytes(StandardCharsets.UTF_8));
        }
        try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(dest.resolve("data/part-2.csv.gz")))) {
            o.write(("\"src-bucket\",\"lake/main/t/a%2Bb.parquet\",\"5\",\"2026-11-03T00:00:00.000Z\"\n"
                    + "\"src-bucket\",\"lake/main/t/\",\"0\",\"2026-11-03T00:00:00.000Z\"\n").getBytes(StandardCharsets.UTF_8));
        }
        Path manifest = dest.resolve("2026-12-01T01-00Z/manifest.json");
        Files.writeString(manifest, "{\"sourceBucket\":\"src-bucket\",\"destinationBucket\":\"arn:aws:s3:::dest\",\"fileFormat\":\"CSV\","
                + "\"fileSchema\":\"Bucket, Key, Size, LastModifiedDate\",\"files\":[{\"key\":\"src-bucket/cfg/data/part-1.csv.gz\"},"
                + "{\"key\":\"src-bucket/cfg/data/part-2.csv.gz\"}]}");
        Inventory.Counts counts = new Inventory.Counts();
        List<StoredObject> got = new ArrayList<>();
        try (FileStore.Listing l = Inventory.open(manifest, StorageLocation.parse("s3://src-bucket/lake/"), dir, counts)) {
            l.forEachRemaining(got::add);
        }
        assertThat(got).extracting(StoredObject::address).containsExactly("s3://src-bucket/lake/main/t/a+b.parquet",
                "s3://src-bucket/lake/main/t/a.parquet", "s3://src-bucket/lake/main/t/b file.parquet");
        assertThat(got.get(2).sizeBytes()).isEqualTo(10);
        assertThat(got.get(2).lastModified()).isEqualTo(Instant.parse("2026-11-01T00:00:00Z"));
        assertThat(counts.read).as("the folder marker lake/main/t/ read, skipped").isEqualTo(5);
        assertThat(counts.underRoot).isEqualTo(3);
        try (var s = Files.list(dir)) {
            assertThat(s.map(p -> p.getFileName().toString())).as("the sorted chunks are removed").noneMatch(n -> n.startsWith("ducklake-janitor-inventory-"));
        }

        Path orc = dir.resolve("orc/manifest.json");
        Files.createDirectories(orc.getParent());
        Files.writeString(orc, "{\"sourceBucket\":\"src-bucket\",\"fileFormat\":\"ORC\",\"fileSchema\":\"struct<bucket:string>\","
                + "\"files\":[{\"key\":\"x.orc\"}]}");
        assertThatThrownBy(() -> Inventory.open(orc, StorageLocation.parse("s3://src-bucket/lake/"), dir, new Inventory.Counts()))
                .isInstanceOf(JanitorException.class).hasMessageContaining("ORC").hasMessageContaining("CSV");
    }

    /** Memory: the entries are sorted chunk by chunk; more entries than a chunk still come out in order. */
    @Test
    void moreEntriesThanAChunkComeOutInByteOrder() throws Exception {
        Path inv = dir.resolve("big.tsv");
        int n = Inventory.CHUNK * 2 + 17;
        try (var w = Files.newBufferedWriter(inv)) {
            for (int i = 0; i < n; i++) {
                w.write("/lake/main/t/f" + ((i * 7919L) % n) + ".parquet\t1\t2026-11-01T00:00:00Z\n");
            }
        }
        Inventory.Counts counts = new Inventory.Counts();
        long seen = 0;
        String prev = null;
        try (FileStore.Listing l = Inventory.open(inv, StorageLocation.parse("/lake/"), dir, counts)) {
            while (l.hasNext()) {
                String c = l.next().location().canonical();
                if (prev != null) {
                    assertThat(StorageLocation.compareCodePoints(prev, c)).isNegative();
                }
                prev = c;
                seen++;
            }
        }
        assertThat(seen).isEqualTo(n);
    }

    /**
     * The trial of 2026-12-06: an empty inventory (a truncated export, the wrong file) of a lake whose catalog knows
     * files ended with exit 0 and not a word. Nothing can be deleted, so no brake applies, but the run warns; a lake
     * whose listing holds files does not.
     */
    @Test
    void anEmptyInventoryOfALakeWithKnownFilesDeletesNothingAndWarns() throws Exception {
        Path b = dir.resolve("lake_e");
        FileCatalog cat = lake("inv_e", b);
        Path inv = dir.resolve("empty.tsv");
        Files.write(inv, List.of());
        TreeSet<String> before = files(b);

        DeleteOrphanFilesResult r = run(cat, new LocalFileStore(), o -> o.toBuilder().dryRun(false).inventory(inv).build(), new ArrayList<>());
        assertThat(r.listed()).isZero();
        assertThat(r.deleted()).isZero();
        assertThat(files(b)).isEqualTo(before);
        assertThat(r.run().warnings()).anySatisfy(w -> assertThat(w)
                .contains("the inventory " + inv + " has no entry under").contains("the consulted catalogs know "));

        DeleteOrphanFilesResult listed = run(cat, new LocalFileStore(), o -> o, new ArrayList<>());
        assertThat(listed.run().warnings()).noneMatch(w -> w.contains("holds no file") || w.contains("has no entry"));
    }

    /**
     * The trial of 2026-12-06: an inventory spelling each local file as a {@code file:///} URI (as its documentation
     * allows) had every entry kept as "not in canonical spelling", so nothing was ever swept. Such an entry is the file
     * its path names: the sweep deletes what a plain list deletes, and keeps the known files.
     */
    @Test
    void anInventoryOfFileUrisSweepsAsAPlainList() throws Exception {
        Path b = dir.resolve("lake_u");
        FileCatalog cat = lake("inv_u", b);
        List<String> lines = new ArrayList<>();
        try (var w = Files.walk(b)) {
            int[] n = {0};
            // the three spellings of a local file URI, in turn
            w.filter(Files::isRegularFile).forEach(p -> lines.add(List.of("file://", "file:", "file://localhost").get(n[0]++ % 3)
                    + p.toAbsolutePath()));
        }
        lines.add("file://" + b.toAbsolutePath() + "/main/test/./o0.parquet"); // a '.' segment: still never judged
        Path inv = dir.resolve("uris.txt");
        Files.write(inv, lines);

        DeleteOrphanFilesResult r = run(cat, new LocalFileStore(), o -> o.toBuilder().dryRun(false).inventory(inv).build(), new ArrayList<>());
        assertThat(r.keptKnown()).isEqualTo(20);
        assertThat(r.keptNonCanonical()).as("only the entry with a '.' segment").isEqualTo(1);
        assertThat(r.deleted()).isEqualTo(5);
        TreeSet<String> left = files(b);
        assertThat(left).contains("main/test/k0.parquet", "main/test/k19.parquet", "main/test/young.parquet", "main/test/notes.txt")
                .doesNotContain("main/test/o0.parquet", "main/test/o4.parquet");
    }

    /**
     * The re-trial of 2026-12-06 (stop 38): an inventory entry through a directory link below the data path (another
     * lake's file) was listed as would_delete by the dry run, while the execute run refused it (exit 13). The dry run
     * now says so: a would_fail line, files_would_fail, exit 13, and not among the files that would go.
     */
    @Test
    void theDryRunPredictsTheDeletesTheStoreWouldRefuse() throws Exception {
        Path b = dir.resolve("lake_r");
        FileCatalog cat = lake("inv_r", b);
        Path theirs = FileCatalog.file(dir.resolve("lake_other/main/t/ducklake-theirs.parquet"), OLD);
        Files.createSymbolicLink(b.resolve("main/test/lnk"), theirs.getParent());
        String old = Instant.now().minus(OLD).toString();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            lines.add(b.resolve("main/test/k" + i + ".parquet") + "\t7\t" + old);
        }
        lines.add(b.resolve("main/test/o0.parquet") + "\t7\t" + old);
        lines.add(b.resolve("main/test/lnk/ducklake-theirs.parquet") + "\t7\t" + old);
        Path inv = dir.resolve("inv-r.tsv");
        Files.write(inv, lines);

        List<String> events = new ArrayList<>();
        DeleteOrphanFilesResult dry = run(cat, new LocalFileStore(b), o -> o.toBuilder().inventory(inv).build(), events);
        assertThat(dry.candidates()).isEqualTo(2);
        assertThat(dry.doneOrWould()).containsEntry("files_would_delete", 1L).containsEntry("files_would_fail", 1L);
        assertThat(dry.exitCode()).isEqualTo(13);
        assertThat(events).contains("would_delete " + b.resolve("main/test/o0.parquet"))
                .contains("would_fail " + b.resolve("main/test/lnk/ducklake-theirs.parquet"));

        DeleteOrphanFilesResult r = run(cat, new LocalFileStore(b), o -> o.toBuilder().dryRun(false).inventory(inv).build(), new ArrayList<>());
        assertThat(r.deleted()).isEqualTo(1);
        assertThat(r.failed()).as("the execute run does what the dry run said").isEqualTo(1);
        assertThat(theirs).exists();
    }

    /**
     * The trial of 2026-12-06 (stop 39): an inventory entry naming a folder ({@code main/test/dir.parquet} is a
     * directory) was would_delete in the dry run and failed with "Is a directory" in the execute run. The dry run now
     * predicts the refusal (would_fail with the reason, files_would_fail, exit 13), with or without confinement.
     */
    @Test
    void anInventoryEntryNamingAFolderIsPredictedToFail() throws Exception {
        Path b = dir.resolve("lake_dir");
        FileCatalog cat = lake("inv_dir", b);
        Path folder = Files.createDirectories(b.resolve("main/test/dir.parquet"));
        Path inside = FileCatalog.file(folder.resolve("x.parquet"), OLD);
        Files.setLastModifiedTime(folder, FileTime.from(Instant.now().minus(OLD))); // an old folder: the stat confirms it
        String old = Instant.now().minus(OLD).toString();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            lines.add(b.resolve("main/test/k" + i + ".parquet") + "\t7\t" + old);
        }
        lines.add(b.resolve("main/test/o0.parquet") + "\t7\t" + old);
        lines.add(folder + "\t7\t" + old);
        Path inv = dir.resolve("inv-dir.tsv");
        Files.write(inv, lines);
        for (FileStore store : List.of(new LocalFileStore(b), new LocalFileStore())) {
            List<String> events = new ArrayList<>();
            DeleteOrphanFilesResult dry = run(cat, store, o -> o.toBuilder().inventory(inv).build(), events);
            assertThat(dry.doneOrWould()).as("%s", events).containsEntry("files_would_delete", 1L).containsEntry("files_would_fail", 1L);
            assertThat(dry.exitCode()).isEqualTo(13);
            assertThat(events).contains("would_fail " + folder).doesNotContain("would_delete " + folder);
        }
        DeleteOrphanFilesResult r = run(cat, new LocalFileStore(b), o -> o.toBuilder().dryRun(false).inventory(inv).build(), new ArrayList<>());
        assertThat(r.deleted()).isEqualTo(1);
        assertThat(r.failed()).as("the execute run does what the dry run said").isEqualTo(1);
        assertThat(inside).exists();
    }

    /**
     * The trial of 2026-12-06 (stop 39): an inventory entry {@code file://HOST/p} with a host other than empty or
     * {@code localhost} was read as the path {@code HOST/p} relative to the working directory, i.e. taken for a local
     * file of this store when the working directory holds the lake. A file URI of another host is not a local address of
     * this store: it is ignored as an entry outside the data path is, counted and warned about, and the local store
     * refuses to delete or stat through one.
     */
    @Test
    void anInventoryEntryOnAnotherHostIsNeverALocalFile() throws Exception {
        // the lake lies under the working directory, so that "file://target/<lake>/…" read as a relative path reaches it
        Path b = Path.of("target", "inv-host-" + System.nanoTime()).toAbsolutePath();
        Path cwd = Path.of("").toAbsolutePath();
        String relative = cwd.relativize(b).toString();
        assertThat(relative).startsWith("target/");
        try {
            FileCatalog cat = lake("inv_host", b);
            String old = Instant.now().minus(OLD).toString();
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                lines.add(b.resolve("main/test/k" + i + ".parquet") + "\t7\t" + old);
            }
            lines.add(b.resolve("main/test/o3.parquet") + "\t7\t" + old);
            lines.add(b.resolve("main/test/o4.parquet") + "\t7\t" + old);
            lines.add("file://" + relative + "/main/test/o0.parquet\t7\t" + old); // host "target"
            lines.add("file://otherhost" + b.resolve("main/test/o1.parquet") + "\t7\t" + old);
            lines.add("file://LOCALHOST" + b.resolve("main/test/o2.parquet") + "\t7\t" + old);
            Path inv = dir.resolve("inv-host.tsv");
            Files.write(inv, lines);

            DeleteOrphanFilesResult r = run(cat, new LocalFileStore(), o -> o.toBuilder().dryRun(false).inventory(inv).build(), new ArrayList<>());
            assertThat(r.deleted()).isEqualTo(2);
            assertThat(r.listed()).as("the entries of another host are not under this data path").isEqualTo(22);
            assertThat(r.keptNonCanonical()).isZero();
            assertThat(r.inventoryEntries()).isEqualTo(25);
            assertThat(r.run().warnings()).anySatisfy(w -> assertThat(w).contains("3 entries").contains("another host")
                    .contains("file://" + relative));
            for (String o : List.of("o0", "o1", "o2")) {
                assertThat(b.resolve("main/test/" + o + ".parquet")).exists();
            }
            assertThat(b.resolve("main/test/o3.parquet")).doesNotExist();

            // the store itself: a file URI of another host names no file of it, even when its path would be one
            String foreign = "file://" + relative + "/main/test/o0.parquet";
            for (LocalFileStore store : List.of(new LocalFileStore(), new LocalFileStore(b))) {
                assertThat(store.refusal(foreign)).contains("another host");
                var out = store.delete(List.of(foreign));
                assertThat(out.failed()).containsKey(foreign);
                assertThatThrownBy(() -> store.stat(foreign)).hasMessageContaining("another host");
            }
            assertThat(b.resolve("main/test/o0.parquet")).exists();
        } finally {
            try (var w = Files.walk(b)) {
                w.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * The trial of 2026-12-06 (stop 39): an inventory line with a {@code ..} segment ended the run with exit 2 and a
     * message that named the line but not what to do. A {@code ..} entry is never taken for a file (a file system
     * resolves it, an object store keeps it in the key: the two name different objects); the error names the file, the
     * line, the entry and the fix.
     */
    @Test
    void anInventoryEntryWithADotDotSegmentIsRefusedNamingTheLineAndTheFix() throws Exception {
        Path b = dir.resolve("lake_dots");
        FileCatalog cat = lake("inv_dots", b);
        String old = Instant.now().minus(OLD).toString();
        String dots = b.resolve("main/test") + "/../test/o0.parquet";
        Path inv = dir.resolve("inv-dots.tsv");
        Files.write(inv, List.of("# header", b.resolve("main/test/o1.parquet") + "\t7\t" + old, dots + "\t7\t" + old));
        assertThatThrownBy(() -> run(cat, new LocalFileStore(b), o -> o.toBuilder().dryRun(false).inventory(inv).build(), new ArrayList<>()))
                .isInstanceOfSatisfying(JanitorException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.USAGE);
                    assertThat(e.getMessage()).contains(inv.toString()).contains("line 3").contains(dots).contains("'..'")
                            .contains("Nothing was deleted").contains("without '..'");
                });
        assertThat(b.resolve("main/test/o0.parquet")).exists();
        assertThat(b.resolve("main/test/o1.parquet")).exists();
    }
}
