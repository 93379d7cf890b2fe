package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunRecorder;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.SilentPeer;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A survey that fails over a database {@code --also-catalog} names (here: it holds no catalog, exit 4) closes the
 * connection it opened there: it was not yet kept by the {@link ConsultedCatalogs}, so nothing else would (a library
 * caller surveying on a schedule leaked one server session per failed run; found by the review of the survey's split),
 * and a stop requested while it logs in to another database ends that login.
 */
class SurveyConnectionsTest {

    @TempDir
    Path dir;

    @Test
    void aFailedSurveyOfANamedDatabaseLeavesNoSessionThere() throws Exception {
        TestPostgres pg = TestPostgres.get();
        String db = "survey_leak_" + ProcessHandle.current().pid();
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db));
            st.execute("CREATE DATABASE " + Sql.ident(db));
        }
        try {
            FileCatalog cat = FileCatalog.create("survey_leak", dir.resolve("lake") + "/");
            ConnectionSpec other = pg.spec().withDatabase(db);
            ConsultOptions o = ConsultOptions.defaults().withConsultServer(false)
                    .withAlsoCatalogs(List.of(new ConnectionSpec.CatalogReference(other, null)));
            try (Connection c = pg.connect()) {
                assertThatThrownBy(() -> ConsultedCatalogs.find(c, cat.schema, CatalogFiles.resolver(c, cat.schema, null), o,
                        new RunRecorder(ProgressListener.NONE)))
                        .isInstanceOfSatisfying(JanitorException.class, e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_CATALOG));
                long sessions = -1;
                for (int i = 0; i < 50 && sessions != 0; i++) {
                    sessions = sessionsOn(c, db);
                    if (sessions != 0) {
                        Thread.sleep(100);
                    }
                }
                assertThat(sessions).as("sessions left on the named database").isZero();
            }
        } finally {
            try (Connection c = pg.connect(); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
            }
        }
    }

    /**
     * A library caller's requestStop() during the survey's login to another database (here a silent peer named by
     * {@code --also-catalog}, whose login waits for its 60 s connect_timeout) ends that login at once: the storage
     * operations pass their run's stop condition to the survey (before, only the CLI's JVM-wide abort did).
     */
    @Test
    void aStopRequestedDuringALoginToAnotherDatabaseEndsIt() throws Exception {
        FileCatalog cat = FileCatalog.create("survey_stop", dir.resolve("lake") + "/");
        AtomicBoolean stop = new AtomicBoolean();
        try (SilentPeer peer = SilentPeer.start(); Connection c = TestPostgres.get().connect()) {
            ConnectionSpec silent = ConnectionSpec.parse("postgresql://janitor@127.0.0.1:" + peer.port()
                    + "/lake?connect_timeout=60", Map.of(), null);
            ConsultOptions o = ConsultOptions.defaults().withConsultServer(false)
                    .withAlsoCatalogs(List.of(new ConnectionSpec.CatalogReference(silent, "lake")));
            CompletableFuture<ConsultedCatalogs> survey = CompletableFuture.supplyAsync(() -> {
                try {
                    return ConsultedCatalogs.find(c, cat.schema, CatalogFiles.resolver(c, cat.schema, null), o,
                            new RunRecorder(ProgressListener.NONE), stop::get);
                } catch (JanitorException | java.sql.SQLException e) {
                    throw new CompletionException(e);
                }
            });
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (peer.accepted().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(peer.accepted()).as("the survey is logging in to the other database").isNotEmpty();
            Thread.sleep(300);
            long t0 = System.nanoTime();
            stop.set(true);
            ConnectionSpec.abortStoppedConnects(); // what an operation's requestStop() does after setting its flag
            assertThatThrownBy(() -> survey.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOfSatisfying(JanitorException.class, e -> {
                        assertThat(e.reason()).isEqualTo(Reason.CONNECTION);
                        assertThat(ConnectionSpec.loginStopped(e)).as(e.getMessage()).isTrue();
                    });
            assertThat((System.nanoTime() - t0) / 1e9).as("seconds after the stop request").isLessThan(3);
        }
    }

    private static long sessionsOn(Connection c, String db) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE datname = ?")) {
            ps.setString(1, db);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
