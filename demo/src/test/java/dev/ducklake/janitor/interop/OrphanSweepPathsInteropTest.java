package dev.ducklake.janitor.interop;

import dev.ducklake.janitor.ops.cleanupoldfiles.QueueSweep;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.ops.deleteorphanfiles.OrphanSweep;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesOptions;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesResult;
import dev.ducklake.janitor.ops.files.AgeThreshold;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.ForwardingStore;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.storage.StorageLocation;
import dev.ducklake.janitor.storage.StoredObject;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.FileCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 28 items 1 and 2 against real DuckLake 1.5.5: a file registered with {@code ducklake_add_data_files} while the
 * sweep lists, and a file DuckLake stores with an absolute path swept through {@code --data-path}.
 */
class OrphanSweepPathsInteropTest {

    private static final Duration OLD = Duration.ofDays(3);

    private InteropCatalog lake;

    @AfterEach
    void cleanup() {
        if (lake != null) {
            lake.deleteDataDir();
        }
    }

    /** A local store whose listing calls a hook once, when it reaches the first address the hook wants. */
    static final class HookedStore extends ForwardingStore {
        private final String trigger;
        private final Runnable hook;
        private final AtomicBoolean fired = new AtomicBoolean();

        HookedStore(String trigger, Runnable hook) {
            super(new LocalFileStore());
            this.trigger = trigger;
            this.hook = hook;
        }

        @Override
        public Listing list(StorageLocation prefix) throws StorageException {
            Listing l = inner.list(prefix);
            return new Listing() {
                @Override
                public boolean hasNext() {
                    return l.hasNext();
                }

                @Override
                public StoredObject next() {
                    StoredObject o = l.next();
                    if (o.address().contains(trigger) && fired.compareAndSet(false, true)) {
                        hook.run();
                    }
                    return o;
                }

                @Override
                public void close() {
                    l.close();
                }
            };
        }
    }

