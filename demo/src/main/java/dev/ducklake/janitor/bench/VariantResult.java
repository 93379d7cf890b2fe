package dev.ducklake.janitor.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * The figures of one benchmark variant on one catalog size.
 *
 * @param n leaked inlined tables in the catalog
 * @param variant the variant's short name (e.g. {@code a-janitor})
 * @param batchRequested the batch size asked for, tables (0 when the variant has no batches)
 * @param batchEffective the batch size actually used, tables (after the lock budget; 0 when no batches)
 * @param wallSeconds wall-clock time of the variant, seconds (for the janitor: the whole run, survey included)
 * @param tables tables dropped (for the dry run and the metric query: orphan rows counted)
 * @param batches one timing per committed batch, in order (empty when the variant has no batches)
 * @param peakHeapMiB peak JVM heap used while the variant ran, MiB (sum of the heap pools' peaks, garbage
 *     included: an upper bound that approaches -Xmx when the variant allocates a lot)
 * @param liveHeapMiB the largest heap in use right after a garbage collection during the variant, MiB (the
 *     live set); NaN when no collection ran
 * @param setupSeconds time to build the variant's fresh catalog, seconds (0 when it reused the previous non-destructive variants' catalog)
 * @param check a short verification of the outcome ("ok" or what was off)
 */
public record VariantResult(int n, String variant, int batchRequested, int batchEffective, double wallSeconds,
                            long tables, List<BatchTiming> batches, double peakHeapMiB, double liveHeapMiB, double setupSeconds,
                            String check) {

    /** How many full batches the first/last figures are the median of. */
    public static final int EDGE_BATCHES = 5;

    /** Tables per second (tables / wallSeconds). */
    public double tablesPerSecond() {
        return wallSeconds > 0 ? tables / wallSeconds : 0;
    }

    /** Median duration of the first {@value #EDGE_BATCHES} full batches, ms; NaN when there are none. */
    public double firstBatchMs() {
        List<Double> full = fullBatchMillis();
        return median(full.subList(0, Math.min(EDGE_BATCHES, full.size())));
    }

    /** Median duration of the last {@value #EDGE_BATCHES} full batches, ms; NaN when there are none. */
    public double lastBatchMs() {
        List<Double> full = fullBatchMillis();
        return median(full.subList(Math.max(0, full.size() - EDGE_BATCHES), full.size()));
    }

    /** lastBatchMs / firstBatchMs: 1.0 is perfectly flat; NaN when there are no batches. */
    public double flatness() {
        return lastBatchMs() / firstBatchMs();
    }

    private List<Double> fullBatchMillis() {
        List<Double> out = new ArrayList<>();
        for (BatchTiming b : batches) {
            if (b.tables() >= batchEffective) {
                out.add(b.millis());
            }
        }
        return out;
    }

    private static double median(List<Double> xs) {
        if (xs.isEmpty()) {
            return Double.NaN;
        }
        List<Double> s = new ArrayList<>(xs);
        s.sort(null);
        int m = s.size() / 2;
        return s.size() % 2 == 1 ? s.get(m) : (s.get(m - 1) + s.get(m)) / 2;
    }
}
