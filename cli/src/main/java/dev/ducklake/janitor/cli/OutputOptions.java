package dev.ducklake.janitor.cli;

import picocli.CommandLine.Option;

/** The --output mixin of commands that print a result (text or one JSON document on stdout). */
@StepOptions.CliOnly
public final class OutputOptions {

    /** Output format. */
    public enum Output { text, json, jsonl }

    @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "text",
            description = "Result format on stdout: text, json (one indented JSON document) or jsonl (the same document on "
                    + "one line, for appending one line per run to a log file); progress and logs go to stderr. Every JSON "
                    + "document carries started_at and finished_at (ISO-8601 UTC), errors included. Default: ${DEFAULT-VALUE}.")
    Output output;

    /** @return whether stdout carries one JSON document (json or jsonl) */
    boolean json() {
        return output != Output.text;
    }
}
