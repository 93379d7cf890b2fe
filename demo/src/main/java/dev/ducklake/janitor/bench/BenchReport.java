package dev.ducklake.janitor.bench;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

import java.awt.Color;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Renders a {@link ScaleBenchmark.Report}: the text table (c′, the multi-table DROP floor, first), the scaling
 * table, {@code results.csv}, {@code batches.csv}, one PNG plot of per-batch milliseconds against batch number
 * per (N, batch size), and {@code scaling.png} (seconds per 1,000 tables against N) when several N ran.
 *
 * <p>Ratios are throughput ratios (tables/s of the row ÷ tables/s of the reference at the same N and batch
 * size): {@code x_floor} against c-floor-drop, {@code x_multidrop} against c'-floor-multidrop,
 * {@code x_baseline} against b-seed-baseline. Above 1 means faster than the reference.
 */
public final class BenchReport {

    private static final String HEADER = "n,variant,batch_requested,batch_effective,wall_s,tables,tables_per_s,x_floor,"
            + "x_multidrop,x_baseline,batches,first_batch_ms,last_batch_ms,last_over_first,peak_heap_mib,heap_after_gc_max_mib,build_s,check";

    private final ScaleBenchmark.Report report;

    /** @param report what to render */
    public BenchReport(ScaleBenchmark.Report report) {
        this.report = report;
    }

    /**
     * Prints the table (a Markdown table, so it can go into the README as is).
     *
     * @param out where to print
     */
    public void printTable(PrintWriter out) {
        out.println("| N | variant | batch | wall s | tables/s | × c′ (floor) | × c | × baseline b | first batch ms | last batch ms"
                + " | last/first | heap peak MiB | heap after GC MiB |");
        out.println("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (VariantResult r : ordered()) {
            out.printf(Locale.ROOT, "| %d | %s | %s | %.2f | %.0f | %s | %s | %s | %s | %s | %s | %.0f | %s |%n", r.n(), r.variant(),
                    r.batchEffective() == 0 ? "–" : Integer.toString(r.batchEffective()), r.wallSeconds(), r.tablesPerSecond(),
                    ratio(r, ScaleBenchmark.FLOOR_MULTI), ratio(r, ScaleBenchmark.FLOOR), ratio(r, ScaleBenchmark.BASELINE),
                    num(r.firstBatchMs(), "%.0f"), num(r.lastBatchMs(), "%.0f"), num(r.flatness(), "%.2f"), r.peakHeapMiB(),
                    num(r.liveHeapMiB(), "%.0f"));
        }
        out.flush();
    }

    /**
     * Prints the scaling table: per batched variant and batch size, one row per N with tables/s and seconds
     * per 1,000 tables (flat tables/s across N = no per-table cost that grows with the catalog).
     *
     * @param out where to print
     */
    public void printScaling(PrintWriter out) {
        out.println("| variant | batch | N | wall s | tables/s | s per 1,000 tables | × c′ |");
        out.println("|---|---:|---:|---:|---:|---:|---:|");
        for (VariantResult r : scalingOrder()) {
            out.printf(Locale.ROOT, "| %s | %d | %d | %.2f | %.0f | %.3f | %s |%n", r.variant(), r.batchEffective(), r.n(),
                    r.wallSeconds(), r.tablesPerSecond(), secondsPer1000(r), ratio(r, ScaleBenchmark.FLOOR_MULTI));
        }
        out.flush();
    }

    /**
     * Prints, for several server configurations of one run, the floor c′ and the janitor side by side per N
     * and batch size.
     *
     * @param reports label of the configuration (e.g. "fsync off") to its report
     * @param out where to print
     */
    public static void printSideBySide(java.util.Map<String, ScaleBenchmark.Report> reports, PrintWriter out) {
        out.println("| server | N | batch | c′ tables/s | janitor tables/s | janitor × c′ | janitor last/first | c′ last/first |");
        out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
        reports.forEach((label, report) -> {
            for (VariantResult a : report.results()) {
                if (!a.variant().equals(ScaleBenchmark.JANITOR)) {
                    continue;
                }
                VariantResult floor = find(report.results(), a.n(), a.batchEffective(), ScaleBenchmark.FLOOR_MULTI);
                out.printf(Locale.ROOT, "| %s | %d | %d | %s | %.0f | %s | %s | %s |%n", label, a.n(), a.batchEffective(),
                        floor == null ? "–" : String.format(Locale.ROOT, "%.0f", floor.tablesPerSecond()), a.tablesPerSecond(),
                        floor == null ? "–" : String.format(Locale.ROOT, "%.2f", a.tablesPerSecond() / floor.tablesPerSecond()),
                        num(a.flatness(), "%.2f"), floor == null ? "–" : num(floor.flatness(), "%.2f"));
            }
        });
        out.flush();
    }

