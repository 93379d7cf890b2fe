package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.ops.MaintenanceResult;
import dev.ducklake.janitor.ops.files.FileListener;
import picocli.CommandLine.Mixin;

/**
 * Base of the subcommands that work on the catalog's files in storage (cleanup-old-files, delete-orphan-files): adds
 * the {@link StorageOptions} flags to {@link MaintenanceCommand}'s, and prints each file event in text output.
 *
 * @param <R> the operation's result
 */
abstract class StorageCommand<R extends MaintenanceResult> extends MaintenanceCommand<R> {

    @Mixin
    StorageOptions storage;

    StorageCommand(String operation) {
        super(operation);
    }

    /** @return the listener that prints each file as a line on stdout (nothing with {@code --output json}) */
    final FileListener filePrinter() {
        return StorageOptions.printer(spec.commandLine().getOut(), output.json());
    }
}
