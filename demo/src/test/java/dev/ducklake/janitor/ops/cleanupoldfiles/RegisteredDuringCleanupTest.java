package dev.ducklake.janitor.ops.cleanupoldfiles;

import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.DeleteOutcome;
import dev.ducklake.janitor.storage.ForwardingStore;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The trial of 2026-12-06 (stop 38, data lost before the fix): cleanup-old-files read the other catalogs once, at its
 * start; another catalog that registered a queued file during the run (its own {@code ducklake_add_data_files} of
 * that absolute path) saw its live file deleted. Before each batch's deletes the run now looks at the consulted
 * catalogs' newest snapshots and, when one committed, re-checks the batch's files against their data and delete files.
 */
class RegisteredDuringCleanupTest {

    private static final Duration OLD = Duration.ofDays(10);

    @TempDir
    Path dir;

    @Test
    void aFileAnotherCatalogRegistersDuringTheRunIsKept() throws Exception {
        Path lake = dir.resolve("lake");
        FileCatalog mine = FileCatalog.create("regrun_mine", lake + "/");
        FileCatalog other = FileCatalog.create("regrun_other", dir.resolve("other") + "/");
        Path filler = FileCatalog.file(lake.resolve("main/test/a.parquet"), OLD);
        Path middle = FileCatalog.file(lake.resolve("main/test/m.parquet"), OLD);
        Path plain = FileCatalog.file(lake.resolve("main/test/p.parquet"), OLD);
        Path victim = FileCatalog.file(lake.resolve("main/test/z.parquet"), OLD);
        mine.queue("main/test/a.parquet", true, OLD);
        mine.queue("main/test/m.parquet", true, OLD);
        mine.queue("main/test/p.parquet", true, OLD);
        mine.queue("main/test/z.parquet", true, OLD);

        // the first batch's delete is where the other catalog commits: its file row and its snapshot, as DuckLake does
        AtomicBoolean registered = new AtomicBoolean();
        ForwardingStore store = new ForwardingStore(new LocalFileStore(lake)) {
            @Override
            public DeleteOutcome delete(List<String> addresses) throws StorageException {
                return delete(addresses, false);
            }

            @Override
            public DeleteOutcome delete(List<String> addresses, boolean measure) throws StorageException {
                if (registered.compareAndSet(false, true)) {
                    try (Connection c = TestPostgres.get().connect()) {
                        // two files, of the next batch and of a later one (the re-trial: only the next was re-checked)
                        other.dataFile(1, middle.toString(), false);
                        other.dataFile(1, victim.toString(), false);
                        Catalogs.exec(c, "INSERT INTO " + Sql.qualified(other.schema, "ducklake_snapshot")
                                + " SELECT snapshot_id + 1, now(), schema_version, next_catalog_id, next_file_id FROM "
                                + Sql.qualified(other.schema, "ducklake_snapshot") + " ORDER BY snapshot_id DESC LIMIT 1");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
                return inner.delete(addresses, measure);
            }
        };
        List<String> events = new ArrayList<>();
        CleanupOldFilesResult r = CleanupOldFilesLocalTest.run(mine, store, o -> o.toBuilder().dryRun(false).batchSize(1)
                .deleteConcurrency(1).build(), events);

        assertThat(registered).isTrue();
        assertThat(filler).doesNotExist();
        assertThat(plain).as("not registered: deleted").doesNotExist();
        assertThat(middle).as("registered by the other catalog during the run: live\n%s", events).exists();
        assertThat(victim).as("registered then, checked batches later: live\n%s", events).exists();
        assertThat(r.filesDeleted()).isEqualTo(2);
        assertThat(r.keptLive()).isEqualTo(2);
        assertThat(r.findings()).anySatisfy(f -> assertThat(f).contains("registered in a catalog during the run")
                .contains("z.parquet"));
        assertThat(mine.queueRows()).as("the kept files' rows stay").isEqualTo(2);
        assertThat(Files.exists(victim)).isTrue();
    }

    /**
     * The trial of 2026-12-06 (stop 39, data lost before the fix): a catalog created during the run (a new
     * METADATA_SCHEMA in the same database) that registers queued files was in neither the known set nor the re-check,
     * and its files were deleted. The run now stops before the next batch's deletes, keeping the rest for the next run.
     */
    @Test
    void aCatalogCreatedDuringTheRunStopsItBeforeTheNextDeletes() throws Exception {
        Path lake = dir.resolve("lake");
        FileCatalog mine = FileCatalog.create("newcat_mine", lake + "/");
        List<Path> files = new ArrayList<>();
        for (String n : List.of("a", "b", "c", "d")) {
            files.add(FileCatalog.file(lake.resolve("main/test/" + n + ".parquet"), OLD));
            mine.queue("main/test/" + n + ".parquet", true, OLD);
        }
        AtomicBoolean created = new AtomicBoolean();
        ForwardingStore store = new ForwardingStore(new LocalFileStore(lake)) {
            @Override
            public DeleteOutcome delete(List<String> addresses) throws StorageException {
                return delete(addresses, false);
            }

            @Override
            public DeleteOutcome delete(List<String> addresses, boolean measure) throws StorageException {
                if (created.compareAndSet(false, true)) {
                    try {
                        // a new tenant's catalog, elsewhere, registering the files of later batches by absolute path
                        FileCatalog fresh = FileCatalog.create("newcat_fresh", dir.resolve("fresh") + "/");
                        for (Path f : files.subList(1, 4)) {
                            fresh.dataFile(1, f.toString(), false);
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
                return inner.delete(addresses, measure);
            }
        };
        List<String> events = new ArrayList<>();
        CleanupOldFilesResult r = CleanupOldFilesLocalTest.run(mine, store, o -> o.toBuilder().dryRun(false).batchSize(1)
                .deleteConcurrency(1).build(), events);

        assertThat(created).isTrue();
        assertThat(files.get(0)).as("the first batch's file, deleted before the catalog appeared").doesNotExist();
        for (Path f : files.subList(1, 4)) {
            assertThat(f).as("registered by a catalog created during the run\n%s", events).exists();
        }
        assertThat(r.filesDeleted()).isEqualTo(1);
        assertThat(r.stoppedDuring()).isEqualTo("deleting");
        assertThat(r.findings()).anySatisfy(f -> assertThat(f).contains("appeared during the run").contains("newcat_fresh"));
        assertThat(mine.queueRows()).as("the rows of the files not deleted stay").isEqualTo(3);
    }
}
