package dev.ducklake.janitor.deploy;

import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.fail;

/**
 * Finds and runs Prometheus' {@code promtool} (Debian package {@code prometheus}; {@code .ci/run} installs it).
 * Missing locally: the test is skipped with a visible message; missing under {@code CI=true} or
 * {@code DUCKLAKE_JANITOR_REQUIRE_PROMTOOL=1} (set by {@code .ci/run}): the test fails.
 */
final class Promtool {

    /** What promtool printed and returned. */
    record Run(int exitCode, String output) {
    }

    private Promtool() {
    }

    static Path require() {
        Path found = find();
        if (found != null) {
            return found;
        }
        String msg = "promtool not found on PATH (apt-get install -y prometheus, as .ci/run does); the promtool checks of "
                + "deploy/prometheus are SKIPPED";
        if ("true".equalsIgnoreCase(System.getenv("CI")) || "1".equals(System.getenv("DUCKLAKE_JANITOR_REQUIRE_PROMTOOL"))) {
            fail(msg.replace("are SKIPPED", "cannot run, and CI=true / DUCKLAKE_JANITOR_REQUIRE_PROMTOOL=1 require them"));
        }
        System.err.println("WARNING: " + msg);
        Assumptions.abort(msg);
        return null;
    }

    private static Path find() {
        String path = System.getenv("PATH");
        List<String> dirs = new ArrayList<>(path == null ? List.of() : List.of(path.split(File.pathSeparator)));
        dirs.add("/usr/bin");
        for (String d : dirs) {
            Path p = Path.of(d, "promtool");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    static Run run(Path promtool, Path workDir, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(promtool.toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(workDir.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("promtool did not finish within 120 s");
        }
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
