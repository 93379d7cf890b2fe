package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.JanitorException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConnectionSpecTest {

    private static final Map<String, String> NO_ENV = Map.of();

    @Test
    void jdbcUrlWithParameters() throws Exception {
        ConnectionSpec s = ConnectionSpec.parse("jdbc:postgresql://db.example:6543/lake?user=janitor&password=s3cret&sslmode=require", NO_ENV, null);
        assertThat(s.host()).isEqualTo("db.example");
        assertThat(s.port()).isEqualTo("6543");
        assertThat(s.database()).isEqualTo("lake");
        assertThat(s.user()).isEqualTo("janitor");
        assertThat(s.hasPassword()).isTrue();
        assertThat(s.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example:6543/lake").doesNotContain("s3cret");
    }

    /** What a libpq client (DuckDB's postgres extension) is handed: security and routing, in a fixed order, no secrets. */
    @Test
    void libpqParametersAreTheSecurityAndRoutingOnesInOrderWithoutSecrets() throws Exception {
        ConnectionSpec s = ConnectionSpec.parse("host=h dbname=d user=u password=pw application_name=app sslpassword=keypass"
                + " options='-c search_path=x' channel_binding=prefer gssencmode=disable sslkey=/k sslcert=/c sslrootcert=/r"
                + " sslmode=verify-full target_session_attrs=read-write connect_timeout=7", NO_ENV, null);
        assertThat(s.libpqParameters()).containsExactly(Map.entry("sslmode", "verify-full"), Map.entry("sslrootcert", "/r"),
                Map.entry("sslcert", "/c"), Map.entry("sslkey", "/k"), Map.entry("gssencmode", "disable"),
                Map.entry("channel_binding", "prefer"), Map.entry("options", "-c search_path=x"),
                Map.entry("target_session_attrs", "read-write"), Map.entry("connect_timeout", "7"));
        assertThat(s.sslPassword()).isEqualTo("keypass");
        assertThat(s.toString()).doesNotContain("pw").doesNotContain("keypass");
    }

    @Test
    void missingPasswordIsNotCalledUnreachable() throws Exception {
        // found by trying it: the server answered and asked for a password, the message said it "cannot be reached"
        ConnectionSpec s = ConnectionSpec.parse("host=127.0.0.1 port=5432 dbname=lake user=janitor", NO_ENV, null);
        JanitorException e = s.connectionFailure(new java.sql.SQLException("The server requested password-based "
                + "authentication, but no password was provided by plugin null", "08004"));
        assertThat(e.reason()).isEqualTo(JanitorException.Reason.CONNECTION);
        assertThat(e.getMessage()).doesNotContain("cannot be reached")
                .contains("no password was given").contains("--password-file").contains("PGPASSWORD");
    }

    @Test
    void libpqUri() throws Exception {
        ConnectionSpec s = ConnectionSpec.parse("postgresql://ann:p%40ss@h1:5433/my%20db?sslmode=verify-full", NO_ENV, null);
        assertThat(s.user()).isEqualTo("ann");
        assertThat(s.host()).isEqualTo("h1");
        assertThat(s.port()).isEqualTo("5433");
        assertThat(s.database()).isEqualTo("my db");
        assertThat(s.redact("login p@ss failed")).isEqualTo("login *** failed");
    }

    @Test
    void libpqKeyValueWithQuotesAndEscapes() throws Exception {
        ConnectionSpec s = ConnectionSpec.parse("host=h port=5555 dbname='my lake' user=u password='it\\'s secret'", NO_ENV, null);
        assertThat(s.host()).isEqualTo("h");
        assertThat(s.port()).isEqualTo("5555");
        assertThat(s.database()).isEqualTo("my lake");
        assertThat(s.redact("x it's secret y")).isEqualTo("x *** y");
    }

    @Test
    void duckLakeAttachString() throws Exception {
        ConnectionSpec s = ConnectionSpec.parse("ducklake:postgres:dbname=lake host=pg.internal user=dl", NO_ENV, null);
        assertThat(s.host()).isEqualTo("pg.internal");
        assertThat(s.database()).isEqualTo("lake");
        assertThat(s.user()).isEqualTo("dl");
        assertThat(s.port()).isEqualTo("5432");
    }

    @Test
    void environmentFillsWhatIsMissingButNeverOverrides() throws Exception {
        Map<String, String> env = Map.of("PGHOST", "envhost", "PGPORT", "7777", "PGUSER", "envuser", "PGPASSWORD", "envpw",
                "PGDATABASE", "envdb");
        ConnectionSpec s = ConnectionSpec.parse("dbname=given", env, null);
        assertThat(s.host()).isEqualTo("envhost");
        assertThat(s.port()).isEqualTo("7777");
        assertThat(s.user()).isEqualTo("envuser");
        assertThat(s.database()).isEqualTo("given");
        assertThat(s.hasPassword()).isTrue();
        ConnectionSpec fromEnvOnly = ConnectionSpec.parse(null, env, null);
        assertThat(fromEnvOnly.database()).isEqualTo("envdb");
    }

    @Test
    void passwordFileIsUsedWhenNothingElseGivesOne(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("pw");
        Files.writeString(f, "from-file\n");
        ConnectionSpec s = ConnectionSpec.parse("host=h dbname=d user=u", NO_ENV, f);
        assertThat(s.hasPassword()).isTrue();
        assertThat(s.redact("from-file")).isEqualTo("***");
        assertThat(s.toString()).doesNotContain("from-file");
        assertThatThrownBy(() -> ConnectionSpec.parse("host=h", NO_ENV, dir.resolve("missing")))
                .isInstanceOf(JanitorException.class).hasMessageContaining("password file");
    }

    @Test
    void passwordNeverInDescriptions() throws Exception {
        ConnectionSpec s = ConnectionSpec.parse("postgresql://u:TopSecret123@h/d", NO_ENV, null);
        assertThat(s.toString()).doesNotContain("TopSecret123");
        assertThat(s.describe()).doesNotContain("TopSecret123");
        assertThat(s.jdbcUrl()).doesNotContain("TopSecret123");
    }

    @Test
    void malformedInputIsAUsageErrorThatDoesNotEchoTheString() {
        assertThatThrownBy(() -> ConnectionSpec.parse("host=h password='unterminated", NO_ENV, null))
                .isInstanceOf(JanitorException.class)
                .satisfies(e -> assertThat(((JanitorException) e).reason()).isEqualTo(JanitorException.Reason.USAGE))
                .message().doesNotContain("unterminated'");
        assertThatThrownBy(() -> ConnectionSpec.parse("host=h bogus=1", NO_ENV, null))
                .isInstanceOf(JanitorException.class).hasMessageContaining("bogus");
        assertThatThrownBy(() -> ConnectionSpec.parse("host=/var/run/postgresql", NO_ENV, null))
                .isInstanceOf(JanitorException.class).hasMessageContaining("Unix-domain");
        assertThatThrownBy(() -> ConnectionSpec.parse("host=h port=99999", NO_ENV, null))
                .isInstanceOf(JanitorException.class).hasMessageContaining("port");
        assertThatThrownBy(() -> ConnectionSpec.parse("jdbc:mysql://h/d", NO_ENV, null))
                .isInstanceOf(JanitorException.class);
        assertThatThrownBy(() -> ConnectionSpec.parse("", NO_ENV, null))
                .isInstanceOf(JanitorException.class).hasMessageContaining("--catalog");
    }

    @Test
    void aPastedDuckDbAttachStatementGetsAHintAndNeverEchoesThePassword() {
        assertThatThrownBy(() -> ConnectionSpec.parse("ATTACH 'ducklake:postgres:dbname=lake host=db password=Sekr3tXY' AS lake "
                + "(METADATA_SCHEMA 'tenant_7', DATA_PATH 's3://b/')", NO_ENV, null))
                .isInstanceOf(JanitorException.class)
                .hasMessageContaining("--metadata-schema 'tenant_7'").hasMessageContaining("not a DuckDB ATTACH statement")
                .hasMessageNotContaining("Sekr3tXY");
    }

    @Test
    void anExplicitPasswordFileWinsOverPgpasswordAndAStringPasswordWinsOverBoth(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("pw");
        Files.writeString(f, "from-file\n");
        ConnectionSpec s = ConnectionSpec.parse("host=h dbname=d user=u", Map.of("PGPASSWORD", "from-env"), f);
        assertThat(s.passwordSource().kind()).isEqualTo(PasswordSource.Kind.PASSWORD_FILE);
        assertThat(s.passwordSource().resolve()).isEqualTo("from-file");
        Files.writeString(f, "rotated\n");
        assertThat(s.passwordSource().resolve()).as("read again").isEqualTo("rotated");
        assertThat(s.redact("x rotated y")).isEqualTo("x *** y");
        assertThat(ConnectionSpec.parse("host=h password=inline", Map.of("PGPASSWORD", "from-env"), f).passwordSource().kind())
                .isEqualTo(PasswordSource.Kind.CONNECTION_STRING);
        assertThat(ConnectionSpec.parse("host=h", Map.of("PGPASSWORD", "from-env"), null).passwordSource().describe())
                .isEqualTo("password from the PGPASSWORD environment variable");
    }

    /** The trial of 2026-12-06: sslmode=bogus was reported as an unreachable server (exit 3), not as bad input. */
    @Test
    void anUnknownSslmodeIsAUsageErrorNamingTheValidOnes() throws Exception {
        for (String text : new String[] {"host=h sslmode=bogus", "postgresql://u@h/d?sslmode=Require"}) {
            assertThatThrownBy(() -> ConnectionSpec.parse(text, java.util.Map.of(), null))
                    .isInstanceOf(dev.ducklake.janitor.JanitorException.class).hasMessageContaining("Invalid sslmode")
                    .hasMessageContaining("verify-full")
                    .satisfies(e -> assertThat(((dev.ducklake.janitor.JanitorException) e).reason())
                            .isEqualTo(dev.ducklake.janitor.JanitorException.Reason.USAGE));
        }
        assertThatThrownBy(() -> ConnectionSpec.parse("host=h", java.util.Map.of("PGSSLMODE", "nope"), null))
                .hasMessageContaining("PGSSLMODE");
        assertThat(ConnectionSpec.parse("host=h sslmode=verify-full", java.util.Map.of(), null).host()).isEqualTo("h");
    }

    /**
     * Every special character in a password works when the password is written as each form wants it
     * (percent-encoded in a URI, quoted in a key/value string), and an '@' in a known query value (a user name such as
     * {@code jan@corp}, a raw password in the query) is still read; a raw '/', '?' or '#' in the user:password part is
     * refused, naming the fix (SpecialCharacterPasswordTest checks every output for pieces of the password).
     */
    @Test
    void everySpecialCharacterOfAPasswordWorksEncodedOrQuotedAndARawOneIsRefused() throws Exception {
        for (String p : dev.ducklake.janitor.badinput.SpecialCharacterPasswordTest.PASSWORDS) {
            String enc = dev.ducklake.janitor.badinput.SpecialCharacterPasswordTest.encoded(p);
            String q = dev.ducklake.janitor.badinput.SpecialCharacterPasswordTest.quoted(p);
            for (String text : new String[] {"postgresql://jan:" + enc + "@h:5433/lake1", "postgres://jan@h/lake1?password=" + enc,
                "jdbc:postgresql://h:5433/lake1?user=jan&password=" + enc, "host=h user=jan dbname=lake1 password=" + q,
                "ducklake:postgres:host=h user=jan dbname=lake1 password=" + q, "ducklake:postgres:postgresql://jan:" + enc + "@h/lake1"}) {
                ConnectionSpec s = ConnectionSpec.parse(text, NO_ENV, null);
                assertThat(s.passwordSource().lastKnown()).as(text).isEqualTo(p);
                assertThat(s.user()).as(text).isEqualTo("jan");
                assertThat(s.host()).as(text).isEqualTo("h");
                assertThat(s.database()).as(text).isEqualTo("lake1");
            }
        }
        ConnectionSpec corp = ConnectionSpec.parse("postgresql://h/lake1?user=jan@corp&password=a@b/c?d", NO_ENV, null);
        assertThat(corp.user()).isEqualTo("jan@corp");
        assertThat(corp.passwordSource().lastKnown()).isEqualTo("a@b/c?d");
        assertThat(ConnectionSpec.parse("postgresql://jan:Xy7@kLm:Q9@h/lake1", NO_ENV, null).passwordSource().lastKnown())
                .as("a raw '@' or ':' in the password: the last '@' ends it").isEqualTo("Xy7@kLm:Q9");
        for (String raw : new String[] {"postgresql://jan:Xy7/kLm@h/lake1", "postgresql://jan:Xy7?kLm@h/lake1",
            "postgresql://jan:Xy7#kLm@h/lake1", "postgresql://jan:Xy7 kLm@h/lake1", "postgresql://jan:Xy7%kLm@h/lake1",
            "postgresql://jan:Xy7[kLm@h/lake1", "postgresql://h/lake1?password=Xy7&kLm=1", "postgresql://h/lake1?password=Xy7#kLm"}) {
            assertThatThrownBy(() -> ConnectionSpec.parse(raw, NO_ENV, null)).as(raw).isInstanceOf(JanitorException.class)
                    .satisfies(e -> assertThat(((JanitorException) e).reason()).isEqualTo(JanitorException.Reason.USAGE))
                    .message().contains("%").contains("PGPASSWORD").doesNotContain("Xy7").doesNotContain("kLm");
        }
    }
}
