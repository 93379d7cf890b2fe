package dev.ducklake.janitor.cli;

import picocli.CommandLine.Option;

/** The --verbose mixin (read by {@link ErrorHandler} by name, and by commands that print more detail). */
@StepOptions.CliOnly
public final class VerboseOption {

    @Option(names = "--verbose", descriptionKey = "verbose", description = "Print stack traces of errors and debug details to stderr. Default: off.")
    boolean verbose;
}
