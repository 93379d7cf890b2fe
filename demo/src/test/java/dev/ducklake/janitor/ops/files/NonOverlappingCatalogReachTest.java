package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.ops.cleanupoldfiles.QueueSweep;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.ops.deleteorphanfiles.OrphanSweep;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesOptions;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesResult;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Found while reviewing issue 21: a readable catalog whose data path does not overlap the swept one was not read at
 * all, yet DuckLake lets it reference files anywhere (an absolute path, as {@code ducklake_add_data_files} registers,
 * or a relative one climbing out through {@code ..}). Such a file under the swept data path was an orphan candidate,
 * and a queued file it still reads was deleted by cleanup-old-files. Every readable catalog is now read; of one whose
 * data path does not overlap, only the paths that resolve under the swept location are kept.
 */
class NonOverlappingCatalogReachTest {

    private static final Duration OLD = Duration.ofDays(3);

    @TempDir
    Path dir;

    @Test
    void filesAnotherCatalogReachesByAbsoluteOrClimbingPathsAreKnown() throws Exception {
        Path lake = dir.resolve("lake");
        Path elsewhere = dir.resolve("elsewhere");
        FileCatalog mine = FileCatalog.create("reach_mine", lake + "/");
        FileCatalog other = FileCatalog.create("reach_other", elsewhere + "/");
        for (int i = 0; i < 4; i++) {
            FileCatalog.file(lake.resolve("main/test/k" + i + ".parquet"), OLD);
            mine.dataFile(1, "k" + i + ".parquet", true);
        }
        Path stray = FileCatalog.file(lake.resolve("main/test/stray.parquet"), OLD);
        Path added = FileCatalog.file(lake.resolve("main/test/added.parquet"), OLD);
        other.dataFile(1, added.toString(), false); // registered by absolute path, as ducklake_add_data_files does
        Path climbed = FileCatalog.file(lake.resolve("main/test/climbed.parquet"), OLD);
        other.dataFile(1, "../../../lake/main/test/climbed.parquet", true); // elsewhere/main/test/ + ../../../lake/...
        Path theirs = FileCatalog.file(elsewhere.resolve("main/test/theirs.parquet"), OLD);
        other.dataFile(1, "theirs.parquet", true);

        DeleteOrphanFilesResult r;
        try (Connection c = TestPostgres.get().connect()) {
            r = OrphanSweep.run(c, new LocalFileStore(), DeleteOrphanFilesOptions.builder(mine.schema).dryRun(false)
                    .maxOrphanRatio(0.9).consult(ConsultOptions.defaults().withConsultServer(false)).build(), FileListener.NONE);
        }
        assertThat(r.deleted()).as("only the stray").isEqualTo(1);
        assertThat(Files.exists(stray)).isFalse();
        assertThat(Files.exists(added)).as("another catalog reads it").isTrue();
        assertThat(Files.exists(climbed)).as("another catalog reads it").isTrue();
        assertThat(Files.exists(theirs)).isTrue();
        assertThat(r.catalogsConsulted()).as("the overlapping catalogs; the other is read for reaching paths only")
                .containsExactly(mine.schema);

        // cleanup-old-files: a queued file of mine that the other catalog still reads stays, with its row
        mine.queue("main/test/added.parquet", true, OLD);
        CleanupOldFilesResult cr;
        try (Connection c = TestPostgres.get().connect()) {
            cr = QueueSweep.run(c, new LocalFileStore(), CleanupOldFilesOptions.builder(mine.schema).dryRun(false)
                    .olderThan(AgeThreshold.parse("1d")).consult(ConsultOptions.defaults().withConsultServer(false)).build(),
                    FileListener.NONE);
        }
        assertThat(cr.keptLive()).isEqualTo(1);
        assertThat(cr.filesDeleted()).isZero();
        assertThat(Files.exists(added)).isTrue();
        assertThat(mine.queueRows()).isEqualTo(1);
    }
}
