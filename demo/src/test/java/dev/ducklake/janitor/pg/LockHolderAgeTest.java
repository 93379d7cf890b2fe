package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 28 item 17 (second half of its first sentence): a run refused with exit 7 names the holding session's pid, its age
 * and how long it has been idle, so that an operator can tell a live run from a session a killed run left behind a
 * proxy.
 */
class LockHolderAgeTest {

    private final TestPostgres pg = TestPostgres.get();

    @Test
    void theRefusalNamesTheHolderPidAgeAndState() throws Exception {
        String schema = pg.freshSchema("lock_age");
        try (Connection holder = pg.connect(); Connection other = pg.connect()) {
            AdvisoryLock.acquire(holder, "ducklake-maintenance", schema);
            long pid;
            try (Statement st = holder.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
                rs.next();
                pid = rs.getLong(1);
            }
            assertThatThrownBy(() -> AdvisoryLock.acquire(other, "ducklake-maintenance", schema))
                    .isInstanceOfSatisfying(JanitorException.class, e -> assertThat(e.reason()).isEqualTo(JanitorException.Reason.LOCK_HELD))
                    .hasMessageMatching("(?s).*is held by pid " + pid + " \\(a session \\d+ s old, idle for \\d+ s\\): another"
                            + " maintenance run is in progress.*pg_terminate_backend.*");
        }
    }

    @Test
    void agesReadAsOperatorsWriteThem() {
        assertThat(AdvisoryLock.age(5)).isEqualTo("5 s");
        assertThat(AdvisoryLock.age(119)).isEqualTo("119 s");
        assertThat(AdvisoryLock.age(120)).isEqualTo("2 min");
        assertThat(AdvisoryLock.age(7199)).isEqualTo("119 min");
        assertThat(AdvisoryLock.age(3 * 3600 + 7 * 60 + 5)).isEqualTo("3 h 7 min");
    }
}
