package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.ops.runtime.RunOptions;

import java.time.Duration;

/**
 * The builder of a storage operation's options ({@link StorageRunOptions}): the setters of the shared part, once for
 * every storage operation; an operation's own builder adds its own options and {@link #build()}s the record.
 *
 * <pre>{@code
 * DeleteOrphanFilesOptions o = DeleteOrphanFilesOptions.builder("lake").olderThan(AgeThreshold.parse("7d"))
 *         .maxOrphanRatio(0.9).dryRun(false).build();
 * }</pre>
 *
 * @param <B> the operation's builder
 * @param <O> the operation's options
 */
public abstract class StorageOptionsBuilder<B extends StorageOptionsBuilder<B, O>, O extends StorageRunOptions> {

    protected RunOptions run;
    protected String dataPathOverride;
    protected AgeThreshold olderThan;
    protected Duration minAge;
    protected ConsultOptions consult;
    protected boolean allowShortRetention;
    protected int deleteConcurrency;

    /** @param from the options to start from (an operation's defaults, or options to change) */
    protected StorageOptionsBuilder(StorageRunOptions from) {
        run = from.run();
        dataPathOverride = from.dataPathOverride();
        olderThan = from.olderThan();
        minAge = from.minAge();
        consult = from.consult();
        allowShortRetention = from.allowShortRetention();
        deleteConcurrency = from.deleteConcurrency();
    }

    /** @return the options */
    public abstract O build();

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /**
     * @param r the generic run options (schema, dry run, batches, timeouts, lock)
     * @return this builder
     */
    public B run(RunOptions r) {
        run = r;
        return self();
    }

    /**
     * @param d whether nothing is changed
     * @return this builder
     */
    public B dryRun(boolean d) {
        run = run.toBuilder().dryRun(d).build();
        return self();
    }

    /**
     * @param p the data path to use instead of the catalog's (DuckLake's OVERRIDE_DATA_PATH); null = the catalog's
     * @return this builder
     */
    public B dataPath(String p) {
        dataPathOverride = p;
        return self();
    }

    /**
     * @param t the age limit; null = the catalog's option, else 2 days
     * @return this builder
     */
    public B olderThan(AgeThreshold t) {
        olderThan = t;
        return self();
    }

    /**
     * @param d the floor under which the age limit may not go
     * @return this builder
     */
    public B minAge(Duration d) {
        minAge = d;
        return self();
    }

    /**
     * @param c which other catalogs are read before a file is deleted
     * @return this builder
     */
    public B consult(ConsultOptions c) {
        consult = c;
        return self();
    }

    /**
     * @param a whether the floor may go below the operation's ({@code --allow-short-retention})
     * @return this builder
     */
    public B allowShortRetention(boolean a) {
        allowShortRetention = a;
        return self();
    }

    /**
     * @param n delete calls in flight at once, 1 to {@value ParallelDeletes#MAX_CONCURRENCY}; 0 = the store's default
     * @return this builder
     */
    public B deleteConcurrency(int n) {
        deleteConcurrency = n;
        return self();
    }
}