    /** Rows in print order: per N the non-batched rows, then per batch size c′ (the floor) first, then a, c, b. */
    private List<VariantResult> ordered() {
        List<VariantResult> out = new ArrayList<>(report.results());
        List<String> rank = List.of(ScaleBenchmark.DRY_RUN, ScaleBenchmark.METRIC, ScaleBenchmark.FLOOR_MULTI, ScaleBenchmark.JANITOR,
                ScaleBenchmark.FLOOR, ScaleBenchmark.BASELINE);
        out.sort(java.util.Comparator.comparingInt(VariantResult::n).thenComparingInt(VariantResult::batchEffective)
                .thenComparingInt(r -> rank.indexOf(r.variant())));
        return out;
    }

    /** Batched rows ordered by variant (c′ first), batch size, then N. */
    private List<VariantResult> scalingOrder() {
        List<String> rank = List.of(ScaleBenchmark.FLOOR_MULTI, ScaleBenchmark.JANITOR, ScaleBenchmark.FLOOR, ScaleBenchmark.BASELINE);
        List<VariantResult> out = new ArrayList<>();
        for (VariantResult r : report.results()) {
            if (!r.batches().isEmpty()) {
                out.add(r);
            }
        }
        out.sort(java.util.Comparator.<VariantResult>comparingInt(r -> rank.indexOf(r.variant()))
                .thenComparingInt(VariantResult::batchEffective).thenComparingInt(VariantResult::n));
        return out;
    }

    /** Wall seconds per 1,000 tables dropped. */
    static double secondsPer1000(VariantResult r) {
        return r.tables() > 0 ? r.wallSeconds() * 1000.0 / r.tables() : Double.NaN;
    }

    private static VariantResult find(List<VariantResult> results, int n, int batch, String variant) {
        for (VariantResult r : results) {
            if (r.n() == n && r.batchEffective() == batch && r.variant().equals(variant)) {
                return r;
            }
        }
        return null;
    }

