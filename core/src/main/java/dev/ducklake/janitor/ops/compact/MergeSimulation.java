package dev.ducklake.janitor.ops.compact;

import dev.ducklake.janitor.ops.compact.CompactionPlanner.DataFile;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * DuckLake's merge pass simulated over a table's candidate files (no I/O): which files one
 * {@code ducklake_merge_adjacent_files} call merges, and the smaller targets and split passes that keep each call within
 * {@code --max-input-files}. Follows {@code DuckLakeCompactor::GenerateCompactions} (DuckLake {@code d8a1881e}).
 */
final class MergeSimulation {

    private MergeSimulation() {
    }

    /**
     * The merge DuckLake's greedy pass makes of a table's candidates.
     *
     * @param groups groups with at least two candidates
     * @param inputFiles files merged
     * @param outputFiles merged files written
     * @param iterations per step of the pass that counts against {@code max_compacted_files}, the files it merges (0 for a
     *     file left alone), in DuckLake's order within each group
     * @param inputBytes bytes of the files merged
     * @param iterationBytes per step, the bytes of the files it merges (0 for a file left alone), parallel to iterations
     */
    record MergePlan(long groups, long inputFiles, long outputFiles, List<Integer> iterations, long inputBytes,
                     List<Long> iterationBytes) {
    }

    /**
     * {@code DuckLakeCompactor::GenerateCompactions} for {@code MERGE_ADJACENT_TABLES}, without a {@code max_files} cap:
     * candidates grouped by (schema version, partition_id, partition values) in first-seen order; in each group of two or
     * more, from each start file add the following files while the running sum is below the target (a file at or above the
     * target ends the run); a run of two or more files is one merge, a run of one is left alone; each step counts one toward
     * {@code max_compacted_files}.
     *
     * @param candidates the candidates in DuckLake's file order (below the target, without deletes)
     * @param target the target file size, bytes
     * @return the plan
     */
    static MergePlan simulateMerge(List<DataFile> candidates, long target) {
        Map<List<Object>, List<DataFile>> groups = groups(candidates);
        long merged = 0;
        long outputs = 0;
        long groupCount = 0;
        List<Integer> iterations = new ArrayList<>();
        List<Long> iterationBytes = new ArrayList<>();
        long mergedBytes = 0;
        for (List<DataFile> g : groups.values()) {
            if (g.size() <= 1) {
                continue;
            }
            groupCount++;
            for (int start = 0; start < g.size(); start++) {
                long sum = 0;
                int j = start;
                while (j < g.size()) {
                    if (sum >= target) {
                        break;
                    }
                    long size = g.get(j).sizeBytes();
                    if (size >= target) {
                        break;
                    }
                    sum += size;
                    j++;
                }
                int count = j - start;
                if (count >= 2) {
                    merged += count;
                    outputs++;
                    iterations.add(count);
                    iterationBytes.add(sum);
                    mergedBytes += sum;
                    start += count - 1;
                } else {
                    iterations.add(0);
                    iterationBytes.add(0L);
                }
            }
        }
        return new MergePlan(groupCount, merged, outputs, List.copyOf(iterations), mergedBytes, List.copyOf(iterationBytes));
    }

    /** DuckLake's compaction groups (schema version, partition_id, partition values), in first-seen order. */
    private static Map<List<Object>, List<DataFile>> groups(List<DataFile> candidates) {
        Map<List<Object>, List<DataFile>> groups = new LinkedHashMap<>();
        for (DataFile f : candidates) {
            List<Object> key = new ArrayList<>();
            key.add(f.schemaVersion());
            key.add(f.partitionId());
            key.add(f.partitionValues());
            groups.computeIfAbsent(key, k -> new ArrayList<>()).add(f);
        }
        return groups;
    }

