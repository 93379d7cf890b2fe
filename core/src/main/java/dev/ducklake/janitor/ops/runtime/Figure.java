package dev.ducklake.janitor.ops.runtime;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * What a numeric component of a result record is when it is not a count of what the run did or found. A total over
 * several schemas sums the counts of their results; these two kinds it treats otherwise. Put on the record
 * component (its field and accessor carry it).
 */
public final class Figure {

    private Figure() {
    }

    /**
     * What is left after the run (tables still to drop, snapshots still selected): a total over several schemas knows
     * it only when every schema ran, and is unknown (null) otherwise.
     */
    @Documented
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.METHOD, ElementType.FIELD})
    public @interface Remaining {
    }

    /** A number that is not a count (a snapshot id, a budget, a median, a size of a set): a total does not sum it. */
    @Documented
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.METHOD, ElementType.FIELD})
    public @interface NotSummed {
    }
}
