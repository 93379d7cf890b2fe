package dev.ducklake.janitor;

import java.util.List;

/**
 * The one exception type of the ducklake-janitor engine. Every failure the engine reports carries a
 * {@link Reason}, which fixes the process exit code and a hint telling the operator what to do.
 *
 * <p>Messages never contain passwords: connection details are described by host, port, database and
 * user only.
 */
public final class JanitorException extends Exception {

    private static final long serialVersionUID = 1L;

    /** Why an operation failed; each reason has its own process exit code. */
    public enum Reason {
        /** An unexpected internal error (a bug); exit code 1. */
        INTERNAL(1, "This is a bug in ducklake-janitor; please report it with the log (rerun with --verbose)."),
        /** A flag or argument is malformed or out of range; exit code 2. */
        USAGE(2, "Check the flags with --help."),
        /** The catalog database cannot be reached or refused the login; exit code 3. */
        CONNECTION(3, "Check --catalog / DUCKLAKE_JANITOR_CATALOG, the PG* variables, the password and that the server accepts connections."),
        /** The metadata schema does not exist or holds no DuckLake catalog; exit code 4. */
        NOT_A_CATALOG(4, "Point --metadata-schema at the Postgres schema that holds the ducklake_* tables (DuckLake's METADATA_SCHEMA, default public)."),
        /** The catalog's format version is not one this tool has verified; exit code 5. */
        UNSUPPORTED_VERSION(5, "Use a ducklake-janitor release that supports this DuckLake catalog format version; nothing was changed."),
        /** The catalog's state makes the operation unsafe (for example an empty ducklake_snapshot); exit code 6. */
        UNSAFE_CATALOG_STATE(6, "Inspect the catalog with DuckLake itself; nothing was changed."),
        /** Another maintenance run holds the advisory lock; exit code 7. */
        LOCK_HELD(7, "Another maintenance run holds the lock; retry later, or find the holder in pg_locks / pg_stat_activity."),
        /** The database user lacks a privilege the operation needs; exit code 8. */
        PERMISSION_DENIED(8, "Grant the privileges listed in the README for this command, or run as the catalog owner."),
        /** A database error persisted after the retries (or the server did not come back); exit code 9. */
        DATABASE_ERROR(9, "Fix the cause named in the message and rerun (a maintenance run keeps the batches it "
                + "committed; they are consistent)."),
        /** The operator declined the interactive confirmation; exit code 10. */
        ABORTED(10, "Nothing was changed. Pass --yes to skip the confirmation."),
        /** A configuration file is unreadable or invalid; exit code 11. */
        CONFIG(11, "Fix the configuration file named in the message."),
        /** The run completed but left findings for the operator (check found damage; cleanup kept rows it must not act on); exit code 12. */
        FINDINGS(12, "Read the findings in the output: each names the command that fixes it, or why nothing should be done automatically."),
        /** The file store (local disk or S3) could not be reached, listed or written, or its credentials are missing; exit code 13. */
        STORAGE(13, "Check the data path (or --data-path), the storage credentials (the AWS SDK default chain for S3) and that the store is reachable."),
        /** delete-orphan-files refused: the data path is empty or a root (/, a bucket without a prefix); exit code 14. */
        BRAKE_ROOT_PATH(14, "Point the data path (or --data-path) at the lake's own directory or prefix; a root is only swept when confirmed with the flag named in the message."),
        /** delete-orphan-files refused: no file the catalog knows was found under the data path (wrong location or override); exit code 15. */
        BRAKE_NO_KNOWN_FILES(15, "Check the data path and --data-path: the listing must contain the catalog's own data files. Nothing was deleted."),
        /** delete-orphan-files refused: the candidates exceed --max-orphan-ratio of the listed files; exit code 16. */
        BRAKE_ORPHAN_RATIO(16, "Review the dry-run list; if the files really are orphans, raise --max-orphan-ratio for one run. Nothing was deleted."),
        /**
         * delete-orphan-files refused: DuckLake-named candidates lie in table folders that no consulted catalog knows and
         * that hold no known file (a catalog it cannot see, e.g. on another server, may own them); exit code 17.
         */
        BRAKE_UNKNOWN_TABLE_FOLDERS(17, "Find the catalog that owns the folders named in the message and pass it with --also-catalog; "
                + "if they really are orphans, pass --allow-unknown-table-folders for one run. Nothing was deleted."),
        /**
         * delete-orphan-files refused: an orphan candidate has the path of a file a consulted catalog names under another
         * scheme, authority or host (s3 vs r2/gs, another endpoint): the two may be one object; exit code 18.
         */
        BRAKE_NEAR_MATCH(18, "Check whether the two spellings named in the message reach the same object; if so, make the "
                + "catalog's paths and the swept data path agree (--data-path in the catalog's spelling, or the catalog's own "
                + "data_path); if they are different objects, delete the listed ones by hand. Nothing was deleted."),
        /**
         * The catalog connection goes through a pooler in transaction (or statement) mode and the command needs state
         * that lives longer than one transaction (a session advisory lock, a temporary table, a WITH HOLD cursor);
         * refused at start, nothing changed; exit code 19.
         */
        POOLER_MODE(19, "Point --catalog at the PostgreSQL server itself or at a session-mode pool (PgBouncer pool_mode = session); "
                + "check and metrics also work through a transaction-mode pool. Nothing was changed."),
        /**
         * flush-inlined-data / compact refused before attaching: DuckDB's ATTACH of the catalog would scan a bloated
         * metadata schema (too many inlined tables, registered or leaked, or pg_attribute rows: every one is read by
         * ATTACH, minutes and GiB at 200,000 tables); nothing changed; exit code 20.
         */
        ATTACH_BLOATED(20, "Run drop-orphan-inline-tables (and expire-snapshots) first so that the metadata schema shrinks, "
                + "or raise the threshold named in the message for one run. Nothing was changed."),
        /**
         * A command's engine is not there: flush-inlined-data / compact cannot run DuckLake's engine (DuckDB's JDBC driver
         * or the ducklake/postgres extension is missing, or the catalog's format is one the engine cannot write), or
         * demo / bench cannot start the embedded PostgreSQL (its binaries are not next to the jar); nothing changed;
         * exit code 21.
         */
        ENGINE_UNAVAILABLE(21, "Put the jar named in the message where the message says (the build's target/lib/ holds "
                + "them): DuckDB's JDBC driver, with the extensions in --duckdb-extension-dir (or DuckDB's extension "
                + "repository), for flush-inlined-data and compact; the embedded PostgreSQL binaries for demo and bench. For a "
                + "catalog format the engine cannot write, use a DuckDB release that writes it. Nothing was changed.");