    /** @return the most input files one step of the merge takes (0 when it merges nothing) */
    static int maxStep(MergePlan merge) {
        return merge.iterations().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    /** @return the candidates below a target, as DuckLake selects them under it ({@code file_size_bytes < target}) */
    static List<DataFile> below(List<DataFile> candidates, long target) {
        return candidates.stream().filter(f -> f.sizeBytes() < target).toList();
    }

    /**
     * A split pass.
     *
     * @param target the lower target, bytes
     * @param merge DuckLake's pass under it (over the candidates below it)
     */
    record Split(long target, MergePlan merge) {
    }

    /**
     * A lower target under which no step of DuckLake's greedy pass takes more than {@code cap} files, for a table whose
     * step at its own target is larger (its files add up to less than the target, so {@code max_compacted_files}, which
     * counts steps, cannot bound the call). Set as DuckDB's {@code ducklake_target_file_size} for the call, it changes
     * both what DuckLake selects ({@code GetFilesForCompaction}: files below it) and where its steps end
     * ({@code GenerateCompactions}: at the first file that brings the sum to it), DuckLake {@code d8a1881e}
     * ({@code DuckLakeCatalog::GetTargetFileSize} reads the setting before the catalog's option). Found by lowering the
     * target to the smallest sum of {@code cap} neighbours in a group (a step takes at most {@code cap} files once every
     * {@code cap} neighbours reach the target), again until the pass agrees, since a lower target selects fewer files.
     *
     * @param candidates the table's candidates at its own target, in DuckLake's order
     * @param target the table's own target, bytes
     * @param cap --max-input-files (at least 2)
     * @return the lower target and DuckLake's pass under it, or null when none merges anything within the cap
     */
    static Split splitTarget(List<DataFile> candidates, long target, int cap) {
        long t = target;
        for (int round = 0; round < 64; round++) {
            List<DataFile> kept = below(candidates, t);
            MergePlan p = simulateMerge(kept, t);
            if (maxStep(p) <= cap) {
                return p.inputFiles() > 0 && t < target ? new Split(t, p) : null;
            }
            long lowest = Long.MAX_VALUE;
            for (List<DataFile> g : groups(kept).values()) {
                long window = 0;
                for (int i = 0; i < g.size(); i++) {
                    window += g.get(i).sizeBytes();
                    if (i >= cap) {
                        window -= g.get(i - cap).sizeBytes();
                    }
                    if (i >= cap - 1) {
                        lowest = Math.min(lowest, window);
                    }
                }
            }
            if (lowest < 1 || lowest >= t) {
                return null;
            }
            t = lowest;
        }
        return null;
    }

    /**
     * The merge of a pass whose step at the table's own target is larger than the cap.
     *
     * @param target the target DuckLake merges to in this pass (the table's own, or lower: {@link #splitTarget})
     * @param merge DuckLake's pass under it, over the files it selects
     * @param maxFileSize the call's {@code max_file_size} (files at or above it are not selected), or null for none
     */
    record Pass(long target, MergePlan merge, Long maxFileSize) {
    }

    /**
     * The merge of a pass whose step at the table's own target takes more than {@code cap} files. Without earlier
     * passes: DuckLake's pass at a lower target ({@link #splitTarget}). After earlier passes of this run (files from
     * {@code newFilesFrom} on are their outputs): the same, but only over the files older than them, which the call selects
     * with {@code max_file_size} = one byte more than the largest of those ({@code GetFilesForCompaction}, DuckLake
     * {@code d8a1881e}: {@code max_file_size} replaces the target in the size filter, {@code file_size_bytes <
     * max_file_size}, while the target still ends the steps). Otherwise an earlier output, which keeps its first source's
     * {@code begin_snapshot} and so sorts first, and which Parquet keeps below the lowered target, starts every step of
     * the later passes and takes ever fewer new files (100,000 files at a cap of 2,000: 338 calls instead of about 50).
     * The outputs, all left out, are merged by a later pass once no older candidate is left, at the table's own target or
     * split again. Falls back to the plain split when the older files alone merge nothing.
     *
     * @param candidates the table's candidates at its own target, in DuckLake's order
     * @param target the table's own target, bytes
     * @param cap --max-input-files (at least 2)
     * @param newFilesFrom the first {@code data_file_id} this run's passes wrote ({@link Long#MAX_VALUE}: none yet)
     * @return the pass, or null when no pass merges anything within the cap
     */
    static Pass splitPass(List<DataFile> candidates, long target, int cap, long newFilesFrom) {
        long olderMax = -1;
        boolean outputs = false;
        for (DataFile f : candidates) {
            if (f.id() >= newFilesFrom) {
                outputs = true;
            } else {
                olderMax = Math.max(olderMax, f.sizeBytes());
            }
        }
        if (outputs && olderMax >= 0) {
            long max = olderMax + 1;
            List<DataFile> older = below(candidates, max);
            MergePlan own = simulateMerge(older, target);
            if (own.inputFiles() > 0 && maxStep(own) <= cap) {
                return new Pass(target, own, max);
            }
            Split split = splitTarget(older, target, cap);
            if (split != null) {
                return new Pass(split.target(), split.merge(), max);
            }
        }
        Split split = splitTarget(candidates, target, cap);
        return split == null ? null : new Pass(split.target(), split.merge(), null);
    }
}
