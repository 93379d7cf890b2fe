package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.metrics.MetricsConfig;
import dev.ducklake.janitor.metrics.StorageGauges;
import dev.ducklake.janitor.metrics.TargetConfig;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Options of {@code metrics} and {@code serve} for the storage gauges (check --storage's counts): opt-in, bounded. */
public final class MetricsStorageOptions {

    @Option(names = "--storage",
            description = "Also list each catalog's data path and export check --storage's counts: ducklake_check_findings for "
                    + "missing_data_files, missing_delete_files and size_mismatch_files, ducklake_storage_listed_objects, "
                    + "_compared_files and _unchecked_files, and ducklake_janitor_storage_check_success (0 when the comparison "
                    + "failed; the catalog gauges are unaffected). Listing is expensive: serve runs it apart from the catalog "
                    + "collection, every --storage-interval. Needs list access to the store (S3 credentials from the AWS SDK "
                    + "default chain) and TEMP on the database. Default: off.")
    boolean storage;

    @Option(names = "--storage-timeout", paramLabel = "SECONDS",
            description = "Bound of one storage comparison of a catalog (every schema's listing and merge), in seconds; past it "
                    + "the comparison is ended and counts as failed. Each statement also runs under --statement-timeout. "
                    + "Default: 600.")
    Double storageTimeout;

    @Mixin
    StoreOptions store;

    /**
     * The storage gauges of every configured catalog, or none without --storage.
     *
     * @param cfg the configured catalogs
     * @param log where failures go
     * @return one per catalog (empty without --storage)
     * @throws JanitorException USAGE for store flags without --storage, --data-path with several catalogs, or a bad timeout
     */
    List<StorageGauges> build(MetricsConfig cfg, Consumer<String> log) throws JanitorException {
        if (!storage) {
            if (store.given() || storageTimeout != null) {
                throw new JanitorException(Reason.USAGE, "--storage-timeout, --data-path and the --s3-* flags only apply with --storage.");
            }
            return List.of();
        }
        if (storageTimeout != null && (!(storageTimeout > 0) || storageTimeout > 86_400)) {
            throw new JanitorException(Reason.USAGE, "--storage-timeout must be more than 0 and at most 86400 seconds, got "
                    + Render.number(storageTimeout) + ".");
        }
        if (store.dataPath != null && cfg.catalogs().size() != 1) {
            throw new JanitorException(Reason.USAGE, "--data-path names one catalog's data path; the configuration has "
                    + cfg.catalogs().size() + " catalogs.");
        }
        Duration timeout = storageTimeout == null ? StorageGauges.DEFAULT_TIMEOUT : dev.ducklake.janitor.Durations.ofSeconds(storageTimeout);
        List<StorageGauges> out = new ArrayList<>();
        for (TargetConfig t : cfg.catalogs()) {
            out.add(new StorageGauges(t, store::open, store.dataPath, timeout, log));
        }
        return out;
    }
}