        private final int exitCode;
        private final String hint;

        Reason(int exitCode, String hint) {
            this.exitCode = exitCode;
            this.hint = hint;
        }

        /** The process exit code for this reason (1 to 21; 0 is success). */
        public int exitCode() {
            return exitCode;
        }

        /** One sentence telling the operator what to do about it. */
        public String hint() {
            return hint;
        }

        /**
         * Reasons most severe first, for the exit code of a run over several schemas (the worst wins): a bug,
         * then a database error after retries and a lost connection (work may be half done), storage, a missing
         * privilege, an unsafe catalog state, an unsupported format version, DuckLake's engine unavailable (driver,
         * extension or a format it cannot write), not a catalog, the delete-orphan-files brakes, a bloated catalog that ATTACH
         * would scan, a connection pooler in transaction mode, configuration and usage errors, a declined confirmation, the advisory lock
         * held by another run (retry later), done with findings. Success (exit 0) ranks below all.
         */
        private static final List<Reason> MOST_SEVERE_FIRST = List.of(INTERNAL, DATABASE_ERROR, CONNECTION, STORAGE,
                PERMISSION_DENIED, UNSAFE_CATALOG_STATE, UNSUPPORTED_VERSION, ENGINE_UNAVAILABLE, NOT_A_CATALOG, BRAKE_ROOT_PATH,
                BRAKE_NO_KNOWN_FILES, BRAKE_ORPHAN_RATIO, BRAKE_UNKNOWN_TABLE_FOLDERS, BRAKE_NEAR_MATCH, ATTACH_BLOATED, POOLER_MODE, CONFIG, USAGE,
                ABORTED, LOCK_HELD, FINDINGS);

        /**
         * {@link #exitCodesBySeverity()} as help text shows it, a compile-time constant so that picocli descriptions can
         * quote it ({@code ReasonTest} fails when it drifts from the list).
         */
        public static final String EXIT_CODE_ORDER = "1 > 9 > 3 > 13 > 8 > 6 > 5 > 21 > 4 > 14 > 15 > 16 > 17 > 18 > 20 > 19 > 11 > 2 > 10 > 7 > 12 > 0";

        /**
         * The exit codes most severe first, ending with 0 (success).
         *
         * @return e.g. {@code [1, 9, 3, 13, 8, 6, 5, 21, 4, 14, 15, 16, 17, 18, 20, 19, 11, 2, 10, 7, 12, 0]}
         */
        public static List<Integer> exitCodesBySeverity() {
            List<Integer> codes = new java.util.ArrayList<>(MOST_SEVERE_FIRST.stream().map(Reason::exitCode).toList());
            codes.add(0);
            return List.copyOf(codes);
        }

        /**
         * The more severe of two exit codes by {@link #exitCodesBySeverity()}; a code not in that list (a signal's
         * 130/143) counts as the most severe.
         *
         * @param a an exit code
         * @param b another
         * @return the worse one
         */
        public static int worseExitCode(int a, int b) {
            List<Integer> order = exitCodesBySeverity();
            int ra = order.indexOf(a);
            int rb = order.indexOf(b);
            return (ra < 0 ? -1 : ra) <= (rb < 0 ? -1 : rb) ? a : b;
        }
    }

    private final Reason reason;

    /**
     * @param reason why the operation failed (fixes the exit code)
     * @param message what is wrong, naming the object concerned; must not contain a password
     */
    public JanitorException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    /**
     * @param reason why the operation failed (fixes the exit code)
     * @param message what is wrong, naming the object concerned; must not contain a password
     * @param cause the underlying error (kept for --verbose output)
     */
    public JanitorException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /** Why the operation failed. */
    public Reason reason() {
        return reason;
    }
}
