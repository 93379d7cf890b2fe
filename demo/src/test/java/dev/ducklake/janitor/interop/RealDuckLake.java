package dev.ducklake.janitor.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Real DuckDB + DuckLake, driven through {@code src/test/python/ducklake_driver.py} in the venv made by
 * {@code scripts/install-ducklake-test-env.sh}.
 *
 * <p>Where the venv is: system property or environment variable {@code DUCKLAKE_JANITOR_INTEROP_VENV},
 * default {@code .venv-interop/} in the project directory. When it is missing or broken the interop
 * tests are skipped with a message, unless {@code DUCKLAKE_JANITOR_REQUIRE_INTEROP=1} (system property or
 * environment variable; {@code .ci/run} sets it), in which case they fail.
 *
 * <p>Older, leaking DuckLake releases ({@link #release(String)}, e.g. 1.5.2 and 1.4.4) live in one venv per
 * release, {@code .venv-interop-releases/<release>/} in the project directory (the folder is overridden by
 * {@code DUCKLAKE_JANITOR_INTEROP_RELEASES}), installed by the same script from
 * {@code src/test/python/requirements-interop-<release>.txt}; the same skip/fail rule applies.
 */
public final class RealDuckLake {

    public static final ObjectMapper JSON = new ObjectMapper();
    private static final String VENV_KEY = "DUCKLAKE_JANITOR_INTEROP_VENV";
    private static final String REQUIRE_KEY = "DUCKLAKE_JANITOR_REQUIRE_INTEROP";
    private static final String RELEASES_KEY = "DUCKLAKE_JANITOR_INTEROP_RELEASES";
    private static final java.util.Map<String, Object> RELEASES = new java.util.concurrent.ConcurrentHashMap<>();
    private static final long DEFAULT_TIMEOUT_S = 300;

    private static volatile RealDuckLake instance;
    private static volatile String unavailableReason;
    private static volatile boolean skipWarned;

    private final Path python;
    private final Path driver;
    private final JsonNode check;

    private RealDuckLake(Path python, Path driver, JsonNode check) {
        this.python = python;
        this.driver = driver;
        this.check = check;
    }

    /** Whether the interop tests must run (CI): then a missing DuckLake is a failure, not a skip. */
    public static boolean required() {
        String v = System.getProperty(REQUIRE_KEY, System.getenv(REQUIRE_KEY));
        return v != null && (v.equals("1") || v.equalsIgnoreCase("true") || v.equalsIgnoreCase("yes"));
    }

    /**
     * The real DuckLake, or a skip (JUnit assumption) / failure when it is not installed.
     *
     * @return the runtime, checked once per JVM
     */
    public static RealDuckLake require() {
        RealDuckLake r = instance;
        if (r == null && unavailableReason == null) {
            synchronized (RealDuckLake.class) {
                if (instance == null && unavailableReason == null) {
                    try {
                        instance = locate();
                    } catch (Exception e) {
                        unavailableReason = e.getMessage();
                    }
                }
                r = instance;
            }
        }
        if (r != null) {
            return r;
        }
        String msg = "real DuckLake is not available for the interop tests: " + unavailableReason
                + " -- run scripts/install-ducklake-test-env.sh (or set " + VENV_KEY + ")";
        if (required()) {
            throw new AssertionError(msg + "; " + REQUIRE_KEY + "=1 is set, so this is a failure");
        }
        if (!skipWarned) {
            skipWarned = true;
            System.err.println("WARNING: " + msg + "; the interop tests are SKIPPED (set " + REQUIRE_KEY
                    + "=1 to fail instead)");
        }
        Assumptions.abort(msg + "; skipping (set " + REQUIRE_KEY + "=1 to fail instead)");
        throw new IllegalStateException("unreachable");
    }

    /**
     * A pinned older DuckLake release (DuckDB, ducklake and postgres_scanner all of that version), or a skip /
     * failure (as {@link #require()}) when its venv is missing, broken or runs another DuckDB version.
     *
     * @param version the release, e.g. {@code 1.5.2}
     * @return the runtime, checked once per JVM and release
     */
    public static RealDuckLake release(String version) {
        Object found = RELEASES.computeIfAbsent(version, v -> {
            String dirSetting = System.getProperty(RELEASES_KEY, System.getenv(RELEASES_KEY));
            Path dir = dirSetting != null && !dirSetting.isBlank() ? Paths.get(dirSetting)
                    : projectDir().resolve(".venv-interop-releases");
            try {
                RealDuckLake r = locate(dir.resolve(v));
                if (!v.equals(r.duckdbVersion())) {
                    return "the venv " + dir.resolve(v) + " runs DuckDB " + r.duckdbVersion() + ", not " + v;
                }
                return r;
            } catch (Exception e) {
                return String.valueOf(e.getMessage());
            }
        });
        if (found instanceof RealDuckLake r) {
            return r;
        }
        String msg = "DuckLake release " + version + " is not available for the interop tests: " + found
                + " -- run scripts/install-ducklake-test-env.sh " + version + " (or set " + RELEASES_KEY + ")";
        if (required()) {
            throw new AssertionError(msg + "; " + REQUIRE_KEY + "=1 is set, so this is a failure");
        }
        System.err.println("WARNING: " + msg + "; SKIPPED (set " + REQUIRE_KEY + "=1 to fail instead)");
        Assumptions.abort(msg + "; skipping (set " + REQUIRE_KEY + "=1 to fail instead)");
        throw new IllegalStateException("unreachable");
    }

    /**
     * A DuckLake that writes format 1.1 (a build for DuckDB 2.x), installed by {@code scripts/install-ducklake-test-env.sh}
     * into {@code <releases folder>/format-1.1/} when the package index has one. Unavailable is a skip, printed as one
     * line with the reason the script recorded ({@code format-1.1.unavailable}), also under
     * {@code DUCKLAKE_JANITOR_REQUIRE_INTEROP=1}: the missing build is upstream's, not this machine's.
     *
     * @return the runtime
     */
    public static RealDuckLake format11() {
        Object found = RELEASES.computeIfAbsent("format-1.1", v -> {
            String dirSetting = System.getProperty(RELEASES_KEY, System.getenv(RELEASES_KEY));
            Path dir = dirSetting != null && !dirSetting.isBlank() ? Paths.get(dirSetting)
                    : projectDir().resolve(".venv-interop-releases");
            Path note = dir.resolve("format-1.1.unavailable");
            try {
                if (Files.exists(note)) {
                    return Files.readString(note, StandardCharsets.UTF_8).trim();
                }
                RealDuckLake r = locate(dir.resolve(v));
                if (!r.duckdbVersion().startsWith("2.")) {
                    return "the venv " + dir.resolve(v) + " runs DuckDB " + r.duckdbVersion() + ", not 2.x";
                }
                return r;
            } catch (Exception e) {
                return "no " + dir.resolve(v) + " (" + e.getMessage() + ")";
            }
        });
        if (found instanceof RealDuckLake r) {
            System.out.println("interop: proving against real DuckLake for DuckDB " + r.duckdbVersion() + " (format 1.1)");
            return r;
        }
        String msg = "SKIPPED: real DuckLake format 1.1 is not available: " + found
                + " -- run scripts/install-ducklake-test-env.sh format-1.1 once DuckLake for DuckDB 2.x is on the package index";
        System.out.println("interop: " + msg);
        Assumptions.abort(msg);
        throw new IllegalStateException("unreachable");
    }

    static Path projectDir() {
        Path p = Paths.get("").toAbsolutePath();
        for (Path q = p; q != null; q = q.getParent()) {
            if (Files.exists(q.resolve("pom.xml")) && Files.exists(q.resolve("demo/src/test/python/ducklake_driver.py"))) {
                return q;
            }
        }
        return p;
    }

    private static RealDuckLake locate() throws IOException, InterruptedException {
        String venvSetting = System.getProperty(VENV_KEY, System.getenv(VENV_KEY));
        return locate(venvSetting != null && !venvSetting.isBlank() ? Paths.get(venvSetting)
                : projectDir().resolve(".venv-interop"));
    }

    private static RealDuckLake locate(Path venv) throws IOException, InterruptedException {
        Path project = projectDir();
        Path python = venv.resolve("bin/python");
        Path driver = project.resolve("demo/src/test/python/ducklake_driver.py");
        if (!Files.isExecutable(python)) {
            throw new IllegalStateException("no Python venv at " + venv);
        }
        if (!Files.exists(driver)) {
            throw new IllegalStateException("driver missing: " + driver);
        }
        List<String> cmd = List.of(python.toString(), driver.toString(), "--check");
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("driver --check timed out");
        }
        JsonNode check;
        try {
            check = JSON.readTree(out);
        } catch (IOException e) {
            throw new IllegalStateException("driver --check printed no JSON: "
                    + new String(out, StandardCharsets.UTF_8));
        }
        if (check == null || !check.path("ok").asBoolean()) {
            throw new IllegalStateException("driver --check failed: " + check);
        }
        return new RealDuckLake(python, driver, check);
    }

    /** DuckDB version of the Python package, e.g. 1.5.5. */
    public String duckdbVersion() {
        return check.path("duckdb_version").asText();
    }

    /** The ducklake extension's version string (its source revision). */
    public String ducklakeExtensionVersion() {
        return check.path("extensions").path("ducklake").asText();
    }

    /**
     * The directory that holds the packaged {@code ducklake} and {@code postgres_scanner} extension files (the venv's
     * site-packages: each wheel keeps its file under {@code duckdb_extension_<name>/extensions/v<duckdb>/}), for
     * {@code --duckdb-extension-dir}.
     */
    public Path extensionFilesRoot() {
        Path ducklake = Paths.get(check.path("extension_files").path("ducklake").asText());
        return ducklake.getParent().getParent().getParent().getParent();
    }

    /** The postgres_scanner extension's version string. */
    public String postgresExtensionVersion() {
        return check.path("extensions").path("postgres_scanner").asText();
    }

    /** Starts a new program of steps. */
    public static Program program() {
        return new Program();
    }

    /**
     * Runs a program to completion.
     *
     * @param program the steps
     * @return the driver's result document
     */
    public Result run(Program program) {
        try {
            Running r = start(program);
            return r.await(DEFAULT_TIMEOUT_S);
        } catch (IOException e) {
            throw new IllegalStateException("cannot run the DuckLake driver", e);
        }
    }

    /**
     * Starts a program in the background (e.g. a writer that runs while the janitor works).
     *
     * @param program the steps
     * @return a handle to wait for the result
     * @throws IOException when the process cannot start
     */
    public Running start(Program program) throws IOException {
        Path specFile = Files.createTempFile("ducklake-driver-", ".json");
        Files.writeString(specFile, JSON.writeValueAsString(program.spec()));
        Path errFile = Files.createTempFile("ducklake-driver-", ".stderr");
        Process p = new ProcessBuilder(python.toString(), driver.toString(), specFile.toString())
                .redirectError(errFile.toFile())
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .start();
        p.getOutputStream().close();
        return new Running(p, specFile, errFile);
    }

    /** A driver process in flight. */
    public static final class Running {
        private final Process process;
        private final Path specFile;
        private final Path errFile;

        Running(Process process, Path specFile, Path errFile) {
            this.process = process;
            this.specFile = specFile;
            this.errFile = errFile;
        }

        /** The driver process (one DuckDB in-process: its pid is the DuckDB process measured by benchmarks). */
        Process process() {
            return process;
        }

        /**
         * Waits for the result.
         *
         * @param timeoutSeconds how long to wait before killing the driver
         * @return the result document
         */
        public Result await(long timeoutSeconds) {
            try {
                byte[] out = process.getInputStream().readAllBytes();
                if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    throw new IllegalStateException("DuckLake driver timed out after " + timeoutSeconds + " s");
                }
                String stderr = Files.readString(errFile);
                String stdout = new String(out, StandardCharsets.UTF_8);
                JsonNode doc;
                try {
                    doc = JSON.readTree(stdout);
                } catch (IOException e) {
                    throw new IllegalStateException("DuckLake driver printed no JSON (exit "
                            + process.exitValue() + "): " + stdout + "\nstderr: " + stderr);
                }
                if (doc == null) {
                    throw new IllegalStateException("DuckLake driver printed nothing (exit "
                            + process.exitValue() + "), stderr: " + stderr);
                }
                return new Result(doc, stderr);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
                throw new IllegalStateException(e);
            } finally {
                try {
                    Files.deleteIfExists(specFile);
                    Files.deleteIfExists(errFile);
                } catch (IOException ignored) {
                    // temp files only
                }
            }
        }
    }

    /** A list of driver steps, built fluently. */
    public static final class Program {
        private final ObjectNode spec = JSON.createObjectNode();
        private final ArrayNode steps = spec.putArray("steps");

        Program() {
        }

        ObjectNode spec() {
            return spec;
        }

        /** Keep executing after a failed step (default: stop at the first failure). */
        public Program continueOnError() {
            spec.put("stop_on_error", false);
            return this;
        }

        /** ATTACH the catalog (options from {@code attach}). */
        public Program attach(Attach attach) {
            ObjectNode s = steps.addObject();
            s.set("attach", attach.node());
            return this;
        }

        /** ATTACH under a step name (its outcome can then be looked up, e.g. after {@link #continueOnError}). */
        public Program attachNamed(String name, Attach attach) {
            ObjectNode s = steps.addObject();
            s.put("name", name);
            s.set("attach", attach.node());
            return this;
        }

        /** ATTACH, then time ATTACH and the first query separately. */
        public Program attachTimed(String name, Attach attach, String firstQuery) {
            ObjectNode s = steps.addObject();
            s.put("name", name);
            s.set("attach", attach.node());
            s.put("first_query", firstQuery);
            return this;
        }

        /** Execute statements in order. */
        public Program sql(String... statements) {
            return named(null, statements);
        }

        /** Execute statements in order under a step name. */
        public Program named(String name, String... statements) {
            ObjectNode s = steps.addObject();
            if (name != null) {
                s.put("name", name);
            }
            ArrayNode a = s.putArray("sql");
            for (String st : statements) {
                a.add(st);
            }
            return this;
        }

        /** Execute a query and keep its rows (sorted, so results compare as sets of rows). */
        public Program query(String name, String sql) {
            ObjectNode s = steps.addObject();
            s.put("name", name);
            s.put("query", sql);
            s.put("sort", true);
            return this;
        }

        /** A step that must fail. */
        public Program expectError(String name, String sql) {
            ObjectNode s = steps.addObject();
            s.put("name", name);
            s.put("query", sql);
            s.put("expect_error", true);
            return this;
        }

        /** An ATTACH that must fail. */
        public Program attachExpectError(String name, Attach attach) {
            ObjectNode s = steps.addObject();
            s.put("name", name);
            s.set("attach", attach.node());
            s.put("expect_error", true);
            return this;
        }

        /**
         * Repeat one statement with {@code {i}} replaced by start, start+1, ... until {@code untilFile}
         * exists (after at least {@code minIterations}) or {@code maxSeconds} pass.
         */
        public Program repeat(String name, String template, long start, Path untilFile, Path readyFile,
                              int minIterations, double maxSeconds) {
            ObjectNode s = steps.addObject();
            s.put("name", name);
            s.put("repeat", template);
            s.put("start", start);
            s.put("until_file", untilFile.toString());
            s.put("ready_file", readyFile.toString());
            s.put("min_iterations", minIterations);
            s.put("max_seconds", maxSeconds);
            return this;
        }

        /** {@link #repeat}, pausing {@code pauseSeconds} after each iteration (a writer with a bounded commit rate). */
        public Program repeat(String name, String template, long start, Path untilFile, Path readyFile,
                              int minIterations, double maxSeconds, double pauseSeconds) {
            repeat(name, template, start, untilFile, readyFile, minIterations, maxSeconds);
            ((ObjectNode) steps.get(steps.size() - 1)).put("pause_seconds", pauseSeconds);
            return this;
        }

        /** DETACH an alias. */
        public Program detach(String alias) {
            steps.addObject().put("detach", alias);
            return this;
        }
    }

    /** ATTACH options of a DuckLake on PostgreSQL. */
    public static final class Attach {
        private final ObjectNode node = JSON.createObjectNode();

        /**
         * @param libpq the libpq key/value string of the metadata database
         * @param dataPath DATA_PATH
         */
        public Attach(String libpq, String dataPath) {
            node.put("libpq", libpq);
            node.put("data_path", dataPath);
        }

        public Attach alias(String alias) {
            node.put("alias", alias);
            return this;
        }

        public Attach metadataSchema(String schema) {
            node.put("metadata_schema", schema);
            return this;
        }

        public Attach inliningRowLimit(int limit) {
            node.put("data_inlining_row_limit", limit);
            return this;
        }

        public Attach automaticMigration() {
            node.put("automatic_migration", true);
            return this;
        }

        public Attach overrideDataPath() {
            node.put("override_data_path", true);
            return this;
        }

        public Attach copy() {
            Attach a = new Attach(node.path("libpq").asText(), node.path("data_path").asText());
            a.node.setAll(node.deepCopy());
            return a;
        }

        ObjectNode node() {
            return node.deepCopy();
        }
    }

    /** The driver's answer. */
    public static final class Result {
        private final JsonNode doc;
        private final String stderr;

        Result(JsonNode doc, String stderr) {
            this.doc = doc;
            this.stderr = stderr;
        }

        public boolean ok() {
            return doc.path("ok").asBoolean();
        }

        /** The first unexpected failure, or null. */
        public String error() {
            return doc.path("error").isNull() ? null : doc.path("error").asText();
        }

        public JsonNode doc() {
            return doc;
        }

        /** Throws with the driver's error and stderr when a step failed unexpectedly. */
        public Result assertOk() {
            if (!ok()) {
                throw new AssertionError("DuckLake driver failed: " + error() + "\nstderr: " + stderr);
            }
            return this;
        }

        /** The result of the step with this name. */
        public JsonNode step(String name) {
            for (JsonNode r : doc.path("results")) {
                if (name.equals(r.path("name").asText(null))) {
                    return r;
                }
            }
            throw new AssertionError("no step named " + name + " in " + doc);
        }

        /** Rows of a named step, each row rendered as a list of strings (null as "NULL"). */
        public List<List<String>> rows(String name) {
            List<List<String>> out = new ArrayList<>();
            for (JsonNode row : step(name).path("rows")) {
                List<String> r = new ArrayList<>();
                for (JsonNode v : row) {
                    r.add(v.isNull() ? "NULL" : v.asText());
                }
                out.add(r);
            }
            return out;
        }

        /** Rows of every named step, by name (timings left out), for comparing two runs. */
        public java.util.Map<String, JsonNode> namedRows() {
            java.util.Map<String, JsonNode> out = new java.util.LinkedHashMap<>();
            for (JsonNode r : doc.path("results")) {
                String name = r.path("name").asText(null);
                if (name != null) {
                    out.put(name, r.path("rows"));
                }
            }
            return out;
        }

        /** A single long value of a named query step (first row, first column). */
        public long scalar(String name) {
            JsonNode rows = step(name).path("rows");
            if (rows.size() != 1) {
                throw new AssertionError("step " + name + " returned " + rows.size() + " rows: " + rows);
            }
            return rows.get(0).get(0).asLong();
        }

        @Override
        public String toString() {
            return doc.toString().toLowerCase(Locale.ROOT).length() > 4000
                    ? doc.toString().substring(0, 4000) + "..." : doc.toString();
        }
    }
}
