package dev.ducklake.janitor.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The main sources of every Maven module (issue 25), for the tests that read the sources as text (package arrows, SQL
 * scans, source shape). Paths are relative to the repository root, the tests' working directory. A scan that finds no
 * file fails here instead of passing on nothing.
 */
public final class ModuleSources {

    /** The modules, in the order of the reactor. */
    public static final List<String> MODULES = List.of("core", "cli", "demo");

    private ModuleSources() {
    }

    /**
     * @param module one of {@link #MODULES}
     * @return its {@code src/main/java}
     * @throws AssertionError when the folder is missing
     */
    public static Path root(String module) {
        Path root = Path.of(module, "src", "main", "java");
        if (!Files.isDirectory(root)) {
            throw new AssertionError(root.toAbsolutePath() + " is missing: the tests run from the repository root");
        }
        return root;
    }

    /** @return every module's {@code src/main/java} */
    public static List<Path> roots() {
        return MODULES.stream().map(ModuleSources::root).toList();
    }

    /**
     * @return every {@code .java} file under every module's {@code src/main/java}, sorted per module
     * @throws AssertionError when a module holds no source file
     */
    public static Stream<Path> walk() throws IOException {
        List<Path> all = new ArrayList<>();
        for (Path root : roots()) {
            try (Stream<Path> files = Files.walk(root)) {
                List<Path> found = files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
                if (found.isEmpty()) {
                    throw new AssertionError(root + " holds no .java file: the source scans would check nothing");
                }
                all.addAll(found);
            }
        }
        return all.stream();
    }
}
