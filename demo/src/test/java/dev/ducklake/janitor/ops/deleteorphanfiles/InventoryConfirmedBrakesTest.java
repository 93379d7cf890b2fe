package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.testsupport.FileCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static dev.ducklake.janitor.ops.deleteorphanfiles.UnknownTableFolderBrakeTest.OLD;
import static dev.ducklake.janitor.ops.deleteorphanfiles.UnknownTableFolderBrakeTest.assertAllExist;
import static dev.ducklake.janitor.ops.deleteorphanfiles.UnknownTableFolderBrakeTest.ducklakeName;
import static dev.ducklake.janitor.ops.deleteorphanfiles.UnknownTableFolderBrakeTest.inventoryOf;
import static dev.ducklake.janitor.ops.deleteorphanfiles.UnknownTableFolderBrakeTest.reason;
import static dev.ducklake.janitor.ops.deleteorphanfiles.UnknownTableFolderBrakeTest.run;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Found by trial 40: inventory entries that are not candidates are never checked against the store, yet they counted
 * in the orphan ratio's base, so 20 phantom {@code .json} entries turned 5 candidates of 7 files (exit 16) into 5 of 27
 * (deleted); and entries the catalog knows passed the no-known-file brake (15) whether or not the store held them.
 * Under an inventory the ratio's base is the candidates plus the known entries, and brake 15 needs a known entry the
 * store confirms with a stat.
 */
class InventoryConfirmedBrakesTest {


    @TempDir
    Path dir;

    /** A lake with 2 known files and 5 DuckLake-named orphans in the same folder: 5/7 is above the default ratio. */
    private static FileCatalog ratioLake(String name, Path lake) throws Exception {
        FileCatalog cat = FileCatalog.create(name, lake + "/");
        for (int i = 0; i < 2; i++) {
            String n = ducklakeName();
            FileCatalog.file(lake.resolve("main/test/" + n), OLD);
            cat.dataFile(1, n, true);
        }
        for (int i = 0; i < 5; i++) {
            FileCatalog.file(lake.resolve("main/test/" + ducklakeName()), OLD);
        }
        return cat;
    }

    @Test
    void phantomEntriesThatAreNotCandidatesDoNotDiluteTheOrphanRatio() throws Exception {
        Path lake = dir.resolve("lakeR");
        FileCatalog cat = ratioLake("ueb_ratio", lake);
        assertThat(reason(cat, o -> o)).as("a listing: 5 of 7").isEqualTo(Reason.BRAKE_ORPHAN_RATIO);

        List<String> lines = inventoryOf(lake);
        for (int i = 1; i <= 20; i++) {
            lines.add(lake.resolve("main/test/phantom" + i + ".json") + "\t7\t" + Instant.now().minus(OLD));
        }
        Path inv = dir.resolve("inv-ratio.tsv");
        Files.write(inv, lines);
        assertThat(reason(cat, o -> o.toBuilder().inventory(inv).build()))
                .as("20 entries no one checked must not turn 5/7 into 5/27").isEqualTo(Reason.BRAKE_ORPHAN_RATIO);
        assertThat(reason(cat, o -> o.toBuilder().dryRun(false).inventory(inv).build())).isEqualTo(Reason.BRAKE_ORPHAN_RATIO);
        try (var s = Files.list(lake.resolve("main/test"))) {
            assertThat(s.count()).as("nothing deleted").isEqualTo(7);
        }
        DeleteOrphanFilesResult r = run(cat, o -> o.toBuilder().dryRun(false).inventory(inv).maxOrphanRatio(0.8).build());
        assertThat(r.deleted()).as("5/7 is under 0.8: the candidates and the known entries are what counts").isEqualTo(5);
    }

    @Test
    void knownEntriesTheStoreDoesNotHoldDoNotPassTheNoKnownFileBrake() throws Exception {
        Path lake = dir.resolve("lakeN");
        FileCatalog cat = FileCatalog.create("ueb_noknown", lake + "/");
        String old = Instant.now().minus(OLD).toString();
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            // the catalog names these files, the inventory lists them, the store does not hold them
            String n = ducklakeName();
            cat.dataFile(1, n, true);
            lines.add(lake.resolve("main/test/" + n) + "\t7\t" + old);
        }
        List<Path> orphans = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Path p = FileCatalog.file(lake.resolve("main/test/" + ducklakeName()), OLD);
            orphans.add(p);
            lines.add(p + "\t7\t" + old);
        }
        assertThat(reason(cat, o -> o.withDryRun(false))).as("a listing: none of the listed files is known")
                .isEqualTo(Reason.BRAKE_NO_KNOWN_FILES);
        Path inv = dir.resolve("inv-noknown.tsv");
        Files.write(inv, lines);
        assertThat(reason(cat, o -> o.toBuilder().dryRun(false).inventory(inv).build()))
                .as("the inventory's known entries are not in the store: no known file is confirmed")
                .isEqualTo(Reason.BRAKE_NO_KNOWN_FILES);
        assertAllExist(orphans);

        // one known file the store does hold is enough (it sorts first: the stats look at the first known entries)
        String n = "ducklake-00000000-0000-4000-8000-000000000000.parquet";
        cat.dataFile(1, n, true);
        Files.write(inv, List.of(FileCatalog.file(lake.resolve("main/test/" + n), OLD) + "\t7\t" + old),
                java.nio.file.StandardOpenOption.APPEND);
        DeleteOrphanFilesResult r = run(cat, o -> o.toBuilder().dryRun(false).inventory(inv).build());
        assertThat(r.deleted()).isEqualTo(3);
    }
}
