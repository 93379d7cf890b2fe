package dev.ducklake.janitor.testsupport;

import dev.ducklake.janitor.cli.Main;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;

/** Runs the CLI in-process and captures its exit code, stdout and stderr. */
public final class Cli {

    /** What a CLI run printed and returned. */
    public record Run(int exitCode, String out, String err) {
        /** stdout and stderr together. */
        public String all() {
            return out + "\n" + err;
        }
    }

    private Cli() {
    }

    /** Runs with an empty environment (no PG* variables leak in from the machine). */
    public static Run run(String... args) {
        return run(Map.of(), args);
    }

    /** Runs with the given environment variables only. */
    public static Run run(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.execute(args, new PrintWriter(out, true), new PrintWriter(err, true), new HashMap<>(env));
        return new Run(code, out.toString(), err.toString());
    }
}
