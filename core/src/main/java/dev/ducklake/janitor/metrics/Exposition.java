package dev.ducklake.janitor.metrics;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns {@link MetricFamily} lists into Prometheus client_java snapshots and the Prometheus text exposition
 * format (version 0.0.4, what Prometheus, the Pushgateway and VictoriaMetrics-style receivers accept).
 */
public final class Exposition {

    private Exposition() {
    }

    /**
     * Merges families of the same name (samples of several catalogs) in first-seen order.
     *
     * @param families families, possibly several per name
     * @return one family per name
     * @throws IllegalArgumentException when two families share a name but not a type or label names
     */
    public static List<MetricFamily> merge(Collection<MetricFamily> families) {
        Map<String, MetricFamily> byName = new LinkedHashMap<>();
        for (MetricFamily f : families) {
            byName.merge(f.name(), f, MetricFamily::mergedWith);
        }
        return new ArrayList<>(byName.values());
    }

    /**
     * Converts families to client_java snapshots (families without samples are left out).
     *
     * @param families families, possibly several per name (they are merged)
     * @return the snapshots
     */
    public static MetricSnapshots snapshots(Collection<MetricFamily> families) {
        List<MetricSnapshot> out = new ArrayList<>();
        for (MetricFamily f : merge(families)) {
            if (f.samples().isEmpty()) {
                continue;
            }
            MetricMetadata md = new MetricMetadata(f.name(), f.help());
            switch (f.type()) {
                case GAUGE -> {
                    List<GaugeSnapshot.GaugeDataPointSnapshot> points = new ArrayList<>();
                    for (MetricFamily.Sample s : f.samples()) {
                        points.add(new GaugeSnapshot.GaugeDataPointSnapshot(s.value(), labels(f, s), null));
                    }
                    out.add(new GaugeSnapshot(md, points));
                }
                case COUNTER -> {
                    List<CounterSnapshot.CounterDataPointSnapshot> points = new ArrayList<>();
                    for (MetricFamily.Sample s : f.samples()) {
                        points.add(new CounterSnapshot.CounterDataPointSnapshot(s.value(), labels(f, s), null, 0L));
                    }
                    out.add(new CounterSnapshot(md, points));
                }
                case INFO -> {
                    List<InfoSnapshot.InfoDataPointSnapshot> points = new ArrayList<>();
                    for (MetricFamily.Sample s : f.samples()) {
                        points.add(new InfoSnapshot.InfoDataPointSnapshot(labels(f, s)));
                    }
                    out.add(new InfoSnapshot(md, points));
                }
                default -> throw new IllegalStateException("unknown type " + f.type());
            }
        }
        return new MetricSnapshots(out);
    }

    /**
     * Renders families in the Prometheus text format.
     *
     * @param families families, possibly several per name
     * @return the exposition text (UTF-8), each family with its # HELP and # TYPE lines
     */
    public static String text(Collection<MetricFamily> families) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try {
            PrometheusTextFormatWriter.create().write(buf, snapshots(families));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    private static Labels labels(MetricFamily f, MetricFamily.Sample s) {
        return Labels.of(f.labelNames(), s.labelValues());
    }
}
