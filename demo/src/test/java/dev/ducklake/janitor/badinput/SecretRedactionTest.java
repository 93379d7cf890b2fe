package dev.ducklake.janitor.badinput;

import dev.ducklake.janitor.Secrets;
import dev.ducklake.janitor.testsupport.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 28 items 7 to 9: a password in a connection string never reaches stdout, stderr or a JSON document, whether
 * the string parses or not, whichever way it is given (--catalog, DUCKLAKE_JANITOR_CATALOG, {@code ${env:…}} or a
 * literal in the YAML of {@code maintain}, {@code metrics --config}, {@code serve --config}), in text or JSON output
 * and text or JSON log lines; a YAML syntax error never quotes the offending line; a password in --catalog is
 * warned about once, on stderr only.
 */
class SecretRedactionTest {

    private static final String S = "S3cretPW9";

    /** Password forms, each holding {@link #S} (and sometimes a second half {@code H4lf7}); unreachable hosts only. */
    private static final List<String> FORMS = List.of(
            "postgressql://bob:" + S + "@127.0.0.1:1/db",
            "postgresql:/bob:" + S + "@127.0.0.1:1/db",
            "pgsql://bob:" + S + "@127.0.0.1:1/db",
            "host=127.0.0.1 password:" + S,
            "host=127.0.0.1 port=1 password='" + S + " H4lf7",
            "host=127.0.0.1 port=1 password=" + S + " H4lf7",
            "host=127.0.0.1 port=1 password=" + S + " H4lf7 dbname=d",
            "bob:" + S + "@127.0.0.1:1/db",
            "postgresql://bob:" + S + "@127.0.0.1:notaport/db",
            "postgresql://bob:" + S + "@127.0.0.1:1/db?password:" + S,
            "postgresql://bob:" + S + "@127.0.0.1:1/db?bogus_key=1",
            "host=127.0.0.1 port=1 password=" + S + " bogus_key=1",
            "ducklake:postgres:host=127.0.0.1 password:" + S,
            "jdbc:postgresql://127.0.0.1:1/db?user=u&password=" + S + "&connect_timeout=2",
            "JDBC:POSTGRESQL://127.0.0.1:1/db?PASSWORD=" + S + "&bogus=1",
            "postgresql://bob:" + S + "@127.0.0.1:1/db?connect_timeout=2",
            "host=127.0.0.1 port=1 dbname=d password='" + S + "' connect_timeout=2",
            "ATTACH 'ducklake:postgres:host=127.0.0.1 password=" + S + "' AS lake",
            "mysql://bob:" + S + "@127.0.0.1:1/db");

    private static void assertNoSecret(CliRun run, String what) {
        assertThat(run.exitCode()).as("%s fails cleanly; stderr: %s", what, run.err()).isIn(2, 3, 11);
        assertThat(run.all()).as("%s: the password never appears", what).doesNotContain(S).doesNotContain("H4lf7");
        assertThat(run.err()).as("%s: no bug", what).doesNotContain("This is a bug");
    }

    @Test
    void theRedactionCoversEveryFormEvenWhenTheTextDoesNotParse() {
        for (String f : FORMS) {
            assertThat(Secrets.redact(f)).as(f).doesNotContain(S).doesNotContain("H4lf7");
            assertThat(Secrets.redact("error: after '" + f + "' (position 0).")).as(f).doesNotContain(S);
        }
        for (String f : List.of("PGPASSWORD=" + S, "{\"password\" : \"" + S + "\"}", "password: " + S, "    password: \"" + S,
                "sslpassword=" + S + " host=h", "pwd=" + S, "pass = " + S, "db_secret: " + S, "api_token=" + S)) {
            assertThat(Secrets.redact(f)).as(f).doesNotContain(S);
        }
        // what must survive: places, users, hosts, file names and variable names
        assertThat(Secrets.redact("Cannot connect to the catalog bob@db.example:5432/lake: the server refused the login "
                + "(password from the password file /run/secrets/pg)")).contains("bob@db.example:5432/lake").contains("/run/secrets/pg");
        assertThat(Secrets.redact("key catalogs[0].password_file: the file /x/pw cannot be read")).contains("/x/pw");
        assertThat(Secrets.redact("password_env: LAKE_PW")).contains("LAKE_PW");
        assertThat(Secrets.redact("postgresql://bob@host:5432/db?sslmode=require")).isEqualTo("postgresql://bob@host:5432/db?sslmode=require");
        assertThat(Secrets.redact("postgresql://bob:" + S + "@host/db")).isEqualTo("postgresql://bob:***@host/db");
    }

