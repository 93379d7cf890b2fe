package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 28 item 3: under a non-UTF-8 locale the JVM decodes listed file names with the locale's charset
 * ({@code sun.jnu.encoding}), so a registered {@code import_ë/part.parquet} looked unknown and was deleted. The storage
 * commands now refuse to run on local storage unless file names decode as UTF-8. Run in a child JVM: the property is
 * fixed at JVM start from LANG/LC_ALL (this machine has only the C and C.UTF-8 locales; an unknown locale such as
 * en_US.ISO-8859-1 falls back to ASCII as well).
 */
class FileNameLocaleTest {

    private static final Duration OLD = Duration.ofDays(3);

    @TempDir
    Path dir;

    private static Process start(Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.environment().put("PATH", "/usr/bin:/bin");
        return pb.start();
    }

    @Test
    void aNonUtf8LocaleRefusesInsteadOfDeletingALiveNonAsciiFile() throws Exception {
        Path lake = dir.resolve("lake");
        FileCatalog cat = FileCatalog.create("loc_dof", lake + "/");
        cat.addTable(2, "t/", true);
        Path live = FileCatalog.file(lake.resolve("main/t/import_ë/part.parquet"), OLD);
        cat.dataFile(2, "import_ë/part.parquet", true);
        for (int i = 0; i < 4; i++) {
            FileCatalog.file(lake.resolve("main/t/k" + i + ".parquet"), OLD);
            cat.dataFile(2, "k" + i + ".parquet", true);
        }
        String[] args = {"delete-orphan-files", "--catalog", TestPostgres.get().url(), "--metadata-schema", cat.schema,
            "--yes", "--output", "json"};
        for (Map<String, String> env : List.of(Map.of("LC_ALL", "C"), Map.of("LANG", "en_US.ISO-8859-1"))) {
            Process p = start(env, args);
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(env + ": " + out + err).isEqualTo(13);
            assertThat(out + err).as(env.toString()).contains("sun.jnu.encoding").contains("LC_ALL");
            assertThat(out).as("the result document is printed").contains("\"exit_code\"");
            assertThat(Files.exists(live)).as(env.toString()).isTrue();
        }
        // with a UTF-8 locale the same run deletes nothing live
        Process p = start(Map.of("LC_ALL", "C.UTF-8"), args);
        String all = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                + new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(all).isZero();
        assertThat(Files.exists(live)).isTrue();
    }
}
