package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import dev.ducklake.janitor.api.Janitor;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.demo.CatalogBuilder;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

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

    /**
     * The DataSource's own socket timeout does not bound the run's reads: each connection the run takes gets the engine's
     * (the statement timeout plus 30 s, at least 600 s), as a connection string does. Before, a DataSource without a
     * {@code socketTimeout} left every read unbounded, and a server gone silent hung the run.
     */
    @Test
    void everyConnectionOfARunGetsTheEnginesSocketTimeout() throws Exception {
        String schema = pg.freshSchema("ds_socket");
        try (Connection c = pg.connect()) {
            new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
        }
        List<Integer> longRun = new CopyOnWriteArrayList<>();
        Janitor.on(recording(dataSource(), longRun), schema).purgeOrphanStats().statementTimeout(Duration.ofSeconds(900))
                .execute();
        assertThat(longRun).as("the run's session; the pooling probe's short second connection waits 10 s")
                .contains((900 + ConnectionSpec.SOCKET_TIMEOUT_MARGIN_SECONDS) * 1000)
                .allSatisfy(ms -> assertThat(ms).isIn((900 + ConnectionSpec.SOCKET_TIMEOUT_MARGIN_SECONDS) * 1000, 10_000));

        List<Integer> defaults = new CopyOnWriteArrayList<>();
        Janitor.on(recording(dataSource(), defaults), schema).purgeOrphanStats().dryRun(true).execute();
        assertThat(defaults).as("the default statement timeout (120 s) is under the floor")
                .contains(ConnectionSpec.SOCKET_TIMEOUT_FLOOR_SECONDS * 1000)
                .allSatisfy(ms -> assertThat(ms).isIn(ConnectionSpec.SOCKET_TIMEOUT_FLOOR_SECONDS * 1000, 10_000));

        ConnectionSpec spec = ConnectionSpec.fromDataSource(dataSource());
        try (Connection c = spec.withSocketTimeoutCovering(Duration.ofSeconds(5)).open()) {
            assertThat(c.getNetworkTimeout()).as("set on the driver's connection").isEqualTo(ConnectionSpec.SOCKET_TIMEOUT_FLOOR_SECONDS * 1000);
        }
        try (Connection c = spec.open()) {
            assertThat(c.getNetworkTimeout()).as("none asked for, none set: the DataSource's own").isZero();
        }
    }

    @Test
    void theCoveringSocketTimeoutKeepsATighterBoundAndRaisesALowerOne() throws Exception {
        ConnectionSpec parsed = ConnectionSpec.parse("host=h", java.util.Map.of(), null);
        assertThat(parsed.withSocketTimeoutCovering(Duration.ofSeconds(120)).socketTimeoutSeconds()).as("the floor covers 150 s")
                .isEqualTo(ConnectionSpec.SOCKET_TIMEOUT_FLOOR_SECONDS);
        assertThat(parsed.withSocketTimeoutCovering(Duration.ofSeconds(900)).socketTimeoutSeconds()).as("raised above 900 s")
                .isEqualTo(900 + ConnectionSpec.SOCKET_TIMEOUT_MARGIN_SECONDS);
        ConnectionSpec check = parsed.withSocketTimeoutJustAbove(Duration.ofSeconds(60));
        assertThat(check.withSocketTimeoutCovering(Duration.ofSeconds(60)).socketTimeoutSeconds()).as("check's tighter bound kept")
                .isEqualTo(60 + ConnectionSpec.SOCKET_TIMEOUT_MARGIN_SECONDS);
        assertThat(parsed.withSocketTimeoutCovering(Duration.ZERO)).as("no statement timeout: unchanged").isSameAs(parsed);
    }

    /** The DataSource, recording the network timeout each connection it hands out is given. */
    private static DataSource recording(DataSource ds, List<Integer> networkTimeouts) {
        return (DataSource) Proxy.newProxyInstance(DataSourceSpecTest.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, m, args) -> {
                    Object r = invoke(m, ds, args);
                    if (r instanceof Connection c) {
                        return Proxy.newProxyInstance(DataSourceSpecTest.class.getClassLoader(), new Class<?>[] {Connection.class},
                                (p2, m2, a2) -> {
                                    if (m2.getName().equals("setNetworkTimeout")) {
                                        networkTimeouts.add((Integer) a2[1]);
                                    }
                                    return invoke(m2, c, a2);
                                });
                    }
                    return r;
                });
    }

    private static Object invoke(java.lang.reflect.Method m, Object target, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
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
