package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.runtime.RunOptions;

/** What {@link StorageOperation} needs from the options of an operation that works on the catalog's files in storage. */
public interface StorageRunOptions {

    /** @return the generic run options (schema, dry run, batches, timeouts, lock) */
    RunOptions run();

    /** @return the data path to use instead of the catalog's {@code data_path}; null = the catalog's */
    String dataPathOverride();

    /** @return the metadata schema */
    default String schema() {
        return run().metadataSchema();
    }

    /** @throws JanitorException USAGE for a bad value */
    void validate() throws JanitorException;
}
