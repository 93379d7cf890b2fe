package dev.ducklake.janitor.cli;

import picocli.CommandLine.Option;

/** The --output mixin of commands that print a result (text or one JSON document on stdout). */
public final class OutputOptions {

    /** Output format. */
    public enum Output { text, json }

    @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "text",
            description = "Result format on stdout: text or json (one JSON document; progress and logs go to stderr). Default: ${DEFAULT-VALUE}.")
    Output output;

    /** @return whether stdout carries one JSON document */
    boolean json() {
        return output == Output.json;
    }
}
