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
 * The re-trial of 2026-12-06 (data lost before the fix): another catalog names a file of the swept directory by an
 * absolute path through a symbolic link ({@code /lakes-link/lake1/main/test/f.parquet}, as {@code
 * ducklake_add_data_files} registers it). Its spelling compared unequal to the listing's, so delete-orphan-files took
 * the file for an orphan and cleanup-old-files deleted it as a queued file no live row names. Both now know the file
 * by its real folder too ({@link RealSpellings}: the known set and the re-check before each delete).
 */
class LinkedRowsTest {

    private static final Duration OLD = Duration.ofDays(3);

    @TempDir
    Path dir;

    @Test
    void aFileAnotherCatalogNamesThroughALinkIsNeitherAnOrphanNorDeletedFromTheQueue() throws Exception {
        Path data = dir.resolve("data");
        Path link = Files.createSymbolicLink(dir.resolve("lakes-link"), Files.createDirectories(data));
        Path lake = data.resolve("lake1");
        FileCatalog swept = FileCatalog.create("lnk_swept", lake + "/");
        FileCatalog other = FileCatalog.create("lnk_other", data.resolve("other") + "/");
        for (int i = 0; i < 10; i++) {
            FileCatalog.file(lake.resolve("main/test/k" + i + ".parquet"), OLD);
            swept.dataFile(1, "k" + i + ".parquet", true);
        }
        Path shared = FileCatalog.file(lake.resolve("main/test/shared-by-link.parquet"), OLD);
        other.dataFile(1, link.resolve("lake1/main/test/shared-by-link.parquet").toString(), false);
        Path orphan = FileCatalog.file(lake.resolve("main/test/orphan.parquet"), OLD);

        DeleteOrphanFilesResult r;
        try (Connection c = TestPostgres.get().connect()) {
            r = OrphanSweep.run(c, new LocalFileStore(lake), DeleteOrphanFilesOptions.defaults(swept.schema).withDryRun(false),
                    FileListener.NONE);
        }
        assertThat(shared).as("named by the other catalog through the link").exists();
        assertThat(orphan).doesNotExist();
        assertThat(r.deleted()).isEqualTo(1);

        Path queued = FileCatalog.file(lake.resolve("main/test/queued-by-link.parquet"), OLD);
        other.dataFile(1, link.resolve("lake1/main/test/queued-by-link.parquet").toString(), false);
        swept.queue("main/test/queued-by-link.parquet", true, OLD);
        CleanupOldFilesResult cr;
        try (Connection c = TestPostgres.get().connect()) {
            cr = QueueSweep.run(c, new LocalFileStore(lake), CleanupOldFilesOptions.defaults(swept.schema).withDryRun(false),
                    FileListener.NONE);
        }
        assertThat(queued).as("a live row of the other catalog names it through the link").exists();
        assertThat(cr.keptLive()).isEqualTo(1);
        assertThat(swept.queueRows()).isEqualTo(1);
    }
}
