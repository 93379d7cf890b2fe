package dev.ducklake.janitor.badinput;

import dev.ducklake.janitor.testsupport.CliRun;
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
import java.util.List;
import java.time.Duration;
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

    private static void assertRefused(CliRun run, String... secrets) {
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
        assertRefused(CliRun.run(concat(base, "--catalog", uri)), WRONG);
        assertRefused(CliRun.run(concat(base, "--catalog", uri, "--verbose")), WRONG);
        CliRun json = CliRun.run(concat(base, "--catalog", uri, "--output", "json"));
        assertRefused(json, WRONG);
        assertThat(json.out()).contains("\"exit_code\" : 3").contains("\"reason\" : \"connection\"");
        assertRefused(CliRun.run(concat(base, "--catalog", "jdbc:postgresql://" + hostPort() + "/postgres?user=" + USER + "&password=" + WRONG)), WRONG);
        assertRefused(CliRun.run(concat(base, "--catalog", "host=localhost port=" + pg.port() + " dbname=postgres user=" + USER
                + " password='" + WRONG + "'")), WRONG);
        assertRefused(CliRun.run(Map.of("PGPASSWORD", WRONG), concat(base, "--catalog", "postgresql://" + USER + "@" + hostPort() + "/postgres")),
                WRONG);
        Path file = tmp.resolve("pw");
        Files.writeString(file, WRONG + "\n");
        assertRefused(CliRun.run(concat(base, "--catalog", "postgresql://" + USER + "@" + hostPort() + "/postgres", "--password-file",
                file.toString())), WRONG);
    }

    @Test
    void rightPasswordWorksAndIsNeverPrinted() {
        CliRun run = CliRun.run("drop-orphan-inline-tables", "--catalog", "postgresql://" + USER + ":" + RIGHT + "@" + hostPort()
                + "/postgres", "--metadata-schema", cat.schema, "--dry-run", "--output", "json", "--verbose");
        assertThat(run.exitCode()).as("stderr: %s", run.err()).isZero();
        assertThat(run.all()).doesNotContain(RIGHT);
    }

    /**
     * Trial finding: a PGPASSFILE readable by group and others (mode 0644) was used silently; libpq ignores such a file
     * with a warning. A real process (pgJDBC reads PGPASSFILE from the process's own environment): 0644 is ignored,
     * with a WARN naming the file and chmod 0600, and the refused login says why; 0600 is used.
     */
    @Test
    void aPasswordFileOthersCanReadIsIgnoredWithAWarningAsLibpqDoes(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path pgpass = tmp.resolve("pgpass");
        Files.writeString(pgpass, "*:*:*:" + USER + ":" + RIGHT + "\n");
        Files.setPosixFilePermissions(pgpass, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        String[] args = {"drop-orphan-inline-tables", "--catalog", "postgresql://" + USER + "@" + hostPort() + "/postgres",
            "--metadata-schema", cat.schema, "--dry-run"};
        JanitorProcess open = JanitorProcess.start(Map.of("PGPASSFILE", pgpass.toString()), args);
        assertThat(open.waitFor(120)).as("ignored: no password, login refused; stderr %s", open.err()).isEqualTo(3);
        assertThat(open.err()).contains("WARN: the password file " + pgpass + " is ignored: it has group or world access")
                .contains("chmod 0600 " + pgpass)
                .contains("no password was given").contains(pgpass + " is ignored").doesNotContain(RIGHT);
        open.cleanup();
        Path cfg = tmp.resolve("m.yaml");
        Files.writeString(cfg, "catalogs:\n  - name: lake\n    connection: postgresql://" + USER + "@" + hostPort() + "/postgres\n"
                + "    metadata_schema: " + cat.schema + "\nmaintain:\n  - check\n");
        JanitorProcess maintain = JanitorProcess.start(Map.of("PGPASSFILE", pgpass.toString()), "maintain", "--config", cfg.toString());
        assertThat(maintain.waitFor(120)).as("maintain: stderr %s", maintain.err()).isNotZero();
        assertThat(maintain.err()).contains("WARN: the password file " + pgpass + " is ignored").contains("chmod 0600 " + pgpass)
                .doesNotContain(RIGHT);
        maintain.cleanup();
        Files.setPosixFilePermissions(pgpass, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        JanitorProcess closed = JanitorProcess.start(Map.of("PGPASSFILE", pgpass.toString()), args);
        assertThat(closed.waitFor(120)).as("0600 is used; stderr %s", closed.err()).isZero();
        assertThat(closed.err()).doesNotContain("WARN: the password file").doesNotContain(RIGHT);
        closed.cleanup();
    }

    @Test
    void malformedConnectionStringNeverEchoesPartOfThePassword() {
        // an unquoted password with a space: the second half looks like a key; the error must not print it
        CliRun run = CliRun.run("drop-orphan-inline-tables", "--catalog", "host=localhost password=Wr0ng Secret99 dbname=postgres",
                "--dry-run");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.all()).doesNotContain("Secret99").doesNotContain("Wr0ng");
        CliRun run2 = CliRun.run("drop-orphan-inline-tables", "--catalog", "host=localhost password=Wr0ng Secret99=x", "--dry-run");
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

    @Test
    void anExplicitPasswordFileWinsOverAnInheritedPgpassword(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("pw");
        Files.writeString(file, RIGHT + "\n");
        CliRun run = CliRun.run(Map.of("PGPASSWORD", WRONG), "drop-orphan-inline-tables", "--catalog", "postgresql://" + USER + "@"
                + hostPort() + "/postgres", "--metadata-schema", cat.schema, "--dry-run", "--password-file", file.toString());
        assertThat(run.exitCode()).as("the flag beats the ambient variable; stderr: %s", run.err()).isZero();
        assertThat(run.all()).doesNotContain(RIGHT).doesNotContain(WRONG);
    }

    @Test
    void aLoginFailureSaysWhereThePasswordCameFrom(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("pw");
        Files.writeString(file, WRONG + "\n");
        String[] base = {"drop-orphan-inline-tables", "--catalog", "postgresql://" + USER + "@" + hostPort() + "/postgres",
            "--metadata-schema", cat.schema, "--dry-run"};
        CliRun fromFile = CliRun.run(concat(base, "--password-file", file.toString()));
        assertRefused(fromFile, WRONG);
        assertThat(fromFile.err()).contains("password from the password file " + file);
        CliRun fromEnv = CliRun.run(Map.of("PGPASSWORD", WRONG), base);
        assertRefused(fromEnv, WRONG);
        assertThat(fromEnv.err()).contains("password from the PGPASSWORD environment variable");
        CliRun fromString = CliRun.run("drop-orphan-inline-tables", "--catalog", "postgresql://" + USER + ":" + WRONG + "@" + hostPort()
                + "/postgres", "--metadata-schema", cat.schema, "--dry-run");
        assertRefused(fromString, WRONG);
        assertThat(fromString.err()).contains("password from the connection string");
    }

    @Test
    void thePasswordFileIsReadAgainAtEveryConnectSoARotatedSecretIsPickedUp(@org.junit.jupiter.api.io.TempDir Path tmp)
            throws Exception {
        String rotated = "R0tatedSecretAbc";
        String role = "rotating_owner";
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("SET password_encryption = 'scram-sha-256'");
            st.execute("CREATE ROLE " + role + " LOGIN SUPERUSER PASSWORD '" + RIGHT + "'");
        }
        Path file = tmp.resolve("secret");
        Files.writeString(file, RIGHT + "\n");
        dev.ducklake.janitor.pg.ConnectionSpec spec = dev.ducklake.janitor.pg.ConnectionSpec.parse(
                "postgresql://" + role + "@" + hostPort() + "/postgres", Map.of("PGPASSWORD", WRONG), file);
        List<String> log = new java.util.concurrent.CopyOnWriteArrayList<>();
        dev.ducklake.janitor.metrics.CatalogTarget target = new dev.ducklake.janitor.metrics.CatalogTarget(
                new dev.ducklake.janitor.metrics.TargetConfig("rot", spec, cat.schema, Duration.ofSeconds(30), List.of()), log::add);
        try {
            target.collectOnce(Duration.ofSeconds(60));
            assertThat(target.up()).as("first login; log %s", log).isTrue();
            // the Secret rotates: new password on the server and in the mounted file; the old session is cut
            try (Connection c = pg.connect(); Statement st = c.createStatement()) {
                st.execute("ALTER ROLE " + role + " PASSWORD '" + rotated + "'");
                Files.writeString(file, rotated + "\n");
                st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + role + "'");
            }
            target.collectOnce(Duration.ofSeconds(60));
            target.collectOnce(Duration.ofSeconds(60));
            assertThat(target.up()).as("reconnected with the rotated password; log %s", log).isTrue();
            try (Connection c = spec.open()) {
                assertThat(c.isValid(5)).as("a run's (re)connect reads the file too").isTrue();
            }
            assertThat(String.join("\n", log)).doesNotContain(rotated).doesNotContain(RIGHT);
        } finally {
            target.close();
            try (Connection c = pg.connect(); Statement st = c.createStatement()) {
                st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + role + "'");
                st.execute("DROP ROLE IF EXISTS " + role);
            }
        }
    }

    @Test
    void passwordFileMessagesSayWhatIsWrongWithoutJavaClassNames(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        CliRun missing = CliRun.run("drop-orphan-inline-tables", "--catalog", "postgresql://" + USER + "@" + hostPort() + "/postgres",
                "--password-file", tmp.resolve("nope").toString(), "--dry-run");
        assertThat(missing.exitCode()).isEqualTo(2);
        assertThat(missing.err()).contains("does not exist").doesNotContain("NoSuchFileException").doesNotContain("Exception");
        Path empty = tmp.resolve("empty");
        Files.writeString(empty, "\n" + RIGHT + "\n");
        CliRun firstLineEmpty = CliRun.run("drop-orphan-inline-tables", "--catalog", "postgresql://" + USER + "@" + hostPort()
                + "/postgres", "--password-file", empty.toString(), "--dry-run");
        assertThat(firstLineEmpty.exitCode()).isEqualTo(2);
        assertThat(firstLineEmpty.err()).contains("first line is empty").doesNotContain(RIGHT);
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
