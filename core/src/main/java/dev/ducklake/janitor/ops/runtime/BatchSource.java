package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.JanitorException;

import java.util.ArrayList;
import java.util.List;

/**
 * Where the {@link BatchLoop} reads its units from, one batch at a time: a list held in memory ({@link #of}), a
 * keyset query that reads the next page after the last key ({@link KeysetSource}), or several of them one after the
 * other ({@link #concat}). The loop looks at the next units ({@link #peek}), runs its batch over as many of them as the
 * batch size allows (fewer after a halving), then takes what the committed batch used up ({@link #advance}).
 *
 * @param <I> a unit of work
 */
public interface BatchSource<I> {

    /**
     * The next units, without taking them. Until {@link #advance}, a second call returns the same units (or more of
     * the same sequence); a batch never spans two parts of a {@link #concat}.
     *
     * @param max how many units at most (at least 1)
     * @return up to {@code max} units in batch order; empty when nothing is left
     * @throws JanitorException when reading the next page failed for good (as {@link QueryRunner#readOnly})
     */
    List<I> peek(int max) throws JanitorException;

    /**
     * Takes the first {@code n} units of the last {@link #peek}.
     *
     * @param n units used up by a committed batch (at most the size of the last peek)
     */
    void advance(int n);

    /** @return units not yet taken that this source holds now: all of them for a list, the read-ahead of a keyset */
    long known();

    /** @return whether {@link #known()} is every unit left (a list); false while a keyset query may have more */
    boolean counted();

    /**
     * @param units the units, in batch order (not copied: do not change it during the loop)
     * @param <I> a unit of work
     * @return a source over the list
     */
    static <I> BatchSource<I> of(List<I> units) {
        return new BatchSource<>() {
            private int pos;

            @Override
            public List<I> peek(int max) {
                return units.subList(pos, Math.min(units.size(), pos + max));
            }

            @Override
            public void advance(int n) {
                pos += n;
            }

            @Override
            public long known() {
                return units.size() - pos;
            }

            @Override
            public boolean counted() {
                return true;
            }
        };
    }

    /**
     * The parts one after the other; a batch takes units of one part only.
     *
     * @param parts the sources, in order
     * @param <I> a unit of work
     * @return a source over all of them
     */
    static <I> BatchSource<I> concat(List<? extends BatchSource<I>> parts) {
        List<BatchSource<I>> rest = new ArrayList<>(parts);
        return new BatchSource<>() {
            @Override
            public List<I> peek(int max) throws JanitorException {
                while (!rest.isEmpty()) {
                    List<I> next = rest.get(0).peek(max);
                    if (!next.isEmpty()) {
                        return next;
                    }
                    rest.remove(0);
                }
                return List.of();
            }

            @Override
            public void advance(int n) {
                rest.get(0).advance(n);
            }

            @Override
            public long known() {
                return rest.stream().mapToLong(BatchSource::known).sum();
            }

            @Override
            public boolean counted() {
                return rest.stream().allMatch(BatchSource::counted);
            }
        };
    }
}
