package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.runtime.RunRecorder;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.SqlState;

import java.sql.SQLException;
import java.time.Instant;

/** Shared pieces of the storage actions: database failures as clean errors, progress into the run's recorder. */
public final class StorageFailures {

    private StorageFailures() {
    }

    /**
     * A database failure of a storage command: connection lost (exit 3), missing privilege (8), else exit 9.
     * Batches committed before stay committed; a rerun continues where this one stopped.
     *
     * @param e the failure
     * @param spec the catalog database (for redaction), may be null
     * @return the exception to throw
     */
    public static JanitorException database(SQLException e, ConnectionSpec spec) {
        String msg = spec == null ? String.valueOf(e.getMessage()) : spec.redact(String.valueOf(e.getMessage()));
        return switch (SqlState.classify(e)) {
            case CONNECTION_LOST -> new JanitorException(Reason.CONNECTION, "The catalog connection was lost: " + msg
                    + ". Batches committed before stay committed; rerun to continue.", e);
            case PERMISSION_DENIED -> new JanitorException(Reason.PERMISSION_DENIED, msg, e);
            default -> new JanitorException(Reason.DATABASE_ERROR, msg + ". Batches committed before stay committed.", e);
        };
    }

    /**
     * A file listener that also sends its progress lines to the run's recorder (and so to the progress printer).
     *
     * @param files the listener of file events
     * @param recorder the run's recorder
     * @return the combined listener
     */
    public static FileListener withProgress(FileListener files, RunRecorder recorder) {
        return new FileListener() {
            @Override
            public void file(String action, String address, long sizeBytes, Instant lastModified, String reason) {
                files.file(action, address, sizeBytes, lastModified, reason);
            }

            @Override
            public void progress(String line) {
                recorder.info(line);
            }
        };
    }
}
