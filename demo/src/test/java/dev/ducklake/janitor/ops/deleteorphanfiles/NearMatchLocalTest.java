package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.files.AgeThreshold;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 21 item 4 on local storage: an orphan candidate whose path equals a known file's except for scheme or authority
 * stops delete-orphan-files (exit 18), in dry runs too, naming both spellings; nothing is deleted.
 */
class NearMatchLocalTest {

    private static final Duration OLD = Duration.ofDays(3);

    @TempDir
    Path dir;

    private static String name() {
        return "ducklake-" + UUID.randomUUID() + ".parquet";
    }

    private static DeleteOrphanFilesOptions opts(FileCatalog cat) {
        return DeleteOrphanFilesOptions.builder(cat.schema).olderThan(AgeThreshold.parse("1d")).build();
    }

    private static JanitorException refusal(FileCatalog cat, boolean dryRun) {
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> {
            try (Connection c = TestPostgres.get().connect()) {
                OrphanSweep.run(c, new LocalFileStore(), opts(cat).withDryRun(dryRun), FileListener.NONE);
            }
        });
        assertThat(t).as("the sweep must refuse").isInstanceOf(JanitorException.class);
        return (JanitorException) t;
    }

    private static void known(FileCatalog cat, Path lake, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            FileCatalog.file(lake.resolve("main/test/k" + i + ".parquet"), OLD);
            cat.dataFile(1, "k" + i + ".parquet", true);
        }
    }

    /** The swept catalog names one of its files through another scheme and authority (gs://mirror + the local path). */
    @Test
    void aRowOfTheSweptCatalogUnderAnotherSchemeStopsTheRun() throws Exception {
        Path lake = dir.resolve("nm");
        FileCatalog cat = FileCatalog.create("nm_own", lake + "/");
        known(cat, lake, 6);
        String n = name();
        Path twin = FileCatalog.file(lake.resolve("main/test/" + n), OLD);
        String other = "gs://mirror" + lake + "/main/test/" + n;
        cat.dataFile(1, other, false);
        Path stray = FileCatalog.file(lake.resolve("main/test/stray.parquet"), OLD);

        for (boolean dry : List.of(true, false)) {
            JanitorException e = refusal(cat, dry);
            assertThat(e.reason()).as(e.getMessage()).isEqualTo(Reason.BRAKE_NEAR_MATCH);
            assertThat(e.reason().exitCode()).isEqualTo(18);
            assertThat(e.getMessage()).as("both spellings and the count").contains(twin.toString()).contains(other)
                    .startsWith("1 orphan candidate(s)").contains("Nothing was deleted");
        }
        assertThat(Files.exists(twin)).isTrue();
        assertThat(Files.exists(stray)).as("nothing at all is deleted when the brake fires").isTrue();

        // the CLI: the dry run reports the refusal with exit 18
        CliRun r = CliRun.run("delete-orphan-files", "--catalog", TestPostgres.get().url(), "--metadata-schema", cat.schema,
                "--older-than", "1d", "--dry-run", "--no-consult-server");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(18);
        assertThat(r.err()).contains(other).contains(twin.toString());
        assertThat(Files.exists(twin)).isTrue();

        // once the row names the file as the store lists it, the stray alone goes
        try (Connection c = TestPostgres.get().connect()) {
            dev.ducklake.janitor.testsupport.Catalogs.exec(c, "UPDATE " + dev.ducklake.janitor.pg.Sql.qualified(cat.schema,
                    "ducklake_data_file") + " SET path = '" + twin + "' WHERE path = '" + other + "'");
            DeleteOrphanFilesResult ok = OrphanSweep.run(c, new LocalFileStore(), opts(cat).withDryRun(false),
                    FileListener.NONE);
            assertThat(ok.deleted()).isEqualTo(1);
        }
        assertThat(Files.exists(stray)).isFalse();
        assertThat(Files.exists(twin)).isTrue();
    }

    /**
     * Another catalog of the database whose data path is the same directory spelled as an S3 mirror of it does not
     * overlap in canonical form, so only its files that resolve under the swept location used to be read: its files
     * listed here were orphan candidates and deleted. They are near matches now.
     */
    @Test
    void aCatalogOfTheSameFilesUnderAnotherSchemeIsNotSweptAsOrphans() throws Exception {
        Path lake = dir.resolve("mirror");
        FileCatalog a = FileCatalog.create("nm_a", lake + "/");
        FileCatalog b = FileCatalog.create("nm_b", "s3://lake-mirror" + lake + "/");
        known(a, lake, 6);
        String n1 = name();
        String n2 = name();
        Path f1 = FileCatalog.file(lake.resolve("main/test/" + n1), OLD);
        Path f2 = FileCatalog.file(lake.resolve("main/test/" + n2), OLD);
        b.dataFile(1, n1, true);
        b.deleteFile(1, n2, true);

        JanitorException e = refusal(a, false);
        assertThat(e.reason()).as(e.getMessage()).isEqualTo(Reason.BRAKE_NEAR_MATCH);
        assertThat(e.getMessage()).startsWith("2 orphan candidate(s)")
                .contains("s3://lake-mirror" + lake + "/main/test/" + n1).contains(f1.toString());
        assertThat(Files.exists(f1)).isTrue();
        assertThat(Files.exists(f2)).isTrue();
    }
}
