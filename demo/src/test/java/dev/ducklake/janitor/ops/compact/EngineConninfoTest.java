package dev.ducklake.janitor.ops.compact;

import dev.ducklake.janitor.pg.ConnectionSpec;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The connection string DuckDB's postgres extension gets for the engine commands' ATTACH. It used to carry host, port,
 * database and user only, so a catalog configured with {@code sslmode=verify-full} was attached by DuckDB with libpq's
 * default ({@code prefer}: no certificate check, plaintext if the server offers no TLS) while the janitor's own JDBC
 * sessions verified the server.
 */
class EngineConninfoTest {

    @Test
    void theCatalogsTlsAndTimeoutSettingsReachDuckDbAndThePasswordDoesNot() throws Exception {
        ConnectionSpec spec = ConnectionSpec.parse("postgresql://lake:S3cret-pw@db.example:6432/cat?sslmode=verify-full"
                + "&sslrootcert=/etc/ssl/ca%20root.pem&connect_timeout=7&target_session_attrs=read-write", Map.of(), null);
        String c = DuckLakeEngine.conninfo(spec);
        assertThat(c).contains("host='db.example'", "port='6432'", "dbname='cat'", "user='lake'",
                "sslmode='verify-full'", "sslrootcert='/etc/ssl/ca root.pem'", "connect_timeout='7'",
                "target_session_attrs='read-write'").doesNotContain("S3cret-pw").doesNotContain("password");
    }

    @Test
    void theEnvironmentsTlsSettingsCountAsTheJdbcDriversDo() throws Exception {
        ConnectionSpec spec = ConnectionSpec.parse("host=db.example dbname=cat user=lake",
                Map.of("PGSSLMODE", "require", "PGSSLCERT", "/k/client.crt", "PGSSLKEY", "/k/client's.key"), null);
        assertThat(DuckLakeEngine.conninfo(spec)).contains("sslmode='require'", "sslcert='/k/client.crt'",
                "sslkey='/k/client\\'s.key'");
    }

    @Test
    void anSslPasswordIsNeverPutInTheStringAndIsRedacted() throws Exception {
        ConnectionSpec spec = ConnectionSpec.parse("host=db.example dbname=cat user=lake sslmode=verify-full"
                + " sslkey=/k/c.key sslpassword=KeyPass-91", Map.of(), null);
        assertThat(DuckLakeEngine.conninfo(spec)).contains("sslmode='verify-full'", "sslkey='/k/c.key'")
                .doesNotContain("KeyPass-91").doesNotContain("sslpassword");
        assertThat(spec.sslPassword()).isEqualTo("KeyPass-91");
        assertThat(spec.redact("could not load private key: KeyPass-91")).doesNotContain("KeyPass-91");
    }
}
