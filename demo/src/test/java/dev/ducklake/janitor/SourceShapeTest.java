package dev.ducklake.janitor;

import dev.ducklake.janitor.testsupport.ModuleSources;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two of issue 25's rules, kept by the build instead of by reviews: no class grows back into a god class (every source
 * file under every module's {@code src/main/java} stays at or below {@value #MAX_LINES} lines, counted as {@code wc -l} counts them;
 * fixes grew five classes past it in one stop unnoticed), and every top-level class has a simple name no other has
 * (three operations each had a {@code Tally}).
 */
class SourceShapeTest {

    /** The most lines a source file may have. */
    static final int MAX_LINES = 500;

    @Test
    void noSourceFileIsOverTheLimit() throws Exception {
        List<String> over = new ArrayList<>();
        try (Stream<Path> files = ModuleSources.walk()) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                long lines = Files.readAllLines(f).size();
                if (lines > MAX_LINES) {
                    over.add(f + " (" + lines + " lines)");
                }
            }
        }
        assertThat(over).as("split these into cohesive classes of at most %d lines", MAX_LINES).isEmpty();
    }

    @Test
    void noTwoSourceFilesShareASimpleName() throws Exception {
        java.util.Map<String, List<String>> byName = new java.util.TreeMap<>();
        try (Stream<Path> files = ModuleSources.walk()) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                String name = f.getFileName().toString();
                if (!name.equals("package-info.java")) {
                    byName.computeIfAbsent(name, k -> new ArrayList<>()).add(f.getParent().toString());
                }
            }
        }
        byName.values().removeIf(places -> places.size() < 2);
        assertThat(byName).as("name each class for what it is in its package").isEmpty();
    }
}
