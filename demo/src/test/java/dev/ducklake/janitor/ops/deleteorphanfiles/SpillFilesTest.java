package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.JanitorProcess;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 28 item 17: a SIGKILLed delete-orphan-files left its candidate spill file ({@code ducklake-janitor-orphans*.bin})
 * in the temporary directory for good. Spill files are now named per run (host, pid, process start) and a run removes
 * those of earlier runs that are gone, and nothing else.
 */
class SpillFilesTest {

    @TempDir
    Path tmp;

    private static long deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        return p.pid();
    }

    private Path touch(String name, Duration age) throws Exception {
        Path p = Files.writeString(tmp.resolve(name), "x");
        Files.setLastModifiedTime(p, FileTime.from(Instant.now().minus(age)));
        return p;
    }

    @Test
    void removesOnlyTheSpillFilesOfRunsThatAreGone() throws Exception {
        ProcessHandle me = ProcessHandle.current();
        Instant myStart = me.info().startInstant().orElseThrow();
        SpillFiles spills = new SpillFiles(tmp, "host-a", me.pid(), myStart, SpillFiles.LIVE);
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        try {
            long sleeperStart = sleeper.toHandle().info().startInstant().orElseThrow().toEpochMilli();
            long dead = deadPid();
            Path mine = spills.create();
            Path ofDead = touch("ducklake-janitor-spill_host-a_" + dead + "_" + (sleeperStart - 5000) + "_1.bin", Duration.ZERO);
            Path ofLive = touch("ducklake-janitor-spill_host-a_" + sleeper.pid() + "_" + sleeperStart + "_2.bin", Duration.ofDays(30));
            Path pidReused = touch("ducklake-janitor-spill_host-a_" + sleeper.pid() + "_" + (sleeperStart - 3_600_000) + "_3.bin",
                    Duration.ZERO);
            Path otherHostYoung = touch("ducklake-janitor-spill_host-b_" + dead + "_1_4.bin", Duration.ofDays(6));
            Path otherHostOld = touch("ducklake-janitor-spill_host-b_" + dead + "_1_5.bin", Duration.ofDays(8));
            Path oldNameYoung = touch("ducklake-janitor-orphans123.bin", Duration.ofDays(1));
            Path oldNameOld = touch("ducklake-janitor-orphans456.bin", Duration.ofDays(8));
            Path notOurs = touch("ducklake-janitor-other.bin", Duration.ofDays(30));
            Path notOursEither = touch("ducklake-janitor-spill_host-a_x_1_6.bin", Duration.ofDays(30));
            Path unrelated = touch("janitor-out123.txt", Duration.ofDays(30));

            List<String> log = new ArrayList<>();
            List<Path> removed = spills.removeStale(log::add);

            assertThat(removed).as("exactly the files of runs certainly gone")
                    .containsExactlyInAnyOrder(ofDead, pidReused, otherHostOld, oldNameOld);
            for (Path kept : List.of(mine, ofLive, otherHostYoung, oldNameYoung, notOurs, notOursEither, unrelated)) {
                assertThat(kept).as("kept: %s", kept.getFileName()).exists();
            }
            for (Path gone : removed) {
                assertThat(gone).doesNotExist();
            }
            assertThat(log).as("one line per file removed, naming it and why").hasSize(4)
                    .anyMatch(l -> l.contains(ofDead.toString()) && l.contains("process " + dead + " is gone"))
                    .anyMatch(l -> l.contains(pidReused.toString()) && l.contains("now belongs to a process started at"))
                    .anyMatch(l -> l.contains(oldNameOld.toString()) && l.contains("more than 7 days ago"));
            assertThat(mine.getFileName().toString()).as("this run's name")
                    .startsWith("ducklake-janitor-spill_host-a_" + me.pid() + "_" + myStart.toEpochMilli() + "_").endsWith(".bin");
        } finally {
            sleeper.destroyForcibly().waitFor();
        }
    }

    @Test
    void aRunRemovesTheSpillFileADeadRunLeftAndLeavesNoneOfItsOwn() throws Exception {
        Path lake = tmp.resolve("lake");
        Path temp = Files.createDirectories(tmp.resolve("tmpdir"));
        FileCatalog cat = FileCatalog.create("dof_spill", lake.toString());
        for (int i = 0; i < 5; i++) {
            FileCatalog.file(lake.resolve("main/test/k" + i + ".parquet"), Duration.ofDays(3));
            cat.dataFile(1, "k" + i + ".parquet", true);
        }
        FileCatalog.file(lake.resolve("main/test/orphan.parquet"), Duration.ofDays(3));
        // what a SIGKILLed run on this host left behind
        long dead = deadPid();
        Path left = Files.writeString(temp.resolve("ducklake-janitor-spill_spill-test-host_" + dead + "_1700000000000_77.bin"), "x");
        Path foreign = Files.writeString(temp.resolve("ducklake-janitor-spill_elsewhere_" + dead + "_1700000000000_78.bin"), "x");
        JanitorProcess p = JanitorProcess.start(Map.of("HOSTNAME", "spill-test-host", "LC_ALL", "C.UTF-8",
                        "JAVA_TOOL_OPTIONS", "-Djava.io.tmpdir=" + temp + ""),
                "delete-orphan-files", "--catalog", TestPostgres.get().url(), "--metadata-schema", cat.schema, "--dry-run", "--verbose");
        try {
            assertThat(p.waitFor(120)).as("stderr: %s", p.err()).isZero();
            assertThat(p.out()).contains("orphan.parquet");
            assertThat(left).as("the dead run's spill file").doesNotExist();
            assertThat(p.err()).contains("removed the spill file " + left).contains("process " + dead + " is gone");
            assertThat(foreign).as("another host's young spill file is not ours to judge").exists();
            try (Stream<Path> s = Files.list(temp)) {
                assertThat(s.map(f -> f.getFileName().toString()).filter(n -> n.startsWith(SpillFiles.PREFIX)))
                        .as("the run removed its own spill file").containsExactly(foreign.getFileName().toString());
            }
        } finally {
            p.cleanup();
        }
    }
}
