package dev.ducklake.janitor.ops.runtime;

import java.util.Arrays;

/**
 * Counters keyed by an enum: one count per constant, all starting at zero. An operation names its counts in one
 * enum, a batch's outcome and the run's tally each hold one of these, and a committed batch is taken over in one
 * call ({@link #addAll}) instead of field by field. Not thread-safe.
 *
 * @param <E> the enum of the counts
 */
public final class Counts<E extends Enum<E>> {

    private final Class<E> keys;
    private final long[] values;

    private Counts(Class<E> keys) {
        this.keys = keys;
        this.values = new long[keys.getEnumConstants().length];
    }

    /**
     * @param keys the enum of the counts
     * @param <E> its type
     * @return counters for every constant of {@code keys}, all zero
     */
    public static <E extends Enum<E>> Counts<E> of(Class<E> keys) {
        return new Counts<>(keys);
    }

    /**
     * @param key a count
     * @param n what to add to it
     * @return this
     */
    public Counts<E> add(E key, long n) {
        values[key.ordinal()] += n;
        return this;
    }

    /**
     * @param key a count
     * @return this, with one added to it
     */
    public Counts<E> increment(E key) {
        return add(key, 1);
    }

    /**
     * @param other counts of the same enum
     * @return this, with each of {@code other}'s counts added to its own
     */
    public Counts<E> addAll(Counts<E> other) {
        if (other.keys != keys) {
            throw new IllegalArgumentException(other.keys + " is not " + keys);
        }
        for (int i = 0; i < values.length; i++) {
            values[i] += other.values[i];
        }
        return this;
    }

    /**
     * @param key a count
     * @return its value
     */
    public long get(E key) {
        return values[key.ordinal()];
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("{");
        for (E key : keys.getEnumConstants()) {
            s.append(s.length() == 1 ? "" : ", ").append(key.name()).append('=').append(values[key.ordinal()]);
        }
        return s.append('}').toString();
    }
}
