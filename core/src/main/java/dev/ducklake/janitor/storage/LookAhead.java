package dev.ducklake.janitor.storage;

import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * An iterator that reads one element ahead through a single {@link #fetch()} step, so that a listing (pages of a store,
 * a directory walk, merged runs) writes only how it gets its next element, not the {@code hasNext}/{@code next}
 * bookkeeping around it.
 *
 * @param <T> the elements
 */
public abstract class LookAhead<T> implements Iterator<T> {

    private T ahead;
    private boolean ended;

    /**
     * Reads the next element.
     *
     * @return the next element, or null when there is none (then it is not called again)
     * @throws java.io.UncheckedIOException a failure of the source, thrown from {@link #hasNext()} / {@link #next()}
     */
    protected abstract T fetch();

    @Override
    public final boolean hasNext() {
        if (ahead == null && !ended) {
            ahead = fetch();
            ended = ahead == null;
        }
        return ahead != null;
    }

    @Override
    public final T next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        T t = ahead;
        ahead = null;
        return t;
    }

    /** Ends the iteration: {@link #hasNext()} answers false from now on. */
    protected final void end() {
        ended = true;
        ahead = null;
    }
}
