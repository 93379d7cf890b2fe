package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunRecorder;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27: the set-based re-check of a delete round (one statement per database, the round's file names bound once,
 * the rows of the same name kept only when their path is one of an address's spellings) finds what a catalog row names
 * under every spelling the exact re-check matched, in the swept catalog, another tenant of its data path and a
 * catalog whose data path does not overlap, and a registration made between two rounds of one run.
 */
class CatalogRecheckTest {

    @TempDir
    Path dir;

    @Test
    void everySpellingOfEveryConsultedCatalogIsFoundRoundAfterRound() throws Exception {
        Path lake = dir.resolve("lake");
        Path elsewhere = dir.resolve("elsewhere");
        FileCatalog mine = FileCatalog.create("rc_mine", lake + "/");
        FileCatalog tenant = FileCatalog.create("rc_tenant", lake + "/");
        FileCatalog far = FileCatalog.create("rc_far", elsewhere + "/");
        String t = lake + "/main/test/"; // table 1 of fixture 0.4 lives at main/test/
        mine.dataFile(1, "a.parquet", true);
        tenant.deleteFile(1, "b.parquet", true);
        far.dataFile(1, t + "c.parquet", false); // absolute, in a catalog whose data path does not overlap
        mine.queue("main/test/d.parquet", true, Duration.ofDays(3));
        mine.dataFile(1, "p=1/e.parquet", true); // a hive partition folder: a longer tail than the name
        mine.dataFile(99, "f.parquet", true); // no table row: it may name the candidate, so it is kept
        mine.dataFile(1, "other/g.parquet", true); // the name of a candidate, another path: not the candidate
        mine.dataFile(1, "file://" + t + "i.parquet", false); // a URL spelling
        List<String> round = new ArrayList<>();
        for (String n : List.of("a", "b", "c", "d", "f", "g", "h", "i")) {
            round.add(t + n + ".parquet");
        }
        round.add(t + "p=1/e.parquet");

        try (Connection c = TestPostgres.get().connect()) {
            c.setAutoCommit(false);
            try (ConsultedCatalogs consulted = ConsultedCatalogs.find(c, mine.schema,
                    CatalogFiles.resolver(c, mine.schema, null), ConsultOptions.defaults().withConsultServer(false),
                    new RunRecorder(ProgressListener.NONE))) {
                assertThat(consulted.labels()).as("the tenant is consulted").contains(tenant.schema);
                assertThat(consulted.reachOnly()).as("the far catalog is read for what it reaches")
                        .anyMatch(x -> x.schema().equals(far.schema));
                CatalogRecheck recheck = CatalogRecheck.of(c, consulted);
                Set<String> live = recheck.named(round);
                assertThat(live).containsExactlyInAnyOrder(t + "a.parquet", t + "b.parquet", t + "c.parquet", t + "d.parquet",
                        t + "p=1/e.parquet", t + "f.parquet", t + "i.parquet");

                // registered between two rounds of the same run (its statement already built): the next round sees it
                tenant.dataFile(1, "h.parquet", true);
                assertThat(recheck.named(List.of(t + "h.parquet", t + "g.parquet"))).containsExactly(t + "h.parquet");
                assertThat(CatalogRecheck.named(c, consulted, List.of(t + "h.parquet", t + "g.parquet")))
                        .as("a re-check made for one round finds the same").containsExactly(t + "h.parquet");
            }
        }
    }

    /**
     * A swept data path that is a symbolic link: its listing spells every file under the link, and a row naming the
     * file by the real directory (another tenant, an absolute path of a far catalog) or through another link is found.
     */
    @Test
    void aSweptDataPathThatIsALinkFindsRowsNamingTheRealDirectoryOrAnotherLink() throws Exception {
        Path base = dir.toRealPath();
        Path lake = java.nio.file.Files.createDirectories(base.resolve("real-lake"));
        Path link = java.nio.file.Files.createSymbolicLink(base.resolve("lnk"), lake);
        Path link1 = java.nio.file.Files.createSymbolicLink(base.resolve("lnk1"), lake);
        FileCatalog mine = FileCatalog.create("rcl_mine", link + "/");
        FileCatalog real = FileCatalog.create("rcl_real", lake + "/");
        FileCatalog other = FileCatalog.create("rcl_link1", link1 + "/");
        FileCatalog far = FileCatalog.create("rcl_far", base.resolve("elsewhere") + "/");
        mine.dataFile(1, "a.parquet", true);
        real.dataFile(1, "b.parquet", true);
        real.dataFile(1, lake + "/main/test/c.parquet", false);
        other.deleteFile(1, "d.parquet", true);
        far.dataFile(1, lake + "/main/test/e.parquet", false);
        String t = link + "/main/test/";
        List<String> round = new ArrayList<>();
        for (String n : List.of("a", "b", "c", "d", "e", "g")) {
            round.add(t + n + ".parquet");
        }
        try (Connection c = TestPostgres.get().connect()) {
            c.setAutoCommit(false);
            try (ConsultedCatalogs consulted = ConsultedCatalogs.find(c, mine.schema,
                    CatalogFiles.resolver(c, mine.schema, null), ConsultOptions.defaults().withConsultServer(false),
                    new RunRecorder(ProgressListener.NONE))) {
                assertThat(consulted.labels()).contains(real.schema, other.schema);
                assertThat(consulted.sweptSpelling("file://" + lake + "/main/test/x.parquet")).isEqualTo("file://" + t + "x.parquet");
                assertThat(CatalogRecheck.named(c, consulted, round)).containsExactlyInAnyOrder(t + "a.parquet",
                        t + "b.parquet", t + "c.parquet", t + "d.parquet", t + "e.parquet");
            }
        }
    }
}
