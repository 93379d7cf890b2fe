package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.maintain.OptionKind;
import dev.ducklake.janitor.ops.files.AgeThreshold;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.ops.files.StorageOptionsBuilder;
import dev.ducklake.janitor.ops.files.StorageRunOptions;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.FileStores;
import dev.ducklake.janitor.storage.PathResolver;
import dev.ducklake.janitor.storage.StorageException;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;

/** Flags shared by cleanup-old-files and delete-orphan-files: where the files are, how old they must be. */
public final class StorageOptions {

    /** Where the files are: --data-path and the S3 flags. */
    @Mixin
    StoreOptions store;

    @StepOptions.Kind(OptionKind.DURATION_OR_INSTANT)
    @Option(names = "--older-than", paramLabel = "AGE",
            description = "Age limit: a duration (2d, 36h, 90m, 1w, P2D, '2 days') or an ISO-8601 instant with an offset "
                    + "(2026-11-30T00:00:00Z). Default: the catalog's delete_older_than option, else 2 days (as DuckLake).")
    String olderThan;

    @StepOptions.Kind(OptionKind.DURATION)
    @Option(names = "--min-age", paramLabel = "AGE",
            description = "Floor for --older-than, same spellings as a duration: an --older-than younger than this is refused "
                    + "(a catalog option younger than this is raised to it). Negative values are refused; below the command's "
                    + "floor (delete-orphan-files 24h, cleanup-old-files 1h) only with --allow-short-retention. "
                    + "Default: the command's floor.")
    String minAge;

    @Option(names = "--allow-short-retention",
            description = "Allow --min-age below the command's floor (delete-orphan-files 24h, as Iceberg's orphan procedure; "
                    + "cleanup-old-files 1h): files that young may belong to a commit in flight. Logged, shown in the result "
                    + "(allow_short_retention) and on pushed gauges (label short_retention). Default: off.")
    boolean allowShortRetention;

    @Option(names = "--delete-concurrency", paramLabel = "N",
            description = "Delete calls in flight at once (1 to 64): S3 DeleteObjects requests of up to 1,000 keys, local "
                    + "unlinks in pieces. 1 deletes one call at a time. The store's answers stay exact per file (a queue row "
                    + "goes only after its file is gone) and throttling (SlowDown) lowers the concurrency until calls succeed. "
                    + "Default: 8 on an object store, 4 on a local file system.")
    Integer deleteConcurrency;

    /**
     * Sets the shared storage options of a command's options builder from these flags; an option whose flag was not
     * given keeps the builder's default (the catalog's data path and age limit, the command's floor, the store's
     * concurrency).
     *
     * @param b the command's options builder
     * @param <B> its type
     * @return {@code b}
     * @throws JanitorException USAGE for a malformed --older-than or --min-age, or a --delete-concurrency under 1 (the
     *     options refuse one above the maximum)
     */
    <B extends StorageOptionsBuilder<B, ?>> B applyTo(B b) throws JanitorException {
        if (olderThan != null) {
            b.olderThan(olderThan());
        }
        if (minAge != null) {
            b.minAge(minAge());
        }
        if (deleteConcurrency != null && deleteConcurrency < 1) {
            // 0 is the options' "store's default", not a value of the flag; one above the maximum the options refuse
            // (validateShared), with the same range and words
            StorageRunOptions.checkDeleteConcurrency(deleteConcurrency);
        }
        b.dataPath(store.dataPath).allowShortRetention(allowShortRetention).deleteConcurrency(deleteConcurrency == null ? 0 : deleteConcurrency);
        return b;
    }

    private AgeThreshold olderThan() throws JanitorException {
        try {
            return AgeThreshold.parse(olderThan);
        } catch (IllegalArgumentException e) {
            throw new JanitorException(Reason.USAGE, "--older-than: " + e.getMessage() + ".");
        }
    }

    /** @return --min-age as a duration of 0 or more */
    private Duration minAge() throws JanitorException {
        try {
            AgeThreshold t = AgeThreshold.parse(minAge);
            if (t.instant() != null || t.months() != 0) {
                throw new IllegalArgumentException("'" + minAge + "' is not a plain duration");
            }
            if (t.duration().isNegative()) {
                throw new IllegalArgumentException("'" + minAge + "' is negative; give 0 or more");
            }
            return t.duration();
        } catch (IllegalArgumentException e) {
            throw new JanitorException(Reason.USAGE, "--min-age: " + e.getMessage() + " (e.g. 1h, 30m, 0s).");
        }
    }

    /**
     * Prints each file event as a tab-separated line to stdout.
     *
     * @param out stdout
     * @param silent true for no lines (JSON output, or a text summary without --verbose)
     * @return the listener
     */
    static FileListener printer(PrintWriter out, boolean silent) {
        return new FileListener() {
            @Override
            public void file(String action, String address, long size, Instant mtime, String reason) {
                if (silent) {
                    return;
                }
                // one event, one line: a path or reason with a newline must not forge a second event line
                out.println(action + "\t" + Sql.lineSafe(address) + "\t" + (size < 0 ? "-" : size + " B")
                        + (mtime == null ? "" : "\tmodified " + mtime) + (reason == null ? "" : "\t(" + Sql.lineSafe(reason) + ")"));
                out.flush();
            }
        };
    }
}