    @Test
    void catalogFlagAndEnvironmentVariableInEveryOutputMode() {
        for (String f : FORMS) {
            for (String[] mode : List.of(new String[] {}, new String[] {"--output", "json"}, new String[] {"--log-format", "json"},
                new String[] {"--output", "json", "--log-format", "json", "--verbose"})) {
                List<String> args = new ArrayList<>(List.of("check", "--catalog", f));
                args.addAll(List.of(mode));
                assertNoSecret(CliRun.run(Map.of(), args.toArray(String[]::new)), "--catalog " + f + " " + String.join(" ", mode));
                List<String> envArgs = new ArrayList<>(List.of("check"));
                envArgs.addAll(List.of(mode));
                assertNoSecret(CliRun.run(Map.of("DUCKLAKE_JANITOR_CATALOG", f), envArgs.toArray(String[]::new)),
                        "DUCKLAKE_JANITOR_CATALOG=" + f + " " + String.join(" ", mode));
            }
        }
    }

    @Test
    void aValueAfterAnUnknownOptionIsNeverEchoed() {
        CliRun spaced = CliRun.run(Map.of(), "check", "--password", S);
        assertThat(spaced.exitCode()).isEqualTo(2);
        assertThat(spaced.err()).contains("'--password'").contains("1 value not shown").doesNotContain(S);
        CliRun joined = CliRun.run(Map.of(), "check", "--pasword=" + S, "--output", "json");
        assertThat(joined.exitCode()).isEqualTo(2);
        assertThat(joined.all()).contains("'--pasword=***'").doesNotContain(S);
        CliRun stray = CliRun.run(Map.of(), "check", "--catalog", "host=127.0.0.1 port=1", S);
        assertThat(stray.exitCode()).isEqualTo(2);
        assertThat(stray.all()).doesNotContain(S);
    }

    @Test
    void aMistypedSchemeIsNamedWithoutTheRest() {
        CliRun run = CliRun.run(Map.of(), "check", "--catalog", "postgressql://bob:" + S + "@h/db");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("'postgressql:'").contains("postgresql://").doesNotContain(S);
        CliRun oneSlash = CliRun.run(Map.of(), "check", "--catalog", "postgresql:/bob:" + S + "@h/db");
        assertThat(oneSlash.err()).contains("needs two slashes").doesNotContain(S);
        CliRun colon = CliRun.run(Map.of(), "check", "--catalog", "host=h password:" + S);
        assertThat(colon.err()).contains("put '=' between a key and its value, not ':'").doesNotContain(S);
    }

    @Test
    void yamlConfigurationsOfMaintainMetricsAndServe(@TempDir Path tmp) throws Exception {
        int n = 0;
        for (String f : FORMS) {
            Map<String, String> env = new HashMap<>();
            env.put("LAKE", f);
            Path viaEnv = tmp.resolve("env" + n + ".yaml");
            Files.writeString(viaEnv, "catalogs:\n  - name: lake\n    connection: ${env:LAKE}\nmaintain:\n  - check\n");
            Path literal = tmp.resolve("lit" + n + ".yaml");
            Files.writeString(literal, "catalogs:\n  - name: lake\n    connection: '" + f.replace("'", "''") + "'\nmaintain:\n  - check\n");
            n++;
            for (Path cfg : List.of(viaEnv, literal)) {
                for (String[] mode : List.of(new String[] {}, new String[] {"--output", "json"}, new String[] {"--log-format", "json"})) {
                    List<String> m = new ArrayList<>(List.of("maintain", "--config", cfg.toString()));
                    m.addAll(List.of(mode));
                    assertNoSecret(CliRun.run(env, m.toArray(String[]::new)), "maintain " + cfg.getFileName() + " " + f);
                }
                List<String> metrics = new ArrayList<>(List.of("metrics", "--config", cfg.toString()));
                assertNoSecret(CliRun.run(env, metrics.toArray(String[]::new)), "metrics " + cfg.getFileName() + " " + f);
                metrics.addAll(List.of("--output", "json", "--log-format", "json"));
                assertNoSecret(CliRun.run(env, metrics.toArray(String[]::new)), "metrics json " + cfg.getFileName() + " " + f);
            }
        }
    }

