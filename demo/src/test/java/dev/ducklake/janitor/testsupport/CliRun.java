package dev.ducklake.janitor.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.cli.Main;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

/**
 * Runs the {@code ducklake-janitor} command in-process and captures its exit code, stdout and stderr.
 *
 * @param exitCode the exit code
 * @param out what went to stdout
 * @param err what went to stderr
 */
public record CliRun(int exitCode, String out, String err) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Runs with an empty environment (no PG* variables leak in from the machine). */
    public static CliRun run(String... args) {
        return run(Map.of(), args);
    }

    /** Runs with the given environment. */
    public static CliRun run(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.execute(args, new PrintWriter(out, true), new PrintWriter(err, true), env);
        return new CliRun(code, out.toString(), err.toString());
    }

    /** @return stdout and stderr together */
    public String all() {
        return out + "\n" + err;
    }

    /** stdout parsed as one JSON document. */
    public JsonNode json() {
        try {
            return JSON.readTree(out);
        } catch (Exception e) {
            throw new AssertionError("stdout is not one JSON document: " + out + "\nstderr: " + err, e);
        }
    }

    @Override
    public String toString() {
        return "exit " + exitCode + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
    }
}
