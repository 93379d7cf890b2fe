package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link ConnectionSpec#fromDataSource}: connections from the caller's DataSource get the janitor's session settings. */
class DataSourceSpecTest {

    private final TestPostgres pg = TestPostgres.get();

    private PGSimpleDataSource dataSource() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(pg.url());
        return ds;
    }

    @Test
    void opensFromTheDataSourceWithTheSessionSettings() throws Exception {
        ConnectionSpec spec = ConnectionSpec.fromDataSource(dataSource());
        assertThat(spec.describe()).as("user@host:port/database learned from the server")
                .isEqualTo(pg.spec().user() + "@" + spec.host() + ":" + spec.port() + "/" + pg.spec().database());
        assertThat(spec.hasPassword()).as("the DataSource keeps the password").isFalse();
        try (Connection c = spec.open(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW jit")) {
            rs.next();
            assertThat(rs.getString(1)).as("the session settings were applied").isEqualTo("off");
            assertThat(c.getAutoCommit()).isTrue();
        }
        assertThat(spec.withSocketTimeoutJustAbove(java.time.Duration.ofSeconds(5)).describe()).isEqualTo(spec.describe());
        assertThatThrownBy(() -> spec.withDatabase("other")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aFailingDataSourceIsAConnectionError() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL("jdbc:postgresql://127.0.0.1:1/none");
        ds.setPassword("s3cret-pw");
        ds.setConnectTimeout(2);
        assertThatThrownBy(() -> ConnectionSpec.fromDataSource(ds)).isInstanceOf(JanitorException.class)
                .hasMessageNotContaining("s3cret-pw")
                .satisfies(e -> assertThat(((JanitorException) e).reason()).isEqualTo(Reason.CONNECTION));
    }
}
