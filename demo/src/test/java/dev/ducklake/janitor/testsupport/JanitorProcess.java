package dev.ducklake.janitor.testsupport;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The janitor as a real, separate JVM process (same classpath as the tests), so that tests can kill it with
 * SIGKILL or run two at once.
 */
public final class JanitorProcess {

    private final Process process;
    private final Path stdout;
    private final Path stderr;

    private JanitorProcess(Process process, Path stdout, Path stderr) {
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /**
     * Starts {@code java -cp <test classpath> dev.ducklake.janitor.cli.Main <args>}.
     *
     * @param env extra environment variables (the PG* variables of this JVM are removed)
     * @param args the CLI arguments
     * @return the running process
     * @throws IOException when the JVM cannot be started
     */
    public static JanitorProcess start(Map<String, String> env, String... args) throws IOException {
        return startWithout(null, env, args);
    }

    /**
     * As {@link #start}, with the classpath entries whose file name contains {@code missing} left out (a jar the product
     * loads by name, such as DuckDB's JDBC driver, absent as on a host that did not install it).
     *
     * @param missing part of the file name of the entries to leave out, or null for none
     */
    public static JanitorProcess startWithout(String missing, Map<String, String> env, String... args) throws IOException {
        String classpath = System.getProperty("java.class.path");
        if (missing != null) {
            List<String> kept = new ArrayList<>();
            for (String e : classpath.split(java.io.File.pathSeparator)) {
                if (!Path.of(e).getFileName().toString().contains(missing)) {
                    kept.add(e);
                }
            }
            classpath = String.join(java.io.File.pathSeparator, kept);
        }
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Xshare:auto");
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add("dev.ducklake.janitor.cli.Main");
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().keySet().removeIf(k -> k.startsWith("PG") || k.startsWith("DUCKLAKE_JANITOR"));
        pb.environment().putAll(env);
        Path out = Files.createTempFile("janitor-out", ".txt");
        Path err = Files.createTempFile("janitor-err", ".txt");
        pb.redirectOutput(out.toFile());
        pb.redirectError(err.toFile());
        return new JanitorProcess(pb.start(), out, err);
    }

    /** The process. */
    public Process process() {
        return process;
    }

    /** Waits for the exit, at most {@code seconds}, and returns the exit code (kills and fails on timeout). */
    public int waitFor(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("the janitor process did not finish within " + seconds + " s; stderr: " + err());
        }
        return process.exitValue();
    }

    /** SIGKILL, then waits for the process to be gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /**
     * SIGTERM (a polite stop, as from Kubernetes or cron's timeout), then waits at most {@code seconds} for the exit.
     *
     * @return the exit code
     */
    public int terminate(long seconds) throws InterruptedException {
        process.destroy();
        return waitFor(seconds);
    }

    /** What the process printed on stdout so far. */
    public String out() {
        return read(stdout);
    }

    /** What the process printed on stderr so far. */
    public String err() {
        return read(stderr);
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return "<unreadable: " + e + ">";
        }
    }

    /** Deletes the captured output files. */
    public void cleanup() {
        for (Path p : List.of(stdout, stderr)) {
            new File(p.toString()).delete();
        }
    }
}
