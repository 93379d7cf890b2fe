package dev.ducklake.janitor.cli;

import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;

/**
 * The fields every subcommand that works on a catalog shares: the parent command (environment), picocli's spec
 * (output and error writers), the connection options, {@code --output} and {@code --verbose}. picocli injects the
 * annotated fields of this superclass into each subcommand; the help text sorts options by name, so where they are
 * declared does not change it.
 */
abstract class CatalogCommand {

    @ParentCommand
    JanitorCommand parent;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    CatalogOptions catalog;

    @Mixin
    OutputOptions output;

    @Mixin
    VerboseOption verbose;
}
