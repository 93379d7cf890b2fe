package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.testsupport.FileCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Found by trial 40 (data lost): tenant B, a DuckLake catalog this run cannot see (a DuckDB-file catalog), keeps its
 * data path nested in tenant A's ({@code lakeA/tenantB/}); its table folder {@code lakeA/tenantB/main/t2/} holds
 * {@code ducklake-<uuid>.parquet} files older than the cutoff. The folder brake (exit 17) fired only when every file of
 * the folder had a DuckLake name, so one inventory entry for a file that does not exist ({@code _SUCCESS}), or one real
 * file added under another name ({@code ducklake_add_data_files} of {@code import_2024.parquet}), let B's files be
 * deleted. A DuckLake-named candidate in a folder no consulted catalog knows now stops the run whatever else the folder
 * holds; debris of a known table is still deleted.
 */
class UnknownTableFolderBrakeTest {


    static final Duration OLD = Duration.ofDays(3);

    @TempDir
    Path dir;

    static String ducklakeName() {
        return "ducklake-" + UUID.randomUUID() + ".parquet";
    }

    static DeleteOrphanFilesResult run(FileCatalog cat, UnaryOperator<DeleteOrphanFilesOptions> opts) throws Exception {
        return DeleteOrphanFilesLocalTest.run(cat, new LocalFileStore(), opts, new ArrayList<>());
    }

    static Reason reason(FileCatalog cat, UnaryOperator<DeleteOrphanFilesOptions> opts) throws Exception {
        try {
            run(cat, opts);
            return null;
        } catch (JanitorException e) {
            return e.reason();
        }
    }

    /** Tenant A: 10 known files in its table folder {@code main/test/}; returns the catalog. */
    private static FileCatalog tenantA(String name, Path lake) throws Exception {
        FileCatalog cat = FileCatalog.create(name, lake + "/");
        for (int i = 0; i < 10; i++) {
            String n = ducklakeName();
            FileCatalog.file(lake.resolve("main/test/" + n), OLD);
            cat.dataFile(1, n, true);
        }
        return cat;
    }

    /** Tenant B's table folder under A's data path: 3 old DuckLake data files. */
    private static List<Path> tenantB(Path lake) throws Exception {
        List<Path> out = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            out.add(FileCatalog.file(lake.resolve("tenantB/main/t2/" + ducklakeName()), OLD));
        }
        return out;
    }

    /** Every regular file under the lake, one line each as the inventory spells it: address, size, old time. */
    static List<String> inventoryOf(Path lake) throws Exception {
        String old = Instant.now().minus(OLD).toString();
        List<String> lines = new ArrayList<>();
        try (var s = Files.walk(lake)) {
            s.filter(Files::isRegularFile).forEach(p -> lines.add(p + "\t7\t" + old));
        }
        return lines;
    }

    static void assertAllExist(List<Path> files) {
        for (Path p : files) {
            assertThat(p).as("tenant B's file").exists();
        }
    }

    @Test
    void aPhantomInventoryEntryInAnUnknownTableFolderDoesNotDisableTheFolderBrake() throws Exception {
        Path lake = dir.resolve("lakeA");
        FileCatalog cat = tenantA("ueb_phantom", lake);
        List<Path> theirs = tenantB(lake);
        assertThat(reason(cat, o -> o)).as("a listing: brake 17").isEqualTo(Reason.BRAKE_UNKNOWN_TABLE_FOLDERS);

        List<String> lines = inventoryOf(lake);
        lines.add(lake.resolve("tenantB/main/t2/_SUCCESS") + "\t7\t" + Instant.now().minus(OLD)); // does not exist
        Path inv = dir.resolve("inv.tsv");
        Files.write(inv, lines);
        assertThat(reason(cat, o -> o.toBuilder().dryRun(false).inventory(inv).build()))
                .as("one entry for a file that does not exist must not lift the brake")
                .isEqualTo(Reason.BRAKE_UNKNOWN_TABLE_FOLDERS);
        assertAllExist(theirs);

        // the way out stays: named and logged
        DeleteOrphanFilesResult r = run(cat, o -> o.toBuilder().dryRun(false).inventory(inv).allowUnknownTableFolders(true).build());
        assertThat(r.deleted()).isEqualTo(3);
        assertThat(r.unknownTableFolders()).containsExactly("file://" + lake.resolve("tenantB/main/t2") + "/");
    }

    @Test
    void aFileOfAnotherNameInAnUnknownTableFolderDoesNotDisableTheFolderBrake() throws Exception {
        Path lake = dir.resolve("lakeA");
        FileCatalog cat = tenantA("ueb_import", lake);
        List<Path> theirs = new ArrayList<>(tenantB(lake));
        theirs.add(FileCatalog.file(lake.resolve("tenantB/main/t2/import_2024.parquet"), OLD)); // ducklake_add_data_files
        assertThat(reason(cat, o -> o.withDryRun(false)))
                .as("a DuckLake-named candidate in a folder no catalog knows stops the run, whatever else it holds")
                .isEqualTo(Reason.BRAKE_UNKNOWN_TABLE_FOLDERS);
        assertAllExist(theirs);
    }

    /**
     * Trial 41: tenant A imported one of B's files ({@code ducklake_add_data_files} with B's absolute path), so A's
     * catalog knew a file in B's table folder, and that one known file made the folder count as known: B's other live
     * files were deleted. A known file does not vouch for its folder; only a {@code ducklake_table} row does.
     */
    @Test
    void oneImportedFileDoesNotVouchForAForeignTableFolder() throws Exception {
        Path lake = dir.resolve("lakeI");
        FileCatalog cat = tenantA("ueb_vouch", lake);
        List<Path> theirs = tenantB(lake);
        cat.dataFile(1, theirs.get(0).toString(), false); // A reads one of B's files in place
        assertThat(reason(cat, o -> o.withDryRun(false)))
                .as("B's other DuckLake-named files are in a folder no ducklake_table row names")
                .isEqualTo(Reason.BRAKE_UNKNOWN_TABLE_FOLDERS);
        assertAllExist(theirs);
    }

    @Test
    void debrisOfAKnownTableIsStillDeletedWhateverElseItsFolderHolds() throws Exception {
        Path lake = dir.resolve("lakeK");
        FileCatalog cat = tenantA("ueb_debris", lake);
        Path debris = FileCatalog.file(lake.resolve("main/test/" + ducklakeName()), OLD);
        Path other = FileCatalog.file(lake.resolve("main/test/import_2024.parquet"), OLD);
        Path stray = FileCatalog.file(lake.resolve("main/test/x=1/" + ducklakeName()), OLD);
        DeleteOrphanFilesResult r = run(cat, o -> o.withDryRun(false));
        assertThat(r.deleted()).isEqualTo(3);
        assertThat(r.unknownTableFolders()).isEmpty();
        assertThat(debris).doesNotExist();
        assertThat(other).doesNotExist();
        assertThat(stray).doesNotExist();
    }
}
