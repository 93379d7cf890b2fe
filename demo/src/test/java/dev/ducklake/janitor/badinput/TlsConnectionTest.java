package dev.ducklake.janitor.badinput;

import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.DedicatedPostgres;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * TLS to the catalog, as production servers require it: a server with {@code ssl = on} that refuses every
 * non-TLS login ({@code hostssl} only in pg_hba.conf), reached with {@code sslmode=require} in each connection form
 * the README documents (libpq URI, key/value string, JDBC URL, {@code PGSSLMODE}) and with {@code verify-full}
 * against the server's root certificate. Each session is checked in {@code pg_stat_ssl}, and a real command runs
 * over it. Without TLS, and with {@code verify-full} against the wrong root, a command fails with exit 3.
 *
 * <p>The certificate and key ({@code src/test/resources/tls}, CN and SAN localhost/127.0.0.1, 100 years) are
 * test material only, made with {@code openssl req -x509 -newkey rsa:2048 -nodes}.
 */
class TlsConnectionTest {

    private static DedicatedPostgres pg;
    private static FaultCatalog cat;
    private static Path rootCert;

    @BeforeAll
    static void server(@TempDir Path tmp) throws Exception {
        rootCert = copy("server.crt", tmp.resolve("root.crt"));
        pg = DedicatedPostgres.start(Map.of("ssl", "on", "ssl_cert_file", "server.crt", "ssl_key_file", "server.key"),
                dir -> {
                    try {
                        copy("server.crt", dir.toPath().resolve("server.crt"));
                        Path key = copy("server.key", dir.toPath().resolve("server.key"));
                        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
                        Files.writeString(dir.toPath().resolve("pg_hba.conf"), String.join("\n",
                                "local all all trust",
                                "hostssl all all 127.0.0.1/32 trust",
                                "hostssl all all ::1/128 trust", ""));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
        try (Connection c = ConnectionSpec.parse(uri("require"), Map.of(), null).openRaw()) {
            cat = FaultCatalog.build(c, "lake", 3);
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (pg != null) {
            pg.close();
        }
    }

    private static Path copy(String resource, Path to) throws IOException {
        try (InputStream in = TlsConnectionTest.class.getResourceAsStream("/tls/" + resource)) {
            assertThat(in).as("test resource tls/%s", resource).isNotNull();
            Files.copy(in, to, StandardCopyOption.REPLACE_EXISTING);
        }
        return to;
    }

    private static String uri(String sslmode) {
        return "postgresql://postgres@localhost:" + pg.port() + "/postgres?sslmode=" + sslmode;
    }

    private static boolean tls(String connection, Map<String, String> env) throws Exception {
        try (Connection c = ConnectionSpec.parse(connection, env, null).openRaw(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
            assertThat(rs.next()).isTrue();
            return rs.getBoolean(1);
        }
    }

    @Test
    void everyDocumentedFormReachesTheServerOverTls() throws Exception {
        assertThat(tls(uri("require"), Map.of())).as("libpq URI").isTrue();
        assertThat(tls("host=localhost port=" + pg.port() + " dbname=postgres user=postgres sslmode=require", Map.of()))
                .as("key/value string").isTrue();
        assertThat(tls("jdbc:postgresql://localhost:" + pg.port() + "/postgres?user=postgres&sslmode=require", Map.of()))
                .as("JDBC URL").isTrue();
        assertThat(tls("postgresql://postgres@localhost:" + pg.port() + "/postgres", Map.of("PGSSLMODE", "require")))
                .as("PGSSLMODE").isTrue();
        assertThat(tls(uri("verify-full") + "&sslrootcert=" + rootCert, Map.of()))
                .as("verify-full against the server's root certificate").isTrue();
    }

    @Test
    void aCommandRunsOverTls() {
        CliRun run = CliRun.run("drop-orphan-inline-tables", "--catalog", uri("require"), "--metadata-schema", cat.schema,
                "--dry-run", "--output", "json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("\"table_name\" : \"ducklake_inlined_data_");
    }

    @Test
    void withoutTlsOrAgainstTheWrongRootTheLoginFailsWithExit3(@TempDir Path tmp) throws Exception {
        CliRun plain = CliRun.run("check", "--catalog", uri("disable"), "--metadata-schema", cat.schema);
        assertThat(plain.exitCode()).as(plain.toString()).isEqualTo(3);
        assertThat(plain.err()).contains("no encryption");
        Path wrong = tmp.resolve("wrong-root.crt");
        Files.writeString(wrong, "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUAAAA\n-----END CERTIFICATE-----\n");
        CliRun unverified = CliRun.run("check", "--catalog", uri("verify-full") + "&sslrootcert=" + wrong,
                "--metadata-schema", cat.schema);
        assertThat(unverified.exitCode()).as(unverified.toString()).isEqualTo(3);
    }
}
