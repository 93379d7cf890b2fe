package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sslmode=require} in a libpq URI or key/value string reaches the driver (the README's example connects with it):
 * against a server without SSL the connection is refused for that reason (exit 3); with SSL the session is encrypted.
 */
class SslModeTest {

    private final TestPostgres pg = TestPostgres.get();

    @Test
    void sslmodeRequireInTheUriAndTheKeyValueFormIsHonoured() throws Exception {
        boolean serverSsl;
        try (Connection c = pg.connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW ssl")) {
            rs.next();
            serverSsl = rs.getString(1).equals("on");
        }
        ConnectionSpec s = pg.spec();
        String uri = "postgresql://" + s.user() + "@" + s.host() + ":" + s.port() + "/" + s.database() + "?sslmode=require";
        String keyValue = "host=" + s.host() + " port=" + s.port() + " dbname=" + s.database() + " user=" + s.user() + " sslmode=require";
        for (String conn : new String[] {uri, keyValue}) {
            CliRun run = CliRun.run("check", "--catalog", conn, "--metadata-schema", "no_such_schema_ssl");
            if (serverSsl) {
                assertThat(run.exitCode()).as(run.toString()).isNotEqualTo(3);
            } else {
                assertThat(run.exitCode()).as("the server has no SSL: sslmode=require must refuse, " + run).isEqualTo(3);
                assertThat(run.err()).containsIgnoringCase("ssl");
            }
            CliRun plain = CliRun.run("check", "--catalog", conn.replace("sslmode=require", "sslmode=disable"),
                    "--metadata-schema", "no_such_schema_ssl");
            assertThat(plain.exitCode()).as("the same string without SSL connects: " + plain).isNotEqualTo(3);
        }
    }
}
