package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.runtime.RunOptions;

import java.time.Duration;

/**
 * What {@link StorageOperation} needs from the options of an operation that works on the catalog's files in storage, and
 * the part every such operation shares: where the files are, how old they must be, which other catalogs are read first
 * and how many deletes go out at once. Built with a {@link StorageOptionsBuilder}; checked by {@link #validateShared}.
 */
public interface StorageRunOptions {

    /** @return the generic run options (schema, dry run, batches, timeouts, lock) */
    RunOptions run();

    /** @return the data path to use instead of the catalog's {@code data_path}; null = the catalog's */
    String dataPathOverride();

    /** @return the age limit; null = the catalog's {@code delete_older_than} option, else 2 days (DuckLake's default) */
    AgeThreshold olderThan();

    /** @return the floor under which {@link #olderThan()} may not go */
    Duration minAge();

    /** @return which other catalogs are read before a file is deleted */
    ConsultOptions consult();

    /** @return whether {@link #minAge()} may go below the operation's floor */
    boolean allowShortRetention();

    /** @return delete calls in flight at once; 0 = the store's default */
    int deleteConcurrency();

    /** @return the metadata schema */
    default String schema() {
        return run().metadataSchema();
    }

    /** @return whether nothing is changed */
    default boolean dryRun() {
        return run().dryRun();
    }

    /** @throws JanitorException USAGE for a bad value */
    void validate() throws JanitorException;

    /**
     * The checks of the shared part: the run options, the consulted catalogs ({@link ConsultOptions#validate}), the age
     * limit on its own, {@code --delete-concurrency} and the {@code --min-age} floor.
     *
     * @param floor the operation's floor, under which {@link #minAge()} needs {@link #allowShortRetention()}
     * @param operation the operation's name, for the message
     * @throws JanitorException USAGE for a bad value
     */
    default void validateShared(Duration floor, String operation) throws JanitorException {
        run().validate();
        consult().validate();
        FileAges.checkOlderThan(olderThan());
        if (deleteConcurrency() != 0) { // 0: the store's default
            checkDeleteConcurrency(deleteConcurrency());
        }
        FileAges.checkFloor(minAge(), floor, allowShortRetention(), operation);
    }

    /**
     * Checks a number of delete calls in flight at once that was given ({@code --delete-concurrency}, a step's
     * {@code delete-concurrency}): the one range and message of that option.
     *
     * @param n delete calls in flight at once
     * @throws JanitorException USAGE when {@code n} is not between 1 and {@link ParallelDeletes#MAX_CONCURRENCY}
     */
    static void checkDeleteConcurrency(int n) throws JanitorException {
        if (n < 1 || n > ParallelDeletes.MAX_CONCURRENCY) {
            throw new JanitorException(JanitorException.Reason.USAGE, "--delete-concurrency must be between 1 and "
                    + ParallelDeletes.MAX_CONCURRENCY + ", got " + n + ".");
        }
    }
}