    private static void age(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s.filter(Files::isRegularFile)::iterator) {
                Files.setLastModifiedTime(p, FileTime.from(Instant.now().minus(OLD)));
            }
        }
    }

    /**
     * 2,500 old junk files are listed after an old staged file; when the listing reaches the first junk file (the
     * staged file is already a candidate), real DuckLake registers the staged file and commits. The sweep deletes the
     * junk, keeps the staged file (the re-check before each delete batch sees it), and DuckLake reads the table.
     */
    @Test
    void aFileRegisteredWhileTheSweepListsIsNotDeleted() throws Exception {
        lake = InteropCatalog.fresh("dof_race");
        Path staged = lake.dataDir().resolve("main/t/staged.parquet");
        lake.run(RealDuckLake.program().attach(lake.attach().inliningRowLimit(0))
                .sql("CREATE TABLE lake.t(id INTEGER)", "INSERT INTO lake.t VALUES (1), (2)",
                        "COPY (SELECT 41::INTEGER AS id UNION ALL SELECT 42) TO '" + staged + "' (FORMAT parquet)"));
        for (int i = 0; i < 2500; i++) {
            FileCatalog.file(lake.dataDir().resolve("main/t/zz_junk/j" + i + ".parquet"), OLD);
        }
        age(lake.dataDir());
        AtomicReference<RealDuckLake.Result> added = new AtomicReference<>();
        HookedStore store = new HookedStore("zz_junk/", () -> added.set(lake.run(RealDuckLake.program()
                .attach(lake.attach()).sql("CALL ducklake_add_data_files('lake', 't', '" + staged + "')"))));

        DeleteOrphanFilesResult r;
        try (Connection c = lake.connect()) {
            r = OrphanSweep.run(c, store, DeleteOrphanFilesOptions.builder(lake.schema())
                    .olderThan(AgeThreshold.parse("2d")).maxOrphanRatio(1.0).dryRun(false).build(), FileListener.NONE);
        }
        assertThat(added.get()).as("DuckLake committed the registration during the listing").isNotNull();
        assertThat(r.candidates()).as("the staged file was unknown when the known set was read").isEqualTo(2501);
        assertThat(r.keptRegisteredDuringRun()).isEqualTo(1);
        assertThat(r.deleted()).isEqualTo(2500);
        assertThat(Files.exists(staged)).as("the newly registered file").isTrue();
        RealDuckLake.Result read = lake.run(RealDuckLake.program().attach(lake.attach())
                .query("t", "SELECT id FROM lake.t ORDER BY id"));
        assertThat(read.rows("t")).containsExactly(List.of("1"), List.of("2"), List.of("41"), List.of("42"));
    }

    /**
     * DuckLake stores a file added from inside the data path but outside the table folder with its absolute path.
     * With {@code --data-path} naming the same lake under another mount path, that file is known under the override
     * too (the sweep keeps it) and its queued absolute path is deleted at the override location (cleanup).
     */
    @Test
    void absolutePathsUnderTheStoredDataPathAreRebasedOntoTheOverride() throws Exception {
        lake = InteropCatalog.fresh("dof_rebase");
        Path imported = lake.dataDir().resolve("imports/a.parquet");
        Path gone = lake.dataDir().resolve("imports/b.parquet");
        Files.createDirectories(imported.getParent());
        lake.run(RealDuckLake.program().attach(lake.attach().inliningRowLimit(0))
                .sql("CREATE TABLE lake.t(id INTEGER)", "INSERT INTO lake.t VALUES (1)",
                        "COPY (SELECT 7::INTEGER AS id) TO '" + imported + "' (FORMAT parquet)",
                        "COPY (SELECT 8::INTEGER AS id) TO '" + gone + "' (FORMAT parquet)",
                        "CALL ducklake_add_data_files('lake', 't', '" + imported + "')",
                        "CALL ducklake_add_data_files('lake', 't', '" + gone + "')",
                        "DELETE FROM lake.t WHERE id = 8",
                        "CALL ducklake_expire_snapshots('lake', older_than => now())"));
        String q = Sql.qualified(lake.schema(), "ducklake_data_file");
        try (Connection c = lake.connect()) {
            assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + q + " WHERE NOT path_is_relative AND path = '"
                    + imported + "'")).as("DuckLake stores it absolute").isEqualTo(1);
            Catalogs.exec(c, "UPDATE " + Sql.qualified(lake.schema(), "ducklake_files_scheduled_for_deletion")
                    + " SET schedule_start = schedule_start - interval '3 days'");
            // DuckLake 1.5.5 queues it relative to the data path ('imports/b.parquet'); a queue row with an absolute
            // path under the data path (written by hand, by another tool, or before a data path move) must also be
            // found at the override location
            assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + Sql.qualified(lake.schema(),
                    "ducklake_files_scheduled_for_deletion") + " WHERE path = 'imports/b.parquet'")).isEqualTo(1);
            Catalogs.exec(c, "UPDATE " + Sql.qualified(lake.schema(), "ducklake_files_scheduled_for_deletion")
                    + " SET path = '" + gone + "', path_is_relative = false");
        }
        FileCatalog.file(lake.dataDir().resolve("main/t/stray.parquet"), OLD);
        age(lake.dataDir());
        // the same lake mounted under another path where the janitor runs
        Path mount = Files.createTempDirectory("ducklake-mount-");
        Path other = mount.resolve("lake");
        Files.move(lake.dataDir(), other);
        try (Connection c = lake.connect()) {
            DeleteOrphanFilesResult r = OrphanSweep.run(c, new LocalFileStore(), DeleteOrphanFilesOptions
                    .defaults(lake.schema()).toBuilder().dataPath(other.toString()).olderThan(AgeThreshold.parse("2d"))
                    .maxOrphanRatio(1.0).dryRun(false).build(), FileListener.NONE);
            assertThat(r.deleted()).as("the stray file only").isEqualTo(1);
            CleanupOldFilesResult cr = QueueSweep.run(c, new LocalFileStore(), CleanupOldFilesOptions
                    .defaults(lake.schema()).toBuilder().dataPath(other + "/").olderThan(AgeThreshold.parse("2d"))
                    .dryRun(false).build(), FileListener.NONE);
            assertThat(cr.filesNotFound()).as("found at the override location").isZero();
            assertThat(cr.queueRowsDeleted()).isEqualTo(1);
        } finally {
            Files.move(other, lake.dataDir());
            Files.delete(mount);
        }
        assertThat(Files.exists(imported)).as("live, stored absolute").isTrue();
        assertThat(Files.exists(gone)).as("queued absolute path deleted at the override location").isFalse();
        assertThat(Files.exists(lake.dataDir().resolve("main/t/stray.parquet"))).isFalse();
        RealDuckLake.Result read = lake.run(RealDuckLake.program().attach(lake.attach())
                .query("t", "SELECT id FROM lake.t ORDER BY id"));
        assertThat(read.rows("t")).containsExactly(List.of("1"), List.of("7"));
    }
}
