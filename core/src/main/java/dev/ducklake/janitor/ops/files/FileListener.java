package dev.ducklake.janitor.ops.files;

import java.time.Instant;

/**
 * Receives what a storage command does to each file, as it happens, so that the CLI can print long lists without
 * the engine keeping them. The engine never prints.
 */
public interface FileListener {

    /** A listener that ignores everything. */
    FileListener NONE = new FileListener() {
    };

    /**
     * One file was (or in a dry run would be) deleted, or was kept.
     *
     * @param action {@code deleted}, {@code would_delete}, {@code kept} or {@code failed}
     * @param address the file's address as stored
     * @param sizeBytes its size in bytes, or -1 when unknown
     * @param lastModified its modification time, or null when unknown
     * @param reason why it was kept or failed (null for deletions)
     */
    default void file(String action, String address, long sizeBytes, Instant lastModified, String reason) {
    }

    /**
     * A progress line for long runs (one per batch).
     *
     * @param line the text, without a newline
     */
    default void progress(String line) {
    }
}
