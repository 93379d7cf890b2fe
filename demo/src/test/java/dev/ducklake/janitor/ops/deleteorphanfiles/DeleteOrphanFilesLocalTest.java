package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.storage.FaultyStore;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
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

class DeleteOrphanFilesLocalTest {

    private static final Duration OLD = Duration.ofDays(3);

    @TempDir
    Path dir;

    static DeleteOrphanFilesResult run(FileCatalog cat, FileStore store, UnaryOperator<DeleteOrphanFilesOptions> opts,
                                       List<String> events) throws Exception {
        try (Connection c = TestPostgres.get().connect()) {
            return OrphanSweep.run(c, store, opts.apply(DeleteOrphanFilesOptions.defaults(cat.schema)), new FileListener() {
                @Override
                public void file(String action, String address, long size, Instant mtime, String reason) {
                    events.add(action + " " + address);
                }
            });
        }
    }

    /**
     * Writes {@code n} old files {@code main/test/k<i>.parquet} under the lake, each a live data file of table 1
     * (enough known files that one or two orphans stay under the orphan-ratio brake).
     */
    private static void knownFiles(FileCatalog cat, Path lake, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            FileCatalog.file(lake.resolve("main/test/k" + i + ".parquet"), OLD);
            cat.dataFile(1, "k" + i + ".parquet", true);
        }
    }

    private static Reason reason(ThrowingRunnable r) {
        try {
            r.run();
        } catch (JanitorException e) {
            return e.reason();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        return null;
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /**
     * Issue 27: orphans deleted in parallel rounds (4 calls in flight); a failed orphan is counted and stays, a file
     * registered after the listing is kept by the round's re-check, everything known stays.
     */
    @Test
    void concurrentDeletesAreExactPerFileAndTheRoundIsReCheckedFirst() throws Exception {
        Path lake = dir.resolve("lakepar");
        FileCatalog cat = FileCatalog.create("dof_par", lake + "/");
        knownFiles(cat, lake, 3_000);
        for (int i = 0; i < 2_500; i++) {
            FileCatalog.file(lake.resolve("main/test/o" + i + ".parquet"), OLD);
        }
        Path late = lake.resolve("main/test/o1700.parquet");
        FileStore hooked = new dev.ducklake.janitor.storage.ForwardingStore(new LocalFileStore()) {
            @Override
            public Listing list(dev.ducklake.janitor.storage.StorageLocation prefix) throws dev.ducklake.janitor.storage.StorageException {
                Listing l = inner.list(prefix);
                return new Listing() {
                    boolean registered;

                    @Override
                    public boolean hasNext() {
                        boolean more = l.hasNext();
                        if (!more && !registered) {
                            registered = true;
                            // registered after the listing, before the deletes: the re-check must keep it
                            try {
                                cat.dataFile(1, "o1700.parquet", true);
                            } catch (java.sql.SQLException e) {
                                throw new IllegalStateException(e);
                            }
                        }
                        return more;
                    }

                    @Override
                    public dev.ducklake.janitor.storage.StoredObject next() {
                        return l.next();
                    }

                    @Override
                    public void close() {
                        l.close();
                    }
                };
            }
        };
        FaultyStore store = new FaultyStore(hooked, a -> a.endsWith("/o42.parquet"));
        List<String> events = java.util.Collections.synchronizedList(new ArrayList<>());
        DeleteOrphanFilesResult r = run(cat, store, o -> o.toBuilder().dryRun(false).deleteConcurrency(4).build(), events);
        assertThat(r.candidates()).isEqualTo(2_500);
        assertThat(r.deleted()).isEqualTo(2_498);
        assertThat(r.failed()).isEqualTo(1);
        assertThat(r.keptRegisteredDuringRun()).isEqualTo(1);
        assertThat(r.bytesDeleted()).isEqualTo(2_498 * 7L);
        assertThat(Files.exists(late)).isTrue();
        assertThat(Files.exists(lake.resolve("main/test/o42.parquet"))).isTrue();
        assertThat(Files.exists(lake.resolve("main/test/o43.parquet"))).isFalse();
        for (int i = 0; i < 3_000; i += 97) {
            assertThat(Files.exists(lake.resolve("main/test/k" + i + ".parquet"))).isTrue();
        }
        assertThat(store.deleteCalls).as("one round of 2,499 in 4 pieces").hasSize(4)
                .allMatch(n -> n <= 1000);
        assertThat(events).filteredOn(e -> e.startsWith("deleted ")).hasSize(2_498);
    }

    @Test
    void deletesExactlyDuckLakesCandidatesAndNothingKnown() throws Exception {
        Path lake = dir.resolve("lake");
        // data_path WITHOUT a trailing slash: DuckLake's glob data_path || '**' also matched the sibling lake2/
        FileCatalog cat = FileCatalog.create("dof_basic", lake.toString());
        cat.addTable(2, "other/", true);
        Path known = FileCatalog.file(lake.resolve("main/test/known.parquet"), OLD);
        Path spelled = FileCatalog.file(lake.resolve("main/test/spelled.parquet"), OLD);
        Path shared = FileCatalog.file(lake.resolve("main/test/shared.parquet"), OLD);
        Path dv = FileCatalog.file(lake.resolve("main/test/ducklake-x-delete.puffin"), OLD);
        Path queued = FileCatalog.file(lake.resolve("main/test/queued.parquet"), OLD);
        Path stray = FileCatalog.file(lake.resolve("main/test/stray.parquet"), OLD);
        Path strayPuffin = FileCatalog.file(lake.resolve("main/test/stray-delete.puffin"), OLD);
        Path young = FileCatalog.file(lake.resolve("main/test/young.parquet"), Duration.ofMinutes(5));
        Path catalogFile = FileCatalog.file(lake.resolve("catalog.duckdb"), OLD);
        Path wal = FileCatalog.file(lake.resolve("catalog.duckdb.wal"), OLD);
        Path txt = FileCatalog.file(lake.resolve("main/notes.txt"), OLD);
        Path sibling = FileCatalog.file(dir.resolve("lake2/main/test/x.parquet"), OLD);
        cat.dataFile(1, "known.parquet", true);
        cat.dataFile(1, "file://" + lake + "//main/./test/spelled.parquet", false); // another spelling of the URL
        cat.dataFile(1, "shared.parquet", true);
        cat.dataFile(2, "../test/shared.parquet", true); // unused spelling; the file is also absolute in table 2:
        cat.dataFile(2, shared.toString(), false);
        cat.deleteFile(1, "ducklake-x-delete.puffin", true);
        cat.queue("main/test/queued.parquet", true, Duration.ofMinutes(1));
        knownFiles(cat, lake, 4);

        List<String> events = new ArrayList<>();
        DeleteOrphanFilesResult dry = run(cat, new LocalFileStore(), o -> o, events);
        assertThat(dry.candidates()).as("DuckLake 1.5.5 considers .parquet only").isEqualTo(1);
        assertThat(events).containsExactly("would_delete " + stray);
        assertThat(dry.keptByName()).as("catalog.duckdb, its wal, notes.txt, the stray .puffin").isEqualTo(4);
        assertThat(dry.keptYoung()).isEqualTo(1);
        assertThat(dry.keptKnown()).isEqualTo(9);
        assertThat(dry.listed()).isEqualTo(15);
        assertThat(Files.exists(stray)).isTrue();

        DeleteOrphanFilesResult r = run(cat, new LocalFileStore(), o -> o.withDryRun(false), new ArrayList<>());
        assertThat(r.deleted()).isEqualTo(1);
        assertThat(Files.exists(stray)).isFalse();
        assertThat(Files.exists(strayPuffin)).isTrue();
        r = run(cat, new LocalFileStore(), o -> o.toBuilder().dryRun(false).includePuffin(true).build(), new ArrayList<>());
        assertThat(r.deleted()).as("the stray deletion vector; the live one stays").isEqualTo(1);
        assertThat(Files.exists(strayPuffin)).isFalse();
        for (Path p : List.of(known, spelled, shared, dv, queued, young, catalogFile, wal, txt, sibling)) {
            assertThat(Files.exists(p)).as(p.toString()).isTrue();
        }
    }

    /**
     * Found by trying it: a file whose name is not UTF-8 was listed under the JVM's decoded name (U+FFFD for the bad
     * bytes), its delete through that name found nothing, and it was reported deleted while it stayed on disk. It is
     * kept and counted as a name no DuckLake writer makes.
     */
    @Test
    void aFileNameThatIsNotUtf8IsKeptNotReportedDeleted() throws Exception {
        Path lake = dir.resolve("bytes");
        FileCatalog cat = FileCatalog.create("dof_bytes", lake + "/");
        knownFiles(cat, lake, 6);
        Path folder = lake.resolve("main/test");
        // the name's bytes are written by the shell: the JVM cannot spell a name that is not valid UTF-8
        Process p = new ProcessBuilder("sh", "-c", "touch -d '10 days ago' \"$(printf 'nonutf8-\\377\\376.parquet')\"")
                .directory(folder.toFile()).redirectErrorStream(true).start();
        assertThat(p.waitFor()).as(new String(p.getInputStream().readAllBytes())).isZero();
        Path stray = FileCatalog.file(folder.resolve("stray.parquet"), OLD);
        List<String> events = new ArrayList<>();
        DeleteOrphanFilesResult r = run(cat, new LocalFileStore(), o -> o.withDryRun(false), events);
        assertThat(r.deleted()).as("the stray only").isEqualTo(1);
        assertThat(r.keptNonCanonical()).isEqualTo(1);
        assertThat(Files.exists(stray)).isFalse();
        Process ls = new ProcessBuilder("sh", "-c", "ls | grep -c '^nonutf8-'").directory(folder.toFile()).start();
        assertThat(new String(ls.getInputStream().readAllBytes()).trim()).as("the file is still there").isEqualTo("1");
        assertThat(events).noneMatch(e -> e.contains("nonutf8"));
    }

    /** Found by a trial run against real DuckLake 1.5.5: a live file named through '..' was an orphan candidate. */
    @Test
    void aLiveFileNamedThroughDotDotIsKnown() throws Exception {
        Path lake = dir.resolve("dotdot");
        FileCatalog cat = FileCatalog.create("dof_dotdot", lake + "/");
        knownFiles(cat, lake, 4);
        Path live = FileCatalog.file(lake.resolve("main/t2/live.parquet"), OLD);
        cat.dataFile(1, "../t2/live.parquet", true); // DuckLake reads it: the file system resolves '..'
        List<String> events = new ArrayList<>();
        DeleteOrphanFilesResult r = run(cat, new LocalFileStore(), o -> o.withDryRun(false), events);
        assertThat(r.candidates()).isZero();
        assertThat(r.deleted()).isZero();
        assertThat(Files.exists(live)).isTrue();
    }

    @Test
    void aTenantSharingTheLocationKeepsItsFiles() throws Exception {
        Path lake = dir.resolve("shared");
        FileCatalog a = FileCatalog.create("dof_tenant_a", lake + "/");
        FileCatalog b = FileCatalog.create("dof_tenant_b", "file://" + lake + "/tenant_b/");
        Path theirs = FileCatalog.file(lake.resolve("tenant_b/main/test/theirs.parquet"), OLD);
        Path mine = FileCatalog.file(lake.resolve("main/test/mine.parquet"), OLD);
        Path stray = FileCatalog.file(lake.resolve("main/test/stray.parquet"), OLD);
        a.dataFile(1, "mine.parquet", true);
        b.dataFile(1, "theirs.parquet", true);
        DeleteOrphanFilesResult r = run(a, new LocalFileStore(), o -> o.toBuilder().dryRun(false).maxOrphanRatio(0.9).build(), new ArrayList<>());
        assertThat(r.catalogsConsulted()).contains(a.schema, b.schema);
        assertThat(r.deleted()).isEqualTo(1);
        assertThat(Files.exists(stray)).isFalse();
        assertThat(Files.exists(theirs)).isTrue();
        assertThat(Files.exists(mine)).isTrue();
    }

    /**
     * The trial of 2026-12-06 (stop 39): a catalog created while the sweep lists (a new tenant's METADATA_SCHEMA in the
     * same database, registering an old file of this lake by its absolute path) is in neither the known set nor the
     * re-check before the deletes. The sweep stops before the round's deletes; the next run reads the new catalog.
     */
    @Test
    void aCatalogCreatedDuringTheSweepStopsItBeforeTheDeletes() throws Exception {
        Path lake = dir.resolve("appears");
        FileCatalog a = FileCatalog.create("dof_appears_a", lake + "/");
        Path mine = FileCatalog.file(lake.resolve("main/test/mine.parquet"), OLD);
        Path adopted = FileCatalog.file(lake.resolve("main/test/adopted.parquet"), OLD);
        a.dataFile(1, "mine.parquet", true);
        java.util.concurrent.atomic.AtomicBoolean created = new java.util.concurrent.atomic.AtomicBoolean();
        FileStore store = new dev.ducklake.janitor.storage.ForwardingStore(new LocalFileStore()) {
            @Override
            public Listing list(dev.ducklake.janitor.storage.StorageLocation prefix)
                    throws dev.ducklake.janitor.storage.StorageException {
                if (created.compareAndSet(false, true)) {
                    try {
                        FileCatalog b = FileCatalog.create("dof_appears_b", dir.resolve("elsewhere") + "/");
                        b.dataFile(1, adopted.toString(), false);
                    } catch (java.sql.SQLException e) {
                        throw new IllegalStateException(e);
                    }
                }
                return inner.list(prefix);
            }
        };
        List<String> events = new ArrayList<>();
        DeleteOrphanFilesResult r = run(a, store, o -> o.toBuilder().dryRun(false).maxOrphanRatio(0.9).build(), events);
        assertThat(created).isTrue();
        assertThat(adopted).as("registered by a catalog created during the sweep\n%s", events).exists();
        assertThat(mine).exists();
        assertThat(r.deleted()).isZero();
        assertThat(r.stoppedDuring()).isEqualTo("deleting");
        assertThat(r.findings()).anySatisfy(f -> assertThat(f).contains("appeared during the run").contains("dof_appears_b"));
    }

    /** A file name DuckLake writes (the unknown-table-folder brake looks at these). */
    private static String ducklakeName() {
        return "ducklake-" + java.util.UUID.randomUUID() + ".parquet";
    }

    /**
     * Found by a tester with real DuckLake 1.5.5 (data lost): {@code --data-path} naming a parent of the catalog's stored
     * data_path swept the catalog's own live files there, since its relative paths were resolved under the override
     * only. They name their files under the stored data path as well: the dry run lists only the stray, the run
     * deletes only it (exit 0), in the known set and the round's re-check alike; an override inside the stored data path
     * keeps the files the stored spelling names too.
     */
    @Test
    void anOverrideThatContainsTheStoredDataPathKeepsTheCatalogsOwnFiles() throws Exception {
        Path root = dir.resolve("trial-data");
        Path lake1 = root.resolve("lake1");
        FileCatalog cat = FileCatalog.create("dof_parent", lake1 + "/");
        cat.addTable(2, "t2/", true); // main/t2/, beside fixture table 1 at main/test/
        List<Path> live = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String n = ducklakeName();
            live.add(FileCatalog.file(lake1.resolve("main/test/" + n), OLD));
            cat.dataFile(1, n, true);
        }
        for (int i = 0; i < 2; i++) {
            String n = ducklakeName();
            live.add(FileCatalog.file(lake1.resolve("main/t2/" + n), OLD));
            cat.dataFile(2, n, true);
        }
        String dv = "ducklake-" + java.util.UUID.randomUUID() + "-delete.parquet";
        live.add(FileCatalog.file(lake1.resolve("main/test/" + dv), OLD));
        cat.deleteFile(1, dv, true);
        String queued = ducklakeName();
        live.add(FileCatalog.file(lake1.resolve("main/t2/" + queued), OLD));
        cat.queue("main/t2/" + queued, true, Duration.ofMinutes(1)); // a queued path is relative to the data path
        // strays in both table folders (not DuckLake-named: the unknown-table-folder brake, exit 17, does not fire)
        Path stray = FileCatalog.file(lake1.resolve("main/t2/leftover-part.parquet"), OLD);
        Path stray1 = FileCatalog.file(lake1.resolve("main/test/leftover-1.parquet"), OLD);
        // a second catalog under the swept directory, so the orphan-ratio brake judges the whole of it
        Path lake4 = root.resolve("lake4");
        FileCatalog other = FileCatalog.create("dof_parent4", "file://" + lake4 + "/");
        for (int i = 0; i < 12; i++) {
            String n = ducklakeName();
            live.add(FileCatalog.file(lake4.resolve("main/test/" + n), OLD));
            other.dataFile(1, n, true);
        }

        List<String> events = new ArrayList<>();
        DeleteOrphanFilesResult dry = run(cat, new LocalFileStore(), o -> o.toBuilder().dataPath(root + "/").build(), events);
        assertThat(events).as("the dry run lists the strays only")
                .containsExactlyInAnyOrder("would_delete " + stray, "would_delete " + stray1);
        assertThat(dry.keptKnown()).isEqualTo(live.size());

        // the re-check of a round, on its own: the catalog's rows name the live files under the stored data path
        try (Connection c = TestPostgres.get().connect()) {
            c.setAutoCommit(false);
            List<String> round = new ArrayList<>();
            for (Path p : live) {
                round.add(p.toString());
            }
            round.add(stray.toString());
            round.add(stray1.toString());
            for (String override : List.of(root.toString(), "file://" + root + "//")) {
                try (dev.ducklake.janitor.ops.files.ConsultedCatalogs consulted = dev.ducklake.janitor.ops.files.ConsultedCatalogs.find(
                        c, cat.schema, dev.ducklake.janitor.ops.files.CatalogFiles.resolver(c, cat.schema, override),
                        dev.ducklake.janitor.ops.files.ConsultOptions.defaults().withConsultServer(false),
                        new dev.ducklake.janitor.ops.runtime.RunRecorder(dev.ducklake.janitor.ops.runtime.ProgressListener.NONE))) {
                    assertThat(dev.ducklake.janitor.ops.files.CatalogRecheck.named(c, consulted, round)).as(override)
                            .containsExactlyInAnyOrderElementsOf(round.subList(0, live.size()));
                }
            }
        }

        CliRun exec = CliRun.run("delete-orphan-files", "--catalog", TestPostgres.get().url(), "--metadata-schema", cat.schema,
                "--data-path", root + "/", "--yes", "--verbose");
        assertThat(exec.exitCode()).as(exec.toString()).isZero();
        assertThat(exec.out()).contains("deleted\t" + stray).contains("deleted\t" + stray1)
                .doesNotContain("deleted\t" + lake1.resolve("main/test/ducklake-"), "deleted\t" + lake1.resolve("main/t2/ducklake-"));
        assertThat(Files.exists(stray)).isFalse();
        assertThat(Files.exists(stray1)).isFalse();
        for (Path p : live) {
            assertThat(Files.exists(p)).as(p.toString()).isTrue();
        }

        // the override inside the stored data path: relative paths resolve to lake1/main/main/..., yet name lake1/main/...
        Path stray2 = FileCatalog.file(lake1.resolve("main/test/leftover-2.parquet"), OLD);
        events.clear();
        DeleteOrphanFilesResult inside = run(cat, new LocalFileStore(), o -> o.toBuilder().dryRun(false).dataPath(lake1 + "/main").build(),
                events);
        assertThat(inside.deleted()).isEqualTo(1);
        assertThat(Files.exists(stray2)).isFalse();
        for (Path p : live) {
            assertThat(Files.exists(p)).as(p.toString()).isTrue();
        }
    }

    @Test
    void brakes() throws Exception {
        Path lake = dir.resolve("brakes");
        FileCatalog cat = FileCatalog.create("dof_brakes", lake + "/");
        FileCatalog.file(lake.resolve("main/test/k.parquet"), OLD);
        cat.dataFile(1, "k.parquet", true);
        FileCatalog.file(lake.resolve("main/test/s1.parquet"), OLD);
        FileCatalog.file(lake.resolve("main/test/s2.parquet"), OLD);
        assertThat(reason(() -> run(cat, new LocalFileStore(), o -> o.withDryRun(false), new ArrayList<>())))
                .as("2 of 3 files are candidates > 0.5").isEqualTo(Reason.BRAKE_ORPHAN_RATIO);
        assertThat(Files.exists(lake.resolve("main/test/s1.parquet"))).isTrue();

        Path elsewhere = dir.resolve("elsewhere");
        FileCatalog.file(elsewhere.resolve("main/test/a.parquet"), OLD);
        FileCatalog.file(elsewhere.resolve("main/test/b.txt"), OLD);
        FileCatalog.file(elsewhere.resolve("main/test/c.txt"), OLD);
        assertThat(reason(() -> run(cat, new LocalFileStore(), o -> o.toBuilder().dryRun(false).dataPath(elsewhere.toString()).build(),
                new ArrayList<>()))).as("wrong override: no known file there").isEqualTo(Reason.BRAKE_NO_KNOWN_FILES);
        assertThat(Files.exists(elsewhere.resolve("main/test/a.parquet"))).isTrue();

        assertThat(reason(() -> run(cat, new LocalFileStore(), o -> o.toBuilder().dryRun(false).dataPath("/").build(), new ArrayList<>())))
                .isEqualTo(Reason.BRAKE_ROOT_PATH);
        assertThat(reason(() -> run(cat, new LocalFileStore(), o -> o.toBuilder().dataPath("file:///").build(), new ArrayList<>())))
                .as("also in a dry run").isEqualTo(Reason.BRAKE_ROOT_PATH);
        cat.setOption("data_path", "");
        assertThat(reason(() -> run(cat, new LocalFileStore(), o -> o, new ArrayList<>()))).isEqualTo(Reason.BRAKE_ROOT_PATH);
        cat.setOption("data_path", lake.toString());

        DeleteOrphanFilesResult ok = run(cat, new LocalFileStore(), o -> o.toBuilder().dryRun(false).maxOrphanRatio(0.7).build(), new ArrayList<>());
        assertThat(ok.deleted()).isEqualTo(2);
    }

    @Test
    void unresolvableCatalogRowsStopTheDeletionAndFailuresAreReported() throws Exception {
        Path lake = dir.resolve("unres");
        FileCatalog cat = FileCatalog.create("dof_unres", lake + "/");
        knownFiles(cat, lake, 4);
        Path s1 = FileCatalog.file(lake.resolve("main/test/s1.parquet"), OLD);
        Path s2 = FileCatalog.file(lake.resolve("main/test/s2.parquet"), OLD);
        cat.dataFile(99, "lost.parquet", true); // table 99 has no ducklake_table row
        DeleteOrphanFilesResult r = run(cat, new LocalFileStore(), o -> o.withDryRun(false), new ArrayList<>());
        assertThat(r.unresolvedKnownRows()).isEqualTo(1);
        assertThat(r.hasFindings()).isTrue();
        assertThat(r.deleted()).isZero();
        assertThat(Files.exists(s1)).isTrue();

        try (Connection c = TestPostgres.get().connect()) {
            Catalogs.exec(c, "DELETE FROM " + Sql.qualified(cat.schema, "ducklake_data_file") + " WHERE table_id = 99");
        }
        FaultyStore faulty = new FaultyStore(new LocalFileStore(), a -> a.endsWith("s1.parquet"));
        r = run(cat, faulty, o -> o.withDryRun(false), new ArrayList<>());
        assertThat(r.deleted()).isEqualTo(1);
        assertThat(r.failed()).isEqualTo(1);
        assertThat(r.findings()).anyMatch(f -> f.contains("s1.parquet"));
        assertThat(Files.exists(s1)).isTrue();
        assertThat(Files.exists(s2)).isFalse();
        assertThat(OrphanSweep.ducklakeFileName("x.PARQUET", true)).as("DuckLake's suffix rule is case-sensitive").isFalse();
        assertThat(OrphanSweep.ducklakeFileName("x.puffin", false)).isFalse();
        assertThat(OrphanSweep.ducklakeFileName("x.puffin", true)).isTrue();
    }

    /**
     * Stop 39: a data path {@code file://HOST/lake/} of another host was read as {@code HOST/lake/} below the working
     * directory, which was listed and swept. It is no location on this machine: refused (exit 14), nothing deleted.
     */
    @Test
    void aDataPathOfAnotherHostIsRefused() throws Exception {
        Path lake = Path.of("target", "dof-host-" + System.nanoTime()).toAbsolutePath();
        String relative = Path.of("").toAbsolutePath().relativize(lake).toString();
        try {
            FileCatalog cat = FileCatalog.create("dof_host", "file://" + relative + "/");
            for (int i = 0; i < 4; i++) {
                FileCatalog.file(lake.resolve("main/test/k" + i + ".parquet"), Duration.ofDays(3));
                cat.dataFile(1, "k" + i + ".parquet", true);
            }
            Path orphan = FileCatalog.file(lake.resolve("main/test/o0.parquet"), Duration.ofDays(3));
            assertThatThrownBy(() -> run(cat, new LocalFileStore(), o -> o.withDryRun(false), new ArrayList<>()))
                    .isInstanceOfSatisfying(JanitorException.class, e -> {
                        assertThat(e.reason()).isEqualTo(JanitorException.Reason.BRAKE_ROOT_PATH);
                        assertThat(e.getMessage()).contains("another host").contains("--data-path");
                    });
            assertThat(orphan).as("nothing below the working directory is swept").exists();
        } finally {
            try (var w = Files.walk(lake)) {
                w.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