    /**
     * Writes {@code results.csv}, {@code batches.csv} and {@code batches-N<n>-b<batch>.png} into a folder.
     *
     * @param dir the output folder (created if missing)
     * @return the files written
     * @throws IOException when a file cannot be written
     */
    public List<Path> write(Path dir) throws IOException {
        Files.createDirectories(dir);
        List<Path> files = new ArrayList<>();
        Path results = dir.resolve("results.csv");
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(results, StandardCharsets.UTF_8))) {
            w.println(HEADER);
            for (VariantResult r : report.results()) {
                w.printf(Locale.ROOT, "%d,%s,%d,%d,%.3f,%d,%.1f,%s,%s,%s,%d,%s,%s,%s,%.1f,%s,%.2f,%s%n", r.n(), r.variant(),
                        r.batchRequested(), r.batchEffective(), r.wallSeconds(), r.tables(), r.tablesPerSecond(),
                        csv(ratio(r, ScaleBenchmark.FLOOR)), csv(ratio(r, ScaleBenchmark.FLOOR_MULTI)),
                        csv(ratio(r, ScaleBenchmark.BASELINE)), r.batches().size(), csv(num(r.firstBatchMs(), "%.1f")),
                        csv(num(r.lastBatchMs(), "%.1f")), csv(num(r.flatness(), "%.3f")), r.peakHeapMiB(),
                        csv(num(r.liveHeapMiB(), "%.1f")), r.setupSeconds(),
                        r.check().replace(',', ';'));
            }
        }
        files.add(results);
        Path batches = dir.resolve("batches.csv");
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(batches, StandardCharsets.UTF_8))) {
            w.println("n,variant,batch_effective,batch,tables,ms");
            for (VariantResult r : report.results()) {
                for (BatchTiming b : r.batches()) {
                    w.printf(Locale.ROOT, "%d,%s,%d,%d,%d,%.2f%n", r.n(), r.variant(), r.batchEffective(), b.number(), b.tables(), b.millis());
                }
            }
        }
        files.add(batches);
        Set<String> plots = new LinkedHashSet<>();
        for (VariantResult r : report.results()) {
            if (!r.batches().isEmpty()) {
                plots.add(r.n() + "/" + r.batchEffective());
            }
        }
        for (String key : plots) {
            int n = Integer.parseInt(key.split("/")[0]);
            int batch = Integer.parseInt(key.split("/")[1]);
            files.add(plot(dir, n, batch));
        }
        if (report.results().stream().filter(r -> !r.batches().isEmpty()).map(VariantResult::n).distinct().count() > 1) {
            files.add(plotScaling(dir));
        }
        return files;
    }

    /** {@code scaling.png}: seconds per 1,000 tables against N, one line per batched variant and batch size. */
    private Path plotScaling(Path dir) throws IOException {
        java.util.Map<String, XYSeries> series = new java.util.LinkedHashMap<>();
        for (VariantResult r : scalingOrder()) {
            series.computeIfAbsent(r.variant() + ", batch " + r.batchEffective(), XYSeries::new).add(r.n(), secondsPer1000(r));
        }
        XYSeriesCollection data = new XYSeriesCollection();
        series.values().forEach(data::addSeries);
        JFreeChart chart = ChartFactory.createXYLineChart("drop-orphan-inline-tables: seconds per 1,000 tables against N",
                "N (leaked inlined tables in the catalog)", "seconds per 1,000 tables", data, PlotOrientation.VERTICAL, true, false, false);
        style(chart.getXYPlot(), data.getSeriesCount());
        ((org.jfree.chart.renderer.xy.XYLineAndShapeRenderer) chart.getXYPlot().getRenderer()).setDefaultShapesVisible(true);
        chart.getXYPlot().getRangeAxis().setLowerBound(0);
        Path file = dir.resolve("scaling.png");
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 1000, 600);
        return file;
    }

    /**
     * Redraws the PNG plots of a finished run from its {@code batches.csv} (e.g. after a plot style change),
     * without running anything; with its {@code results.csv} and several N also {@code scaling.png} (so the
     * CSV files of several runs, concatenated, give one scaling plot).
     *
     * @param dir the folder holding {@code batches.csv}; the PNGs are written next to it
     * @return the files written
     * @throws IOException when the CSV cannot be read or a PNG cannot be written
     */
    public static List<Path> replot(Path dir) throws IOException {
        java.util.Map<String, List<BatchTiming>> series = new java.util.LinkedHashMap<>();
        List<String> lines = Files.readAllLines(dir.resolve("batches.csv"), StandardCharsets.UTF_8);
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",");
            series.computeIfAbsent(f[0] + "," + f[1] + "," + f[2], k -> new ArrayList<>())
                    .add(new BatchTiming(Integer.parseInt(f[3]), Integer.parseInt(f[4]), Double.parseDouble(f[5])));
        }
        // wall seconds and tables of each row from results.csv, when present (for the scaling plot)
        java.util.Map<String, double[]> walls = new java.util.HashMap<>();
        Path resultsCsv = dir.resolve("results.csv");
        if (Files.exists(resultsCsv)) {
            List<String> rows = Files.readAllLines(resultsCsv, StandardCharsets.UTF_8);
            for (String line : rows.subList(1, rows.size())) {
                String[] f = line.split(",");
                walls.put(f[0] + "," + f[1] + "," + f[3], new double[] {Double.parseDouble(f[4]), Double.parseDouble(f[5])});
            }
        }
        List<VariantResult> results = new ArrayList<>();
        series.forEach((key, batches) -> {
            String[] k = key.split(",");
            int batch = Integer.parseInt(k[2]);
            double[] w = walls.getOrDefault(key, new double[] {0, 0});
            results.add(new VariantResult(Integer.parseInt(k[0]), k[1], batch, batch, w[0], (long) w[1], batches, 0, Double.NaN, 0, ""));
        });
        BenchReport r = new BenchReport(new ScaleBenchmark.Report(results, List.of(), null, ""));
        List<Path> files = new ArrayList<>();
        Set<String> plots = new LinkedHashSet<>();
        for (VariantResult v : results) {
            if (plots.add(v.n() + "/" + v.batchEffective())) {
                files.add(r.plot(dir, v.n(), v.batchEffective()));
            }
        }
        if (!walls.isEmpty() && results.stream().map(VariantResult::n).distinct().count() > 1) {
            files.add(r.plotScaling(dir));
        }
        return files;
    }

    private Path plot(Path dir, int n, int batch) throws IOException {
        XYSeriesCollection data = new XYSeriesCollection();
        for (VariantResult r : report.results()) {
            if (r.n() == n && r.batchEffective() == batch && !r.batches().isEmpty()) {
                XYSeries s = new XYSeries(r.variant());
                for (BatchTiming b : r.batches()) {
                    s.add(b.number(), b.millis());
                }
                data.addSeries(s);
            }
        }
        JFreeChart chart = ChartFactory.createXYLineChart(String.format(Locale.ROOT,
                        "drop-orphan-inline-tables, N = %,d, batches of %d tables", n, batch), "batch number", "batch time (ms)",
                data, PlotOrientation.VERTICAL, true, false, false);
        style(chart.getXYPlot(), data.getSeriesCount());
        Path file = dir.resolve("batches-N" + n + "-b" + batch + ".png");
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 1200, 650);
        return file;
    }

    private static void style(XYPlot plot, int seriesCount) {
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        Color[] colors = {new Color(0xD6, 0x27, 0x28), new Color(0x1F, 0x77, 0xB4), new Color(0x2C, 0xA0, 0x2C),
            new Color(0xFF, 0x7F, 0x0E), Color.DARK_GRAY, new Color(0x94, 0x67, 0xBD)};
        for (int i = 0; i < seriesCount; i++) {
            plot.getRenderer().setSeriesPaint(i, colors[i % colors.length]);
        }
    }

    /** Throughput of r over the reference variant's at the same N and batch size, or "–". */
    private String ratio(VariantResult r, String reference) {
        if (r.batches().isEmpty()) {
            return "–";
        }
        for (VariantResult ref : report.results()) {
            if (ref.n() == r.n() && ref.batchEffective() == r.batchEffective() && ref.variant().equals(reference)) {
                return String.format(Locale.ROOT, "%.2f", r.tablesPerSecond() / ref.tablesPerSecond());
            }
        }
        return "–";
    }

    private static String csv(String cell) {
        return "–".equals(cell) ? "" : cell;
    }

    private static String num(double v, String fmt) {
        return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, fmt, v);
    }
}
