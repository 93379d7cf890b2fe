package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 28 item 17 (first half) and issue 23 item 5: every janitor session bounds how long the server keeps it when its
 * client is gone without a word (idle in a transaction, idle between statements), keeps a DBA's shorter bound, and
 * bounds its reads with a socket timeout.
 */
class SessionSettingsTest {

    private final TestPostgres pg = TestPostgres.get();

    private static String show(Connection c, String setting) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT current_setting('" + setting + "')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static int major(Connection c) throws SQLException {
        return c.getMetaData().getDatabaseMajorVersion();
    }

    @Test
    void aJanitorSessionBoundsItsIdleTime() throws Exception {
        assertThat(SessionSettings.IDLE_IN_TRANSACTION_TIMEOUT).hasHours(1);
        assertThat(SessionSettings.IDLE_SESSION_TIMEOUT).hasHours(6);
        try (Connection c = pg.connect()) {
            assertThat(show(c, "idle_in_transaction_session_timeout")).isEqualTo("1h");
            if (major(c) >= 14) {
                assertThat(show(c, "idle_session_timeout")).isEqualTo("6h");
            }
            assertThat(show(c, "jit")).isEqualTo("off");
        }
    }

    @Test
    void aShorterBoundOfTheDbaIsKept() throws Exception {
        String role = "janitor_idle_probe";
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = '" + role + "') THEN"
                    + " CREATE ROLE " + role + " LOGIN; END IF; END $$");
            st.execute("ALTER ROLE " + role + " SET idle_in_transaction_session_timeout = '5min'");
            st.execute("ALTER ROLE " + role + " SET idle_session_timeout = '0'");
        }
        ConnectionSpec s = pg.spec();
        ConnectionSpec probe = ConnectionSpec.parse("postgresql://" + role + "@" + s.host() + ":" + s.port() + "/" + s.database(),
                Map.of(), null);
        try (Connection c = probe.openRaw()) {
            assertThat(show(c, "idle_in_transaction_session_timeout")).as("the role's 5 min is kept").isEqualTo("5min");
            if (major(c) >= 14) {
                assertThat(show(c, "idle_session_timeout")).as("0 (none) is lowered").isEqualTo("6h");
            }
        }
    }

    @Test
    void readsAreBoundedByDefault() throws Exception {
        ConnectionSpec s = pg.spec();
        assertThat(s.socketTimeoutSeconds()).isEqualTo(ConnectionSpec.SOCKET_TIMEOUT_FLOOR_SECONDS);
        try (Connection c = s.openRaw()) {
            assertThat(c.getNetworkTimeout()).as("milliseconds").isEqualTo(ConnectionSpec.SOCKET_TIMEOUT_FLOOR_SECONDS * 1000);
        }
    }
}
