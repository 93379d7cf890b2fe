package dev.ducklake.janitor.ops.compact;

import dev.ducklake.janitor.JanitorException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The planner's pure parts: DuckLake's greedy merge pass, its size grammar, the spelled calls and the missing driver. */
class CompactionPlannerTest {

    private static CompactionPlanner.DataFile file(long id, long size, Long schemaVersion, List<String> partition) {
        return new CompactionPlanner.DataFile(id, 10, size, schemaVersion, partition.isEmpty() ? null : 1L, partition, false, 0, 0);
    }

    @Test
    void greedyRunsStopOnceTheSumReachesTheTarget() {
        List<CompactionPlanner.DataFile> files = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            files.add(file(i, 40, 1L, List.of()));
        }
        // target 100: 40+40 = 80 < 100, +40 = 120: the third file is added while the sum was below the target (DuckLake adds
        // before checking), so runs of three: [0,1,2], [3,4,5], then [6] alone
        MergeSimulation.MergePlan p = MergeSimulation.simulateMerge(files, 100);
        assertThat(p.inputFiles()).isEqualTo(6);
        assertThat(p.outputFiles()).isEqualTo(2);
        assertThat(p.iterations()).containsExactly(3, 3, 0);
        assertThat(p.inputBytes()).as("what --max-bytes counts: the six merged files").isEqualTo(240);
        assertThat(p.iterationBytes()).containsExactly(120L, 120L, 0L);
    }

    @Test
    void schemaVersionsAndPartitionValuesAreSeparateGroupsAndASingleFileIsNoMerge() {
        List<CompactionPlanner.DataFile> files = List.of(file(1, 10, 1L, List.of("a")), file(2, 10, 2L, List.of("a")),
                file(3, 10, 1L, List.of("b")), file(4, 10, 1L, List.of("a")), file(5, 10, null, new ArrayList<>(java.util.Arrays.asList((String) null))),
                file(6, 10, null, new ArrayList<>(java.util.Arrays.asList((String) null))));
        MergeSimulation.MergePlan p = MergeSimulation.simulateMerge(files, 1000);
        assertThat(p.groups()).as("(1,a) and (null,NULL) have two files; (2,a), (1,b) one").isEqualTo(2);
        assertThat(p.inputFiles()).isEqualTo(4);
        assertThat(p.outputFiles()).isEqualTo(2);
    }

    @Test
    void aFileAtTheTargetEndsTheRun() {
        List<CompactionPlanner.DataFile> files = List.of(file(1, 10, 1L, List.of()), file(2, 10, 1L, List.of()), file(3, 100, 1L, List.of()),
                file(4, 10, 1L, List.of()));
        MergeSimulation.MergePlan p = MergeSimulation.simulateMerge(files, 100);
        assertThat(p.iterations()).containsExactly(2, 0, 0);
    }

    /**
     * Issue 26: 100,000 files of 1 KiB are one DuckLake merge step at a 512 MiB target, which max_compacted_files cannot
     * bound; a lower target splits it into steps of at most --max-input-files files.
     */
    @Test
    void aStepLargerThanTheCapIsSplitByALowerTarget() {
        List<CompactionPlanner.DataFile> files = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            files.add(file(i, 1000 + (i * 7919) % 500, 1L, List.of()));
        }
        long target = 512L << 20;
        assertThat(MergeSimulation.maxStep(MergeSimulation.simulateMerge(files, target))).isEqualTo(1000);
        MergeSimulation.Split found = MergeSimulation.splitTarget(files, target, 50);
        assertThat(found).isNotNull();
        Long split = found.target();
        assertThat(split).isNotNull().isLessThan(target);
        MergeSimulation.MergePlan p = MergeSimulation.simulateMerge(MergeSimulation.below(files, split), split);
        assertThat(MergeSimulation.maxStep(p)).as("every step within the cap").isBetween(2, 50);
        assertThat(p.inputFiles()).as("the split pass still merges most files").isGreaterThan(900);
        assertThat(found.merge()).as("the pass the planner uses is DuckLake's pass under the lower target").isEqualTo(p);
    }

    /** A lower target selects fewer files, which can make neighbours of a removed file one step again: lowered until it fits. */
    @Test
    void theSplitTargetIsLoweredAgainUntilThePassAgrees() {
        // cap 2: the neighbour sums give 4 (1+3), which drops the 9; then 1,1,1 become neighbours and would be one step of three
        List<CompactionPlanner.DataFile> files = new ArrayList<>();
        long[] sizes = {3, 3, 1, 9, 1, 1, 1, 9};
        for (int i = 0; i < sizes.length; i++) {
            files.add(file(i, sizes[i], 1L, List.of()));
        }
        MergeSimulation.Split found = MergeSimulation.splitTarget(files, 1000, 2);
        assertThat(found).isNotNull();
        long split = found.target();
        MergeSimulation.MergePlan p = MergeSimulation.simulateMerge(MergeSimulation.below(files, split), split);
        assertThat(MergeSimulation.maxStep(p)).isBetween(2, 2);
    }

    /**
     * Issue 26, the snowball: an earlier pass's output sorts first and stays just below the lowered target, so under the
     * plain split it starts the next step and takes only one new file with it (100,000 files at a cap of 2,000: 338 calls).
     * After earlier passes, the split pass selects only the files older than them (max_file_size one byte above the
     * largest), so its steps take {@code cap} new files each; the outputs wait for a later pass.
     */
    @Test
    void aSplitPassAfterEarlierPassesLeavesTheirOutputsOut() {
        List<CompactionPlanner.DataFile> files = new ArrayList<>();
        files.add(file(100, 3900, 1L, List.of()));
        for (int i = 0; i < 20; i++) {
            files.add(file(i, 1000, 1L, List.of()));
        }
        long target = 512L << 20;
        MergeSimulation.Split plain = MergeSimulation.splitTarget(files, target, 4);
        assertThat(plain.target()).isEqualTo(4000);
        assertThat(plain.merge().iterations().get(0)).as("the output and one new file").isEqualTo(2);

        MergeSimulation.Pass pass = MergeSimulation.splitPass(files, target, 4, 100);
        assertThat(pass.maxFileSize()).as("one byte above the largest older file").isEqualTo(1001);
        assertThat(pass.target()).isEqualTo(4000);
        assertThat(pass.merge().iterations()).as("five steps of four new files").containsExactly(4, 4, 4, 4, 4);
        assertThat(pass.merge()).isEqualTo(MergeSimulation.simulateMerge(MergeSimulation.below(files, 1001), 4000));

        MergeSimulation.Pass first = MergeSimulation.splitPass(files, target, 4, Long.MAX_VALUE);
        assertThat(first.maxFileSize()).as("no earlier pass: the plain split").isNull();
        assertThat(first.merge()).isEqualTo(plain.merge());

        // the older files fit one step at the table's own target: no lower target, only the filter
        List<CompactionPlanner.DataFile> few = List.of(file(100, 3900, 1L, List.of()), file(101, 3900, 1L, List.of()),
                file(102, 3900, 1L, List.of()), file(1, 1000, 1L, List.of()), file(2, 1000, 1L, List.of()), file(3, 1000, 1L, List.of()));
        MergeSimulation.Pass own = MergeSimulation.splitPass(few, target, 3, 100);
        assertThat(own.target()).isEqualTo(target);
        assertThat(own.maxFileSize()).isEqualTo(1001);
        assertThat(own.merge().iterations()).containsExactly(3);

        // one older file left: it merges nothing alone, so the outputs are split as before
        List<CompactionPlanner.DataFile> last = List.of(file(100, 3900, 1L, List.of()), file(101, 3900, 1L, List.of()),
                file(102, 3900, 1L, List.of()), file(103, 3900, 1L, List.of()), file(1, 1000, 1L, List.of()));
        MergeSimulation.Pass rest = MergeSimulation.splitPass(last, target, 3, 100);
        assertThat(rest.maxFileSize()).isNull();
        assertThat(MergeSimulation.maxStep(rest.merge())).isBetween(2, 3);
    }

    @Test
    void noSplitWhenTheStepAlreadyFitsOrNothingCanMerge() {
        List<CompactionPlanner.DataFile> zero = List.of(file(1, 0, 1L, List.of()), file(2, 0, 1L, List.of()), file(3, 0, 1L, List.of()));
        assertThat(MergeSimulation.splitTarget(zero, 100, 2)).as("files of zero bytes never reach any target").isNull();
        List<CompactionPlanner.DataFile> two = List.of(file(1, 10, 1L, List.of()), file(2, 10, 1L, List.of()));
        assertThat(MergeSimulation.splitTarget(two, 100, 2)).as("the step fits: no lower target").isNull();
    }

    @Test
    void sizesReadAsDuckDBReadsThem() {
        assertThat(CompactionPlanner.parseSize("1048576", 7)).isEqualTo(1_048_576);
        assertThat(CompactionPlanner.parseSize("10MB", 7)).isEqualTo(10_000_000);
        assertThat(CompactionPlanner.parseSize("1 GiB", 7)).isEqualTo(1L << 30);
        assertThat(CompactionPlanner.parseSize("lots", 7)).isEqualTo(7);
        assertThat(CompactionPlanner.parseSize(null, 7)).isEqualTo(7);
    }

    @Test
    void callsQuoteNamesAsDuckDBStringLiterals() {
        assertThat(DuckLakeCalls.flush("ma'in", "t")).isEqualTo("CALL ducklake_flush_inlined_data('lake', schema_name => 'ma''in', table_name => 't')");
        assertThat(DuckLakeCalls.merge("s", "x'); DROP TABLE y; --", 3L))
                .isEqualTo("CALL ducklake_merge_adjacent_files('lake', 'x''); DROP TABLE y; --', schema => 's', max_compacted_files => 3)");
        assertThat(DuckLakeCalls.merge("s", "t", 1L, 1001L))
                .isEqualTo("CALL ducklake_merge_adjacent_files('lake', 't', schema => 's', max_compacted_files => 1, max_file_size => 1001)");
        assertThat(DuckLakeCalls.rewrite("s", "t", 0.5)).isEqualTo("CALL ducklake_rewrite_data_files('lake', 't', schema => 's', delete_threshold => 0.5)");
        assertThat(DuckLakeCalls.setTargetFileSize(2048)).isEqualTo("SET ducklake_target_file_size = '2048 bytes'");
        assertThat(DuckLakeEngine.libpq("a b'c\\")).isEqualTo("'a b\\'c\\\\'");
    }

    @Test
    void aMissingDriverIsExit21NamingTheArtifact() {
        assertThatThrownBy(() -> DuckLakeEngine.loadDriver("org.duckdb.NoSuchDriver"))
                .isInstanceOfSatisfying(JanitorException.class, e -> {
                    assertThat(e.reason().exitCode()).isEqualTo(21);
                    assertThat(e.getMessage()).contains("org.duckdb:duckdb_jdbc:1.5.5.0").contains(DuckLakeEngine.DRIVER_JAR);
                });
    }

    @Test
    void conflictsAreRetriedOtherErrorsAreNot() {
        assertThat(DuckLakeEngine.isConflict(new java.sql.SQLException("TransactionContext Error: Failed to commit: Transaction conflict"
                + " - attempting to merge files of table t"))).isTrue();
        // DuckLake's own commit retries used up against a live writer (the message of a flush during a writer's commits)
        assertThat(DuckLakeEngine.isConflict(new java.sql.SQLException("TransactionContext Error: Failed to commit: Failed to commit "
                + "DuckLake transaction.\nExceeded the maximum retry count of 10 set by the ducklake_max_retry_count setting.\n. Consider"
                + " increasing the value with: e.g., \"SET ducklake_max_retry_count = 100;\"\nFailed to flush changes into DuckLake: "
                + "ERROR:  duplicate key value violates unique constraint \"ducklake_snapshot_pkey\""))).isTrue();
        assertThat(DuckLakeEngine.isConflict(new java.sql.SQLException("Binder Error: table t does not exist"))).isFalse();
    }
}
