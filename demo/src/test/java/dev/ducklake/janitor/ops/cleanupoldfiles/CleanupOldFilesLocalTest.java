package dev.ducklake.janitor.ops.cleanupoldfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.files.AgeThreshold;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.storage.FaultyStore;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CleanupOldFilesLocalTest {

    private static final Duration OLD = Duration.ofDays(3);

    @TempDir
    Path dir;

    static CleanupOldFilesResult run(FileCatalog cat, FileStore store, UnaryOperator<CleanupOldFilesOptions> opts,
                                     List<String> events) throws Exception {
        try (Connection c = TestPostgres.get().connect()) {
            return QueueSweep.run(c, store, opts.apply(CleanupOldFilesOptions.defaults(cat.schema)), new FileListener() {
                @Override
                public void file(String action, String address, long size, Instant mtime, String reason) {
                    events.add(action + " " + address + " " + size);
                }
            });
        }
    }

    /** The ctids of an entry's rows travel as one text joined by spaces (a tid's text has none): each one, in order. */
    @Test
    void ctidsSplitOnSpacesOnly() {
        assertThat(QueueCursor.ctids("(0,1)")).containsExactly("(0,1)");
        assertThat(QueueCursor.ctids("(0,1) (12,3) (4294967295,65535)"))
                .containsExactly("(0,1)", "(12,3)", "(4294967295,65535)");
    }

    /**
     * Issue 28 item 4: DuckDB writes under file:///…/fdir%41x/ literally; the janitor decoded it, deleted nothing at the
     * real location, reported the file deleted and removed its queue row. Now the literal directory is used, and a
     * queued file not found where the catalog says is counted and warned about.
     */
    @Test
    void aPercentEscapeInAFileDataPathIsLiteralAndAMissingFileIsReported() throws Exception {
        Path lake = dir.resolve("pct");
        FileCatalog cat = FileCatalog.create("cof_pct", "file://" + lake + "/fdir%41x/");
        Path real = FileCatalog.file(lake.resolve("fdir%41x/main/test/q.parquet"), OLD);
        Path decoy = FileCatalog.file(lake.resolve("fdirAx/main/test/q.parquet"), OLD);
        cat.queue(1, "main/test/q.parquet", true, OLD);
        cat.queue(2, "main/test/missing.parquet", true, OLD);
        List<String> events = new ArrayList<>();
        CleanupOldFilesResult r = run(cat, new LocalFileStore(), o -> o.withDryRun(false), events);
        assertThat(Files.exists(real)).as("deleted where DuckDB wrote it").isFalse();
        assertThat(Files.exists(decoy)).as("the decoded spelling is another directory").isTrue();
        assertThat(r.filesDeleted()).isEqualTo(2);
        assertThat(r.filesNotFound()).as("the missing one is not reported as a plain delete").isEqualTo(1);
        assertThat(r.run().warnings()).anySatisfy(w -> assertThat(w).contains("not found where the catalog says")
                .contains("missing.parquet"));
    }

    /**
     * The known set that keeps a queued file a live row resolves to counts, under {@code --data-path}, a relative row
     * under the override and under the stored data_path: with the override a parent of the stored data path, a queued
     * path that reaches a live file through the parent is kept, not deleted.
     */
    @Test
    void underAnOverrideThatContainsTheStoredDataPathAQueuedLiveFileIsKept() throws Exception {
        Path root = dir.resolve("parent");
        FileCatalog cat = FileCatalog.create("cof_parent", root + "/lake1/");
        Path live = FileCatalog.file(root.resolve("lake1/main/test/live.parquet"), OLD);
        Path old = FileCatalog.file(root.resolve("lake1/main/test/old.parquet"), OLD);
        cat.dataFile(1, "live.parquet", true);
        cat.queue("lake1/main/test/live.parquet", true, OLD); // relative to the override: the live file
        cat.queue("lake1/main/test/old.parquet", true, OLD);
        List<String> events = new ArrayList<>();
        CleanupOldFilesResult dry = run(cat, new LocalFileStore(), o -> o.toBuilder().dataPath(root.toString()).build(), events);
        assertThat(dry.keptLive()).isEqualTo(1);
        assertThat(events).noneMatch(e -> e.startsWith("would_delete " + live));
        CleanupOldFilesResult r = run(cat, new LocalFileStore(), o -> o.toBuilder().dryRun(false).dataPath(root + "/").build(),
                new ArrayList<>());
        assertThat(r.keptLive()).isEqualTo(1);
        assertThat(r.filesDeleted()).isEqualTo(1);
        assertThat(Files.exists(live)).isTrue();
        assertThat(Files.exists(old)).isFalse();
    }

    @Test
    void deletesOldQueuedFilesKeepsYoungLiveAndCollapsesDuplicates() throws Exception {
        Path lake = dir.resolve("lake");
        // data_path without a trailing slash (older catalogs, hand-written ones): resolved as DuckLake does
        FileCatalog cat = FileCatalog.create("cof_basic", lake.toString());
        Path a = FileCatalog.file(lake.resolve("main/test/a.parquet"), OLD);
        Path b = FileCatalog.file(lake.resolve("main/test/b.parquet"), OLD);
        Path young = FileCatalog.file(lake.resolve("main/test/young.parquet"), OLD);
        Path live = FileCatalog.file(lake.resolve("main/test/live.parquet"), OLD);
        cat.queue("main/test/a.parquet", true, OLD);
        long bid = cat.queue("main/test/b.parquet", true, OLD);
        cat.queue(bid, "main/test/b.parquet", true, OLD); // exact duplicate row
        cat.queue("file://" + lake + "//main/test/b.parquet", false, OLD); // a second spelling of b, another id
        cat.queue("main/test/missing.parquet", true, OLD); // already gone
        cat.queue("main/test/young.parquet", true, Duration.ofMinutes(5));
        cat.queue("main/test/live.parquet", true, OLD);
        cat.dataFile(1, "live.parquet", true); // a live data file resolves to the queued path

        List<String> events = new ArrayList<>();
        CleanupOldFilesResult dry = run(cat, new LocalFileStore(), o -> o, events);
        assertThat(dry.dryRun()).isTrue();
        assertThat(dry.queueRowsConsidered()).isEqualTo(6);
        assertThat(dry.filesDeleted()).as("a, b (3 rows, 2 spellings), missing").isEqualTo(3);
        assertThat(dry.bytes()).isEqualTo(14);
        assertThat(dry.keptLive()).isEqualTo(1);
        assertThat(events).anyMatch(e -> e.startsWith("would_delete " + lake + "/main/test/a.parquet 7"));
        assertThat(Files.exists(a)).isTrue();
        assertThat(cat.queueRows()).isEqualTo(7);

        events.clear();
        CleanupOldFilesResult r = run(cat, new LocalFileStore(), o -> o.toBuilder().dryRun(false).batchSize(2).build(), events);
        assertThat(r.filesDeleted()).isEqualTo(3 + 1).as("b's second spelling is in another batch: missing counts as deleted");
        assertThat(r.queueRowsDeleted()).isEqualTo(5);
        assertThat(r.keptLive()).isEqualTo(1);
        assertThat(r.hasFindings()).isTrue();
        assertThat(r.findings()).anyMatch(f -> f.contains("live.parquet"));
        assertThat(Files.exists(a)).isFalse();
        assertThat(Files.exists(b)).isFalse();
        assertThat(Files.exists(young)).isTrue();
        assertThat(Files.exists(live)).as("never delete a file a live row resolves to").isTrue();
        assertThat(cat.queueRows()).as("young and live rows stay").isEqualTo(2);
        assertThat(r.run().batches()).isGreaterThan(1);
    }

    /**
     * Found by a trial run against real DuckLake 1.5.5: a queued path with a '..' segment or a trailing slash that
     * a file system resolves to a live file, and one that climbs out of the data path, were deleted.
     */
    @Test
    void ambiguousQueuedPathsAreKeptNotDeleted() throws Exception {
        Path lake = dir.resolve("lake4");
        FileCatalog cat = FileCatalog.create("cof_ambiguous", lake + "/");
        Path live = FileCatalog.file(lake.resolve("main/test/live.parquet"), OLD);
        Path outside = FileCatalog.file(dir.resolve("outside.txt"), OLD);
        cat.dataFile(1, "live.parquet", true);
        cat.queue("main/other/../test/live.parquet", true, OLD);
        cat.queue("main/test/live.parquet/", true, OLD);
        cat.queue("../outside.txt", true, OLD);
        cat.queue(lake + "/main/x/../test/live.parquet", false, OLD);
        CleanupOldFilesResult r = run(cat, new LocalFileStore(), o -> o.withDryRun(false), new ArrayList<>());
        assertThat(Files.exists(live)).as("the live file stays").isTrue();
        assertThat(Files.exists(outside)).as("nothing outside the data path goes").isTrue();
        assertThat(r.filesDeleted()).isZero();
        assertThat(r.keptUnresolvable()).isEqualTo(4);
        assertThat(r.hasFindings()).as("exit 12: the operator looks at the rows").isTrue();
        assertThat(cat.queueRows()).isEqualTo(4);
    }

    /**
     * Found by trying it: a queue row written into one tenant's catalog with the absolute path of another tenant's live
     * file (outside this data path, in a catalog that was not read) deleted that file. A file outside the data path is
     * now kept and reported, under every spelling of the path.
     */
    @Test
    void aQueuedFileOutsideTheDataPathIsKeptNotDeleted() throws Exception {
        Path lake = dir.resolve("lake-own");
        FileCatalog cat = FileCatalog.create("cof_outside", lake + "/");
        Path theirs = FileCatalog.file(dir.resolve("lake-other/main/orders/live.parquet"), OLD);
        Path mine = FileCatalog.file(lake.resolve("main/test/old.parquet"), OLD);
        cat.queue(theirs.toString(), false, OLD);
        cat.queue("file://" + theirs, false, OLD);
        cat.queue("main/test/old.parquet", true, OLD);
        List<String> events = new ArrayList<>();
        CleanupOldFilesResult r = run(cat, new LocalFileStore(), o -> o.withDryRun(false), events);
        assertThat(Files.exists(theirs)).as("another tenant's file stays").isTrue();
        assertThat(Files.exists(mine)).as("the catalog's own queued file goes").isFalse();
        assertThat(r.keptOutsideDataPath()).isEqualTo(2);
        assertThat(r.filesDeleted()).isEqualTo(1);
        assertThat(r.hasFindings()).as("exit 12: the operator looks at the rows").isTrue();
        assertThat(r.findings()).anySatisfy(f -> assertThat(f).contains("outside the data path").contains(theirs.toString()));
        assertThat(cat.queueRows()).as("their rows stay").isEqualTo(2);
    }

    /**
     * The trial of 2026-12-06 (data lost before the fix): a tenant queued {@code main/t1/vlink/<file>} where
     * {@code vlink} is a directory link in its own data path to another lake's table folder; the run deleted the other
     * lake's live file. Through the command (the production store, confined to the data path): the file stays, its row
     * stays, the failure is reported.
     */
    @Test
    void aQueuedPathThroughADirectoryLinkDeletesNothingElsewhere() throws Exception {
        Path lake = dir.resolve("lake-link");
        FileCatalog cat = FileCatalog.create("cof_link", lake + "/");
        Path victim = FileCatalog.file(dir.resolve("lake-victim/main/victim/live.parquet"), OLD);
        Files.createDirectories(lake.resolve("main/t1"));
        Files.createSymbolicLink(lake.resolve("main/t1/vlink"), victim.getParent());
        Path mine = FileCatalog.file(lake.resolve("main/t1/old.parquet"), OLD);
        cat.queue("main/t1/vlink/live.parquet", true, OLD);
        cat.queue("main/t1/old.parquet", true, OLD);
        // the dry run says what the execute run does (the re-trial of 2026-12-06: it listed the row as would_delete)
        List<String> events = new ArrayList<>();
        CleanupOldFilesResult dry = run(cat, new LocalFileStore(lake), o -> o, events);
        assertThat(dry.failed()).as("%s", events).isEqualTo(1);
        assertThat(dry.filesDeleted()).as("would delete").isEqualTo(1);
        assertThat(dry.queueRowsDeleted()).as("rows that would go").isEqualTo(1);
        assertThat(dry.exitCode()).isEqualTo(13);
        assertThat(events).anySatisfy(e -> assertThat(e).startsWith("would_fail ").contains("vlink/live.parquet"))
                .noneSatisfy(e -> assertThat(e).startsWith("would_delete ").contains("vlink"));
        assertThat(dry.findings()).anySatisfy(f -> assertThat(f).startsWith("would fail: ").contains("symbolic link below"));
        dev.ducklake.janitor.testsupport.CliRun run = dev.ducklake.janitor.testsupport.CliRun.run("cleanup-old-files",
                "--catalog", TestPostgres.get().url(), "--metadata-schema", cat.schema, "--yes", "--output", "json");
        assertThat(Files.exists(victim)).as("the other lake's live file stays\n%s", run).isTrue();
        assertThat(Files.exists(mine)).as("the catalog's own queued file goes").isFalse();
        assertThat(cat.queueRows()).as("the row of the file not deleted stays").isEqualTo(1);
        assertThat(run.exitCode()).as(run.toString()).isNotZero();
        assertThat(run.out()).contains("symbolic link below the data path");
    }

    @Test
    void aFailedObjectKeepsItsRowAndTheRunGoesOn() throws Exception {
        Path lake = dir.resolve("lake2");
        FileCatalog cat = FileCatalog.create("cof_fail", lake + "/");
        for (int i = 0; i < 5; i++) {
            FileCatalog.file(lake.resolve("main/test/f" + i + ".parquet"), OLD);
            cat.queue("main/test/f" + i + ".parquet", true, OLD);
        }
        FaultyStore store = new FaultyStore(new LocalFileStore(), a -> a.endsWith("f2.parquet"));
        CleanupOldFilesResult r = run(cat, store, o -> o.withDryRun(false), new ArrayList<>());
        assertThat(r.failed()).isEqualTo(1);
        assertThat(r.filesDeleted()).isEqualTo(4);
        assertThat(r.queueRowsDeleted()).isEqualTo(4);
        assertThat(cat.queueRows()).isEqualTo(1);
        assertThat(Files.exists(lake.resolve("main/test/f2.parquet"))).isTrue();
        assertThat(Files.exists(lake.resolve("main/test/f3.parquet"))).isFalse();
        assertThat(r.findings()).anyMatch(f -> f.contains("f2.parquet") && f.contains("injected failure"));
    }

    /**
     * Issue 27 (bytes_deleted short under load): a stat that fails for another reason than a refusal (a timeout, a
     * throttled call out of retries) left the file's size out of bytes_deleted without a word, and a dry run counted
     * the file as missing. Now the file is deleted as before, counted in files_unsized (with a warning), never in
     * files_not_found, and bytes_deleted holds exactly the sizes the store gave.
     */
    @Test
    void aFailedStatIsCountedUnsizedNotMissing() throws Exception {
        Path lake = dir.resolve("lakestat");
        FileCatalog cat = FileCatalog.create("cof_stat", lake + "/");
        for (int i = 0; i < 6; i++) {
            FileCatalog.file(lake.resolve("main/test/s" + i + ".parquet"), OLD);
            cat.queue("main/test/s" + i + ".parquet", true, OLD);
        }
        FileStore store = new dev.ducklake.janitor.storage.ForwardingStore(new LocalFileStore()) {
            @Override
            public java.util.Optional<dev.ducklake.janitor.storage.StoredObject> stat(String address)
                    throws dev.ducklake.janitor.storage.StorageException {
                if (address.endsWith("/s1.parquet") || address.endsWith("/s4.parquet")) {
                    throw new dev.ducklake.janitor.storage.StorageException(
                            dev.ducklake.janitor.storage.StorageException.Kind.OTHER, address + ": injected timeout", null);
                }
                return super.stat(address);
            }
        };
        CleanupOldFilesResult dry = run(cat, store, o -> o, new ArrayList<>());
        assertThat(dry.filesNotFound()).as("a failed stat is not a missing file").isZero();
        assertThat(dry.filesUnsized()).isEqualTo(2);
        assertThat(dry.bytes()).isEqualTo(4 * 7L);
        assertThat(dry.run().warnings()).anyMatch(w -> w.contains("files_unsized"));

        CleanupOldFilesResult r = run(cat, store, o -> o.withDryRun(false), new ArrayList<>());
        assertThat(r.filesDeleted()).isEqualTo(6);
        assertThat(r.filesNotFound()).isZero();
        assertThat(r.filesUnsized()).isEqualTo(2);
        assertThat(r.bytes()).as("the four sizes the store gave").isEqualTo(4 * 7L);
        assertThat(cat.queueRows()).isZero();
        assertThat(r.run().warnings()).anyMatch(w -> w.contains("2 files deleted have no size"));
    }

    /**
     * Issue 27: on the local store the sizes for bytes_deleted are measured by the delete itself, through the folder's
     * handle (no stat per file before it): exact at every concurrency, a missing file counted not found and unsized
     * never, across batches read ahead while the deletes run.
     */
    @Test
    void localDeletesMeasureTheirOwnSizes() throws Exception {
        for (int conc : new int[] {1, 4}) {
            Path lake = dir.resolve("lakemeasure" + conc);
            FileCatalog cat = FileCatalog.create("cof_measure", lake + "/");
            for (int i = 0; i < 9; i++) {
                FileCatalog.file(lake.resolve("main/test/m" + i + ".parquet"), OLD);
                cat.queue("main/test/m" + i + ".parquet", true, OLD);
            }
            cat.queue("main/test/missing.parquet", true, OLD);
            CleanupOldFilesResult r = run(cat, new LocalFileStore(), o -> o.toBuilder().dryRun(false).batchSize(4)
                    .deleteConcurrency(conc).build(), new ArrayList<>());
            assertThat(r.filesDeleted()).as("concurrency %d", conc).isEqualTo(10);
            assertThat(r.bytes()).as("concurrency %d", conc).isEqualTo(9 * 7L);
            assertThat(r.filesNotFound()).isEqualTo(1);
            assertThat(r.filesUnsized()).isZero();
            assertThat(cat.queueRows()).isZero();
            for (int i = 0; i < 9; i++) {
                assertThat(Files.exists(lake.resolve("main/test/m" + i + ".parquet"))).isFalse();
            }
        }
    }

    /**
     * Issue 27: deletes in parallel (4 calls in flight per batch), a file whose delete fails keeps its queue row and
     * is counted; every other row goes, bytes_deleted is exact (sizes stat-ed just before each delete).
     */
    @Test
    void concurrentDeletesKeepTheRowOfEachFailedFileAndCountBytesExactly() throws Exception {
        Path lake = dir.resolve("lakepar");
        FileCatalog cat = FileCatalog.create("cof_par", lake + "/");
        for (int i = 0; i < 1_200; i++) {
            FileCatalog.file(lake.resolve("main/test/p" + i + ".parquet"), OLD);
            cat.queue("main/test/p" + i + ".parquet", true, OLD);
        }
        FaultyStore store = new FaultyStore(new LocalFileStore(), a -> a.endsWith("/p5.parquet") || a.endsWith("/p999.parquet")
                || a.endsWith("/p1100.parquet"));
        List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
        CleanupOldFilesResult r = run(cat, store, o -> o.toBuilder().dryRun(false).batchSize(500).deleteConcurrency(4).build(), events);
        assertThat(r.failed()).isEqualTo(3);
        assertThat(r.filesDeleted()).isEqualTo(1_197);
        assertThat(r.queueRowsDeleted()).isEqualTo(1_197);
        assertThat(r.bytes()).as("7 bytes per deleted file").isEqualTo(1_197 * 7L);
        assertThat(cat.queueRows()).as("the rows of the failed files stay").isEqualTo(3);
        assertThat(store.deleteCalls).as("batches of 500, 500, 200 in 4 pieces each").containsExactlyInAnyOrder(
                125, 125, 125, 125, 125, 125, 125, 125, 50, 50, 50, 50);
        assertThat(Files.exists(lake.resolve("main/test/p999.parquet"))).isTrue();
        assertThat(Files.exists(lake.resolve("main/test/p998.parquet"))).isFalse();
        assertThat(events).filteredOn(e -> e.startsWith("failed ")).hasSize(3);
        assertThat(r.findings()).anyMatch(f -> f.contains("p1100.parquet") && f.contains("injected failure"));

        // the rerun (one at a time) finds the three files again; they still fail and keep their rows
        CleanupOldFilesResult again = run(cat, store, o -> o.toBuilder().dryRun(false).deleteConcurrency(1).build(), new ArrayList<>());
        assertThat(again.failed()).isEqualTo(3);
        assertThat(cat.queueRows()).isEqualTo(3);
    }

    @Test
    void aDeleteConcurrencyOutsideOneToSixtyFourIsRefused() {
        assertThatThrownBy(() -> CleanupOldFilesOptions.builder("s").deleteConcurrency(65).build().validate())
                .isInstanceOfSatisfying(JanitorException.class, e -> assertThat(e.getMessage()).contains("--delete-concurrency"));
    }

    @Test
    void ageRules() throws Exception {
        Path lake = dir.resolve("lake3");
        FileCatalog cat = FileCatalog.create("cof_age", lake + "/");
        FileCatalog.file(lake.resolve("main/test/f.parquet"), OLD);
        cat.queue("main/test/f.parquet", true, OLD);
        assertThatThrownBy(() -> run(cat, new LocalFileStore(), o -> o.toBuilder().olderThan(AgeThreshold.parse("10m")).build(), new ArrayList<>()))
                .isInstanceOf(JanitorException.class).hasMessageContaining("--min-age");
        // the trial of 2026-12-06: an unreadable option was exit 11, which names the janitor's configuration file
        cat.setOption("delete_older_than", "a fortnight-ish");
        assertThatThrownBy(() -> run(cat, new LocalFileStore(), o -> o.withDryRun(false), new ArrayList<>()))
                .isInstanceOf(JanitorException.class).hasMessageContaining("delete_older_than cannot be read")
                .extracting(e -> ((JanitorException) e).reason()).isEqualTo(JanitorException.Reason.UNSAFE_CATALOG_STATE);
        assertThat(Files.exists(lake.resolve("main/test/f.parquet"))).isTrue();
        cat.setOption("delete_older_than", "1 week");
        CleanupOldFilesResult r = run(cat, new LocalFileStore(), o -> o.withDryRun(false), new ArrayList<>());
        assertThat(r.cutoffSource()).isEqualTo("delete_older_than option");
        assertThat(r.filesDeleted()).as("3 days is younger than the catalog's 1 week").isZero();
        r = run(cat, new LocalFileStore(), o -> o.toBuilder().dryRun(false).olderThan(AgeThreshold.parse("2d")).build(), new ArrayList<>());
        assertThat(r.filesDeleted()).isEqualTo(1);
        assertThat(cat.queueRows()).isZero();
    }

    /**
     * The trial of 2026-12-06 (stop 39): a queue row naming a folder ({@code main/t1/sub.parquet} is a directory): the
     * dry run said would_delete, the execute run failed with "Is a directory". The dry run now predicts the refusal:
     * would_fail with the reason, counted in files_would_fail (exit 13), its row not among the rows that would go.
     */
    @Test
    void aQueuedFolderIsPredictedToFailByTheDryRun() throws Exception {
        Path lake = dir.resolve("lake-folder");
        FileCatalog cat = FileCatalog.create("cof_folder", lake + "/");
        Files.createDirectories(lake.resolve("main/t1/sub.parquet"));
        Path inside = FileCatalog.file(lake.resolve("main/t1/sub.parquet/keep.parquet"), OLD);
        Path mine = FileCatalog.file(lake.resolve("main/t1/old.parquet"), OLD);
        cat.queue("main/t1/sub.parquet", true, OLD);
        cat.queue("main/t1/old.parquet", true, OLD);
        for (FileStore store : List.of(new LocalFileStore(lake), new LocalFileStore())) {
            List<String> events = new ArrayList<>();
            CleanupOldFilesResult dry = run(cat, store, o -> o, events);
            assertThat(dry.failed()).as("%s", events).isEqualTo(1);
            assertThat(dry.filesDeleted()).as("would delete").isEqualTo(1);
            assertThat(dry.queueRowsDeleted()).as("rows that would go").isEqualTo(1);
            assertThat(dry.exitCode()).isEqualTo(13);
            assertThat(events).anySatisfy(e -> assertThat(e).startsWith("would_fail ").contains("sub.parquet"))
                    .noneSatisfy(e -> assertThat(e).startsWith("would_delete ").contains("sub.parquet"));
            assertThat(dry.findings()).anySatisfy(f -> assertThat(f).startsWith("would fail: ").contains("Is a directory"));
        }
        CleanupOldFilesResult r = run(cat, new LocalFileStore(lake), o -> o.withDryRun(false), new ArrayList<>());
        assertThat(r.failed()).as("the execute run does what the dry run said").isEqualTo(1);
        assertThat(r.filesDeleted()).isEqualTo(1);
        assertThat(inside).exists();
        assertThat(mine).doesNotExist();
        assertThat(cat.queueRows()).as("the folder's row stays").isEqualTo(1);
    }

    /**
     * Stop 39: a queued absolute path {@code file://HOST/p} of another host was taken for the file {@code HOST/p} below
     * the working directory, and deleted when that lay under the data path. It names no local file of this store: the
     * dry run says would_fail, the execute run refuses it (its row stays), the file below the working directory stays.
     */
    @Test
    void aQueuedFileUriOfAnotherHostIsNeverALocalFile() throws Exception {
        Path lake = Path.of("target", "cof-host-" + System.nanoTime()).toAbsolutePath();
        String relative = Path.of("").toAbsolutePath().relativize(lake).toString();
        try {
            FileCatalog cat = FileCatalog.create("cof_host", lake + "/");
            Path theirs = FileCatalog.file(lake.resolve("main/t1/theirs.parquet"), OLD);
            Path mine = FileCatalog.file(lake.resolve("main/t1/old.parquet"), OLD);
            cat.queue("file://" + relative + "/main/t1/theirs.parquet", false, OLD);
            cat.queue("main/t1/old.parquet", true, OLD);
            List<String> events = new ArrayList<>();
            CleanupOldFilesResult dry = run(cat, new LocalFileStore(lake), o -> o, events);
            assertThat(events).as("%s", events).noneSatisfy(e -> assertThat(e).startsWith("would_delete file://"));
            CleanupOldFilesResult r = run(cat, new LocalFileStore(lake), o -> o.withDryRun(false), new ArrayList<>());
            assertThat(theirs).as("never taken for a file below the working directory").exists();
            assertThat(mine).doesNotExist();
            assertThat(r.filesDeleted()).isEqualTo(1);
            assertThat(cat.queueRows()).as("the other host's row stays").isEqualTo(1);
            assertThat(dry.exitCode()).isEqualTo(r.exitCode());
        } finally {
            try (var w = Files.walk(lake)) {
                w.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * The trial of 2026-12-06 (stop 39): with a data path that is not where the lake is (a typo in --data-path, a volume
     * not mounted: an empty directory), every queued file was "not found", every queue row was deleted and the run
     * exited 0 with files_deleted = N, forgetting files still in storage. Now such a data path, while the catalog has
     * live data files, stops the run before anything is deleted (exit 15), dry runs too; a catalog with no live data
     * file is cleaned as before.
     */
    @Test
    void aDataPathHoldingNoFileStopsTheRunWhileTheCatalogHasLiveFiles() throws Exception {
        Path lake = dir.resolve("unmounted");
        Files.createDirectories(lake);
        FileCatalog cat = FileCatalog.create("cof_unmounted", lake + "/");
        cat.dataFile(1, "live.parquet", true);
        cat.queue("main/test/gone1.parquet", true, Duration.ofDays(10));
        cat.queue("main/test/gone2.parquet", true, Duration.ofDays(10));
        for (boolean dryRun : new boolean[] {true, false}) {
            assertThatThrownBy(() -> run(cat, new LocalFileStore(lake), o -> o.withDryRun(dryRun), new ArrayList<>()))
                    .isInstanceOfSatisfying(JanitorException.class, e -> {
                        assertThat(e.reason()).isEqualTo(JanitorException.Reason.BRAKE_NO_KNOWN_FILES);
                        assertThat(e.getMessage()).contains(lake.toString()).contains("holds no file");
                    });
        }
        assertThat(cat.queueRows()).as("nothing forgotten").isEqualTo(2);
        // a --data-path that does not exist at all
        assertThatThrownBy(() -> run(cat, new LocalFileStore(), o -> o.toBuilder().dryRun(false)
                .dataPath(dir.resolve("typo") + "/").build(), new ArrayList<>()))
                .isInstanceOfSatisfying(JanitorException.class,
                        e -> assertThat(e.reason()).isEqualTo(JanitorException.Reason.BRAKE_NO_KNOWN_FILES));
        assertThat(cat.queueRows()).isEqualTo(2);

        // no live data file: an empty data path is plausible, and the rows of files not found go as in DuckLake
        FileCatalog empty = FileCatalog.create("cof_emptylake", lake + "/");
        empty.queue("main/test/gone3.parquet", true, Duration.ofDays(10));
        CleanupOldFilesResult r = run(empty, new LocalFileStore(lake), o -> o.withDryRun(false), new ArrayList<>());
        assertThat(r.filesNotFound()).isEqualTo(1);
        assertThat(empty.queueRows()).isZero();
    }
}