    @Test
    void serveRefusesABadConnectionInItsConfigurationWithoutThePassword(@TempDir Path tmp) throws Exception {
        for (String f : FORMS.subList(0, 13)) {
            Path cfg = tmp.resolve("serve.yaml");
            Files.writeString(cfg, "catalogs:\n  - name: lake\n    connection: ${env:LAKE}\n");
            for (String[] mode : List.of(new String[] {}, new String[] {"--log-format", "json"})) {
                List<String> args = new ArrayList<>(List.of("serve", "--config", cfg.toString(), "--listen", "127.0.0.1:0"));
                args.addAll(List.of(mode));
                CliRun run = CliRun.run(Map.of("LAKE", f), args.toArray(String[]::new));
                assertThat(run.exitCode()).as("%s; stderr %s", f, run.err()).isEqualTo(11);
                assertNoSecret(run, "serve " + f);
            }
        }
    }

    @Test
    void yamlSyntaxErrorsNeverQuoteTheOffendingLine(@TempDir Path tmp) throws Exception {
        List<String> docs = List.of(
                "catalogs:\n  - name: lake\n    connection: postgresql://bob:" + S + "@h/db: oops\n",
                "catalogs:\n  - name: lake\n    connection: \"postgresql://bob:" + S + "@h/db\n",
                "catalogs:\n  - name: lake\n    connection: host=h\n    password: [" + S + "\n",
                "catalogs:\n  - name: lake\n\tconnection: postgresql://bob:" + S + "@h/db\n",
                "catalogs:\n  - name: lake\n    connection: postgresql://bob:" + S + "@h/db\n  - {name: b, connection: " + S + "\n");
        int n = 0;
        for (String doc : docs) {
            Path cfg = tmp.resolve("syntax" + n++ + ".yaml");
            Files.writeString(cfg, doc);
            for (String[] args : List.of(new String[] {"maintain", "--config", cfg.toString()},
                new String[] {"maintain", "--config", cfg.toString(), "--output", "json", "--log-format", "json"},
                new String[] {"metrics", "--config", cfg.toString()},
                new String[] {"metrics", "--config", cfg.toString(), "--output", "json", "--log-format", "json"},
                new String[] {"serve", "--config", cfg.toString(), "--listen", "127.0.0.1:0"})) {
                CliRun run = CliRun.run(Map.of(), args);
                assertThat(run.exitCode()).as("%s: %s", String.join(" ", args), run.err()).isEqualTo(11);
                assertThat(run.err()).as(doc).contains("line ").contains(cfg.toString());
                assertNoSecret(run, String.join(" ", args) + " on " + doc);
            }
        }
    }

    @Test
    void aPasswordOnTheCommandLineIsWarnedAboutOnceOnStderrOnly() {
        CliRun run = CliRun.run(Map.of(), "check", "--catalog", "postgresql://bob:" + S + "@127.0.0.1:1/db?connect_timeout=2",
                "--output", "json");
        assertThat(run.exitCode()).isEqualTo(3);
        String warning = "process list (/proc/<pid>/cmdline); prefer --password-file, PGPASSWORD";
        assertThat(run.err()).contains(warning);
        assertThat(run.err().split(java.util.regex.Pattern.quote(warning), -1)).as("once").hasSize(2);
        assertThat(run.out()).as("not in the JSON document").doesNotContain("cmdline").doesNotContain(S);
        CliRun env = CliRun.run(Map.of("DUCKLAKE_JANITOR_CATALOG", "postgresql://bob:" + S + "@127.0.0.1:1/db?connect_timeout=2"), "check");
        assertThat(env.err()).as("the environment is not the process list").doesNotContain("cmdline");
        CliRun none = CliRun.run(Map.of("PGPASSWORD", S), "check", "--catalog", "postgresql://bob@127.0.0.1:1/db?connect_timeout=2");
        assertThat(none.err()).doesNotContain("cmdline").doesNotContain(S);
    }
}
