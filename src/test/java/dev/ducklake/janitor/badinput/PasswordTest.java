package dev.ducklake.janitor.badinput;

import dev.ducklake.janitor.testsupport.Cli;
import dev.ducklake.janitor.testsupport.DedicatedPostgres;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import dev.ducklake.janitor.testsupport.JanitorProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Wrong and right passwords against a server that checks them (scram-sha-256): exit 3 with a clear message, and
 * the password never appears in any output, whichever way it was given (URI, key/value string, PGPASSWORD,
 * --password-file), in text or JSON, with or without --verbose, in-process or as a real process.
 */
class PasswordTest {

    private static final String RIGHT = "Corr3ctHorseBattery";
    private static final String WRONG = "Wr0ngPassw0rdXYZ";
    private static final String USER = "lake_owner";

    private static DedicatedPostgres pg;
    private static FaultCatalog cat;

    @BeforeAll
    static void server() throws Exception {
        pg = DedicatedPostgres.start(Map.of(), dir -> {
            try {
                Files.writeString(dir.toPath().resolve("pg_hba.conf"), String.join("\n",
                        "local all all trust",
                        "host all postgres 127.0.0.1/32 trust",
                        "host all postgres ::1/128 trust",
                        "host all all 127.0.0.1/32 scram-sha-256",
                        "host all all ::1/128 scram-sha-256", ""));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("SET password_encryption = 'scram-sha-256'");
            st.execute("CREATE ROLE " + USER + " LOGIN SUPERUSER PASSWORD '" + RIGHT + "'");
            cat = FaultCatalog.build(c, "lake", 5);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (pg != null) {
            pg.close();
        }
    }

    private static String hostPort() {
        return "localhost:" + pg.port();
    }

    private static void assertRefused(Cli.Run run, String... secrets) {
        assertThat(run.exitCode()).as("login refused is exit 3; stderr: %s", run.err()).isEqualTo(3);
        assertThat(run.err()).contains("refused the login").contains(USER + "@" + hostPort() + "/postgres");
        for (String s : secrets) {
            assertThat(run.all()).as("the password never appears in any output").doesNotContain(s);
        }
    }

    @Test
    void wrongPasswordIsExit3AndNeverPrinted(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        String uri = "postgresql://" + USER + ":" + WRONG + "@" + hostPort() + "/postgres";
        String[] base = {"drop-orphan-inline-tables", "--metadata-schema", cat.schema, "--yes"};
        assertRefused(Cli.run(concat(base, "--catalog", uri)), WRONG);
        assertRefused(Cli.run(concat(base, "--catalog", uri, "--verbose")), WRONG);
        Cli.Run json = Cli.run(concat(base, "--catalog", uri, "--output", "json"));
        assertRefused(json, WRONG);
        assertThat(json.out()).contains("\"exit_code\" : 3").contains("\"reason\" : \"connection\"");
        assertRefused(Cli.run(concat(base, "--catalog", "jdbc:postgresql://" + hostPort() + "/postgres?user=" + USER + "&password=" + WRONG)), WRONG);
        assertRefused(Cli.run(concat(base, "--catalog", "host=localhost port=" + pg.port() + " dbname=postgres user=" + USER
                + " password='" + WRONG + "'")), WRONG);
        assertRefused(Cli.run(Map.of("PGPASSWORD", WRONG), concat(base, "--catalog", "postgresql://" + USER + "@" + hostPort() + "/postgres")),
                WRONG);
        Path file = tmp.resolve("pw");
        Files.writeString(file, WRONG + "\n");
        assertRefused(Cli.run(concat(base, "--catalog", "postgresql://" + USER + "@" + hostPort() + "/postgres", "--password-file",
                file.toString())), WRONG);
    }

    @Test
    void rightPasswordWorksAndIsNeverPrinted() {
        Cli.Run run = Cli.run("drop-orphan-inline-tables", "--catalog", "postgresql://" + USER + ":" + RIGHT + "@" + hostPort()
                + "/postgres", "--metadata-schema", cat.schema, "--dry-run", "--output", "json", "--verbose");
        assertThat(run.exitCode()).as("stderr: %s", run.err()).isZero();
        assertThat(run.all()).doesNotContain(RIGHT);
    }

    @Test
    void malformedConnectionStringNeverEchoesPartOfThePassword() {
        // an unquoted password with a space: the second half looks like a key; the error must not print it
        Cli.Run run = Cli.run("drop-orphan-inline-tables", "--catalog", "host=localhost password=Wr0ng Secret99 dbname=postgres",
                "--dry-run");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.all()).doesNotContain("Secret99").doesNotContain("Wr0ng");
        Cli.Run run2 = Cli.run("drop-orphan-inline-tables", "--catalog", "host=localhost password=Wr0ng Secret99=x", "--dry-run");
        assertThat(run2.exitCode()).isEqualTo(2);
        assertThat(run2.all()).doesNotContain("Secret99").doesNotContain("Wr0ng");
    }

    @Test
    void realProcessWithWrongPasswordPrintsNoStackTraceAndNoPassword() throws Exception {
        JanitorProcess p = JanitorProcess.start(Map.of("PGPASSWORD", WRONG), "drop-orphan-inline-tables", "--catalog",
                "postgresql://" + USER + "@" + hostPort() + "/postgres", "--metadata-schema", cat.schema, "--yes");
        assertThat(p.waitFor(60)).isEqualTo(3);
        assertThat(p.err()).contains("error: Cannot connect").doesNotContain("\tat ").doesNotContain("Exception")
                .doesNotContain(WRONG);
        assertThat(p.out()).doesNotContain(WRONG);
        p.cleanup();
        JanitorProcess unreachable = JanitorProcess.start(Map.of(), "drop-orphan-inline-tables", "--catalog",
                "postgresql://janitor@127.0.0.1:1/lake", "--yes");
        assertThat(unreachable.waitFor(60)).isEqualTo(3);
        assertThat(unreachable.err()).contains("cannot be reached").doesNotContain("\tat ").doesNotContain("Exception");
        unreachable.cleanup();
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
