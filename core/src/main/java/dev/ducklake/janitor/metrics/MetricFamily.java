package dev.ducklake.janitor.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One metric family as the janitor computes it: a name, help text, type, label names and samples. It is the
 * engine's own small model, turned into Prometheus text by {@link Exposition} (through client_java) and into JSON
 * by the CLI.
 *
 * @param name the base name; for {@link Type#COUNTER} without {@code _total}, for {@link Type#INFO} without
 *     {@code _info} (both suffixes are added on exposition, see {@link #exposedName()})
 * @param help one line of help text
 * @param type gauge, counter or info
 * @param labelNames the label names, in order; every sample has one value per name
 * @param samples the samples (may be empty: the family is then not exposed)
 */
public record MetricFamily(String name, String help, Type type, List<String> labelNames, List<Sample> samples) {

    /** The Prometheus metric type. */
    public enum Type {
        /** A value that can go up and down. */
        GAUGE,
        /** A monotonically increasing count; exposed with {@code _total}. */
        COUNTER,
        /** A constant 1 carrying facts in labels; exposed with {@code _info}. */
        INFO
    }

    /**
     * One sample.
     *
     * @param labelValues one value per label name (never null; NULL from SQL becomes "")
     * @param value the value (1 for info samples)
     */
    public record Sample(List<String> labelValues, double value) {
        /** Copies the label values. */
        public Sample {
            labelValues = List.copyOf(labelValues);
        }
    }

    /** Copies the lists and checks that every sample has one value per label name. */
    public MetricFamily {
        Objects.requireNonNull(name, "name");
        labelNames = List.copyOf(labelNames);
        samples = List.copyOf(samples);
        for (Sample s : samples) {
            if (s.labelValues().size() != labelNames.size()) {
                throw new IllegalArgumentException("metric " + name + ": sample has " + s.labelValues().size()
                        + " label values for " + labelNames.size() + " label names");
            }
        }
    }

    /**
     * A gauge family with a single sample.
     *
     * @param name metric name
     * @param help help text
     * @param labelNames label names
     * @param labelValues label values of the one sample
     * @param value the value
     * @return the family
     */
    public static MetricFamily gauge(String name, String help, List<String> labelNames, List<String> labelValues, double value) {
        return new MetricFamily(name, help, Type.GAUGE, labelNames, List.of(new Sample(labelValues, value)));
    }

    /** The name as scraped: with {@code _total} for counters and {@code _info} for info metrics. */
    public String exposedName() {
        return switch (type) {
            case COUNTER -> name + "_total";
            case INFO -> name + "_info";
            case GAUGE -> name;
        };
    }

    /**
     * The value of the sample whose labels equal the given values, for tests and reports.
     *
     * @param labelValues the label values, in label-name order
     * @return the value, or null when no sample has exactly these values
     */
    public Double valueFor(String... labelValues) {
        List<String> wanted = List.of(labelValues);
        for (Sample s : samples) {
            if (s.labelValues().equals(wanted)) {
                return s.value();
            }
        }
        return null;
    }

    /**
     * Concatenates the samples of families with the same name (from several catalogs) into one.
     *
     * @param other a family with the same name, type and label names
     * @return a new family holding the samples of both
     * @throws IllegalArgumentException when name, type or label names differ
     */
    public MetricFamily mergedWith(MetricFamily other) {
        if (!name.equals(other.name) || type != other.type || !labelNames.equals(other.labelNames)) {
            throw new IllegalArgumentException("cannot merge metric " + name + " with a different definition of " + other.name);
        }
        List<Sample> all = new ArrayList<>(samples);
        all.addAll(other.samples);
        return new MetricFamily(name, help, type, labelNames, all);
    }
}
